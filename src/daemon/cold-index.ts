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
import { UNREFERENCED_MOVED } from './warmup.js';

export class ColdIndex {
  /**
   * The pass's order and its discovered paths, while it runs (see settledOrBound), with whether it
   * ended with every path's state in the hot view (false: it failed or was stopped).
   */
  private pass: { queue: ParseQueue; paths: readonly string[]; whole: Promise<boolean> } | undefined;
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
      await this.passOver(discovery);
    } catch (err) {
      if (!isStoreFailure(err) || engine.isStopping) throw err;
      await engine.rebuildStore(err);
      await this.passOver(discovery);
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
      // The definitions of names nobody references leave the definer index before the build (see coldParsedDefinitions).
      if (state.graph.coldParsedDefinitions()) log(UNREFERENCED_MOVED);
      state.graph.prepareRelated({ room: false });
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

  /** One pass over `discovery`, in an order of its own (a pass started again after a store failure starts anew). */
  private async passOver(discovery: Discovery): Promise<void> {
    const queue = new ParseQueue();
    const passing = this.engine.indexPass(discovery, queue);
    this.pass = { queue, paths: discovery.paths, whole: passing.then(() => true, () => false) };
    try {
      await passing;
    } finally {
      this.pass = undefined;
    }
  }

  /**
   * How far the pass is, while one runs: the files it lists (every kind), the source files among
   * them (those with a grammar, which it goes through) and those settled so far (indexed, or
   * skipped by their stat). Undefined before the files are listed and once the pass is over, when
   * the hot view holds what it settled.
   */
  passCounts(): { files: number; sourceFiles: number; settled: number } | undefined {
    if (!this.pass) return undefined;
    const { indexedFiles, files } = this.pass.queue.progress();
    return { files: this.pass.paths.length, sourceFiles: files, settled: indexedFiles };
  }

  /**
   * Waits until the index is complete (see RepoSync.settled); or, when a bound is given and the
   * cold index is under way, until the bound passes, putting meanwhile the files the map needs
   * ahead in the pass (see prioritize): then says how far the index is, for a partial map
   * (undefined: the map is complete, as it is once every file is indexed). A partial map waits
   * past the bound for the files the request names and those they import (parsed first: a few files).
   */
  async settledOrBound(named: readonly string[], waitMs: number | undefined): Promise<PartialIndex | undefined> {
    const { engine } = this;
    // The bound counts from the request, not from the end of the discovery it may wait for.
    const deadline = Date.now() + (waitMs ?? 0);
    // Listing a tree can take long (a huge one, a git past its bound that gives way to a walk):
    // the bound holds there too, and a request it ends first is a partial map of nothing yet.
    if (waitMs !== undefined && engine.phase === 'indexing' && !(await settlesBy(this.discovery, deadline))) return { indexedFiles: 0, files: 0 };
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
    await settlesBy(this.done, deadline);
    await core;
    if (engine.phase === 'ready') {
      await this.sync.settled();
      return undefined;
    }
    // A pass that has settled every source file ends in a moment (its last writes, the records of
    // files gone dropped; the paths without a grammar were applied before the first source file):
    // then the hot view holds the whole tree, and a map made from it is the complete map, not a
    // partial one. What the cold index does after the pass (publishing; reading or building the
    // related graph, which a map builds itself when it is not there yet) changes no map.
    const whole = pass.queue.isDone() && (await pass.whole);
    await engine.storeReadable();
    // The records settled so far are read for the map: their writes, and with them what this thread reads, are current.
    await engine.store.written();
    // A pass that failed was started again (see run): how far the new one is.
    return whole ? undefined : (this.pass ?? pass).queue.progress();
  }
}

/** Whether `work` is done before `deadline` (epoch ms); its failure is thrown, as awaiting it would. */
async function settlesBy(work: Promise<unknown> | undefined, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([(work ?? Promise.resolve()).then(() => true), bound]);
  } finally {
    clearTimeout(timer);
  }
}
