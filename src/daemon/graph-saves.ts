// The related graph saved for the next start once changes stop coming in (and published to the
// shared cache when the cold index built it), rather than after each batch: a save of a large graph
// takes a second or more.
import { publishRelatedGraph, saveGraphOrSay } from '../graph/graph-file.js';
import type { DaemonEngine } from './engine.js';

/** Invariant: `unsaved` is set while the saved related graph is older than the hot one, and then a save is scheduled. */
export class GraphSaves {
  private unsaved = false;
  /** Set when the next save also goes to the shared cache (a graph the cold index built). */
  private toPublish = false;
  private timer: NodeJS.Timeout | undefined;

  /**
   * `busy` says whether changes are still coming in (a save then waits); `rebuildIfDamaged`
   * rebuilds a store found damaged, which saves the graph again.
   */
  constructor(
    private readonly engine: DaemonEngine,
    private readonly delayMs: number,
    private readonly busy: () => boolean,
    private readonly rebuildIfDamaged: () => Promise<void>,
  ) {}

  /** Saves the related graph once changes have stopped for `delayMs` (see DaemonTimings.graphSaveDelayMs). */
  schedule({ publish = false } = {}): void {
    this.unsaved = true;
    this.toPublish ||= publish;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.save(), this.delayMs);
    this.timer.unref();
  }

  /** Writes the related graph for the next start, unless changes are still coming in (then later). */
  save(): void {
    const { engine } = this;
    if (!this.unsaved || engine.phase !== 'ready') return;
    if (this.busy()) {
      this.schedule();
      return;
    }
    // Its inputs are read from the store (see graphInputs): one damaged meanwhile is rebuilt first, which saves the graph again.
    if (engine.store.damage()) {
      if (!engine.isStopping) void this.rebuildIfDamaged();
      return;
    }
    const started = Date.now();
    const { graph } = engine.state;
    // Built now if the last change is not in it yet (no request asked since).
    graph.prepareRelated({ room: false });
    const { log } = engine.options;
    const sharedCacheDir = engine.store.shared?.dir;
    const inputsKey = engine.graphInputs();
    if (saveGraphOrSay(graph, engine.store.dir, engine.hashOf, inputsKey, log)) {
      log(`related graph saved in ${Date.now() - started} ms`);
      if (this.toPublish && sharedCacheDir && publishRelatedGraph(graph, engine.store.dir, sharedCacheDir, engine.hashOf, inputsKey, log)) {
        log('related graph published to the shared cache');
      }
    }
    this.unsaved = false;
    this.toPublish = false;
  }

  /** The last save, on a stop: the timer goes, and the graph is saved if it changed. */
  close(): void {
    clearTimeout(this.timer);
    this.save();
  }
}
