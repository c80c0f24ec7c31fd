import { comparePaths } from '../discover/discover.js';
import { ReferenceGraph } from '../graph/graph.js';
import { type IndexStats, type PathState, type RepoIndex, emptyStats, splitStates } from '../index/indexer.js';
import { centrality } from '../map.js';

/**
 * The daemon's hot view of a repository: the state of every discovered path and the reference
 * graph, updated path by path. Map requests read a snapshot that is rebuilt only after a change.
 */
export class RepoState {
  readonly graph = new ReferenceGraph();
  readonly stats: IndexStats = emptyStats();
  private readonly states = new Map<string, PathState>();
  private snapshot: RepoIndex | undefined;
  private fileRank: Map<string, number> | undefined;

  constructor(readonly root: string) {}

  get fileCount(): number {
    return this.states.size;
  }

  paths(): string[] {
    return [...this.states.keys()];
  }

  /** Applies new path states: the graph moves only the edges of the paths that changed. */
  apply(updates: ReadonlyMap<string, PathState>): void {
    for (const [path, state] of updates) {
      const before = this.states.get(path);
      if ('gone' in state) {
        this.states.delete(path);
        this.graph.removeFile(path);
        continue;
      }
      this.states.set(path, state);
      const record = 'record' in state ? state.record : undefined;
      const previous = before && 'record' in before ? before.record : undefined;
      if (record === previous) continue;
      if (record?.tags) this.graph.setFile(path, record.tags);
      else this.graph.removeFile(path);
    }
    if (updates.size > 0) this.snapshot = this.fileRank = undefined;
  }

  /** Unpersonalized PageRank of each file (symbol lookups rank references by it), until the next change. */
  centrality(): Map<string, number> {
    this.fileRank ??= centrality(this.graph);
    return this.fileRank;
  }

  /** The repository as the map engine takes it. */
  index(): RepoIndex {
    if (!this.snapshot) {
      const paths = this.paths().sort(comparePaths);
      this.snapshot = { root: this.root, paths, ...splitStates(this.states), stats: { ...this.stats, discovered: paths.length } };
    }
    return this.snapshot;
  }
}
