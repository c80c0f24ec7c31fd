// The daemon's warm-up after its cold index: the work that readies it for the first change (the
// names linked, the pool's grammars loaded, the store's writes prepared, the watcher started, a
// change rehearsed). It waits for the first map, which the client that started the daemon is
// usually waiting for and which it would delay on a machine with few cores.
import { errorMessage } from '../errors.js';
import { giveBackMemory } from '../extract/memory.js';
import { loadTokenizerHere } from '../pack/tokens.js';
import type { DaemonEngine } from './engine.js';
import type { DaemonTimings } from './settings.js';
import type { RepoSync } from './sync.js';

/** Files linked into the name indexes per turn of the event loop, so requests are answered between slices. */
const LINK_SLICE_FILES = 1500;
/** What the log says when the definitions of names no file references leave the definer index (see ReferenceGraph.coldParsedDefinitions). */
export const UNREFERENCED_MOVED = 'definitions of names no file references moved out of the definer index';

/**
 * While linking, the store lets go of its map (a large store's: see DaemonEngine.releaseStorePages)
 * each time this many files' names were read from it since the last time.
 */
const LINK_RELEASE_EVERY = 4096;

/**
 * Once warm, the store lets go of its map when requests have read this many names, outlines and
 * sites from it since the last time (see afterRequest): on a kernel's store each maps some 20 KiB,
 * so about 80 MiB.
 */
const REQUEST_RELEASE_READS = 4096;

export class WarmUp {
  private namesLinked = false;
  private rehearsed = false;
  /** Settles when the pool and the store have readied their writes (see readyWrites); failures are logged. */
  private readied: Promise<void> = Promise.resolve();
  /** The work left for after the first map (see afterColdIndex); undefined once started. */
  private background: (() => void) | undefined;
  private backgroundTimer: NodeJS.Timeout | undefined;
  /** The files the cold index found: the languages a new pool loads (see readyWrites). */
  private paths: readonly string[] = [];
  /** Set while a release that afterRequest asked for is queued or running. */
  private releasing = false;

  constructor(
    private readonly engine: DaemonEngine,
    private readonly sync: RepoSync,
    private readonly timings: DaemonTimings,
  ) {}

  /**
   * Leaves the background work for after the first map, or `backgroundAfterMs` without one.
   * `paths` are the files the cold index found, `startedMs` when it began.
   */
  afterColdIndex(paths: readonly string[], startedMs: number): void {
    this.paths = paths;
    const { log } = this.engine.options;
    const releaseEvery = this.engine.options.linkReleaseEvery ?? LINK_RELEASE_EVERY;
    // A slice reads the names of a file at most once, so it never reads past a release due.
    const sliceFiles = Math.min(LINK_SLICE_FILES, releaseEvery);
    // The names not linked yet (all of them after a start from the saved graph, the references
    // after a cold index) are linked a slice at a time between requests (a change needs them; a
    // map asks about its own names without them), then the arrays of the next related graph
    // reserved, for the first change.
    let linking = 0;
    let readFrom = 0;
    let readAtRelease = 0;
    let releases = 0;
    const linkInTurns = () => {
      if (this.engine.isStopping) return;
      const { graph } = this.engine.state;
      if (!linking) {
        linking = Date.now();
        // A cold index that parsed every file linked all their definitions as they came: those of
        // names no file references leave the definer index (on a kernel most of them), unless the
        // cold index did so before it built the related graph. The pass stored every file's names
        // (see coldParsedDefinitions).
        if (graph.coldParsedDefinitions()) log(UNREFERENCED_MOVED);
        readFrom = readAtRelease = graph.namesRead;
      }
      if (!graph.linkPending(sliceFiles)) {
        // The pages each read maps stay resident until the store lets go of its map: it does
        // every few thousand files read, so they never add up to the names' share of the store.
        if (graph.namesRead - readAtRelease < releaseEvery) return void setImmediate(linkInTurns);
        readAtRelease = graph.namesRead;
        this.releaseStorePages()
          .then((released) => void (released && releases++))
          .catch((err: unknown) => log(`letting go of the store's pages failed: ${errorMessage(err)}`))
          .finally(() => setImmediate(linkInTurns));
        return;
      }
      log(`names linked in ${Date.now() - linking} ms, after the first map (${graph.namesRead - readFrom} files' names read from the store, its map let go ${releases} times meanwhile)`);
      // The store lets go of the pages linking read last before the next related graph's arrays
      // are reserved, so the two are not resident at once; the new pool is readied then.
      this.releaseStorePages()
        .then((released) => {
          if (released && !this.engine.isStopping) this.readied = this.readyWrites(paths);
        })
        .catch((err: unknown) => log(`letting go of the store's pages failed: ${errorMessage(err)}`))
        .then(async () => {
          if (this.engine.isStopping) return;
          // Linking's garbage (every file's names read, most of them dropped) is collected, and the
          // memory it held given back, before the next related graph's arrays are reserved, so
          // that the two are not resident at once.
          await giveBackMemory();
          if (this.engine.isStopping) return;
          this.namesLinked = true;
          this.engine.state.graph.prepareRelated();
          this.rehearseOnceSettled();
          loadTokenizerHere().catch((err: unknown) => log(`tokenizer: ${errorMessage(err)}`));
        })
        .catch((err: unknown) => log(`warm-up after linking failed: ${errorMessage(err)}`));
    };
    this.background = () => {
      setImmediate(linkInTurns);
      // A store that lets go of its map while linking closes the pool to do so (its threads hold
      // the store open, and its map with it): that pool is readied once linking is done.
      if (!this.engine.releasesPages()) this.readied = this.readyWrites(paths);
      // Files modified since a second before discovery (file times can lag the clock) are checked again.
      this.sync
        .watch(startedMs - 1000)
        .then((watching) => {
          if (watching) this.rehearseOnceSettled();
        })
        .catch((err: unknown) => log(`watcher failed: ${errorMessage(err)}`));
    };
    this.backgroundTimer = setTimeout(() => this.start(), this.timings.backgroundAfterMs);
  }

  /**
   * Lets go of the store's map (see DaemonEngine.releaseStorePages), in the sync's queue: an update
   * waits meanwhile. True when it let go; the pool is then a new one, not readied.
   */
  private releaseStorePages(): Promise<boolean> {
    const readied = this.readied;
    return this.sync.serialize(async () => {
      await readied; // the pool being readied is the one that letting go closes
      return !this.engine.isStopping && (await this.engine.releaseStorePages());
    });
  }

  /**
   * The pool's threads load this repository's grammars (a first index did at its start), and they
   * and this thread ready their writes to the store, so that the first save parses and commits at once.
   */
  private async readyWrites(paths: readonly string[]): Promise<void> {
    const { runner, store, options } = this.engine;
    await Promise.all([
      runner.warmUp(paths, store).catch((err: unknown) => options.log(`worker warm-up failed: ${errorMessage(err)}`)),
      store.warmWrites().catch((err: unknown) => options.log(`store warm-up failed: ${errorMessage(err)}`)),
    ]);
  }

  /**
   * After a request, once the names are linked: the store's pages that requests read stay mapped,
   * and count in the daemon's resident memory (330 MiB of a kernel's store after sixty maps) until
   * the store lets go of its map. It does once they have read REQUEST_RELEASE_READS values, in the
   * sync's queue, and the new pool is readied.
   */
  afterRequest(): void {
    const { engine } = this;
    const { log } = engine.options;
    const reads = engine.store.valuesRead;
    if (!this.namesLinked || this.releasing || engine.isStopping || reads < (engine.options.requestReleaseReads ?? REQUEST_RELEASE_READS)) return;
    this.releasing = true;
    this.releaseStorePages()
      .then((released) => {
        if (!released || engine.isStopping) return;
        log(`requests read ${reads} values from the store: its pages let go`);
        this.readied = this.readyWrites(this.paths);
      })
      .catch((err: unknown) => log(`letting go of the store's pages failed: ${errorMessage(err)}`))
      .finally(() => (this.releasing = false));
  }

  /** Starts the work the cold index left for after the first map (once). */
  start(): void {
    clearTimeout(this.backgroundTimer);
    const background = this.background;
    this.background = undefined;
    if (background && !this.engine.isStopping) background();
  }

  /**
   * Once the names are linked, rehearses a change (ReferenceGraph.rehearseChange), which compiles
   * the code a save runs; once the watcher follows the tree as well, a few patches (rehearsePatch):
   * V8 may discard that code while the watcher starts, and patches compile it again with little
   * garbage (a whole change rehearsed then would leave its garbage to the next edit). When the
   * watcher is ready first, as on a small repository, the change comes after it and no patch follows.
   */
  private rehearseOnceSettled(): void {
    if (!this.namesLinked || this.engine.isStopping) return;
    const { graph } = this.engine.state;
    const { log } = this.engine.options;
    const started = Date.now();
    if (!this.rehearsed) {
      this.rehearsed = true;
      graph.rehearseChange();
      log(`change rehearsed in ${Date.now() - started} ms`);
    } else if (this.sync.isWatching) {
      graph.rehearsePatch(3);
      log(`patch rehearsed in ${Date.now() - started} ms`);
    }
  }

  /** Cancels the background work not started yet (at shutdown). */
  stop(): void {
    clearTimeout(this.backgroundTimer);
  }
}
