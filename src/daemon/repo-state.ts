// The daemon's hot view of a repository: every path's state and the reference graph, patched per change.
import { comparePaths } from '../discover/discover.js';
import { ReferenceGraph } from '../graph/graph.js';
import { importantFiles } from '../important.js';
import { type IndexLookups, OutlineCache, type PathState, type RepoIndex, emptyStats, namesForImports, splitStates } from '../indexer/indexer.js';
import { type IndexStats } from '../api/types.js';
import { centrality } from '../map.js';
import type { TagStore } from '../store/store.js';
import { referenceTags } from '../extract/refs.js';
import { ImportLookup } from '../resolve/imports.js';
import { isProjectFile } from '../resolve/resolve.js';
import type { FileRecord } from '../records.js';
import type { NamesOf } from '../indexer/priority.js';
import type { SkipReason, SkippedFile } from '../api/types.js';

/** Updates larger than this rebuild the sorted views by sorting, rather than patching them path by path. */
const PATCH_LIMIT = 1000;
/** Outlines read from the store kept for the next maps (a map reads a few hundred; a change drops its file's). */
const OUTLINES_KEPT = 20_000;

/**
 * The daemon's hot view of a repository: the state of every discovered path and the reference
 * graph, updated path by path. The sorted views a map reads (paths, records, skips) are patched
 * in place on each change, so a save costs a few binary searches, not a sort of the repository.
 */
export class RepoState {
  readonly graph: ReferenceGraph;
  readonly stats: IndexStats = emptyStats();
  private readonly states = new Map<string, PathState>();
  private sortedPaths: string[] = [];
  private records: FileRecord[] = [];
  private skipped: SkippedFile[] = [];
  /** How many of the states are of source files (see isSourceState), kept as states come and go. */
  private sources = 0;
  /** How many of the states hold a record (see indexedFileCount), kept as states come and go. */
  private recorded = 0;
  private important: string[] | undefined;
  /** The files' imports resolved, over the paths of the last snapshot; made anew when a path comes or goes or a project file changes. */
  private imports: ImportLookup | undefined;
  /** Set by a large update: the sorted views are rebuilt by sorting when next read. */
  private viewsStale = false;
  /** Every path, sorted, when the caller knows them (see inOrder). */
  private order: readonly string[] | undefined;
  private snapshot: RepoIndex | undefined;
  private fileRank: Map<string, number> | undefined;
  private readonly outlines: OutlineCache;
  /** What import resolution reads of a file (see namesForImports). */
  private readonly importNames: NamesOf;
  private readonly lookups: IndexLookups = {
    isKnown: (path) => this.states.has(path),
    outlineOf: (path) => {
      const state = this.states.get(path);
      return state && 'record' in state && !state.record.skip ? this.outlines.get(path) : undefined;
    },
    important: () => (this.important ??= importantFiles(this.sortedPaths)),
    importsOf: (path) => this.importLookup().importsOf(path),
    projectKey: () => this.projectKey(),
    refsOf: (path) => (this.lookups.outlineOf(path) ? referenceTags(this.store, path, () => this.graph.fileNames(path).referenced) : []),
  };

  /** `store` has a file's outline and names by the time its record is applied. */
  constructor(
    readonly root: string,
    private readonly store: Pick<TagStore, 'outline' | 'names' | 'referenceSites'>,
  ) {
    this.outlines = new OutlineCache((path) => store.outline(path), OUTLINES_KEPT);
    this.graph = new ReferenceGraph((path) => store.names(path));
    this.importNames = namesForImports(store, this.graph);
    this.graph.useImports(this.lookups.importsOf);
  }

  private importLookup(): ImportLookup {
    return (this.imports ??= new ImportLookup(this.root, this.sortedViews().paths.slice(), this.importNames));
  }

  /** A digest of the project files that import resolution reads (see ImportLookup.projectKey). */
  projectKey(): string {
    return this.importLookup().projectKey();
  }

  /** Every discovered path held: source files and the others. */
  get fileCount(): number {
    return this.states.size;
  }

  /** Of those, the source files: files with a grammar, which the index read (see isSourceState). */
  get sourceFileCount(): number {
    return this.sources;
  }

  /**
   * Of the source files, those indexed: read by the index into a record (their tags, or why their
   * content is left out: too large, binary, a parse failure), as a map's work counts (parsed,
   * unchanged, ...) count them. A symlink that leads outside the root or nowhere, and a path out of
   * reach, are source files skipped by their stat, with no record: not indexed (the skips count them).
   */
  get indexedFileCount(): number {
    return this.recorded;
  }

  has(path: string): boolean {
    return this.states.has(path);
  }

  /** Whether a path is held as a source file (see isSourceState). */
  isSource(path: string): boolean {
    const state = this.states.get(path);
    return state !== undefined && isSourceState(state);
  }

  paths(): string[] {
    return [...this.states.keys()];
  }

  /** The record of a path, if it has one (a file without a grammar has none). */
  recordOf(path: string): FileRecord | undefined {
    const state = this.states.get(path);
    return state && 'record' in state ? state.record : undefined;
  }

  /**
   * Applies new path states: the graph moves only the edges of the paths that changed, and takes
   * the records' references (see ReferenceGraph.takeRecord).
   */
  apply(updates: ReadonlyMap<string, PathState>): void {
    if (updates.size > PATCH_LIMIT) this.viewsStale = true;
    const patch = !this.viewsStale;
    let projectChanged = false;
    for (const [path, state] of updates) {
      this.outlines.forget(path);
      const before = this.states.get(path);
      if (before && isSourceState(before)) this.sources--;
      if (isSourceState(state)) this.sources++;
      if (before && 'record' in before) this.recorded--;
      if ('record' in state) this.recorded++;
      // A path that comes or goes, or a changed tsconfig.json, go.mod, ..., can change what any file imports.
      if (isProjectFile(path)) projectChanged = true;
      else if (before === undefined || 'gone' in state) this.imports = undefined;
      else this.imports?.forget(path);
      if (patch) this.unview(path, before);
      if ('gone' in state) {
        if (patch && before) {
          removeSorted(this.sortedPaths, path, (p) => p);
          this.important = undefined;
        }
        this.states.delete(path);
        this.graph.removeFile(path);
        continue;
      }
      this.states.set(path, state);
      if (patch) this.view(path, state, before === undefined);
      const record = 'record' in state ? state.record : undefined;
      const previous = before && 'record' in before ? before.record : undefined;
      if (record === previous) continue;
      if (record) this.graph.takeRecord(record);
      else this.graph.removeFile(path);
    }
    if (updates.size > 0) this.snapshot = this.fileRank = undefined;
    // Every file's imports are resolved again, and the related graph derived again under them.
    if (projectChanged) {
      this.imports = undefined;
      this.graph.useImports(this.lookups.importsOf);
    }
  }

  /** Takes a path's previous state out of the sorted views. */
  private unview(path: string, before: PathState | undefined): void {
    if (!before || 'gone' in before) return;
    const record = 'record' in before && !before.record.skip ? before.record : undefined;
    if (record) removeSorted(this.records, path, (r) => r.path);
    else removeSorted(this.skipped, path, (s) => s.path);
  }

  /** Puts a path's new state into the sorted views. */
  private view(path: string, state: PathState, isNew: boolean): void {
    if (isNew) {
      insertSorted(this.sortedPaths, path, (p) => p);
      this.important = undefined;
    }
    const [skip] = splitStates([[path, state]]).skipped;
    if (skip) insertSorted(this.skipped, skip, (s) => s.path);
    else if ('record' in state) insertSorted(this.records, state.record, (r) => r.path);
  }

  /** Unpersonalized PageRank of each file (symbol lookups rank references by it), until the next change. */
  centrality(): Map<string, number> {
    this.fileRank ??= centrality(this.graph);
    return this.fileRank;
  }

  /**
   * Tells the sorted list of every path after an update of them all (discovery's list): the views
   * are rebuilt from it when next read, rather than by sorting, which the first map would wait for.
   * A path added since is not in it: the views are then sorted as usual.
   */
  inOrder(sortedPaths: readonly string[]): void {
    this.order = sortedPaths;
  }

  /** The repository as the map engine takes it (copies of the sorted views, with lookups over the states). */
  index(): RepoIndex {
    const { paths, records, skipped } = this.sortedViews();
    this.snapshot ??= {
      root: this.root,
      paths: paths.slice(),
      records: records.slice(),
      skipped: skipped.slice(),
      stats: { ...this.stats, discovered: this.states.size },
      lookups: this.lookups,
    };
    return this.snapshot;
  }

  /** The sorted views, rebuilt first when a large update left them stale. */
  private sortedViews(): { paths: readonly string[]; records: readonly FileRecord[]; skipped: readonly SkippedFile[] } {
    if (this.viewsStale) {
      const entries = this.order ? this.entriesInOrder(this.order) : undefined;
      if (entries) {
        this.sortedPaths = entries.map(([path]) => path);
        ({ records: this.records, skipped: this.skipped } = splitStates(entries, true));
      } else {
        this.sortedPaths = [...this.states.keys()].sort(comparePaths);
        ({ records: this.records, skipped: this.skipped } = splitStates(this.states));
      }
      this.order = undefined;
      this.important = undefined;
      this.viewsStale = false;
    }
    return { paths: this.sortedPaths, records: this.records, skipped: this.skipped };
  }

  /** The states of `paths` in that order, if they are all the states there are (undefined if not). */
  private entriesInOrder(paths: readonly string[]): Array<[string, PathState]> | undefined {
    const entries: Array<[string, PathState]> = [];
    for (const path of paths) {
      const state = this.states.get(path);
      if (state) entries.push([path, state]);
    }
    return entries.length === this.states.size ? entries : undefined;
  }
}

/**
 * Whether a path's state is a source file's: one the index read because a grammar takes its name
 * (a record, tags or a reason to skip it), or found by its stat to be a symlink it cannot follow.
 * The others were settled by their names alone: no grammar, a FIFO, socket or device
 * discovery found, or a name that is not UTF-8. As the pass counts the files it indexes (see ParseQueue.progress), but for a
 * source file that turned out not to be a regular file when stat'ed: a rare case counted there and
 * not here.
 */
const NAME_SKIPS: ReadonlySet<SkipReason> = new Set(['no grammar', 'not a regular file', 'name not UTF-8']);

function isSourceState(state: PathState): boolean {
  if ('record' in state) return true;
  return 'skip' in state && !NAME_SKIPS.has(state.skip.reason);
}

function position<T>(list: readonly T[], path: string, keyOf: (item: T) => string): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (comparePaths(keyOf(list[mid]), path) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

function insertSorted<T>(list: T[], item: T, keyOf: (item: T) => string): void {
  const key = keyOf(item);
  const at = position(list, key, keyOf);
  if (at < list.length && keyOf(list[at]) === key) list[at] = item;
  else list.splice(at, 0, item);
}

function removeSorted<T>(list: T[], path: string, keyOf: (item: T) => string): void {
  const at = position(list, path, keyOf);
  if (at < list.length && keyOf(list[at]) === path) list.splice(at, 1);
}
