// The daemon's first index of the tree, served while it runs: a map asked for meanwhile puts the
// files it needs ahead and may be answered from what is indexed so far (a partial map), never
// with a wrong one. Then the related graph is read from the cache or built.
import type { Discovery } from '../discover/discover.js';
import { errorMessage } from '../errors.js';
import { requestFilePaths } from '../paths.js';
import { readSavedGraphAhead } from '../map.js';
import { type PartialIndex } from '../api/types.js';
import { ParseQueue } from '../indexer/parse-queue.js';
import { prioritize } from '../indexer/priority.js';
import { wroteTags } from '../indexer/indexer.js';
import { isStoreFailure } from '../store/store.js';
import { countRestored, restoreSavedGraph } from '../graph/graph-file.js';
import { startTokenizer } from '../pack/tokens.js';
import type { DaemonEngine } from './engine.js';
import type { RepoSync } from './sync.js';

export class ColdIndex {
  /** The pass's order and its discovered paths, while it runs (see settledOrBound). */
  private pass: { queue: ParseQueue; paths: readonly string[] } | undefined;
  /** The discovery (whose paths `pass` holds once the pass starts). */
  private discovery: Promise<Discovery> | undefined;
  private done: Promise<unknown> | undefined;

  constructor(
    private readonly engine: DaemonEngine,
    private readonly sync: RepoSync,
  ) {}

  /** Runs the cold index (once): the files it found and when it began, once maps can be answered. */
  start(): Promise<{ paths: readonly string[]; startedMs: number }> {
    const run = this.run();
    this.done = run;
    return run;
  }

  private async run(): Promise<{ paths: readonly string[]; startedMs: number }> {
    const { engine } = this;
    const { log } = engine.options;
    const started = Date.now();
    const discovering = (this.discovery = this.sync.discover());
    const savedGraph = readSavedGraphAhead(engine.store.dir);
    // A first index with a shared cache keys every file by git's index: read while git lists the files.
    if (engine.store.shared && engine.store.isEmpty()) engine.reconciler.readGitIndexAhead();
    const discovery = await discovering;
    // A store damaged where the checks at open do not look fails in the pass: moved aside and rebuilt, once.
    try {
      await engine.indexPass(discovery, this.queueFor(discovery));
    } catch (err) {
      if (!isStoreFailure(err) || engine.isStopping) throw err;
      await engine.rebuildStore(err);
      await engine.indexPass(discovery, this.queueFor(discovery));
    } finally {
      this.pass = undefined;
    }
    const { state } = engine;
    // What the pass wrote stays mapped, as much as the whole store after a first index: let go
    // before the graph is built (as openRepository does for a map in-process). What it parsed is
    // published to the shared cache while the pool is closed for that; a store too small to let go
    // of its map publishes with the pool open.
    if (wroteTags(state.stats)) await engine.releaseStorePages();
    await engine.publishShared();
    startTokenizer();
    state.inOrder(discovery.paths);
    const prepared = Date.now();
    const saved = await restoreSavedGraph(state.graph, await savedGraph, { rootDir: engine.store.dir, sharedDir: engine.store.shared?.dir }, engine.hashOf, engine.graphInputs());
    if (saved === 'the cache' || saved === 'the shared cache') {
      countRestored(state.stats, saved);
      log(`related graph read from ${saved} in ${Date.now() - prepared} ms`);
    } else {
      state.graph.prepareRelated({ spare: false });
      // A change derives the edges of the files it makes stale, as on a graph restored.
      state.graph.forgetFileEdges();
      log(`related graph built in ${Date.now() - prepared} ms (saved graph: ${saved})`);
      // Published once saved: another clone of this tree starts from it.
      this.sync.scheduleGraphSave({ publish: true });
    }
    engine.phase = 'ready';
    engine.lastUpdate = new Date();
    const { parsed, reusedByStat, reusedByHash } = state.stats;
    log(`indexed ${discovery.paths.length} files in ${Date.now() - started} ms: ${parsed} parsed, ${reusedByStat + reusedByHash} reused`);
    return { paths: discovery.paths, startedMs: started };
  }

  /** A new order for the pass over `discovery` (a pass started again after a store failure starts anew). */
  private queueFor(discovery: Discovery): ParseQueue {
    const queue = new ParseQueue();
    this.pass = { queue, paths: discovery.paths };
    return queue;
  }

  /**
   * Waits until the index is complete (see RepoSync.settled); or, when a bound is given and the
   * cold index is under way, until the bound passes, putting meanwhile the files the map needs
   * ahead in the pass (see prioritize): then says how far the index is, for a partial map. A
   * partial map waits past the bound for the files the request names and those they import
   * (parsed first: a few files).
   */
  async settledOrBound(named: readonly string[], waitMs: number | undefined): Promise<PartialIndex | undefined> {
    const { engine } = this;
    // The bound counts from the request, not from the end of the discovery it may wait for.
    const deadline = Date.now() + (waitMs ?? 0);
    if (waitMs !== undefined && engine.phase === 'indexing') await this.discovery;
    const pass = this.pass;
    if (waitMs === undefined || !pass) {
      await this.sync.settled();
      return undefined;
    }
    const { root, log } = engine.options;
    const seeds = requestFilePaths(root, named);
    const graph = engine.state.graph;
    const { core, queued } = prioritize(seeds, { root, paths: pass.paths, queue: pass.queue, namesOf: (path) => graph.fileNames(path), signal: engine.signal });
    queued.catch((err: unknown) => log(`prioritizing failed: ${errorMessage(err)}`));
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))));
    try {
      await Promise.race([this.done, bound]);
      await core;
    } finally {
      clearTimeout(timer);
    }
    if (engine.phase === 'ready') {
      await this.sync.settled();
      return undefined;
    }
    await engine.storeReadable();
    // The records settled so far are read for the partial map: their writes, and with them what this thread reads, are current.
    await engine.store.written();
    return pass.queue.progress();
  }
}
