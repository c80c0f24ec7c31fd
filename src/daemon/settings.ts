// What a daemon runs with: its command line's flags over the project config over the defaults,
// and the timings a test may shorten (production runs with DAEMON_TIMINGS).
import { type ProjectConfig, withProjectConfig } from '../config.js';
import { type ExtractSettings } from '../indexer/indexer.js';
import type { StoreOptions } from '../store/store.js';
import { type RunnerOptions, boundedWorkerCount, defaultWorkerCount } from '../indexer/pool.js';
import type { DaemonPaths } from './runtime.js';
import type { DaemonFlags } from '../api/types.js';

export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;

/** The settings a daemon runs with: its flags, over the project config, over the defaults. */
export interface DaemonSettings extends ExtractSettings, Pick<StoreOptions, 'sharedCacheDir'> {
  workers: number;
  exclude: readonly string[];
  include: readonly string[];
  /** Exit after this long without a request (0 = never). */
  idleTimeoutMs: number;
}

/** How long the daemon waits before its periodic and deferred work. */
export interface DaemonTimings {
  /** While some paths cannot be watched, the indexed files are stat'ed this often instead. */
  sweepMs: number;
  /** The related graph is saved (for the next start) once no change came for this long, and at shutdown. */
  graphSaveDelayMs: number;
  /** After the cold index, the background work waits for the first map, or this long without one (see WarmUp). */
  backgroundAfterMs: number;
  /** The watcher starts this much later than the rest of the background work (a test changes files in that gap). */
  watchDelayMs: number;
  /** How often the daemon checks that its socket is still there and its root is still the folder it started on. */
  holdCheckMs: number;
}

/** The production timings; a test gives others through DaemonOptions.timings. */
export const DAEMON_TIMINGS: Readonly<DaemonTimings> = {
  sweepMs: 30_000,
  graphSaveDelayMs: 30_000,
  backgroundAfterMs: 1000,
  watchDelayMs: 0,
  holdCheckMs: 2000,
};

export interface DaemonOptions extends DaemonSettings {
  /** Real path of the repository root. */
  root: string;
  cacheDir: string;
  paths: DaemonPaths;
  /** The command line's options, kept to apply a changed project config under them. */
  flags: DaemonFlags;
  /** The project config (its request defaults apply to each map request that leaves them out). */
  config: ProjectConfig;
  /** Where log lines go. */
  log: (line: string) => void;
  /** Test only: timings other than DAEMON_TIMINGS. */
  timings?: Partial<DaemonTimings>;
  /** Test only: paths containing this text cannot be watched (see RepoWatcherOptions.unwatchable). */
  unwatchable?: string;
  /** Test only: the store lets go of its map from this size of its data file on (RELEASE_PAGES_FROM_BYTES). */
  releasePagesFromBytes?: number;
  /** Test only: faults injected into the parse workers (see RunnerOptions.exitOn and stallOn). */
  runnerOptions?: Pick<RunnerOptions, 'exitOn' | 'stallOn'>;
  /** Test only: the warm-up lets go of the store's map every this many files' names read while linking (LINK_RELEASE_EVERY). */
  linkReleaseEvery?: number;
  /** Test only: once warm, the store lets go of its map after requests read this many values from it (REQUEST_RELEASE_READS). */
  requestReleaseReads?: number;
}

/** The one place a daemon's settings are made, at start and when the project config changes. */
export function daemonSettings(flags: DaemonFlags, config: ProjectConfig): DaemonSettings {
  const merged = withProjectConfig<ProjectConfig>({ ...flags }, config);
  return {
    workers: boundedWorkerCount(merged.workers ?? defaultWorkerCount()),
    exclude: merged.exclude ?? [],
    include: merged.include ?? [],
    ...(merged.maxFileBytes !== undefined ? { maxFileBytes: merged.maxFileBytes } : {}),
    ...(merged.languages !== undefined ? { languages: merged.languages } : {}),
    // The user's permission comes from the command line (or the user config), never the project config.
    ...(flags.allowGrammars?.length ? { allowGrammars: flags.allowGrammars } : {}),
    idleTimeoutMs: (merged.idleTimeoutSeconds ?? DEFAULT_IDLE_TIMEOUT_MS / 1000) * 1000,
  };
}
