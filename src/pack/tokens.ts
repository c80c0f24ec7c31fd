import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { Tiktoken, TiktokenEncoding } from 'tiktoken';
import type { TokenReply, TokenRequest, TokenWorkerData } from './token-protocol.js';
import { badRequest } from '../errors.js';
import { DEFAULT_ENCODING, ENCODINGS } from '../api/request.js';

export { DEFAULT_ENCODING, ENCODINGS };

/** Whether tokenCounter knows `encoding`. */
export function isEncoding(encoding: string): boolean {
  return (ENCODINGS as readonly string[]).includes(encoding);
}

/** Counts tokens exactly. */
export type TokenCounter = (text: string) => number;

export interface TokenCounterOptions {
  /**
   * Tests only, applied when the counter is made: its thread sets the signal before it posts each
   * answer, the order in which a caller may see them anyway (a message crosses threads on its own
   * schedule), every time rather than now and then.
   */
  signalEarly?: boolean;
}

/** A counter, and where it has its lines encoded: its thread's encoder, or this thread's (see loadTokenizerHere). */
interface Counter {
  count: TokenCounter;
  encodeLines: (lines: string[]) => number[];
  stopThread?: () => Promise<number>;
}

// One counter per encoding per process, created on first use.
const counters = new Map<string, Counter>();

/** Distinct lines whose counts are kept per encoding; past this, the memo starts over. */
const MEMO_LIMIT = 100_000;

/**
 * An exact token counter for `encoding`, one per process. Every tiktoken encoding splits text into
 * pieces before merging bytes, and no piece runs from a newline into a following non-space
 * character (with two exceptions, see LINE_CUT): so a text's count is the sum of the counts of its
 * lines, and each distinct line is encoded once. Packing renders a map many
 * times and the daemon renders the same lines request after request; the encoder then sees each
 * line once. The test checks the sum against a whole-text encoding on every encoding.
 *
 * The encoder lives in a thread of its own, which starts loading it when the counter is created
 * (loading is slow; a start does other work meanwhile, see startTokenizer). A count waits
 * for the thread's answer (one round trip per call, for the lines not counted yet), until
 * loadTokenizerHere moves the encoder into this thread.
 */
export function tokenCounter(encoding: string = DEFAULT_ENCODING, options: TokenCounterOptions = {}): TokenCounter {
  let counter = counters.get(encoding);
  if (!counter) {
    if (!isEncoding(encoding)) {
      throw badRequest(`unknown token encoding '${encoding}' (known: ${ENCODINGS.join(', ')})`);
    }
    const { encodeLines, stop } = tokenThread(encoding as TiktokenEncoding, options);
    const memo = new Map<string, number>();
    const count: TokenCounter = (text) => {
      let total = 0;
      const unknown: string[] = [];
      for (const line of text.split(LINE_CUT)) {
        const count = memo.get(line);
        if (count === undefined) unknown.push(line);
        else total += count;
      }
      if (unknown.length === 0) return total;
      const distinct = [...new Set(unknown)];
      const counts = counter!.encodeLines(distinct);
      if (memo.size + distinct.length > MEMO_LIMIT) memo.clear();
      for (let i = 0; i < distinct.length; i++) memo.set(distinct[i], counts[i]);
      for (const line of unknown) total += memo.get(line)!;
      return total;
    };
    counter = { count, encodeLines, stopThread: stop };
    counters.set(encoding, counter);
  }
  return counter.count;
}

/**
 * Loads the tokenizer of `encoding` in this thread, if a counter for it counts in its own thread,
 * and stops that thread: a count is then a call rather than a round trip, which every map request
 * of a daemon pays many times. Loading holds this thread for a while: a daemon does it once, after
 * its first map, when it has linked the files' names.
 */
export async function loadTokenizerHere(encoding: string = DEFAULT_ENCODING): Promise<void> {
  const counter = counters.get(encoding);
  if (!counter?.stopThread) return;
  const { get_encoding } = await import('tiktoken');
  const encode = wholeTextCounter(get_encoding(encoding as TiktokenEncoding));
  counter.encodeLines = (lines) => lines.map(encode);
  const stop = counter.stopThread;
  counter.stopThread = undefined;
  await stop();
}

/**
 * Starts loading the tokenizer of `encoding` (if it is one: a bad one is reported where it is used)
 * in its thread. A start calls this once the files are stat'ed and their records read: loading
 * then overlaps reading the graph and ranking, which come before the first count; started with
 * the listing, it would compete for the cores with the stat and the reads, which a start waits on.
 */
export function startTokenizer(encoding: string = DEFAULT_ENCODING): void {
  if (isEncoding(encoding)) tokenCounter(encoding);
}

/** How long a count waits for the tokenizer thread before it gives up (loading takes under a second). */
const TOKEN_THREAD_TIMEOUT_MS = 60_000;
/** Looks at the port for an answer signalled but not there yet, before napping a millisecond between looks. */
const SPINS_FOR_MESSAGE = 10_000;

/** Starts a tokenizer thread for `encoding`: counts lines there (waiting for the answer), and stops it. */
function tokenThread(encoding: TiktokenEncoding, options: TokenCounterOptions): { encodeLines: (lines: string[]) => number[]; stop: () => Promise<number> } {
  const { port1, port2 } = new MessageChannel();
  // [0]: the number of the last request answered (see TokenWorkerData.signal).
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const data: TokenWorkerData = { encoding, port: port2, signal, ...(options.signalEarly ? { signalEarly: true } : {}) };
  const worker = new Worker(new URL('../../workers/token-worker.js', import.meta.url), { workerData: data, transferList: [port2] });
  // The thread neither keeps the process alive nor outlives it.
  worker.unref();
  port1.unref();
  let exited: string | undefined;
  worker.on('error', (err: Error) => (exited = err.message));
  worker.on('exit', (code) => (exited ??= `exit code ${code}`));
  let sent = 0;
  /**
   * The answer to request `seq`. The signal says the thread has posted it, but a message crosses
   * threads on its own schedule: it may not be on this port yet when the signal is seen. So the
   * wait goes on, in short naps, until the message is there; an answer to an earlier request (one
   * that gave up waiting) is dropped. Only the deadline ends the wait without an answer.
   */
  const awaitReply = (seq: number): TokenReply => {
    const deadline = Date.now() + TOKEN_THREAD_TIMEOUT_MS;
    for (let tries = 0; ; tries++) {
      const answered = Atomics.load(signal, 0);
      if (((answered - seq) | 0) >= 0) {
        const reply = receiveMessageOnPort(port1 as MessagePort)?.message as TokenReply | undefined;
        if (reply?.seq === seq) return reply;
        if (reply) continue; // a late answer to a request that gave up
        if (tries < SPINS_FOR_MESSAGE) continue; // it is on its way: microseconds, as a rule
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the tokenizer thread did not answer in ${TOKEN_THREAD_TIMEOUT_MS / 1000} s`);
      if (exited) throw new Error(`the tokenizer thread stopped (${exited})`);
      // Until the signal moves past what it was; once it has, a nap while the message crosses.
      Atomics.wait(signal, 0, answered, ((answered - seq) | 0) >= 0 ? 1 : Math.min(left, 1000));
    }
  };
  const encodeLines = (lines: string[]): number[] => {
    if (exited) throw new Error(`the tokenizer thread stopped (${exited})`);
    const seq = (sent = (sent + 1) | 0);
    port1.postMessage({ seq, lines } satisfies TokenRequest);
    const reply = awaitReply(seq);
    if ('error' in reply) throw new Error(reply.error);
    return reply.counts;
  };
  const stop = () => {
    port1.close();
    return worker.terminate();
  };
  return { encodeLines, stop };
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
