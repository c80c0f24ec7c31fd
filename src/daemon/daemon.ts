// One repository's daemon, composed of its parts: the engine (settings, store, pool, hot view),
// the cold index, the sync that follows the tree, the warm-up, the lifecycle (lock, socket, idle
// timeout) and the JSON-RPC side. This module wires them and answers each method.
import { withProjectConfig } from '../config.js';
import type { MapRequest, RepoMap, SymbolAnswer, SymbolQuery } from '../api/types.js';
import { mapFromIndex, notMapped, publicMap, readChatHistory } from '../map.js';
import { HistoryCache } from '../history/history-cache.js';
import { budgetFor, waitBoundMs } from '../api/request.js';
import { findSymbols, namesIn } from '../symbols.js';
import { ColdIndex } from './cold-index.js';
import { DaemonEngine } from './engine.js';
import { Lifecycle, withRootLock } from './lifecycle.js';
import type { DaemonStatus } from '../api/types.js';
import { type DaemonMethods, serveConnection } from './rpc.js';
import { DAEMON_TIMINGS, type DaemonOptions } from './settings.js';
import { RepoSync } from './sync.js';
import { repositoryFallbacks } from '../extract/native.js';
import { WarmUp } from './warmup.js';

/** A map slower than this is logged with its time. */
const SLOW_MAP_MS = 100;

/**
 * One repository's daemon: the store, the pool, the hot graph and the watcher, answering
 * JSON-RPC requests on a Unix socket. Requests are served while the cold index runs (`status`
 * at once, `map` as soon as the index is complete, or partial at its bound), never with a wrong map.
 */
export class Daemon {
  private readonly engine: DaemonEngine;
  private readonly sync: RepoSync;
  private readonly cold: ColdIndex;
  private readonly warmup: WarmUp;
  private readonly lifecycle: Lifecycle;
  private readonly histories: HistoryCache;
  private readonly started = Date.now();
  private stopping: Promise<void> | undefined;
  /** Settles when the cold index is done and maps can be answered (rejects if it failed). */
  readonly ready: Promise<void>;
  /** Resolves when the daemon has shut down. */
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;
  /** Resolves when shutdown begins, however it was asked for: repomapd's main then bounds how long it may take. */
  readonly shutdownBegun: Promise<void>;
  private resolveShutdownBegun!: () => void;

  private constructor(options: DaemonOptions) {
    const timings = { ...DAEMON_TIMINGS, ...options.timings };
    const engine = (this.engine = new DaemonEngine(options, () => this.lifecycle.touch()));
    this.sync = new RepoSync(engine, timings, () => this.lifecycle.rootGone());
    this.warmup = new WarmUp(engine, this.sync, timings);
    this.cold = new ColdIndex(engine, this.sync);
    this.histories = new HistoryCache(options.root);
    const methods: DaemonMethods = {
      status: () => this.status(),
      map: (params) => this.map(params),
      symbols: (query) => this.symbols(query),
      reindex: () => this.reindex(),
      shutdown: () => void this.shutdown('asked to'),
    };
    this.lifecycle = new Lifecycle({
      root: options.root,
      paths: options.paths,
      holdCheckMs: timings.holdCheckMs,
      idleTimeoutMs: () => engine.options.idleTimeoutMs,
      log: options.log,
      serve: (socket) => serveConnection(socket, { methods, onRequest: () => this.lifecycle.touch(), log: options.log }),
      shutdown: (reason) => void this.shutdown(reason),
    });
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.shutdownBegun = new Promise((resolve) => (this.resolveShutdownBegun = resolve));
    this.ready = this.cold.start().then(({ paths, startedMs }) => this.warmup.afterColdIndex(paths, startedMs));
    this.sync.begin(this.ready);
    this.ready.catch(() => {}); // awaited by main.ts, which logs a failed cold index and stops
  }

  /**
   * Takes the root's lock, cleans up after a crashed daemon, listens, and starts the cold index.
   * Throws a 'refused' RepomapError when another daemon already serves this root.
   */
  static start(options: DaemonOptions): Promise<Daemon> {
    return withRootLock(options.paths, options.root, async () => {
      const daemon = new Daemon(options);
      await daemon.lifecycle.listen();
      return daemon;
    });
  }

  private async map(params: MapRequest): Promise<RepoMap> {
    budgetFor(params); // bad numbers fail now, not after the wait
    const waitMs = waitBoundMs(params.waitSeconds);
    const named = [...(params.chatFiles ?? []), ...(params.mentionedFiles ?? [])];
    this.sync.catchUpNamed(named);
    const partial = await this.cold.settledOrBound(named, waitMs);
    await this.sync.rebuildIfDamaged();
    const started = performance.now();
    const { state, options } = this.engine;
    const { exclude, include, config } = options;
    const asked = { ...withProjectConfig(params, config), exclude, include };
    // A partial index's map is made at once, without the history git would take to read. The
    // index is taken after the wait, with the graph it goes with.
    const history = partial ? undefined : await readChatHistory(state.index(), state.graph, asked, (chatFiles, isSource) => this.histories.history(chatFiles, isSource));
    const index = partial ? { ...state.index(), partial } : state.index();
    const map = publicMap({ ...mapFromIndex(index, state.graph, asked, history), ...(partial ? { partial } : {}) }, { listSkipped: params.listSkipped === true });
    const ms = performance.now() - started;
    if (ms > SLOW_MAP_MS) options.log(`map took ${ms.toFixed(0)} ms`);
    // Once the answer is written.
    setImmediate(() => {
      this.warmup.start();
      this.warmup.afterRequest();
    });
    return map;
  }

  private async symbols(query: SymbolQuery): Promise<SymbolAnswer> {
    await this.sync.settled();
    await this.sync.rebuildIfDamaged();
    const { state, store } = this.engine;
    return findSymbols(state.index(), state.centrality(), query, namesIn(state.graph, store));
  }

  private async reindex(): Promise<{ files: number; parsed: number }> {
    await this.sync.settled();
    return this.sync.serialize(() => this.sync.rediscover());
  }

  status(): DaemonStatus {
    const { engine } = this;
    const { state, options } = engine;
    // While the cold pass runs, its own counts: the hot view holds only the paths settled so far.
    // Before the files are listed it holds none; after the pass, every one (each source file indexed).
    const { settled, ...counts } = this.cold.passCounts() ?? { files: state.fileCount, sourceFiles: state.sourceFileCount, settled: state.sourceFileCount };
    // Counted by the map's rule (see notMapped), once the index is complete: its views are not sorted for every status meanwhile.
    const skipped = engine.phase === 'ready' ? notMapped(state.index()).skipped : {};
    // Asked of this process's runtimes, as the parse threads load them (see grammarFallbacks).
    const grammarFallbacks = engine.phase === 'ready' ? repositoryFallbacks(state.index().paths) : [];
    const memory = process.memoryUsage();
    return {
      root: options.root,
      pid: process.pid,
      state: engine.phase,
      progress: { done: settled, total: counts.sourceFiles },
      ...counts,
      // Files with a record, as the map's work counts them: the hot view holds those the pass settled so far.
      indexed: state.indexedFileCount,
      parsed: state.stats.parsed,
      skipped,
      grammarFallbacks,
      pendingChanges: this.sync.pendingChanges,
      watching: this.sync.isWatching,
      unwatchedPaths: this.sync.unwatchedPaths,
      lastUpdate: engine.lastUpdate?.toISOString() ?? null,
      memory: { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
      uptimeSeconds: Math.round((Date.now() - this.started) / 1000),
      workers: options.workers,
      exclude: [...options.exclude],
      include: [...options.include],
      idleTimeoutSeconds: options.idleTimeoutMs / 1000,
      socket: options.paths.socket,
      cacheDir: options.cacheDir,
      startedWith: { ...options.flags },
    };
  }

  /** Whether shutdown has begun (an index pass it stopped then ends with an AbortError, not a failure). */
  get isStopping(): boolean {
    return this.engine.isStopping;
  }

  /** Stops serving, waits for the update under way, closes the store cleanly and removes the socket. */
  shutdown(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      this.engine.options.log(`shutting down: ${reason}`);
      this.resolveShutdownBegun();
      this.engine.abort();
      this.warmup.stop();
      this.lifecycle.stopServing();
      await this.sync.close();
      await this.engine.close();
      this.lifecycle.release();
      this.resolveClosed();
    })();
    return this.stopping;
  }

  /** Removes the socket and releases the lock at once, for a process about to end without a clean shutdown (see repomapd's main). */
  releaseHold(): void {
    this.lifecycle.release();
  }
}
