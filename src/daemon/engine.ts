// What the daemon's parts share: the settings in force and the index they update (the store, the
// parse pool, the reconciler and the hot view), with how far it is. Each part reads these fields
// at each use: a store failure during the cold index replaces all four, a changed project config
// the pool and the reconciler.
import { type Discovery, excludedPathMatcher, leftOutMatcher } from '../discover/discover.js';
import { errorMessage } from '../errors.js';
import { type ProjectConfig, readProjectConfig } from '../config.js';
import { type LanguageOverride, resolveLanguages } from '../extract/user-languages.js';
import { type PathState, Reconciler } from '../indexer/indexer.js';
import { type ParseRunner, createRunner } from '../indexer/pool.js';
import type { ParseQueue } from '../indexer/parse-queue.js';
import { TagStore } from '../store/store.js';
import { graphInputsKey } from '../graph/graph-file.js';
import type { DaemonStatus } from '../api/types.js';
import { RepoState } from './repo-state.js';
import { type DaemonOptions, daemonSettings } from './settings.js';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The store lets go of its map only from this size of its data file on: below it, the pages it
 * keeps resident are few, and closing the pool and starting another costs more than they do.
 */
const RELEASE_PAGES_FROM_BYTES = 64 * 1024 * 1024;

export class DaemonEngine {
  /** The settings in force (replaced when the project config changes). */
  private settings: DaemonOptions;
  private current: { store: TagStore; state: RepoState; runner: ParseRunner; reconciler: Reconciler };
  private excluded: ((path: string) => boolean) | null;
  /** 'ready' once the cold index is done (set by ColdIndex). */
  phase: DaemonStatus['state'] = 'indexing';
  /** When the index last took a change (the cold index, an update, a rediscovery). */
  lastUpdate: Date | null = null;
  /** Aborted by shutdown: a long index pass stops at its next batch instead of running to its end. */
  private readonly stop = new AbortController();
  /** Set while the store lets go of its map (see releaseStorePages). */
  private releasing: Promise<void> | undefined;

  /** `onIdleTimeoutChanged` is called when a reloaded project config changes the idle timeout. */
  constructor(
    options: DaemonOptions,
    private readonly onIdleTimeoutChanged: () => void,
  ) {
    this.settings = options;
    // First: a glob outside the root is a bad request, said before a store is opened or a thread started.
    this.excluded = excludedPathMatcher(options.root, options);
    const store = TagStore.open(options.cacheDir, { onNotice: options.log, sharedCacheDir: options.sharedCacheDir });
    const runner = this.newRunner(options.workers);
    this.current = { store, state: new RepoState(options.root, store), runner, reconciler: this.newReconciler(store, runner) };
  }

  /** A parse runner of `workers` threads, with the test options the daemon was given. */
  private newRunner(workers: number): ParseRunner {
    return createRunner(workers, this.settings.runnerOptions);
  }

  get options(): DaemonOptions {
    return this.settings;
  }
  get store(): TagStore {
    return this.current.store;
  }
  get state(): RepoState {
    return this.current.state;
  }
  get runner(): ParseRunner {
    return this.current.runner;
  }
  get reconciler(): Reconciler {
    return this.current.reconciler;
  }
  /** Whether the project's exclude globs leave out a path, or it lies in the daemon's cache folders. */
  isExcluded(path: string): boolean {
    return this.excluded?.(path) ?? false;
  }
  get signal(): AbortSignal {
    return this.stop.signal;
  }
  /** Whether shutdown has begun (an index pass it stopped then ends with an AbortError, not a failure). */
  get isStopping(): boolean {
    return this.stop.signal.aborted;
  }
  abort(): void {
    this.stop.abort();
  }

  readonly hashOf = (path: string) => this.state.recordOf(path)?.hash;

  /** What the saved related graph depends on besides the files' contents (see graphInputsKey). */
  graphInputs(): string {
    return graphInputsKey(this.state.projectKey(), this.store.languageSignatures());
  }

  /** Brings the store up to date with `paths` and takes every state into the hot view, dropping records of paths not among them. */
  async indexPass({ paths, unread }: Discovery, order?: ParseQueue): Promise<void> {
    // States are applied as they settle, so the graph takes each record's references as it comes.
    const states = await this.reconciler.update(
      paths,
      this.state.stats,
      undefined, // how far the pass is, the cold index tells from `order` (see ColdIndex.passCounts)
      (batch) => {
        this.state.apply(batch);
      },
      this.signal,
      unread,
      order,
    );
    this.prune(states);
  }

  /** Drops the records of the paths an update found gone (see Reconciler.prune); the files the project's globs leave out keep theirs. */
  prune(states: ReadonlyMap<string, PathState>): void {
    this.reconciler.prune(states, this.state.stats, leftOutMatcher(this.options.root, this.options));
  }

  /**
   * Moves a store that failed aside and starts over on a new one: the pool's threads (which hold
   * the old store open) are closed first, and the hot view, which took records from it, is made anew.
   */
  async rebuildStore(error: unknown): Promise<void> {
    const { root, workers, log } = this.options;
    await this.runner.close();
    const store = await TagStore.rebuild(this.store, error, { onNotice: log });
    const runner = this.newRunner(workers);
    this.current = { store, state: new RepoState(root, store), runner, reconciler: this.newReconciler(store, runner) };
  }

  /** Whether the store is large enough for releaseStorePages to let go of its map. */
  releasesPages(): boolean {
    return this.store.dataBytes() >= (this.options.releasePagesFromBytes ?? RELEASE_PAGES_FROM_BYTES);
  }

  /**
   * Lets go of the store's map (see TagStore.releasePages) when the store is large enough for its
   * pages to matter (RELEASE_PAGES_FROM_BYTES). The pool's threads hold the store open, and the map
   * with it, so they are closed first and a new pool is started. What the passes parsed is
   * published to the shared cache in between, while the store can let go of its map as publishing
   * reads it. A read meanwhile would find the store closed: readers wait for `storeReadable`. True
   * when it let go (and the pool is new).
   */
  async releaseStorePages(): Promise<boolean> {
    if (!this.releasesPages()) return false;
    const started = Date.now();
    const release = (async () => {
      await this.runner.close();
      try {
        await this.publishShared({ poolClosed: true });
        await this.store.releasePages();
      } finally {
        // Updates need a pool whatever became of the release.
        this.current.runner = this.newRunner(this.options.workers);
        this.current.reconciler = this.newReconciler(this.store, this.runner, this.reconciler.languageOverrides);
      }
    })();
    this.releasing = release;
    try {
      await release;
    } finally {
      this.releasing = undefined;
    }
    this.options.log(`store's pages let go in ${Date.now() - started} ms`);
    return true;
  }

  /**
   * Publishes to the shared cache what the passes since the last publish parsed (see
   * Reconciler.publishShared); the store lets go of its map as publishing reads it only when the
   * pool is closed (inside releaseStorePages). Called after each pass, before the reconciler can
   * be replaced (a new one holds nothing to publish): in the sync's queue, as letting go is. A
   * shutdown stops it.
   */
  async publishShared({ poolClosed = false } = {}): Promise<void> {
    const started = Date.now();
    const { files, releases } = await this.reconciler.publishShared(this.state.stats, poolClosed, this.signal);
    if (files === 0) return;
    const released = releases > 0 ? `, the store's map let go ${releases} times` : '';
    this.options.log(`published ${files} files to the shared cache in ${Date.now() - started} ms${released}`);
  }

  /** Settles when the store can be read (it is not letting go of its map). */
  async storeReadable(): Promise<void> {
    await this.releasing;
  }

  /**
   * Reads the project config again and runs with it from now on (a config that cannot be read is
   * logged, and the one before kept). True when what discovery lists can have changed.
   */
  async reloadConfig(): Promise<boolean> {
    let config: ProjectConfig;
    try {
      config = readProjectConfig(this.options.root).config;
    } catch (err) {
      this.options.log(`project config not applied: ${errorMessage(err)}`);
      return false;
    }
    if (same(config, this.options.config)) return false;
    const before = this.options;
    const after = (this.settings = { ...before, config, ...daemonSettings(before.flags, config) });
    after.log('project config reloaded');
    this.excluded = excludedPathMatcher(after.root, after); // the config's globs were checked as it was read
    if (after.idleTimeoutMs !== before.idleTimeoutMs) this.onIdleTimeoutChanged();
    if (after.workers !== before.workers) {
      await this.runner.close();
      this.current.runner = this.newRunner(after.workers);
    }
    const languagesChanged = !same(after.languages, before.languages);
    if (after.workers !== before.workers || after.maxFileBytes !== before.maxFileBytes || languagesChanged) {
      this.current.reconciler = this.newReconciler(this.store, this.runner, languagesChanged ? undefined : this.reconciler.languageOverrides);
    }
    return languagesChanged || !same([before.exclude, before.include, before.maxFileBytes], [after.exclude, after.include, after.maxFileBytes]);
  }

  /**
   * Whether the project's languages read now (its query files, the grammars its config names)
   * differ from those the index was made with (the reconciler's: see newReconciler): a query
   * changed where no watch saw it (before the watcher started, or past the system's limit of watches).
   */
  languagesChanged(): boolean {
    const key = (languages: readonly LanguageOverride[]) => languages.map((lang) => `${lang.id}:${lang.signature}`).join(' ');
    try {
      return key(resolveLanguages(this.options.root, this.options.languages, this.options.allowGrammars)) !== key(this.reconciler.languageOverrides);
    } catch {
      return true; // they cannot be read now: reloadLanguages says why
    }
  }

  /** A new reconciler, with the languages read again (a query file changed); false (and logged) when they cannot be. */
  reloadLanguages(): boolean {
    try {
      this.current.reconciler = this.newReconciler();
    } catch (err) {
      this.options.log(`tag queries not applied: ${errorMessage(err)}`);
      return false;
    }
    this.options.log('tag queries reloaded');
    return true;
  }

  /**
   * A reconciler over the store and the pool. Its languages are those the index was brought up to
   * date with: read from the root only where a whole pass follows (the cold index, a store rebuilt,
   * the queries or the config's languages reloaded, each with a rediscovery); one replacing another
   * for a new pool, or other settings, is given the other's `languages`. So languagesChanged tells a
   * query that changed unseen from one the index was made with.
   */
  private newReconciler(store = this.store, runner = this.runner, languages?: readonly LanguageOverride[]): Reconciler {
    return new Reconciler(this.options.root, store, runner, { ...this.options, onNotice: this.options.log, ...(languages ? { languageOverrides: languages } : {}) });
  }

  /** Closes the pool and then the store. */
  async close(): Promise<void> {
    await this.runner.close();
    await this.store.close();
  }
}
