import { appendFileSync, existsSync, mkdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { dirname } from 'node:path';
import { type DiscoverableFilter, type Discovery, discoverFiles, discoverableFilter, excludeMatcher, filesUnder, ignoredFolders, isIgnoreFile } from '../discover/discover.js';
import { RepomapError, asRepomapError, errorMessage, errorStack } from '../errors.js';
import { parseMapParams, parseSymbolParams } from '../api/request.js';
import { requestFilePaths } from '../paths.js';
import { type ProjectConfig, isConfigPath, readProjectConfig, withProjectConfig } from '../config.js';
import { type ExtractSettings, type PathState, Reconciler, linkWhileParsing, outOfDate } from '../indexer/indexer.js';
import { type ParseRunner, createRunner, defaultWorkerCount } from '../indexer/pool.js';
import { statAll } from '../indexer/stat.js';
import { languageForPath } from '../extract/languages.js';
import { isQueryPath } from '../extract/user-languages.js';
import { type PartialIndex, budgetFor, mapFromIndex, publicMap, readSavedGraphAhead, waitBoundMs } from '../map.js';
import { ParseQueue } from '../indexer/parse-queue.js';
import { prioritize } from '../indexer/priority.js';
import { TagStore, isStoreFailure } from '../store/store.js';
import { restoreRelatedGraph, saveGraphOrSay } from '../graph/graph-file.js';
import { loadTokenizerHere, startTokenizer } from '../pack/tokens.js';
import { findSymbols, namesIn } from '../symbols.js';
import { RepoState } from './repo-state.js';
import { type DaemonPaths, acquireLock, ensureRuntimeDir, releaseLock } from './runtime.js';
import { type DaemonStatus, MAX_REQUEST_BYTES, type RpcRequest, type RpcResponse, rpcError } from './protocol.js';
import { RepoWatcher, isWatchLimit } from './watcher.js';

export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/** How often the daemon checks that its socket is still there. */
const SOCKET_CHECK_MS = 2000;
/** While some paths cannot be watched, the indexed files are stat'ed this often instead. */
const SWEEP_MS = Number(process.env.REPOMAP_TEST_SWEEP_MS ?? 30_000);
/** The related graph is saved (for the next start) once no change came for this long, and at shutdown. */
const GRAPH_SAVE_DELAY_MS = Number(process.env.REPOMAP_TEST_GRAPH_SAVE_MS ?? 30_000);
/** Files linked into the name indexes per turn of the event loop after a warm start (about 50 ms on the large corpus). */
const LINK_SLICE_FILES = 1500;

/** What a daemon is told on its command line; the project config fills what it leaves out. */
export interface DaemonFlags {
  workers?: number;
  exclude?: readonly string[];
  maxFileBytes?: number;
  idleTimeoutSeconds?: number;
}

/** The settings a daemon runs with: its flags, over the project config, over the defaults. */
export interface DaemonSettings extends ExtractSettings {
  workers: number;
  exclude: readonly string[];
  include: readonly string[];
  /** Exit after this long without a request (0 = never). */
  idleTimeoutMs: number;
}

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
}

/** The one place a daemon's settings are made, at start and when the project config changes. */
export function daemonSettings(flags: DaemonFlags, config: ProjectConfig): DaemonSettings {
  const merged = withProjectConfig<ProjectConfig>({ ...flags }, config);
  return {
    workers: merged.workers ?? defaultWorkerCount(),
    exclude: merged.exclude ?? [],
    include: merged.include ?? [],
    ...(merged.maxFileBytes !== undefined ? { maxFileBytes: merged.maxFileBytes } : {}),
    ...(merged.languages !== undefined ? { languages: merged.languages } : {}),
    idleTimeoutMs: (merged.idleTimeoutSeconds ?? DEFAULT_IDLE_TIMEOUT_MS / 1000) * 1000,
  };
}

/** The log file's size past which it is moved to `<file>.1` (replacing the one there) and started anew. */
export const LOG_MAX_BYTES = 10 * 1024 * 1024;

/**
 * A log function writing timestamped lines to a file (created with its folder), or to stderr. The
 * file is bounded: past `maxBytes` it becomes `<file>.1` and a new one starts, so a daemon that
 * runs for weeks keeps at most twice that.
 */
export function createLog(file: string | undefined, maxBytes = LOG_MAX_BYTES): (line: string) => void {
  // A foreground daemon whose terminal or pipe went away goes on serving; its log lines are lost.
  // (Unhandled, the write error would be logged, to stderr again: an endless loop.)
  if (!file) {
    process.stderr.on('error', () => {});
    return (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
  }
  mkdirSync(dirname(file), { recursive: true });
  let size = existsSync(file) ? statSync(file).size : 0;
  return (line) => {
    const stamped = `${new Date().toISOString()} ${line}\n`;
    const bytes = Buffer.byteLength(stamped);
    if (size > 0 && size + bytes > maxBytes) {
      renameSync(file, `${file}.1`);
      size = 0;
    }
    appendFileSync(file, stamped);
    size += bytes;
  };
}

/** Bytes of answers queued for a connection past which it is no longer read (see serve). */
const MAX_QUEUED_BYTES = 1024 * 1024;
/** Requests of one connection answered at once, past which it is no longer read (see serve). */
const MAX_IN_FLIGHT = 64;

/** A map slower than this is logged with its time. */
const SLOW_MAP_MS = 100;
/**
 * After the cold index, the background work (linking the names, the workers loading grammars, the
 * watcher's first crawl) waits for the first map to be answered, or this long without one: the
 * client that started the daemon is usually waiting for that map, and on two cores the work
 * delayed it by 0.4 s on the large corpus.
 */
const BACKGROUND_AFTER_MS = Number(process.env.REPOMAP_TEST_BACKGROUND_MS ?? 1000);

/**
 * One repository's daemon: the store, the pool, the hot graph and the watcher, answering
 * JSON-RPC requests on a Unix socket. Requests are served while the cold index runs (`status`
 * at once, `map` as soon as the index is complete), never with a wrong map.
 */
export class Daemon {
  // Replaced together when the store fails during the cold index (see rebuildStore).
  private state: RepoState;
  private store: TagStore;
  private runner: ParseRunner;
  private reconciler: Reconciler;
  private readonly server: Server;
  private readonly connections = new Set<Socket>();
  /** Started once the cold index is done (see watch). */
  private watcher: RepoWatcher | undefined;
  /** Set when the watcher's crawl is done and what changed before it is queued. */
  private watching = false;
  private namesLinked = false;
  private rehearsed = false;
  /** Paths the watcher could not watch (the system's limit of watches): they are swept instead. */
  private unwatched = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Which new paths discovery would list (replaced whenever discovery runs again). */
  private discoverable: DiscoverableFilter = Object.assign(async () => new Set<string>(), { skips: async () => false });
  private ignored = new Set<string>();
  /** Settles once `discoverable` and `ignored` are those of the last discovery (rejects if they could not be found). */
  private rulesReady: Promise<void> = Promise.resolve();
  private isExcluded: ((path: string) => boolean) | null;
  private phase: DaemonStatus['state'] = 'indexing';
  private progress = { done: 0, total: 0 };
  private pendingBatches = 0;
  private lastUpdate: Date | null = null;
  private readonly started = Date.now();
  /** Updates run one after another; map requests wait for the ones queued before them. */
  private work: Promise<void> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;
  private socketCheck: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  /** Set while the saved related graph is older than the hot one. */
  private graphUnsaved = false;
  private graphSaveTimer: NodeJS.Timeout | undefined;
  /** What the cold index leaves for after the first map (see BACKGROUND_AFTER_MS); undefined once started. */
  private background: (() => void) | undefined;
  private backgroundTimer: NodeJS.Timeout | undefined;
  /**
   * The cold index's order and its discovered paths, while it runs: a map asked for meanwhile puts
   * the files it needs ahead (see prioritize) and may be answered from what is indexed so far.
   */
  private cold: { queue: ParseQueue; paths: readonly string[] } | undefined;
  /** The cold index's discovery (whose paths `cold` holds once its pass starts). */
  private coldDiscovery: Promise<Discovery> | undefined;
  /** Aborted by shutdown: a long index pass stops at its next batch instead of running to its end. */
  private readonly stop = new AbortController();
  readonly ready: Promise<void>;
  /** Resolves when the daemon has shut down. */
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;

  private constructor(private options: DaemonOptions) {
    this.store = TagStore.open(options.cacheDir, { onNotice: options.log });
    this.state = new RepoState(options.root, this.store);
    this.runner = createRunner(options.workers);
    this.reconciler = this.newReconciler();
    this.isExcluded = excludeMatcher(options.exclude);
    this.server = createServer((socket) => this.serve(socket));
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.ready = this.work = this.coldIndex();
    this.ready.catch(() => {}); // awaited by main.ts, which logs a failed cold index and stops
  }

  /**
   * Takes the root's lock, cleans up after a crashed daemon, listens, and starts the cold index.
   * Throws a 'refused' RepomapError when another daemon already serves this root.
   */
  static async start(options: DaemonOptions): Promise<Daemon> {
    const { paths } = options;
    ensureRuntimeDir(paths.dir);
    const lock = acquireLock(paths.lock);
    if (!lock.ok) throw new RepomapError('refused', `a daemon (pid ${lock.holder}) already serves ${options.root}`);
    try {
      if (existsSync(paths.socket)) {
        if (await socketAnswers(paths.socket)) throw new RepomapError('refused', `a daemon already listens on ${paths.socket}`);
        unlinkSync(paths.socket); // left by a daemon that crashed
      }
      const daemon = new Daemon(options);
      await daemon.listen();
      return daemon;
    } catch (err) {
      releaseLock(paths.lock);
      throw err;
    }
  }

  private async listen(): Promise<void> {
    // The socket is created 0600 (umask), so no other user can connect even for a moment.
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(this.options.paths.socket, () => resolve());
      });
    } finally {
      process.umask(umask);
    }
    this.options.log(`listening on ${this.options.paths.socket} (pid ${process.pid}) for ${this.options.root}`);
    this.touch();
    this.socketCheck = setInterval(() => {
      if (!existsSync(this.options.paths.socket)) void this.shutdown('its socket was removed');
    }, SOCKET_CHECK_MS);
    this.socketCheck.unref();
  }

  private async coldIndex(): Promise<void> {
    const { root, log } = this.options;
    const started = Date.now();
    const discovering = (this.coldDiscovery = this.discover());
    const savedGraph = readSavedGraphAhead(this.store.dir);
    const discovery = await discovering;
    // A store damaged where the checks at open do not look fails in the pass: moved aside and rebuilt, once.
    try {
      await this.indexPass(discovery, this.coldQueue(discovery));
    } catch (err) {
      if (!isStoreFailure(err) || this.isStopping) throw err;
      await this.rebuildStore(err);
      await this.indexPass(discovery, this.coldQueue(discovery));
    } finally {
      this.cold = undefined;
    }
    startTokenizer();
    this.state.inOrder(discovery.paths);
    const prepared = Date.now();
    const saved = restoreRelatedGraph(this.state.graph, await savedGraph, this.hashOf, this.state.projectKey());
    if (saved === 'restored') {
      this.state.stats.restoredGraphs++;
      log(`related graph read from the cache in ${Date.now() - prepared} ms`);
    } else {
      this.state.graph.prepareRelated({ spare: false });
      log(`related graph built in ${Date.now() - prepared} ms (saved graph: ${saved})`);
      this.scheduleGraphSave();
    }
    // After the first map: the names not linked yet (all of them after a start from the saved
    // graph, the references after a cold index) are linked a slice at a time between requests (a
    // change needs them; a map asks about its own names without them), then the arrays of the next
    // related graph reserved, for the first change.
    let linking = 0;
    const linkInTurns = () => {
      if (this.isStopping) return;
      linking ||= Date.now();
      if (!this.state.graph.linkPending(LINK_SLICE_FILES)) return void setImmediate(linkInTurns);
      log(`names linked in ${Date.now() - linking} ms, after the first map`);
      this.namesLinked = true;
      this.state.graph.prepareRelated();
      this.rehearseOnceSettled();
      loadTokenizerHere().catch((err: unknown) => log(`tokenizer: ${errorMessage(err)}`));
    };
    this.phase = 'ready';
    this.lastUpdate = new Date();
    const { parsed, reusedByStat, reusedByHash } = this.state.stats;
    log(`indexed ${discovery.paths.length} files in ${Date.now() - started} ms: ${parsed} parsed, ${reusedByStat + reusedByHash} reused`);
    this.background = () => {
      setImmediate(linkInTurns);
      // The pool's threads load this repository's grammars now (a first index did at its start), and they
      // and this thread ready their writes to the store, so the first save parses and commits at once.
      this.runner.warmUp(discovery.paths, this.store).catch((err: unknown) => log(`worker warm-up failed: ${errorMessage(err)}`));
      this.store.warmWrites().catch((err: unknown) => log(`store warm-up failed: ${errorMessage(err)}`));
      // Files modified since a second before discovery (file times can lag the clock) are checked again.
      this.watch(started - 1000).catch((err: unknown) => log(`watcher failed: ${errorMessage(err)}`));
    };
    this.backgroundTimer = setTimeout(() => this.startBackground(), BACKGROUND_AFTER_MS);
  }

  /** A new order for the cold index's pass over `discovery` (a pass started again after a store failure starts anew). */
  private coldQueue(discovery: Discovery): ParseQueue {
    const queue = new ParseQueue();
    this.cold = { queue, paths: discovery.paths };
    return queue;
  }

  /** Brings the store up to date with `paths` and takes every state into the hot view, dropping records of paths not among them. */
  private async indexPass({ paths, special }: Discovery, order?: ParseQueue): Promise<void> {
    // States are applied as they settle, so the graph takes each record's references as it comes.
    const states = await this.reconciler.update(
      paths,
      this.state.stats,
      (done, total) => {
        this.progress = { done, total };
      },
      (batch) => {
        this.state.apply(batch);
        linkWhileParsing(this.state.graph, this.state.stats);
      },
      this.stop.signal,
      special,
      order,
    );
    this.reconciler.prune(states, this.state.stats);
  }

  /**
   * Moves a store that failed aside and starts over on a new one: the pool's threads (which hold
   * the old store open) are closed first, and the hot view, which took records from it, is made anew.
   */
  private async rebuildStore(error: unknown): Promise<void> {
    const { root, workers, log } = this.options;
    await this.runner.close();
    this.store = await TagStore.rebuild(this.store, error, { onNotice: log });
    this.state = new RepoState(root, this.store);
    this.runner = createRunner(workers);
    this.reconciler = this.newReconciler();
  }

  /** Starts the work the cold index left for after the first map (once). */
  private startBackground(): void {
    clearTimeout(this.backgroundTimer);
    const background = this.background;
    this.background = undefined;
    if (background && !this.isStopping) background();
  }

  /**
   * Starts the watcher once maps are served: its first crawl (an lstat per entry, a watch per
   * folder) would delay the first map. Then catches up with what changed before each folder was
   * watched: new files discovery lists, indexed files whose stat differs from their record or that
   * are gone, and files without a record (a `.gitignore`) modified since `sinceMs`.
   */
  private async watch(sinceMs: number): Promise<void> {
    const { root, log } = this.options;
    const delay = Number(process.env.REPOMAP_TEST_WATCH_DELAY_MS ?? 0); // lets a test change files in that gap
    if (delay > 0) await new Promise((resume) => setTimeout(resume, delay));
    await this.rulesReady;
    if (this.isStopping) return;
    const started = Date.now();
    const watcher = await RepoWatcher.start(root, {
      isIgnored: (path) => this.isWatchIgnored(path),
      onChanges: (paths) => this.enqueue(paths),
      onError: (err) => this.watchFailed(err),
    });
    if (this.isStopping) {
      // The shutdown came while chokidar loaded, so it closed no watcher.
      await watcher.close();
      return;
    }
    this.watcher = watcher;
    await watcher.ready;
    if (this.isStopping) return;
    const changed = new Set(await this.newPaths());
    for (const path of await this.changedSince(sinceMs)) changed.add(path);
    if (changed.size > 0) this.enqueue(changed);
    this.watching = true;
    log(`watching after ${Date.now() - started} ms; ${changed.size} paths changed meanwhile`);
    this.rehearseOnceSettled();
  }

  /**
   * Once the names are linked, rehearses a change (ReferenceGraph.rehearseChange); once the
   * watcher follows the tree as well, a few patches (rehearsePatch). The change compiles the code
   * of a save, but V8 threw that code away while the watcher started, and the first edits on the
   * large corpus still took 210-250 ms in the graph instead of 60; rehearsed after the watcher
   * instead, its garbage met the second edit in a major collection. The patches after the watcher
   * compile the patch again, with little garbage. (When the watcher is ready first, as on a small
   * repository, the change comes after it and no patch follows.)
   */
  private rehearseOnceSettled(): void {
    if (!this.namesLinked || this.isStopping) return;
    const started = Date.now();
    if (!this.rehearsed) {
      this.rehearsed = true;
      this.state.graph.rehearseChange();
      this.options.log(`change rehearsed in ${Date.now() - started} ms`);
    } else if (this.watching) {
      this.state.graph.rehearsePatch(3);
      this.options.log(`patch rehearsed in ${Date.now() - started} ms`);
    }
  }

  /**
   * A path the watcher could not watch for want of system watches (ENOSPC: fs.inotify.max_user_watches)
   * or handles is not followed: the first is logged with the remedy, and from then on the indexed
   * files are stat'ed every SWEEP_MS instead, so an edit or a deletion still shows, later.
   */
  private watchFailed(err: unknown): void {
    if (!isWatchLimit(err)) {
      this.options.log(`watcher error: ${errorMessage(err)}`);
      return;
    }
    if (this.unwatched++ > 0) return;
    this.options.log(
      `watcher error: ${errorMessage(err)}; files past the system's limit are not watched: their edits, and new ` +
        `files, show within ${SWEEP_MS / 1000} s (raise the limit: sysctl fs.inotify.max_user_watches=524288)`,
    );
    let since = Date.now();
    this.sweepTimer = setInterval(() => {
      const started = Date.now();
      if (this.pendingBatches > 0) return;
      Promise.all([this.changedSince(since - 1000), this.newPaths()])
        .then(([changed, added]) => {
          since = started;
          const paths = new Set([...changed, ...added]);
          if (paths.size > 0) this.enqueue(paths);
        })
        .catch((failure: unknown) => this.options.log(`sweep failed: ${errorMessage(failure)}`));
    }, SWEEP_MS);
    this.sweepTimer.unref();
  }

  /** Paths discovery lists that the daemon does not know: files created where no watch sees them. */
  private async newPaths(): Promise<string[]> {
    const { paths } = await discoverFiles(this.options.root, this.options);
    return paths.filter((path) => !this.state.has(path));
  }

  /** The known paths an update would not reuse (see outOfDate): what changed without an event. */
  private changedSince(sinceMs: number): Promise<string[]> {
    return outOfDate(this.options.root, this.state.paths(), (path) => this.state.recordOf(path), sinceMs);
  }

  /** Lists the tree, and with it the rules new paths are judged by and the folders left unwatched. */
  private async discover(): Promise<Discovery> {
    const { root } = this.options;
    const listing = discoverFiles(root, this.options);
    const discovery = await listing;
    // The ignore rules and the ignored folders matter once the watcher runs: found meanwhile, not
    // before the first map (a second git call, 0.3 s of a warm start on the large corpus).
    this.rulesReady = Promise.all([discoverableFilter(root, discovery.source, this.options), ignoredFolders(root, discovery.source)]).then(
      ([discoverable, ignored]) => {
        this.discoverable = discoverable;
        this.ignored = ignored;
      },
    );
    this.rulesReady.catch(() => {}); // awaited where the rules are used, which says what failed
    return discovery;
  }

  /** A folder discovery lists nothing in, found after the start: no longer watched, its events dropped. */
  private leaveOut(folder: string): void {
    this.ignored.add(folder);
    this.watcher?.unwatch(folder);
    this.options.log(`left out ${folder}/: ignored, no file of it listed`);
  }

  private isWatchIgnored(path: string): boolean {
    return this.isExcluded?.(path) || this.ignored.has(path) || inFolder(path, (folder) => this.ignored.has(folder));
  }

  private enqueue(paths: Set<string>): void {
    if (this.isStopping) return; // a catch-up or a sweep that ends after a stop has nothing to update
    this.pendingBatches++;
    this.work = this.work
      .then(() => this.applyChanges(paths))
      .catch((err: unknown) => this.options.log(`update failed: ${errorMessage(err)}`))
      .finally(() => this.pendingBatches--);
  }

  /**
   * Brings changed paths up to date; a change of an ignore file (.gitignore, .repomapignore,
   * .aiderignore), or a project config change that moves
   * what discovery lists, re-runs discovery over the tree.
   */
  private async applyChanges(changed: Set<string>): Promise<void> {
    const configMoved = [...changed].some(isConfigPath) && (await this.reloadConfig());
    // A query file (.repomap/queries/) changes what its language's files give: a new reconciler
    // resolves the languages again, and its first update re-parses the files whose query changed.
    const queriesMoved = !configMoved && [...changed].some(isQueryPath) && this.reloadLanguages();
    if (configMoved || queriesMoved || [...changed].some(isIgnoreFile)) {
      await this.rediscover();
      return;
    }
    const started = performance.now();
    await this.rulesReady;
    const files = new Set([...changed].filter((path) => !path.endsWith('/')));
    // Folders that went, or appeared (the watcher follows folders, so it named none of their files):
    // the known paths under them, in one pass over the known paths, and the files on disk under
    // each, a folder inside another of the batch walked with it.
    const folders = new Set([...changed].filter((path) => path.endsWith('/')).map((path) => path.slice(0, -1)));
    if (folders.size > 0) {
      const isInBatch = (folder: string) => folders.has(folder);
      for (const path of this.state.paths()) if (inFolder(path, isInBatch)) files.add(path);
      for (const folder of folders) {
        if (inFolder(folder, isInBatch) || this.isWatchIgnored(folder)) continue;
        if (await this.discoverable.skips(folder)) this.leaveOut(folder);
        else for (const p of await filesUnder(this.options.root, folder, (sub) => this.isWatchIgnored(sub))) files.add(p);
      }
    }
    // Events from inside a folder just left out are dropped with it.
    const candidates = [...files].filter((path) => this.state.has(path) || !this.isWatchIgnored(path));
    // A path already indexed was discoverable and stays so (ignore rules change only with a
    // .gitignore, which re-runs discovery): only new paths are asked of git or the ignore files.
    const unknown = candidates.filter((path) => !this.state.has(path));
    const listed = await this.discoverable(unknown);
    for (const path of candidates) if (this.state.has(path)) listed.add(path);
    // An update takes a path without a grammar for a file (as discovery lists files) and does not
    // stat it; a watcher names any entry, a folder or a file just deleted: those are gone.
    const unparsed = candidates.filter((path) => listed.has(path) && !languageForPath(path));
    const found = await statAll(this.options.root, unparsed);
    for (let i = 0; i < unparsed.length; i++) if (found[i] === 'missing') listed.delete(unparsed[i]);
    const filtered = performance.now();
    const updates: Map<string, PathState> = await this.reconciler.update(
      candidates.filter((path) => listed.has(path)),
      this.state.stats,
    );
    for (const path of candidates) if (!listed.has(path)) updates.set(path, { gone: true });
    const reconciled = performance.now();
    this.state.apply(updates);
    // The related graph follows now, while no request waits, unless more changes are on the way.
    if (this.pendingBatches <= 1 && (this.watcher?.pendingCount ?? 0) === 0) this.state.graph.prepareRelated();
    if (updates.size > 0) this.scheduleGraphSave();
    this.lastUpdate = new Date();
    const ms = (from: number, to: number) => (to - from).toFixed(0);
    const applied = performance.now();
    this.options.log(
      `updated ${candidates.length} paths in ${ms(started, applied)} ms (discovery ${ms(started, filtered)}, store and parse ${ms(filtered, reconciled)}, graph ${ms(reconciled, applied)})`,
    );
  }

  /**
   * Reads the project config again and runs with it from now on (a config that cannot be read is
   * logged, and the one before kept). True when what discovery lists can have changed.
   */
  private async reloadConfig(): Promise<boolean> {
    let config: ProjectConfig;
    try {
      config = readProjectConfig(this.options.root).config;
    } catch (err) {
      this.options.log(`project config not applied: ${errorMessage(err)}`);
      return false;
    }
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    if (same(config, this.options.config)) return false;
    const before = this.options;
    this.options = { ...before, config, ...daemonSettings(before.flags, config) };
    this.options.log('project config reloaded');
    this.isExcluded = excludeMatcher(this.options.exclude);
    if (this.options.idleTimeoutMs !== before.idleTimeoutMs) this.touch();
    if (this.options.workers !== before.workers) {
      await this.runner.close();
      this.runner = createRunner(this.options.workers);
    }
    const languagesChanged = !same(this.options.languages, before.languages);
    if (this.options.workers !== before.workers || this.options.maxFileBytes !== before.maxFileBytes || languagesChanged) {
      this.reconciler = this.newReconciler();
    }
    return languagesChanged || !same([before.exclude, before.include, before.maxFileBytes], [this.options.exclude, this.options.include, this.options.maxFileBytes]);
  }

  /** A new reconciler, with the languages read again (see applyChanges); false (and logged) when they cannot be. */
  private reloadLanguages(): boolean {
    try {
      this.reconciler = this.newReconciler();
    } catch (err) {
      this.options.log(`tag queries not applied: ${errorMessage(err)}`);
      return false;
    }
    this.options.log('tag queries reloaded');
    return true;
  }

  private newReconciler(): Reconciler {
    return new Reconciler(this.options.root, this.store, this.runner, { ...this.options, onNotice: this.options.log });
  }

  private async rediscover(): Promise<{ files: number; parsed: number }> {
    const before = this.state.stats.parsed;
    const discovery = await this.discover();
    await this.rulesReady;
    const present = new Set(discovery.paths);
    const updates = await this.reconciler.update(discovery.paths, this.state.stats, undefined, undefined, this.stop.signal, discovery.special);
    this.reconciler.prune(updates, this.state.stats);
    for (const path of this.state.paths()) if (!present.has(path)) updates.set(path, { gone: true });
    this.state.apply(updates);
    this.state.inOrder(discovery.paths);
    this.scheduleGraphSave();
    this.lastUpdate = new Date();
    this.options.log(`rediscovered ${discovery.paths.length} files`);
    return { files: discovery.paths.length, parsed: this.state.stats.parsed - before };
  }

  /**
   * Reads one connection's requests, one per line. A line over MAX_REQUEST_BYTES (its bytes, the
   * newline not counted) is refused and skipped. A client that does not read its answers is not
   * read either: while its answers queued in this process exceed MAX_QUEUED_BYTES, or
   * MAX_IN_FLIGHT of its requests are being answered, the socket is paused (the kernel's buffer
   * then fills and the client's writes wait), and read again once they drain.
   */
  private serve(socket: Socket): void {
    this.connections.add(socket);
    socket.setEncoding('utf8');
    let buffer = '';
    let discarding = false;
    let inFlight = 0;
    const congested = () => inFlight >= MAX_IN_FLIGHT || socket.writableLength > MAX_QUEUED_BYTES;
    const pump = () => {
      for (let newline = buffer.indexOf('\n'); newline !== -1 && !congested(); newline = buffer.indexOf('\n')) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (discarding) {
          discarding = false; // the end of a line already refused
          continue;
        }
        if (Buffer.byteLength(line) > MAX_REQUEST_BYTES) {
          send(socket, errorResponse(null, new RepomapError('invalid-request', `request over ${MAX_REQUEST_BYTES} bytes`)));
          continue;
        }
        if (line.trim() === '') continue;
        inFlight++;
        void this.answer(socket, line).finally(() => {
          inFlight--;
          pump();
        });
      }
      if (buffer.indexOf('\n') === -1) {
        if (discarding) buffer = '';
        else if (Buffer.byteLength(buffer) > MAX_REQUEST_BYTES) {
          buffer = '';
          discarding = true;
          send(socket, errorResponse(null, new RepomapError('invalid-request', `request over ${MAX_REQUEST_BYTES} bytes`)));
        }
      }
      if (congested()) socket.pause();
      else if (socket.isPaused()) socket.resume();
    };
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      pump();
    });
    socket.on('drain', pump);
    socket.on('error', () => {}); // a client that goes away mid-answer is its own business
    socket.on('close', () => this.connections.delete(socket));
  }

  private async answer(socket: Socket, line: string): Promise<void> {
    this.touch();
    let request: RpcRequest;
    try {
      request = parseRequest(line);
    } catch (err) {
      send(socket, errorResponse(idOf(line), err instanceof RepomapError ? err : new RepomapError('parse-error', errorMessage(err))));
      return;
    }
    try {
      const result = await this.dispatch(request);
      send(socket, { jsonrpc: '2.0', id: request.id, result });
    } catch (err) {
      const failure = asRepomapError(err);
      if (failure.code === 'internal') this.options.log(`internal error on ${request.method}: ${errorStack(err)}`);
      send(socket, errorResponse(request.id, failure));
    }
    if (request.method === 'shutdown') void this.shutdown('asked to');
  }

  private async dispatch(request: RpcRequest): Promise<unknown> {
    switch (request.method) {
      case 'status':
        return this.status();
      case 'map': {
        const params = parseMapParams(request.params);
        budgetFor(params); // bad numbers fail now, not after the wait
        const waitMs = waitBoundMs(params.waitSeconds);
        const named = [...(params.chatFiles ?? []), ...(params.mentionedFiles ?? [])];
        this.catchUpNamed(named);
        const partial = await this.settledOrBound(named, waitMs);
        const started = performance.now();
        const { exclude, include, config } = this.options;
        const asked = { ...withProjectConfig(params, config), exclude, include };
        const map = publicMap({ ...mapFromIndex(this.state.index(), this.state.graph, asked), ...(partial ? { partial } : {}) }, { listSkipped: params.listSkipped === true });
        const ms = performance.now() - started;
        if (ms > SLOW_MAP_MS) this.options.log(`map took ${ms.toFixed(0)} ms`);
        setImmediate(() => this.startBackground()); // once the answer is written
        return map;
      }
      case 'symbols': {
        const query = parseSymbolParams(request.params);
        await this.settled();
        return findSymbols(this.state.index(), this.state.centrality(), query, namesIn(this.state.graph, this.store));
      }
      case 'reindex':
        await this.settled();
        return this.serialize(() => this.rediscover());
      case 'shutdown':
        return { stopping: true };
      default:
        throw new RepomapError('unknown-method', `unknown method '${request.method}' (methods: map, symbols, status, reindex, shutdown)`);
    }
  }

  /**
   * Queues the files a request names that the index does not know yet (written a moment ago, the
   * watcher has not told of them): the map then finds them indexed, or refuses one the discovery
   * rules leave out. A path that is no file of the root is left for the map to refuse.
   */
  private catchUpNamed(paths: readonly string[]): void {
    if (this.phase !== 'ready') return; // the cold index lists what exists
    const unknown = new Set(requestFilePaths(this.options.root, paths).filter((rel) => !this.state.has(rel)));
    if (unknown.size > 0) this.enqueue(unknown);
  }

  /**
   * Waits until the index is complete (see settled); or, when a bound is given and the cold index
   * is under way, until the bound passes, putting meanwhile the files the map needs ahead in the
   * pass (see prioritize): then says how far the index is, for a partial map. A partial map waits
   * past the bound for the files the request names and those they import (parsed first: a few files).
   */
  private async settledOrBound(named: readonly string[], waitMs: number | undefined): Promise<PartialIndex | undefined> {
    if (waitMs !== undefined && this.phase === 'indexing') await this.coldDiscovery;
    const cold = this.cold;
    if (waitMs === undefined || !cold) {
      await this.settled();
      return undefined;
    }
    const { root, log } = this.options;
    const seeds = requestFilePaths(root, named);
    const graph = this.state.graph;
    const { core, queued } = prioritize(seeds, { root, paths: cold.paths, queue: cold.queue, namesOf: (path) => graph.fileNames(path), signal: this.stop.signal });
    queued.catch((err: unknown) => log(`prioritizing failed: ${errorMessage(err)}`));
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
    try {
      await Promise.race([this.ready, bound]);
      await core;
    } finally {
      clearTimeout(timer);
    }
    if (this.phase === 'ready') {
      await this.settled();
      return undefined;
    }
    return cold.queue.progress();
  }

  /** Waits for the cold index and for every update queued so far. */
  private async settled(): Promise<void> {
    await this.ready;
    let current: Promise<void>;
    do {
      current = this.work;
      await current;
    } while (current !== this.work);
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.work.then(task);
    this.work = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  status(): DaemonStatus {
    const index = this.phase === 'ready' ? this.state.index() : undefined;
    const memory = process.memoryUsage();
    const skipped: Record<string, number> = {};
    for (const file of index?.skipped ?? []) skipped[file.reason] = (skipped[file.reason] ?? 0) + 1;
    return {
      root: this.options.root,
      pid: process.pid,
      state: this.phase,
      progress: this.progress,
      files: this.state.fileCount,
      indexed: index?.records.length ?? 0,
      parsed: this.state.stats.parsed,
      skipped,
      pendingChanges: (this.watcher?.pendingCount ?? 0) + this.pendingBatches,
      watching: this.watching,
      unwatchedPaths: this.unwatched,
      lastUpdate: this.lastUpdate?.toISOString() ?? null,
      memory: { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
      uptimeSeconds: Math.round((Date.now() - this.started) / 1000),
      workers: this.options.workers,
      exclude: [...this.options.exclude],
      include: [...this.options.include],
      idleTimeoutSeconds: this.options.idleTimeoutMs / 1000,
      socket: this.options.paths.socket,
      cacheDir: this.options.cacheDir,
    };
  }

  private readonly hashOf = (path: string) => this.state.recordOf(path)?.hash;

  /** Saves the related graph once changes have stopped for a while (see GRAPH_SAVE_DELAY_MS). */
  private scheduleGraphSave(): void {
    this.graphUnsaved = true;
    clearTimeout(this.graphSaveTimer);
    this.graphSaveTimer = setTimeout(() => this.saveGraph(), GRAPH_SAVE_DELAY_MS);
    this.graphSaveTimer.unref();
  }

  /** Writes the related graph for the next start, unless changes are still coming in (then later). */
  private saveGraph(): void {
    if (!this.graphUnsaved || this.phase !== 'ready') return;
    if (this.pendingBatches > 0 || (this.watcher?.pendingCount ?? 0) > 0) {
      this.scheduleGraphSave();
      return;
    }
    const started = Date.now();
    // Built now if the last change is not in it yet (no request asked since).
    this.state.graph.prepareRelated({ spare: false });
    if (saveGraphOrSay(this.state.graph, this.store.dir, this.hashOf, this.state.projectKey(), this.options.log)) {
      this.options.log(`related graph saved in ${Date.now() - started} ms`);
    }
    this.graphUnsaved = false;
  }

  private touch(): void {
    if (this.options.idleTimeoutMs <= 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.shutdown(`idle for ${this.options.idleTimeoutMs} ms`), this.options.idleTimeoutMs);
  }

  /** Whether shutdown has begun (an index pass it stopped then ends with an AbortError, not a failure). */
  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Stops serving, waits for the update under way, closes the store cleanly and removes the socket. */
  shutdown(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      this.options.log(`shutting down: ${reason}`);
      this.stop.abort();
      clearTimeout(this.idleTimer);
      clearTimeout(this.backgroundTimer);
      clearInterval(this.socketCheck);
      clearInterval(this.sweepTimer);
      this.server.close();
      for (const socket of this.connections) socket.end();
      await this.watcher?.close();
      await this.work.catch(() => {}); // each piece of work logs its own failure where it fails
      clearTimeout(this.graphSaveTimer);
      // The graph holds what it took, and each file is checked by its hash when read back: a stopped update does not matter.
      this.saveGraph();
      await this.runner.close();
      await this.store.close();
      try {
        unlinkSync(this.options.paths.socket);
      } catch {
        // already removed (that may be why we stop)
      }
      releaseLock(this.options.paths.lock);
      this.resolveClosed();
    })();
    return this.stopping;
  }
}

function send(socket: Socket, response: RpcResponse): void {
  if (!socket.destroyed && socket.writable) socket.write(JSON.stringify(response) + '\n');
}

function errorResponse(id: RpcRequest['id'] | null, err: RepomapError): RpcResponse {
  return { jsonrpc: '2.0', id, error: rpcError(err) };
}

/** The id of a request that failed to parse, when it can be read at all, for the error answer. */
function idOf(line: string): RpcRequest['id'] | null {
  try {
    const value = JSON.parse(line) as { id?: unknown };
    return typeof value.id === 'number' || typeof value.id === 'string' ? value.id : null;
  } catch {
    return null;
  }
}

function parseRequest(line: string): RpcRequest {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new RepomapError('parse-error', 'request is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RepomapError('invalid-request', 'request must be a JSON object');
  }
  const { id, method, params } = value as Record<string, unknown>;
  if (typeof id !== 'number' && typeof id !== 'string') throw new RepomapError('invalid-request', 'request needs an id (number or string)');
  if (typeof method !== 'string') throw new RepomapError('invalid-request', 'request needs a method (string)');
  return { jsonrpc: '2.0', id, method, params };
}

/** Whether something answers on a Unix socket (a live daemon), within a short wait. */
export function socketAnswers(path: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (alive: boolean) => {
      socket.destroy();
      resolve(alive);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(timeoutMs, () => done(false));
  });
}

/** Whether some folder above a path (not the path itself) is one `isFolder` picks. */
function inFolder(path: string, isFolder: (folder: string) => boolean): boolean {
  for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
    if (isFolder(path.slice(0, slash))) return true;
  }
  return false;
}
