import { type Tiktoken, get_encoding, type TiktokenEncoding } from 'tiktoken';
import { UserError } from '../errors.js';
import { DEFAULT_ENCODING } from '../request.js';

export { DEFAULT_ENCODING };

export const ENCODINGS: readonly TiktokenEncoding[] = ['cl100k_base', 'o200k_base', 'p50k_base', 'p50k_edit', 'r50k_base', 'gpt2'];

/** Counts tokens exactly. */
export type TokenCounter = (text: string) => number;

// get_encoding takes about 0.2 s: one encoder per encoding per process, created on first use.
const encoders = new Map<string, Tiktoken>();

export function tokenCounter(encoding: string = DEFAULT_ENCODING): TokenCounter {
  let encoder = encoders.get(encoding);
  if (!encoder) {
    if (!(ENCODINGS as readonly string[]).includes(encoding)) {
      throw new UserError(`unknown token encoding '${encoding}' (known: ${ENCODINGS.join(', ')})`);
    }
    encoder = get_encoding(encoding as TiktokenEncoding);
    encoders.set(encoding, encoder);
  }
  const ready = encoder;
  // Special-token text in source (such as "<|endoftext|>") is counted as ordinary text.
  return (text) => ready.encode(text, [], []).length;
}
