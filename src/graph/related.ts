// The related graph (the 'repomap' ranking) across changes: which files' edges are stale, the graph
// built from them (patched from the previous one when a change is small, written in full
// otherwise), a request's weights on it, and saving and restoring it.
import { collectGarbage } from '../extract/memory.js';
import { EDGE_WEIGHTS, RELATED_WEIGHTS } from '../model.js';
import { type DefinerCache, baseMultiplier } from './definers.js';
import { EdgeBuffers } from './edge-buffers.js';
import type { EdgeRequest, RelatedBase, RelatedGraph, SavedRelated } from './graph-types.js';
import type { NameIndex } from './name-index.js';
import { type FileNode, Interner, NO_NAMES, definerCount, familyCount, isDefiner } from './nodes.js';
import type { Numbering, Shift } from './numbering.js';
import { deriveRelated } from './related-edges.js';
import { type RelatedArrays, flattenRelated, isSavedGraphShaped, restoredArrays } from './related-build.js';
import { patchRelated } from './related-patch.js';
import { unpatch, weighRelatedRequest } from './request-weights.js';

/** Past this many files added or removed since the last related graph, it is written anew. */
const MAX_PATCH_SHIFTS = 16;

/**
 * From this many definers (before and after a change) a change of definer moves only the edges of
 * the referencers in its folder (see definerChanged): past the cap of linked definers, with one
 * more for the referencing file itself, and past Aider's widely-defined threshold.
 */
const LOCAL_CHANGES_FROM = Math.max(RELATED_WEIGHTS.maxDefiners + 2, EDGE_WEIGHTS.widelyDefinedOver + 1);

/**
 * Invariants: `base`, when set, is the graph of the files as they are (without a request's patch
 * once unpatch ran); `previous` is the last graph built and the numbering it was built under (what
 * a patch starts from); a file whose edges a change may move is in `stale`, unless `allStale`.
 */
export class RelatedState {
  /** The graph with no request multipliers, kept until the next change (requests only patch it). */
  private base: RelatedBase | undefined;
  private previous: { base: RelatedBase; numbering: number } | undefined;
  /** Files whose related edges must be derived again before the next related graph. */
  private readonly stale = new Set<FileNode>();
  /** Until the first related graph, every file's edges are to be derived: nothing to track. */
  private everyFileStale = true;
  /** The graph's arrays: each change patches them in place (see patchRelated). */
  private readonly buffers = new EdgeBuffers();
  /** Identifiers of related edges, numbered for the life of the graph. */
  private idents = new Interner();
  /** Files whose forward edges were derived, over the graph's life: a work count. */
  private derivations = 0;
  /** The repository files a file imports (see useImports); none until told. */
  private importsOf: (path: string) => readonly string[] = () => NO_NAMES;

  constructor(
    private readonly index: NameIndex,
    private readonly numbering: Numbering,
    private readonly definers: DefinerCache,
  ) {}

  /** Files whose forward edges were derived so far (see derive): a work count. */
  get derivedCount(): number {
    return this.derivations;
  }

  /** Whether every file's edges are to be derived again (nothing built yet, or a burst of changes). */
  get allStale(): boolean {
    return this.everyFileStale;
  }

  /** Whether a graph was built and is current: what the rehearsals start from. */
  get isBuilt(): boolean {
    return this.base !== undefined && this.previous !== undefined;
  }

  /** Forgets the current graph: the files changed (the next one is built from `previous`). */
  invalidate(): void {
    this.base = undefined;
  }

  /** A file's names changed: its own edges move. */
  fileChanged(node: FileNode): void {
    if (!this.everyFileStale) this.stale.add(node);
  }

  fileRemoved(node: FileNode): void {
    this.stale.delete(node);
  }

  /**
   * The file `changed` started or stopped defining `ident`: the edges of its referencers may
   * move. For a name with many definers, only the referencers in the file's own folder: elsewhere
   * a reference resolves to its own folder's definers (unchanged) or, with none there, to too many
   * definers to link either way, and the multiplier (over five definers) is the same.
   */
  definerChanged(ident: string, changed: FileNode): void {
    if (this.everyFileStale) return;
    const entry = this.index.definers.get(ident);
    const gained = isDefiner(entry, changed);
    // Counted in the changed file's family: the definers its family's references link to.
    const after = familyCount(entry, changed.family);
    const before = gained ? after - 1 : after + 1;
    const folderOnly = Math.min(before, after) >= LOCAL_CHANGES_FROM;
    // Another family's references link to their own family's definers, unchanged; their weight
    // takes the multiplier of the name's definers in every family (DefinerCache.multiplierOf), so
    // they move only when that does.
    const total = definerCount(entry);
    const otherFamiliesMove = baseMultiplier(ident, total) !== baseMultiplier(ident, gained ? total - 1 : total + 1);
    const list = this.index.referencersOf(ident) ?? [];
    for (let j = 0; j < list.length; j += 2) {
      const node = list[j] as FileNode;
      if (node.family !== changed.family ? otherFamiliesMove : !folderOnly || node.folder === changed.folder) this.stale.add(node);
    }
  }

  /** After a change: a burst that touched most files (a checkout) derives them all again rather than tracking each. */
  settle(): void {
    if (this.stale.size > this.index.files.size / 2) {
      this.everyFileStale = true;
      this.stale.clear();
    }
  }

  /** See ReferenceGraph.useImports. */
  useImports(importsOf: (path: string) => readonly string[]): void {
    this.importsOf = importsOf;
    this.everyFileStale = true;
    this.stale.clear();
    this.base = undefined;
  }

  /**
   * Builds the graph now. With `room` (a graph that changes will follow), its arrays get room for
   * the edges later changes add: a graph whose arrays were made to measure moves into arrays with
   * room now, rather than in the first change that adds an edge. Without, the graph is built lean:
   * a graph written in full makes its arrays to measure and lets go of each file's forward edges
   * as it writes them (see forgetFileEdges), a one-off map's peak and what a daemon lets go of anyway.
   */
  prepare(room: boolean): void {
    this.base ??= this.build(!room);
    // A patch with nothing stale: every row moved, as one block, into arrays with room (see EdgeBuffers.take).
    if (room && this.buffers.madeToMeasure) this.base = this.build();
  }

  /**
   * Lets go of every file's forward edges, leaving the graph as restore leaves it: a patch
   * derives those of the files a change makes stale and copies the other rows, and a graph
   * written in full derives each file's that is missing.
   */
  forgetFileEdges(): void {
    for (const node of this.numbering.nodes()) node.related = undefined;
  }

  /** Builds the graph again with `node` stale, as a change to it would (see rehearsePatch). */
  rebuildWith(node: FileNode): void {
    this.stale.add(node);
    this.base = this.build();
  }

  /** The graph for one request (see ReferenceGraph.compileRelated). */
  compile(request: EdgeRequest): RelatedGraph {
    const base = (this.base ??= this.build());
    // The previous request's patch is taken back first: the base holds at most one at a time.
    unpatch(base);
    return weighRelatedRequest(base, request.mentionedIdents, this.buffers);
  }

  /** The current graph's arrays, with its walk, without a request's patch; undefined when changes are not built into it yet. */
  saved(): SavedRelated | undefined {
    const base = this.base;
    if (!base) return undefined;
    unpatch(base);
    const { paths, idents, csr, edgeIdent, forward, walk, walkSlot, forwardTotal } = base.graph;
    return {
      paths,
      idents,
      offsets: csr.offsets,
      targets: csr.targets,
      weights: csr.weights,
      edgeIdent,
      forward,
      walkOffsets: walk.offsets,
      walkTargets: walk.targets,
      walkWeights: walk.weights,
      walkSlot,
      forwardTotal,
    };
  }

  /** See ReferenceGraph.restoreRelated. */
  restore(saved: SavedRelated): boolean {
    if (this.previous || this.idents.list.length > 0) return false;
    const paths = this.numbering.paths();
    const n = paths.length;
    if (saved.paths.length !== n || !saved.paths.every((path, i) => path === paths[i])) return false;
    if (!isSavedGraphShaped(saved)) return false;
    // The saved list itself, so that lookups built over it while the files were listed serve (see pathIndex).
    this.numbering.adoptPaths(saved.paths);
    // Numbered as saved; indexed by name only when something asks (see Interner.numbersOf).
    this.idents = new Interner(saved.idents.slice());
    const walkRanks = saved.walkRanks?.length === n ? saved.walkRanks : undefined;
    const graph = { ...this.graphOf(restoredArrays(saved, this.buffers), saved.paths), walkRanks };
    this.base = { graph, identNumbers: this.idents };
    this.previous = { base: this.base, numbering: this.numbering.current };
    this.everyFileStale = false;
    this.stale.clear();
    return true;
  }

  /**
   * The graph without request multipliers. Only the stale files derive their edges again; after
   * a few changes only their rows and those of their old and new targets change: the previous
   * graph is patched in place (patchRelated) rather than written again edge by edge.
   */
  private build(lean = false): RelatedBase {
    this.index.linkForRelated();
    const nodes = this.numbering.nodes();
    const previous = this.previous;
    const shifts = previous ? this.numbering.shiftsSince(previous.numbering) : undefined;
    const patch =
      previous !== undefined &&
      shifts !== undefined &&
      shifts.length <= MAX_PATCH_SHIFTS &&
      !this.everyFileStale &&
      this.stale.size <= nodes.length / 8 &&
      RELATED_WEIGHTS.reverse > 0;
    const stale = this.everyFileStale ? nodes : [...this.stale];
    // A lean graph written in full lets go of each file's edges as it writes them: they need no file objects.
    const byNumber = lean && !patch;
    for (const node of stale) node.related = this.derive(node, byNumber);
    // The previous graph's arrays are this one's: the request's patch comes off first, and the
    // previous graph is not read after (see patchRelated).
    if (previous) unpatch(previous.base);
    this.previous = undefined;
    let arrays: RelatedArrays;
    if (patch) arrays = this.patched(previous.base.graph, shifts!, stale, nodes);
    else {
      // A graph restored from a saved one derives a file's edges when first needed.
      for (const node of nodes) node.related ??= this.derive(node, byNumber);
      // Before the arrays are written: the cache then holds every referenced name's definers, and
      // a full collection lets go of it (and of deriving's garbage) before the arrays are
      // reserved, rather than at the heap's next bound, after them. A lean graph's (a one-off map's
      // peak) is memory-reducing: a plain one keeps the heap's pages resident beside the arrays.
      this.definers.release();
      collectGarbage({ reduceMemory: lean });
      this.buffers.headroom = !lean;
      try {
        arrays = flattenRelated(nodes, this.numbering, this.buffers, lean);
      } finally {
        this.buffers.headroom = true;
      }
    }
    const base = { graph: this.graphOf(arrays, this.numbering.paths()), identNumbers: this.idents };
    this.stale.clear();
    this.everyFileStale = false;
    this.previous = { base, numbering: this.numbering.current };
    return base;
  }

  /**
   * patchRelated, and if it fails (a bug), the graph written in full next time: the arrays are
   * then half patched, and every file's edges are derived again.
   */
  private patched(old: RelatedGraph, shifts: readonly Shift[], stale: readonly FileNode[], nodes: readonly FileNode[]): RelatedArrays {
    try {
      return patchRelated(old, shifts, stale, nodes, this.numbering, this.buffers);
    } catch (err) {
      this.everyFileStale = true;
      this.stale.clear();
      throw err;
    }
  }

  private graphOf(arrays: RelatedArrays, paths: string[]): RelatedGraph {
    const { csr, edgeIdent, forward, walk, walkSlot, forwardTotal } = arrays;
    return { paths, csr, edgeIdent, idents: this.idents.list, forward, walk, walkSlot, forwardTotal };
  }

  /** A file's forward edges, from its references and the current definers. */
  private derive(u: FileNode, byNumber = false): ReturnType<typeof deriveRelated> {
    this.derivations++;
    this.index.load(u);
    const imported: FileNode[] = [];
    // The files it imports (of its family: the resolver answers no other).
    for (const path of this.importsOf(u.path)) {
      const node = this.index.files.get(path);
      if (node) imported.push(node);
    }
    return deriveRelated(u, imported, this.definers, this.idents, this.index.names, byNumber ? this.numbering.current : undefined);
  }
}
