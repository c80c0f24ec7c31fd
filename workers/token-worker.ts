// The tokenizer thread: loads one tiktoken encoding (half a second of the main thread's start
// otherwise) and counts the tokens of the lines it is sent, answering on the port and then
// waking the caller, which waits on the shared signal (see src/pack/tokens.ts).
import { type MessagePort, workerData } from 'node:worker_threads';
import { get_encoding, type TiktokenEncoding } from 'tiktoken';
import { type TokenCounter, wholeTextCounter } from '../src/pack/tokens.js';

export interface TokenWorkerData {
  encoding: TiktokenEncoding;
  port: MessagePort;
  /** Set to 1 (and notified) once an answer is on the port. */
  signal: Int32Array;
}

/** What the thread answers a batch of lines with. */
export type TokenReply = { counts: number[] } | { error: string };

const { encoding, port, signal } = workerData as TokenWorkerData;
let count: TokenCounter | undefined;
let failure: string | undefined;
try {
  count = wholeTextCounter(get_encoding(encoding));
} catch (err) {
  failure = `could not load the ${encoding} tokenizer: ${err instanceof Error ? err.message : String(err)}`;
}

port.on('message', (lines: string[]) => {
  let reply: TokenReply;
  try {
    reply = count ? { counts: lines.map(count) } : { error: failure! };
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
