// A Piscina pool of extraction threads (workers/extract-worker.ts), for the languages repomap ships
// and the grammars a user allowed. A bounded batch's thread is terminated past its bound.
import type { Piscina } from 'piscina';
import type { FileResult } from '../extract/file.js';
import type { BatchTask } from './worker-protocol.js';

type ExtractPool = Piscina<BatchTask, FileResult[]>;

/**
 * Piscina's threads load the worker module with require() first, and Node (20.19 on) then loads an
 * ES module synchronously: with several processes starting threads at once, that aborted the
 * process now and then (`v8::Module::IsGraphAsync must be used on an instantiated module`). Without
 * require of ES modules, the require fails and Piscina import()s the module, as it does on older
 * Node. The parent's own options are not passed on: V8 options are the process's anyway.
 */
const WORKER_EXEC_ARGV = process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module') ? { execArgv: ['--no-experimental-require-module'] } : {};

/** A Piscina pool of the extraction worker; `onStarted` hears each task that says it started (see BatchTask.startedId). */
function startPool(threads: number, tasksPerThread: number, onStarted: (id: number) => void): Promise<ExtractPool> {
  return import('piscina').then(({ Piscina }) => {
    const pool = new Piscina<BatchTask, FileResult[]>({
      filename: new URL('../../workers/extract-worker.js', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      concurrentTasksPerWorker: tasksPerThread,
      idleTimeout: 30_000,
      ...WORKER_EXEC_ARGV,
    });
    pool.on('message', (message: unknown) => {
      const id = (message as { batchStarted?: unknown } | null)?.batchStarted;
      if (typeof id === 'number') onStarted(id);
    });
    return pool;
  });
}

/** `threads` threads running up to `tasksPerThread` batches each; started on the first batch. */
/** A batch stopped for running past its bound (see batchBoundMs): its thread was terminated. */
export class BatchTimeout extends Error {
  override name = 'BatchTimeout';
}

export class ThreadPool {
  private started: Promise<ExtractPool> | undefined;
  /** Bounded tasks not started yet, by id: each starts its timer when its worker says it started. */
  private readonly starting = new Map<number, () => void>();
  private lastTaskId = 0;

  constructor(
    private readonly threads: number,
    private readonly tasksPerThread: number,
  ) {}

  private pool(): Promise<ExtractPool> {
    return (this.started ??= startPool(this.threads, this.tasksPerThread, (id) => this.starting.get(id)?.()));
  }

  /**
   * Runs a batch. With `boundMs`, its thread is terminated once the batch has run that long
   * (counted from when the thread starts it), and the promise rejects with BatchTimeout; a thread
   * that dies rejects it with another error.
   */
  run(task: BatchTask, boundMs?: number): Promise<FileResult[]> {
    if (boundMs === undefined) return this.pool().then((pool) => pool.run(task));
    const id = ++this.lastTaskId;
    const stop = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    this.starting.set(id, () => (timer = setTimeout(() => stop.abort(), boundMs)));
    return this.pool()
      .then((pool) => pool.run({ ...task, startedId: id }, { signal: stop.signal }))
      .catch((err: unknown) => {
        throw stop.signal.aborted ? new BatchTimeout(`its thread ran past the batch's bound of ${boundMs} ms and was stopped`) : err;
      })
      .finally(() => {
        clearTimeout(timer);
        this.starting.delete(id);
      });
  }

  /** Stops the threads; batches still running reject. */
  async close(): Promise<void> {
    await (await this.started)?.destroy();
  }
}
