// The time bounds of parsing: one file's (its parse and then its tag query, in what the parse
// left); a batch's on the pool, past which the batch's thread is stopped and its files tried
// alone (see PoolRunner.runBatch): the bound that holds whatever a thread is stuck in; and a
// file's in an extraction child process (see process-pool.ts), past which the child is killed.

/** Default bound on one file's parse and tag query. */
export const DEFAULT_PARSE_TIMEOUT_MS = 10_000;
/** What a batch may take beyond its files' bounds: reading and storing them, a grammar's first load. */
const BATCH_MARGIN_MS = 30_000;
/** Tasks a pool thread runs interleaved (see startPool): a batch's files may wait on the other's. */
export const TASKS_PER_THREAD = 2;

/** A batch of `files` files' bound, in milliseconds; undefined when parses are unbounded (a parse timeout of 0). */
export function batchBoundMs(files: number, parseTimeoutMs = DEFAULT_PARSE_TIMEOUT_MS): number | undefined {
  return parseTimeoutMs > 0 ? TASKS_PER_THREAD * files * parseTimeoutMs + BATCH_MARGIN_MS : undefined;
}

/** What a file may take in a child process beyond its parse bound: its read, its result's trip back. */
const FILE_MARGIN_MS = 5_000;
/** What a child may take to start and load the languages of a batch: Node, a grammar, a query (the check bounds each at 15 s). */
const START_MS = 20_000;

/** The bounds in an extraction child process: its start and languages' load for a batch, and then each file. */
export interface FileBounds {
  startMs: number;
  fileMs: number;
}

/** A child process's bounds; undefined when parses are unbounded. `testFileMs` (tests only) is a file's. */
export function fileBounds(parseTimeoutMs = DEFAULT_PARSE_TIMEOUT_MS, testFileMs?: number): FileBounds | undefined {
  if (testFileMs !== undefined) return { startMs: START_MS, fileMs: testFileMs };
  return parseTimeoutMs > 0 ? { startMs: START_MS, fileMs: parseTimeoutMs + FILE_MARGIN_MS } : undefined;
}
