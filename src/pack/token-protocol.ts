// The messages between the token counter (tokens.ts) and its tokenizer thread
// (workers/token-worker.ts).
import type { MessagePort } from 'node:worker_threads';
import type { TiktokenEncoding } from 'tiktoken';

export interface TokenWorkerData {
  encoding: TiktokenEncoding;
  port: MessagePort;
  /** [0]: the number of the last request answered, set (and notified) once its answer is posted. */
  signal: Int32Array;
  /** Tests only (see TokenCounterOptions.signalEarly). */
  signalEarly?: boolean;
}

/** A batch of lines to count, numbered so that its answer is known by its number. */
export interface TokenRequest {
  seq: number;
  lines: string[];
}

/** What the thread answers a batch of lines with. */
export type TokenReply = { seq: number } & ({ counts: number[] } | { error: string });
