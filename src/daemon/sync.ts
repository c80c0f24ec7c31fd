// Keeping the index in step with the tree after the cold index: the watcher and its catch-up, the
// sweep where paths cannot be watched, changes applied one batch after another (what a batch names:
// batch-paths.ts), discovery run again when its rules change, and the related graph saved once
// changes stop (graph-saves.ts).
import { isAbsolute } from 'node:path';
import { type DiscoverableFilter, type Discovery, discoverFiles, discoverableFilter, ignoredFolders, isIgnoreFile } from '../discover/discover.js';
import { RepomapError, errorMessage } from '../errors.js';
import { requestFilePaths } from '../paths.js';
import { isConfigPath } from '../config.js';
import type { PathState } from '../indexer/indexer.js';
import { QUERY_DIR, isQueryFolder, isQueryPath } from '../extract/user-languages.js';
import type { DaemonEngine } from './engine.js';
import { type BatchRules, changedSince, filesOf, inFolder, listsOtherwise, modifiedSince, newPaths, notThere } from './batch-paths.js';
import { GraphSaves } from './graph-saves.js';
import type { DaemonTimings } from './settings.js';
import { SymlinkPaths } from './symlinks.js';
import { RepoWatcher, isWatchLimit } from './watcher.js';

export class RepoSync {
  /** Started once the cold index is done (see watch). */
  private watcher: RepoWatcher | undefined;
  /** Set when the watcher's crawl is done and what changed before it is queued. */
  private watching = false;
  /** Paths the watcher could not watch (the system's limit of watches): they are swept instead. */
  private unwatched = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Which new paths discovery would list (replaced whenever discovery runs again). */
  private discoverable: DiscoverableFilter = Object.assign(async () => new Set<string>(), { skips: async () => false });
  private ignored = new Set<string>();
  /** The tree's symlinks, whose targets no event names: checked again with every batch (see SymlinkPaths). */
  private readonly symlinks = new SymlinkPaths();
  /** Settles once `discoverable` and `ignored` are those of the last discovery (rejects if they could not be found). */
  private rulesReady: Promise<void> = Promise.resolve();
  private pendingBatches = 0;
  /** The last batch queued that names git's index: the one of those that lists the tree (see applyChanges). */
  private lastIndexBatch: Set<string> | undefined;
  /** The cold index: requests wait for it before anything else. */
  private ready: Promise<void> = Promise.resolve();
  /**
   * The watcher's start and its catch-up (see watch), while they run: a request waits for them, so
   * that a change made since the start (which the watcher did not see) is applied before it is
   * answered. The first map, which starts them, does not wait: it is answered from the index.
   */
  private catchingUp: Promise<unknown> | undefined;
  /** Updates run one after another; map requests wait for the ones queued before them. */
  private work: Promise<void> = Promise.resolve();
  /** The related graph's saves for the next start. */
  private readonly graphSaves: GraphSaves;
  /** The rules a batch is judged by, as they stand (see filesOf). */
  private readonly batchRules: BatchRules = {
    ready: () => this.rulesReady,
    skips: (folder) => this.discoverable.skips(folder),
    isWatchIgnored: (path) => this.isWatchIgnored(path),
    rewatch: (folder) => this.watcher?.rewatch(folder),
  };

  /**
   * `rootGone` says why the root is no longer the folder the daemon started on (deleted, moved),
   * having asked for the shutdown then; undefined while it is (see Lifecycle.rootGone).
   */
  constructor(
    private readonly engine: DaemonEngine,
    private readonly timings: DaemonTimings,
    private readonly rootGone: () => Promise<string | undefined>,
  ) {
    this.graphSaves = new GraphSaves(engine, timings.graphSaveDelayMs, () => this.pendingChanges > 0, () => this.rebuildIfDamaged());
  }

  /** Queues the cold index first: every update and request comes after it. */
  begin(coldIndex: Promise<void>): void {
    this.ready = this.work = coldIndex;
  }

  get isWatching(): boolean {
    return this.watching;
  }
  get unwatchedPaths(): number {
    return this.unwatched;
  }
  /** Changes seen but not applied yet: the watcher's and the batches queued. */
  get pendingChanges(): number {
    return (this.watcher?.pendingCount ?? 0) + this.pendingBatches;
  }

  /** Lists the tree, and with it the rules new paths are judged by and the folders left unwatched. */
  async discover(): Promise<Discovery> {
    const discovery = await listTree(this.engine);
    this.readRules(discovery);
    return discovery;
  }

  /**
   * Reads the rules new paths are judged by and the folders left unwatched, after a listing. They
   * matter once the watcher runs: found meanwhile, not before the first map (a second git call). A
   * folder left unwatched that the rules no longer ignore (its ignore rule gone, a file in it
   * force-added to git's index) is watched from then on. The count of files the globs left out is
   * kept from the listing too (a file the globs leave out, created since, is not counted until the
   * next), and so are its symlinks (see SymlinkPaths).
   */
  private readRules({ source, leftOut, symlinks }: Discovery): void {
    const { root } = this.engine.options;
    this.engine.state.stats.leftOut = leftOut;
    this.symlinks.reset(symlinks);
    this.rulesReady = Promise.all([discoverableFilter(root, source, this.engine.options), ignoredFolders(root, source)]).then(([discoverable, ignored]) => {
      const before = this.ignored;
      this.discoverable = discoverable;
      this.ignored = ignored;
      this.watcher?.watch([...before].filter((folder) => !this.isWatchIgnored(folder)));
    });
    this.rulesReady.catch(() => {}); // awaited where the rules are used, which says what failed
  }

  /**
   * Starts the watcher (after the first map: its first crawl, an lstat per entry and a watch per
   * folder, would delay it). Then catches up with what changed before each folder was watched: new
   * files discovery lists, indexed files whose stat differs from their record or that are gone,
   * files without a record (a `.gitignore`) modified since `sinceMs`, and the tag queries (see
   * changedUnseen). True once it follows the tree.
   */
  async watch(sinceMs: number): Promise<boolean> {
    const watching = this.watchAndCatchUp(sinceMs);
    this.catchingUp = watching.catch(() => {});
    try {
      return await watching;
    } finally {
      this.catchingUp = undefined;
    }
  }

  private async watchAndCatchUp(sinceMs: number): Promise<boolean> {
    const { root, log, unwatchable } = this.engine.options;
    const delay = this.timings.watchDelayMs;
    if (delay > 0) await new Promise((resume) => setTimeout(resume, delay));
    await this.rulesReady;
    if (this.engine.isStopping) return false;
    const started = Date.now();
    const watcher = await RepoWatcher.start(root, {
      // The queries' folders are the project's config, read whatever discovery lists: followed even where git ignores them.
      isIgnored: (path) => !isQueryFolder(path) && this.isWatchIgnored(path),
      files: this.gitFiles(),
      onChanges: (paths) => this.enqueue(paths),
      onRootEvent: () => void this.rootGone(),
      onError: (err) => this.watchFailed(err),
      ...(unwatchable ? { unwatchable } : {}),
    });
    if (this.engine.isStopping) {
      // The shutdown came while chokidar loaded, so it closed no watcher.
      await watcher.close();
      return false;
    }
    this.watcher = watcher;
    await watcher.ready;
    if (this.engine.isStopping) return false;
    const changed = await this.changedUnseen(sinceMs);
    if (changed.size > 0) this.enqueue(changed);
    this.watching = true;
    log(`watching after ${Date.now() - started} ms; ${changed.size} paths changed meanwhile`);
    return true;
  }

  /**
   * A path the watcher could not watch for want of system watches (ENOSPC: fs.inotify.max_user_watches)
   * or handles is not followed: the first is logged with the remedy, and from then on the indexed
   * files are stat'ed every `sweepMs` instead, so an edit or a deletion still shows, later.
   */
  private watchFailed(err: unknown): void {
    const { log } = this.engine.options;
    if (!isWatchLimit(err)) {
      log(`watcher error: ${errorMessage(err)}`);
      return;
    }
    if (this.unwatched++ > 0) return;
    const { sweepMs } = this.timings;
    log(
      `watcher error: ${errorMessage(err)}; files past the system's limit are not watched: their edits, and new ` +
        `files, show within ${sweepMs / 1000} s (raise the limit: sysctl fs.inotify.max_user_watches=524288)`,
    );
    let since = Date.now();
    this.sweepTimer = setInterval(() => {
      const started = Date.now();
      if (this.pendingBatches > 0) return;
      this.changedUnseen(since - 1000)
        .then((paths) => {
          since = started;
          if (paths.size > 0) this.enqueue(paths);
        })
        .catch((failure: unknown) => this.engine.options.log(`sweep failed: ${errorMessage(failure)}`));
    }, sweepMs);
    this.sweepTimer.unref();
  }

  /**
   * What changed where no watch saw it (before the watcher followed the tree, or past the system's
   * limit of watches): new files discovery lists, known files changed since `sinceMs` or gone, and
   * QUERY_DIR when the languages read now are not those parsed with, since discovery may list no
   * query file (git ignores `.repomap/`) and the two before miss it then.
   */
  private async changedUnseen(sinceMs: number): Promise<Set<string>> {
    const [added, changed, gitChanged] = await Promise.all([newPaths(this.engine, listTree), changedSince(this.engine, sinceMs), modifiedSince(this.gitFiles(), sinceMs)]);
    const paths = new Set([...added, ...changed, ...gitChanged]);
    if (this.engine.languagesChanged()) paths.add(QUERY_DIR);
    return paths;
  }

  /** Git's files that decide what it lists (see GitStateFiles), absolute: none outside git. */
  private gitFiles(): string[] {
    const files = this.discoverable.gitFiles;
    return files ? [files.index, ...files.excludes] : [];
  }

  /** A folder discovery lists nothing in, found after the start: no longer watched, its events dropped. */
  private leaveOut(folder: string): void {
    this.ignored.add(folder);
    this.watcher?.unwatch(folder);
    this.engine.options.log(`left out ${folder}/: ignored, no file of it listed`);
  }

  private isWatchIgnored(path: string): boolean {
    return this.engine.isExcluded(path) || this.ignored.has(path) || inFolder(path, (folder) => this.ignored.has(folder));
  }

  /** Queues a batch of changed paths (applied after those queued before). */
  enqueue(paths: Set<string>): void {
    if (this.engine.isStopping) return; // a catch-up or a sweep that ends after a stop has nothing to update
    const index = this.discoverable.gitFiles?.index;
    if (index !== undefined && paths.has(index)) this.lastIndexBatch = paths;
    this.pendingBatches++;
    this.work = this.work
      .then(() => this.applyChanges(paths))
      .catch((err: unknown) => this.engine.options.log(`update failed: ${errorMessage(err)}`))
      .finally(() => this.pendingBatches--);
  }

  /**
   * Queues the files a request names that the index does not know yet (written a moment ago, the
   * watcher has not told of them): the map then finds them indexed, or refuses one the discovery
   * rules leave out. A path that is no file of the root is left for the map to refuse.
   */
  catchUpNamed(paths: readonly string[]): void {
    if (this.engine.phase !== 'ready') return; // the cold index lists what exists
    const { state } = this.engine;
    const unknown = new Set(requestFilePaths(this.engine.options.root, paths).filter((rel) => !state.has(rel)));
    if (unknown.size > 0) this.enqueue(unknown);
  }

  /**
   * Brings changed paths up to date; a change of an ignore file (.gitignore, .repomapignore,
   * .aiderignore, git's own outside the tree) or a tag query file, or a project config change that
   * moves what discovery lists, re-runs discovery over the tree, and so does a change of git's
   * index that changes the files git lists. A batch names the tree's paths relative to the root,
   * git's files (see RepoWatcherOptions.files) by their absolute paths.
   */
  private async applyChanges(batch: Set<string>): Promise<void> {
    // Once the root is gone (deleted, moved), every path of a batch reads as missing, and the
    // records of its files are not to be dropped: a daemon on the moved folder may share this cache
    // and read them. A batch of the removal's own events is checked after the removal, so it is
    // never applied; the daemon stops (see Lifecycle.rootGone).
    if (await this.rootGone()) return;
    const { engine } = this;
    // A store whose file was cut under the daemon is rebuilt by a whole pass before it is read or written again (see TagStore.damage).
    if (engine.store.damage()) {
      await this.rediscover();
      return;
    }
    const started = performance.now();
    const changed = new Set([...batch].filter((path) => !isAbsolute(path)));
    const gitChanged = [...batch].filter((path) => isAbsolute(path));
    const index = this.discoverable.gitFiles?.index;
    // Batches queued behind this one while git writes its index again and again (a rebase, a
    // script) list the tree once: in the last that names the index.
    const indexChanged = batch === this.lastIndexBatch;
    // The batch is judged by its files, those under the folders it names too: a folder made with
    // its files in it (`mkdir -p .repomap/queries` and a write in one go, a checkout that adds the
    // folder) is named alone, and its query or ignore file must re-run discovery all the same.
    const { files, leftOut } = await filesOf(engine, changed, this.batchRules);
    const configMoved = [...files].some(isConfigPath) && (await engine.reloadConfig());
    // A query file (.repomap/queries/) changes what its language's files give: a new reconciler
    // resolves the languages again, and its first update re-parses the files whose query changed.
    // A query folder made, deleted or renamed does too: where git ignores it, none of its files is
    // known or walked (see filesOf), and its entry is all the batch says of its queries.
    const queriesMoved =
      !configMoved && [...files, ...changed].some((path) => isQueryPath(path) || isQueryFolder(path.replace(/\/$/, ''))) && engine.reloadLanguages();
    if (configMoved || queriesMoved || [...files].some(isIgnoreFile) || gitChanged.some((file) => file !== index)) {
      await this.rediscover();
      return;
    }
    // git rewrites its index on most commands (`git status` refreshes it): the tree is listed, and
    // nothing more is done unless the files listed changed.
    if (indexChanged) {
      const listing = await listTree(engine);
      if (await listsOtherwise(engine, listing.paths)) {
        await this.rediscover(listing);
        return;
      }
      engine.options.log(`git's index changed, not the ${listing.paths.length} files listed (${(performance.now() - started).toFixed(0)} ms)`);
      if (changed.size === 0) return;
    }
    for (const folder of leftOut) this.leaveOut(folder);
    await this.rulesReady;
    const { state } = engine;
    // Events from inside a folder just left out are dropped with it.
    const candidates = [...files].filter((path) => state.has(path) || !this.isWatchIgnored(path));
    // A link's target changed, appeared or went with no event naming the link: updated with the batch.
    candidates.push(...(await this.symlinks.changed(engine.options.root, state, new Set(candidates))));
    // A path already indexed was discoverable and stays so (ignore rules change only with a
    // .gitignore, which re-runs discovery): only new paths are asked of git or the ignore files.
    const unknown = candidates.filter((path) => !state.has(path));
    const listed = await this.discoverable(unknown);
    for (const path of candidates) if (state.has(path)) listed.add(path);
    // A watcher names any entry, a folder or a file just deleted: those are gone.
    for (const path of await notThere(engine.options.root, [...listed], (path) => state.has(path))) listed.delete(path);
    const filtered = performance.now();
    const updates: Map<string, PathState> = await engine.reconciler.update(
      candidates.filter((path) => listed.has(path)),
      state.stats,
    );
    for (const path of candidates) if (!listed.has(path)) updates.set(path, { gone: true });
    const reconciled = performance.now();
    state.apply(updates);
    await this.symlinks.note(engine.options.root, state, updates.keys());
    // The related graph follows now, while no request waits, unless more changes are on the way.
    // Arrays made to measure move into arrays with room too, unless names are still being linked:
    // the warm-up moves them once they are and the store's pages are let go of. Moved by an update
    // during linking (a start often brings one), the copy would come on top of linking's peak.
    if (this.pendingBatches <= 1 && (this.watcher?.pendingCount ?? 0) === 0) state.graph.prepareRelated({ room: state.graph.pendingCount === 0 });
    if (updates.size > 0) this.scheduleGraphSave();
    engine.lastUpdate = new Date();
    const ms = (from: number, to: number) => (to - from).toFixed(0);
    const applied = performance.now();
    engine.options.log(
      `updated ${candidates.length} paths in ${ms(started, applied)} ms (discovery ${ms(started, filtered)}, store and parse ${ms(filtered, reconciled)}, graph ${ms(reconciled, applied)})`,
    );
    await engine.publishShared();
  }

  /**
   * Lists the tree again (or takes `listing`, one just made) and brings the index up to date with
   * it: files and files parsed.
   */
  async rediscover(listing?: Discovery): Promise<{ files: number; parsed: number }> {
    // Listed after the root went, no file would be left: every record dropped (see applyChanges).
    const gone = await this.rootGone();
    if (gone) throw new RepomapError('daemon-unavailable', `the daemon is stopping: ${gone}`);
    const { engine } = this;
    const damage = engine.store.damage();
    if (damage) await engine.rebuildStore(damage);
    const before = engine.state.stats.parsed;
    const discovery = listing ?? (await listTree(engine));
    this.readRules(discovery);
    await this.rulesReady;
    const { state, reconciler } = engine;
    // Git lists the files of its index, which a checkout writes after it has changed the tree: a
    // rediscovery its .gitignore starts can list the files of the tree before it, deleted already,
    // their events handled (see notThere).
    // A path listed but never read (a name that is not UTF-8 names nothing a stat can find) is kept as listed.
    const missing = new Set(await notThere(engine.options.root, discovery.paths.filter((path) => !discovery.unread.has(path)), () => true));
    const paths = missing.size === 0 ? discovery.paths : discovery.paths.filter((path) => !missing.has(path));
    const present = new Set(paths);
    const updates = await reconciler.update(paths, state.stats, undefined, undefined, engine.signal, discovery.unread);
    engine.prune(updates);
    for (const path of state.paths()) if (!present.has(path)) updates.set(path, { gone: true });
    state.apply(updates);
    state.inOrder(paths);
    this.scheduleGraphSave();
    engine.lastUpdate = new Date();
    engine.options.log(`rediscovered ${paths.length} files`);
    await engine.publishShared();
    return { files: paths.length, parsed: state.stats.parsed - before };
  }

  /** Waits for the cold index, for the watcher's catch-up when it runs, and for every update queued so far. */
  async settled(): Promise<void> {
    await this.ready;
    await this.catchingUp;
    let current: Promise<void>;
    do {
      current = this.work;
      await current;
    } while (current !== this.work);
  }

  /**
   * Indexes the tree again into a new store, after the updates queued so far, when the store's
   * data file was damaged under the daemon (see TagStore.damage): a read of it would kill the
   * process. Resolves at once while it is not; a failure is logged.
   */
  async rebuildIfDamaged(): Promise<void> {
    if (!this.engine.store.damage()) return;
    await this.serialize(() => this.rediscover()).catch((err: unknown) => this.engine.options.log(`rebuilding the tag cache failed: ${errorMessage(err)}`));
  }

  /** Runs `task` after the updates queued so far; later updates wait for it. */
  serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.work.then(task);
    this.work = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  /** Saves the related graph once changes have stopped for a while (see GraphSaves). */
  scheduleGraphSave({ publish = false } = {}): void {
    this.graphSaves.schedule({ publish });
  }

  /** Stops watching, waits for the update under way, and saves the related graph if it changed. */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.watcher?.close();
    await this.work.catch(() => {}); // each piece of work logs its own failure where it fails
    // The graph holds what it took, and each file is checked by its hash when read back: a stopped update does not matter.
    this.graphSaves.close();
  }
}

/** Discovery of the engine's tree, its notices (git past its bound, the tree walked instead) in the daemon's log. */
function listTree(engine: DaemonEngine): Promise<Discovery> {
  const { options } = engine;
  return discoverFiles(options.root, { ...options, onNotice: options.log });
}
