// What the indexer's runner asks of a pool of extraction workers, threads or child processes alike:
// run one batch, optionally bounded in time, and say why it failed.
import type { FileResult } from '../extract/file.js';
import type { BatchTask } from './worker-protocol.js';

export interface TaskPool {
  /**
   * Runs a batch. With `boundMs`, the worker running it is stopped once the batch has run that
   * long (counted from when the worker starts it), and the promise rejects with BatchTimeout; a
   * worker that dies rejects it with another error.
   */
  run(task: BatchTask, boundMs?: number): Promise<FileResult[]>;
  /** Stops the workers; batches still running reject. */
  close(): Promise<void>;
}

/** A batch stopped for running past its bound (see batchBoundMs): its worker was stopped. */
export class BatchTimeout extends Error {
  override name = 'BatchTimeout';
}
