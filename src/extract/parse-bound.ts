// The time bounds of parsing: one file's (its parse and then its tag query, in what the parse
// left), and a batch's on the pool, past which the batch's thread is stopped and its files tried
// alone (see PoolRunner.runBatch): the bound that holds whatever a thread is stuck in.

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
