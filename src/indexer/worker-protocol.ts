// The message between the indexer's pool and its worker threads (workers/extract-worker.ts):
// one batch of files to parse, answered with one FileResult per file.
import type { FileJob, IndexFileOptions } from '../extract/file.js';

export interface BatchTask {
  root: string;
  jobs: FileJob[];
  options: IndexFileOptions;
  /** Language ids whose grammars and queries to load before the jobs (a pool warming up; with tagsTo, its store's writes too). */
  preload?: string[];
  /** The cache directory whose tag store takes the tags: the results come back without them. */
  tagsTo?: string;
  /** Tests only (see RunnerOptions.exitOn): the worker dies on a batch with a path containing this. */
  exitOn?: string;
  /** Tests only (see RunnerOptions.hangOn): the worker spins forever on a batch with a path containing this. */
  hangOn?: string;
}
