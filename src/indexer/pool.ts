import { availableParallelism } from 'node:os';
import type { FileJob, FileResult, IndexFileOptions } from '../extract/file.js';
import { type LanguageSet, languagesOf } from '../extract/languages.js';
import { languageSet } from '../extract/user-languages.js';
import { TASKS_PER_THREAD, batchBoundMs, fileBounds } from '../extract/parse-bound.js';
import type { BatchTask } from './worker-protocol.js';
import type { TagStore } from '../store/store.js';
import { ProcessPool } from './process-pool.js';
import { BatchTimeout, ThreadPool } from './thread-pool.js';
import { storeTags } from './tag-writer.js';
import { errorMessage } from '../errors.js';

/** Batches queued per thread beyond the one it parses: enough that no worker waits on the main thread. */
const BATCHES_AHEAD_PER_THREAD = 4;
/** Batches keep message passing small next to parsing: up to this many files ... */
const BATCH_FILES = 32;
/** ... or this many bytes of source. */
const BATCH_BYTES = 1024 * 1024;

/** Receives `results` of the jobs from index `start` on; calls come in job order, without gaps. */
export type ResultSink = (start: number, results: readonly FileResult[]) => void;

/** Jobs in chunks, in order: a caller may hand over the first while it is still finding the rest. */
export type JobChunks = Iterable<readonly FileJob[]> | AsyncIterable<readonly FileJob[]>;

/** Parses files, in this thread or on a pool. */
export interface ParseRunner {
  /**
   * Parses the jobs (chunks of them, numbered as one list) and hands their results to `onResults`
   * as they are ready, in job order, so the caller stores and takes them while the workers go on
   * (nothing waits on a whole chunk). With `tagsTo`, the parsed files' tags are written to that
   * store where they are parsed, and the results come without them.
   */
  stream(root: string, jobs: JobChunks, options: IndexFileOptions, onResults: ResultSink, tagsTo?: TagStore): Promise<void>;
  /**
   * Starts the threads and loads the languages of these paths in each, so that a first parse does
   * not wait for them; with no paths, only starts the threads. With `tagsTo`, each thread also
   * readies its writes to that store (see TagStore.warmWrites), for a first save's commit.
   */
  warmUp(paths: readonly string[], tagsTo?: TagStore): Promise<void>;
  close(): Promise<void>;
}

/** Every result at once, in job order (for small sets of jobs). */
export async function parseAll(runner: ParseRunner, root: string, jobs: readonly FileJob[], options: IndexFileOptions): Promise<FileResult[]> {
  const all: FileResult[] = [];
  await runner.stream(root, [jobs], options, (_, results) => all.push(...results));
  return all;
}

export function defaultWorkerCount(): number {
  return Math.max(1, availableParallelism());
}

/**
 * The parse threads asked for `workers` get: at most the cores available (a config's `workers`, a
 * flag, an option alike). More would only contend, each holding its parsers and buffers: a
 * repository's `"workers": 1000000` would start threads until memory ran out.
 */
export function boundedWorkerCount(workers: number): number {
  return Math.min(workers, defaultWorkerCount());
}

/** The notice of a `workers` above the cores available (see boundedWorkerCount); undefined when within them. */
export function workersNotice(workers: number | undefined): string | undefined {
  const cores = defaultWorkerCount();
  return workers !== undefined && workers > cores ? `repomap: workers: ${workers} is more than the ${cores} cores available; using ${cores}` : undefined;
}

export interface RunnerOptions {
  /** A one-worker runner's files parsed in this thread before one thread takes the rest (IN_THREAD_FILES). */
  inThreadFiles?: number;
  /**
   * Tests only, for a pool: a worker that meets a path containing this text dies, as a worker hit
   * by a native crash or an out-of-memory abort would.
   */
  exitOn?: string;
  /** Tests only, for a pool: a worker that meets a path containing this text spins, as one stuck in a query would. */
  stallOn?: string;
  /** Tests only, for a pool: every batch's bound, instead of batchBoundMs's, and a file's in a child process (see fileBounds). */
  batchBoundMs?: number;
}

/**
 * Files a one-worker pass parses in this thread before it hands the rest to one parse thread.
 * Small passes (a save, a small repository) start no thread. A large one parses on the thread:
 * parsing's garbage and tree-sitter's native memory, collected every few MB, would otherwise grow
 * the heap of the thread that holds the graph, and each collection there scans that whole heap.
 */
const IN_THREAD_FILES = 1000;

/** One worker: a runner that parses in this thread, then on one thread past IN_THREAD_FILES; more: a pool. */
export function createRunner(workers: number, options: RunnerOptions = {}): ParseRunner {
  const threads = boundedWorkerCount(workers);
  return threads <= 1 ? new OneWorkerRunner(options) : new PoolRunner(threads, options);
}

/**
 * The extraction (tree-sitter and its grammars) and Piscina are loaded when first needed: a thread
 * that never parses, such as a daemon's main thread with a pool, or any warm start, does not pay
 * for loading them.
 */
const extraction = () => import('../extract/file.js');

class OneWorkerRunner implements ParseRunner {
  private thread: PoolRunner | undefined;

  constructor(private readonly options: RunnerOptions) {}

  async stream(root: string, chunks: JobChunks, options: IndexFileOptions, onResults: ResultSink, tagsTo?: TagStore) {
    const { indexFiles } = await extraction();
    const iterator = Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : chunks[Symbol.iterator]();
    // A repository's own languages parse in child processes (see PoolRunner), so a pass that has
    // any goes to the pool runner from the first file.
    const inThread = languageSet(options.languages).hasRepositoryOwn ? 0 : (this.options.inThreadFiles ?? IN_THREAD_FILES);
    let from = 0;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const start = from;
      const here = next.value.slice(0, inThread - from);
      await indexFiles(root, here, options, (i, result) => {
        if (tagsTo) storeTags([result], tagsTo);
        onResults(start + i, [result]);
      });
      from += here.length;
      if (from < inThread) continue;
      // The rest of this chunk and the chunks after it, numbered on from here, on one thread.
      const rest = next.value.slice(here.length);
      const chunksLeft = async function* () {
        if (rest.length > 0) yield rest;
        for (let later = await iterator.next(); !later.done; later = await iterator.next()) yield later.value;
      };
      this.thread ??= new PoolRunner(1, this.options);
      await this.thread.stream(root, chunksLeft(), options, (offset, results) => onResults(from + offset, results), tagsTo);
      return;
    }
  }

  async warmUp() {
    // Grammars load on first use in this thread, and the thread starts only for a large pass.
  }

  async close() {
    await this.thread?.close();
  }
}

/**
 * Extraction workers fed batches: the languages repomap ships on a pool of threads, a repository's
 * own languages (see LanguageSet.isRepositoryOwn) on child processes, which charge a death or a
 * stall to the file it happened on (see process-pool.ts); a batch with both is split between them.
 * A batch whose thread dies, or runs past its bound (batchBoundMs, counted from when the thread
 * starts it: the thread is then stopped), is retried file by file on a quarantine thread that runs
 * one task at a time, so a death or a stall there is the file's own: a file that kills that thread
 * on both of its tries is recorded as failed, one that runs past its bound alone as 'query timed
 * out' (parsing has its own bound, so what runs on is a query: its predicates, or a stuck thread).
 */
class PoolRunner implements ParseRunner {
  /** The shared threads. A second task waits in the worker itself, so it starts without a round trip through a busy main thread. */
  private readonly shared: ThreadPool;
  /**
   * One thread, one task at a time, started on the first retry: a task that dies on the shared
   * pool takes down every task queued in its worker with it (the other batch's files, or another
   * file's retry), so only here is a death the file's own.
   */
  private readonly quarantine = new ThreadPool(1, 1);
  /** Child processes, one batch each at a time: a death or a kill there is already the batch's own. */
  private readonly sandbox: ProcessPool;
  /** Tasks not yet settled: closing waits for them (a thread stopped inside native tree-sitter code aborts the whole process). */
  private readonly inFlight = new Set<Promise<FileResult[]>>();

  constructor(
    private readonly threads: number,
    private readonly options: RunnerOptions,
  ) {
    this.shared = new ThreadPool(threads, TASKS_PER_THREAD);
    this.sandbox = new ProcessPool(threads);
  }

  stream(root: string, chunks: JobChunks, options: IndexFileOptions, onResults: ResultSink, tagsTo?: TagStore): Promise<void> {
    const languages = languageSet(options.languages);
    const jobs: FileJob[] = [];
    const ranges: Array<[number, number]> = [];
    // Results of batches that finished ahead of an earlier one wait here, so delivery keeps job
    // order (and the graph its insertion order: maps stay byte-identical across worker counts).
    const finished: Array<FileResult[] | undefined> = [];
    const window = this.threads * BATCHES_AHEAD_PER_THREAD;
    let submitted = 0;
    let delivered = 0;
    let allChunks = false;
    let failed = false;
    // The next chunk is asked for only when the batches known fill no more than the window: what
    // the caller hands out later (files a request wants) then reaches the threads after at most a
    // window of batches, not after every chunk it could have handed out before.
    let wantChunks: (() => void) | undefined;
    return new Promise<void>((resolve, reject) => {
      const fail = (err: unknown) => {
        failed = true; // stop submitting; batches in flight are dropped
        wantChunks?.();
        reject(err);
      };
      const pump = () => {
        if (failed) return;
        try {
          while (delivered < ranges.length && finished[delivered]) {
            const results = finished[delivered]!;
            finished[delivered] = undefined;
            onResults(ranges[delivered][0], results);
            delivered++;
          }
        } catch (err) {
          return fail(err);
        }
        if (allChunks && delivered === ranges.length) return resolve();
        while (submitted < ranges.length && submitted - delivered < window) {
          const i = submitted++;
          const [start, end] = ranges[i];
          this.runBatch({ root, jobs: jobs.slice(start, end), options }, languages, tagsTo).then((results) => {
            finished[i] = results;
            pump();
          }, fail);
        }
        if (ranges.length - delivered < window) wantChunks?.();
      };
      (async () => {
        for await (const chunk of chunks) {
          if (failed) return;
          const from = jobs.length;
          for (const job of chunk) jobs.push(job);
          for (const [start, end] of batches(chunk)) ranges.push([from + start, from + end]);
          pump();
          while (!failed && ranges.length - delivered >= window) await new Promise<void>((resume) => (wantChunks = resume));
          wantChunks = undefined;
        }
        allChunks = true;
        pump();
      })().catch(fail);
    });
  }

  /**
   * One empty task per thread carrying the languages (an idle thread takes a task first, so each
   * gets one). Only the languages with a batch of files or more: a rarer one may reach one thread
   * only, which loads it then (compiling a tag query is costly, and a large repository often has
   * languages of one or two files each, not worth compiling in every thread).
   */
  async warmUp(paths: readonly string[], tagsTo?: TagStore): Promise<void> {
    const preload = languagesOf(paths, BATCH_FILES);
    const options = { maxFileBytes: 0 };
    await Promise.all(Array.from({ length: this.threads }, () => this.run(this.shared, { root: '', jobs: [], options, preload, tagsTo: tagsTo?.dir })));
  }

  /** Runs a task on a pool of threads (see ThreadPool.run), the test hooks added. */
  private run(pool: ThreadPool, task: BatchTask, boundMs?: number): Promise<FileResult[]> {
    return this.track(pool.run(this.withTestHooks(task), boundMs));
  }

  private withTestHooks(task: BatchTask): BatchTask {
    const { exitOn, stallOn } = this.options;
    return { ...task, ...(exitOn !== undefined ? { exitOn } : {}), ...(stallOn !== undefined ? { stallOn } : {}) };
  }

  /** Keeps a task in inFlight until it settles. */
  private track(running: Promise<FileResult[]>): Promise<FileResult[]> {
    this.inFlight.add(running);
    const settled = () => this.inFlight.delete(running);
    running.then(settled, settled);
    return running;
  }

  /** A batch of `files` files' bound (see batchBoundMs). */
  private boundOf(files: number, options: IndexFileOptions): number | undefined {
    return this.options.batchBoundMs ?? batchBoundMs(files, options.parseTimeoutMs);
  }

  /** A batch's results in job order: its files of a repository's own languages parsed on the child processes, the others on the threads. */
  private async runBatch(batch: BatchTask, languages: LanguageSet, tagsTo: TagStore | undefined): Promise<FileResult[]> {
    const own = batch.jobs.map((job) => languages.isRepositoryOwn(job.path));
    if (!own.includes(true)) return this.runOnThreads({ ...batch, tagsTo: tagsTo?.dir });
    // A child writes to no store: the tags its results carry are written here.
    const bounds = fileBounds(batch.options.parseTimeoutMs, this.options.batchBoundMs);
    const ownResults = this.track(this.sandbox.run({ ...this.withTestHooks(batch), jobs: batch.jobs.filter((_, i) => own[i]) }, bounds)).then((results) => {
      if (tagsTo) storeTags(results, tagsTo);
      return results;
    });
    if (!own.includes(false)) return ownResults;
    const [fromProcesses, fromThreads] = await Promise.all([ownResults, this.runOnThreads({ ...batch, jobs: batch.jobs.filter((_, i) => !own[i]), tagsTo: tagsTo?.dir })]);
    let p = 0;
    let t = 0;
    return own.map((isOwn) => (isOwn ? fromProcesses[p++] : fromThreads[t++]));
  }

  /**
   * A batch on the shared threads; if it fails, each of its files alone on the quarantine thread,
   * so one poisonous file cannot sink the others. A second try there spares a file a death that
   * was not its own (a thread's out-of-memory); a file that runs past its bound alone has had its time.
   */
  private async runOnThreads(batch: BatchTask): Promise<FileResult[]> {
    try {
      return await this.run(this.shared, batch, this.boundOf(batch.jobs.length, batch.options));
    } catch {
      // retried below, file by file
    }
    const { failedResult } = await extraction();
    const results: FileResult[] = [];
    for (const job of batch.jobs) {
      let result: FileResult | undefined;
      let reason = '';
      for (let attempt = 0; attempt < 2 && !result; attempt++) {
        result = await this.run(this.quarantine, { ...batch, jobs: [job] }, this.boundOf(1, batch.options)).then(
          (single) => single[0],
          (err: unknown) => {
            if (err instanceof BatchTimeout) return failedResult(job, err.message, 'query timed out');
            reason = errorMessage(err);
            return undefined;
          },
        );
      }
      results.push(result ?? failedResult(job, `a worker died parsing it (${reason})`));
    }
    return results;
  }

  async close() {
    // The children first: killing them settles their batches, where a thread's must be waited for.
    await this.sandbox.close();
    await Promise.allSettled([...this.inFlight]);
    await Promise.all([this.shared.close(), this.quarantine.close()]);
  }
}

/** [start, end) ranges of consecutive jobs, bounded by count and bytes. */
function* batches(jobs: readonly FileJob[]): Generator<[number, number]> {
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < jobs.length; i++) {
    bytes += jobs[i].stat.size;
    if (i + 1 - start >= BATCH_FILES || bytes >= BATCH_BYTES) {
      yield [start, i + 1];
      start = i + 1;
      bytes = 0;
    }
  }
  if (start < jobs.length) yield [start, jobs.length];
}
