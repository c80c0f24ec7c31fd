// Test-only hooks, and the one place their variables are read. Tests run repomapd, `repomap mcp`
// and `repomap map` as child processes, so those entries read these variables from their
// environment once at startup and pass them on as options; no module reads them when it loads, and
// production never sets them.
//   REPOMAP_TEST_SWEEP_MS        how often unwatchable paths are swept (DaemonTimings.sweepMs)
//   REPOMAP_TEST_GRAPH_SAVE_MS   the quiet spell before the related graph is saved (graphSaveDelayMs)
//   REPOMAP_TEST_BACKGROUND_MS   the wait for a first map before the warm-up starts (backgroundAfterMs)
//   REPOMAP_TEST_WATCH_DELAY_MS  the watcher started this much later (watchDelayMs)
//   REPOMAP_TEST_HOLD_CHECK_MS   how often the daemon checks its socket and its root are still there (holdCheckMs)
//   REPOMAP_TEST_UNWATCHABLE     paths containing this text cannot be watched (RepoWatcherOptions.unwatchable)
//   REPOMAP_TEST_RELEASE_FROM_BYTES  the daemon's store lets go of its map from this size on (DaemonOptions.releasePagesFromBytes)
//   REPOMAP_TEST_PUBLISH_RELEASE_EVERY  the daemon's publishing lets go of the store's map every this many copies (ExtractSettings.publishReleaseEvery)
//   REPOMAP_TEST_LINK_RELEASE_EVERY  the daemon's warm-up lets go of the store's map every this many files' names read (DaemonOptions.linkReleaseEvery)
//   REPOMAP_TEST_REQUEST_RELEASE_READS  once warm, the daemon's store lets go of its map after requests read this many values (DaemonOptions.requestReleaseReads)
//   REPOMAP_TEST_MCP_WAIT_MS     the MCP server's wait for the index (McpServerOptions.indexWaitMs)
//   REPOMAP_TEST_WORKER_EXIT_ON  `repomap map`'s and the daemon's parse workers die on a path containing this text (RunnerOptions.exitOn)
//   REPOMAP_TEST_WORKER_STALL_ON `repomap map`'s and the daemon's parse workers spin on a path containing this text (RunnerOptions.stallOn)
//   REPOMAP_TEST_BATCH_BOUND_MS  `repomap map`'s and the daemon's pool stops a batch's thread, or a child process on a file, after this long (RunnerOptions.batchBoundMs)
//   REPOMAP_TEST_NATIVE_FAILS    native loads fail as a broken install's would: `tree-sitter` (the runtime) or language
//                                ids (their native grammars), comma-separated. Read by the extraction itself, at its first
//                                native load in each thread (see nativeFailureForTests): the parse threads and child
//                                processes that load grammars are made deep inside the indexer, and inherit the environment.
//   REPOMAP_TEST_GIT_BOUND_MS    every git command is killed after this long (GIT_BOUND_MS), read as each one starts
import type { DaemonOptions, DaemonTimings } from './daemon/settings.js';
import type { RunnerOptions } from './indexer/pool.js';

type Env = Record<string, string | undefined>;

const DAEMON_TIMING_VARIABLES: Record<keyof DaemonTimings, string> = {
  sweepMs: 'REPOMAP_TEST_SWEEP_MS',
  graphSaveDelayMs: 'REPOMAP_TEST_GRAPH_SAVE_MS',
  backgroundAfterMs: 'REPOMAP_TEST_BACKGROUND_MS',
  watchDelayMs: 'REPOMAP_TEST_WATCH_DELAY_MS',
  holdCheckMs: 'REPOMAP_TEST_HOLD_CHECK_MS',
};

/** The daemon's test options set in `env` (none in production). */
export function daemonTestOptions(env: Env): Pick<DaemonOptions, 'timings' | 'unwatchable' | 'releasePagesFromBytes' | 'publishReleaseEvery' | 'linkReleaseEvery' | 'requestReleaseReads' | 'runnerOptions'> {
  const timings: Partial<DaemonTimings> = {};
  for (const [field, name] of Object.entries(DAEMON_TIMING_VARIABLES) as Array<[keyof DaemonTimings, string]>) {
    if (env[name] !== undefined) timings[field] = Number(env[name]);
  }
  const unwatchable = env.REPOMAP_TEST_UNWATCHABLE;
  const releaseFrom = env.REPOMAP_TEST_RELEASE_FROM_BYTES;
  const publishEvery = env.REPOMAP_TEST_PUBLISH_RELEASE_EVERY;
  const linkEvery = env.REPOMAP_TEST_LINK_RELEASE_EVERY;
  const requestReads = env.REPOMAP_TEST_REQUEST_RELEASE_READS;
  return {
    ...(Object.keys(timings).length > 0 ? { timings } : {}),
    ...(unwatchable ? { unwatchable } : {}),
    ...(releaseFrom !== undefined ? { releasePagesFromBytes: Number(releaseFrom) } : {}),
    ...(publishEvery !== undefined ? { publishReleaseEvery: Number(publishEvery) } : {}),
    ...(linkEvery !== undefined ? { linkReleaseEvery: Number(linkEvery) } : {}),
    ...(requestReads !== undefined ? { requestReleaseReads: Number(requestReads) } : {}),
    ...runnerTestOptions(env),
  };
}

/** The MCP server's test options set in `env` (none in production). */
export function mcpTestOptions(env: Env): { indexWaitMs?: number } {
  const wait = env.REPOMAP_TEST_MCP_WAIT_MS;
  return wait !== undefined ? { indexWaitMs: Number(wait) } : {};
}

/** `repomap map`'s test options set in `env` (none in production). */
export function mapTestOptions(env: Env): { runnerOptions?: RunnerOptions } {
  return runnerTestOptions(env);
}

/** The parse runner's test options set in `env`, for a map and a daemon alike. */
function runnerTestOptions(env: Env): { runnerOptions?: RunnerOptions } {
  const exitOn = env.REPOMAP_TEST_WORKER_EXIT_ON;
  const stallOn = env.REPOMAP_TEST_WORKER_STALL_ON;
  const bound = env.REPOMAP_TEST_BATCH_BOUND_MS;
  const runnerOptions: RunnerOptions = { ...(exitOn ? { exitOn } : {}), ...(stallOn ? { stallOn } : {}), ...(bound !== undefined ? { batchBoundMs: Number(bound) } : {}) };
  return Object.keys(runnerOptions).length > 0 ? { runnerOptions } : {};
}

/**
 * Why a native load (`tree-sitter` for the runtime, else a language id for its grammar) is made to
 * fail by REPOMAP_TEST_NATIVE_FAILS; undefined when it is not (always, in production).
 */
export function nativeFailureForTests(what: string): string | undefined {
  const listed = process.env.REPOMAP_TEST_NATIVE_FAILS?.split(',') ?? [];
  return listed.includes(what) ? `${what} made to fail by REPOMAP_TEST_NATIVE_FAILS` : undefined;
}

/** The bound on every git command set in `env` (see GIT_BOUND_MS); undefined in production. */
export function gitBoundMs(env: Env): number | undefined {
  const bound = env.REPOMAP_TEST_GIT_BOUND_MS;
  return bound !== undefined ? Number(bound) : undefined;
}
