import { type Tiktoken, get_encoding, type TiktokenEncoding } from 'tiktoken';
import { UserError } from '../errors.js';
import { DEFAULT_ENCODING } from '../request.js';

export { DEFAULT_ENCODING };

export const ENCODINGS: readonly TiktokenEncoding[] = ['cl100k_base', 'o200k_base', 'p50k_base', 'p50k_edit', 'r50k_base', 'gpt2'];

/** Whether tokenCounter knows `encoding`. */
export function isEncoding(encoding: string): boolean {
  return (ENCODINGS as readonly string[]).includes(encoding);
}

/** Counts tokens exactly. */
export type TokenCounter = (text: string) => number;

// get_encoding takes about 0.2 s: one encoder per encoding per process, created on first use.
const counters = new Map<string, TokenCounter>();

/** Distinct lines whose counts are kept per encoding; past this, the memo starts over. */
const MEMO_LIMIT = 100_000;

/**
 * An exact token counter for `encoding`, one per process. Every tiktoken encoding splits text into
 * pieces before merging bytes, and no piece runs from a newline into a following non-space
 * character (with two exceptions, see LINE_CUT): so a text's count is the sum of the counts of its
 * lines, and each distinct line is encoded once. Packing renders a map many
 * times and the daemon renders the same lines request after request; the encoder then sees each
 * line once. The test checks the sum against a whole-text encoding on every encoding.
 */
export function tokenCounter(encoding: string = DEFAULT_ENCODING): TokenCounter {
  let counter = counters.get(encoding);
  if (!counter) {
    if (!isEncoding(encoding)) {
      throw new UserError(`unknown token encoding '${encoding}' (known: ${ENCODINGS.join(', ')})`);
    }
    const encode = wholeTextCounter(get_encoding(encoding as TiktokenEncoding));
    const memo = new Map<string, number>();
    counter = (text) => {
      let total = 0;
      for (const line of text.split(LINE_CUT)) {
        let count = memo.get(line);
        if (count === undefined) {
          count = encode(line);
          if (memo.size >= MEMO_LIMIT) memo.clear();
          memo.set(line, count);
        }
        total += count;
      }
      return total;
    };
    counters.set(encoding, counter);
  }
  return counter;
}

/**
 * Where no tiktoken piece crosses: after a newline that follows a non-space (r50k's family splits a
 * longer run of spaces by what comes next), before a character that is neither a space nor '/'
 * (o200k's punctuation pieces take in the newlines and slashes that follow them).
 */
const LINE_CUT = /(?<=\S\n)(?=[^\s/])/;

/** Counts by encoding the whole text (what tokenCounter's sums must equal). */
export function wholeTextCounter(encoder: Tiktoken): TokenCounter {
  // Special-token text in source (such as "<|endoftext|>") is counted as ordinary text.
  return (text) => encoder.encode(text, [], []).length;
}
