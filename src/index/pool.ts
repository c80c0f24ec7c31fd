import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { type FileJob, type FileResult, type IndexFileOptions, failedResult, indexFileSafely } from '../extract/file.js';
import type { BatchTask } from '../../workers/extract-worker.js';

/** Batches keep message passing small next to parsing: up to this many files ... */
const BATCH_FILES = 64;
/** ... or this many bytes of source. */
const BATCH_BYTES = 1024 * 1024;

/** Parses files, in this thread or on a pool; results come back in the order of the jobs. */
export interface ParseRunner {
  run(root: string, jobs: readonly FileJob[], options: IndexFileOptions, onDone?: (files: number) => void): Promise<FileResult[]>;
  close(): Promise<void>;
}

export function defaultWorkerCount(): number {
  return Math.max(1, availableParallelism());
}

/** One worker: parse in this thread, no pool. */
export function createRunner(workers: number): ParseRunner {
  return workers <= 1 ? new InProcessRunner() : new PoolRunner(workers);
}

class InProcessRunner implements ParseRunner {
  async run(root: string, jobs: readonly FileJob[], options: IndexFileOptions, onDone?: (files: number) => void) {
    const results: FileResult[] = [];
    for (const job of jobs) {
      results.push(await indexFileSafely(root, job, options));
      onDone?.(1);
    }
    return results;
  }

  async close() {}
}

/**
 * A Piscina pool of extraction workers, fed batches. A batch whose worker dies is retried file
 * by file on a fresh worker; a file that kills a worker twice is recorded as failed.
 */
class PoolRunner implements ParseRunner {
  private started: Piscina<BatchTask, FileResult[]> | undefined;

  constructor(private readonly threads: number) {}

  /** Threads start on the first work: a warm run with nothing to parse starts none. */
  private get pool(): Piscina<BatchTask, FileResult[]> {
    this.started ??= new Piscina<BatchTask, FileResult[]>({
      filename: new URL('../../workers/extract-worker.js', import.meta.url).href,
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: 30_000,
    });
    return this.started;
  }

  async run(root: string, jobs: readonly FileJob[], options: IndexFileOptions, onDone?: (files: number) => void) {
    if (jobs.length === 0) return [];
    const results = new Array<FileResult>(jobs.length);
    const pending: Promise<void>[] = [];
    for (const [start, end] of batches(jobs)) {
      const batch = jobs.slice(start, end);
      pending.push(
        this.runBatch(root, batch, options).then((batchResults) => {
          for (let i = 0; i < batchResults.length; i++) results[start + i] = batchResults[i];
          onDone?.(batch.length);
        }),
      );
    }
    await Promise.all(pending);
    return results;
  }

  private async runBatch(root: string, jobs: FileJob[], options: IndexFileOptions): Promise<FileResult[]> {
    try {
      return await this.pool.run({ root, jobs, options });
    } catch {
      if (jobs.length === 1) return [failedResult(jobs[0], 'a worker died parsing it')];
      // Retry alone each file of the batch, so one poisonous file cannot sink the others.
      return Promise.all(
        jobs.map((job) =>
          this.pool.run({ root, jobs: [job], options }).then(
            (single) => single[0],
            (err: unknown) => failedResult(job, `a worker died parsing it (${err instanceof Error ? err.message : String(err)})`),
          ),
        ),
      );
    }
  }

  async close() {
    await this.started?.destroy();
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
