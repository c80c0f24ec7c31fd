// The reference graph's facade: the files' names in, the compiled graphs of both rankings out. It
// composes the modules of each concern and keeps them in step when a file changes:
//   name-index.ts   files, and the lazy reading and linking of their names into name-rows.ts (the
//                   definer and referencer rows) and cold-links.ts (the definitions of names no file
//                   references, held as hashes by cold-names.ts); name-queries.ts answers a
//                   request's names; saved-definitions.ts the definition hashes a saved graph keeps
//   numbering.ts    the files' order by path (node numbers) and how it shifts
//   definers.ts     per name, its definers grouped and Aider's multiplier (a cache)
//   aider-graph.ts  Aider's compiled graph ('aider' ranking)
//   related.ts      the related graph across changes ('repomap' ranking): related-edges.ts derives a
//                   file's edges, related-build.ts writes the graph, related-patch.ts patches it,
//                   request-weights.ts weighs a request's mentions, edge-buffers.ts holds its arrays
//   warm-up.ts      rehearsals of a change after a start
//   graph-file.ts   the related graph saved between runs (reads this facade)
// Imports run one way, with no cycle: this facade -> warm-up -> related -> its parts (edges, build,
// patch, weights); related and aider-graph -> definers -> name index -> rows, cold links -> cold names; numbering,
// nodes.ts and graph-types.ts are leaves that all read. The model's weights come from src/model.ts.
import type { FileNames, FileRecord } from '../records.js';
import { type AiderBase, compileAiderBase, weighAiderRequest } from './aider-graph.js';
import { DefinerCache } from './definers.js';
import type { AiderGraph, EdgeRequest, NameFiles, RelatedGraph, SavedRelated } from './graph-types.js';
import { NameIndex } from './name-index.js';
import { definersOfAll, eachNamer, namesOfAll } from './name-queries.js';
import { EMPTY_NAMES, type FileNode, NO_SLOTS, type NodeNames } from './nodes.js';
import { Numbering } from './numbering.js';
import { RelatedState } from './related.js';
import { REHEARSALS, rehearseChange, rehearsePatch } from './warm-up.js';


/**
 * The reference graph: each file's defined and referenced names, and the inverse indexes (the
 * files defining and referencing each name). Both compiled graphs are derived from these, once
 * per change. A change to a file moves only what depends on it: its own edges, and the edges of
 * the files that reference a name it starts or stops defining; the rest is reused.
 *
 * (An ngraph.graph of file and identifier nodes would hold the same links at a far larger cost
 * per link; it stays in the tests as an oracle of the compiled edges.)
 */
export class ReferenceGraph {
  private readonly index: NameIndex;
  private readonly numbering: Numbering;
  private readonly definers: DefinerCache;
  private readonly related: RelatedState;
  /** Aider's graph with no request multipliers, kept until the next change (requests only patch it). */
  private aiderBase: AiderBase | undefined;

  /**
   * `readNames` reads a file's names from the tag store, for records read from it without them
   * (see takeRecord): a graph built from stored records reads them only when it needs them.
   */
  constructor(readNames?: (path: string) => FileNames | undefined) {
    // A name whose definitions move into the definer index has its cached definers read again.
    this.index = new NameIndex(readNames, (ident) => this.definers.forget(ident));
    this.numbering = new Numbering(this.index.files);
    this.definers = new DefinerCache(this.index);
    this.related = new RelatedState(this.index, this.numbering, this.definers);
  }

  /** A graph of records (which keep their names). */
  static fromRecords(records: Iterable<FileRecord>): ReferenceGraph {
    const graph = new ReferenceGraph();
    for (const record of records) if (record.names) graph.setFile(record.path, record.names);
    return graph;
  }

  /**
   * Takes a record's file into the graph, and its names and tags out of the record: the graph
   * keeps the names a ranking reads, the store keeps the rest (outlines are read back when a file
   * is shown). A large repository's tags are never all held in memory. A record read from the
   * store comes without names: they are read from it when needed.
   */
  takeRecord(record: FileRecord): void {
    const { path, names } = record;
    if (record.skip) {
      this.removeFile(path);
      return;
    }
    if (names) {
      this.setFile(path, names);
      delete record.names;
      delete record.tags;
      return;
    }
    const { readNames } = this.index;
    if (!readNames) throw new Error(`the record of ${path} has no names (a graph took them already), and this graph reads none from a store`);
    // A record without names was read from the store: one the graph has already is the same
    // content (a hash match), so it has the same names.
    if (this.index.files.has(path)) return;
    if (record.links === 0) return; // no names: not a node (see setFile)
    // A first load reads them when they are linked or asked about; later, a new file must say at
    // once which names it defines, so that what depends on them moves.
    if (this.isFirstLoad()) this.addFile(path, undefined, record.links ?? 0);
    else this.setFile(path, readNames(path) ?? EMPTY_NAMES);
  }

  /** Whether nothing was derived from the names yet: files can come without saying theirs. */
  private isFirstLoad(): boolean {
    return this.related.allStale && this.definers.isEmpty && this.aiderBase === undefined;
  }

  /** Replaces a file's definitions and references (and so its edges). */
  setFile(path: string, names: FileNames): void {
    const { defined, referenced: refNames, imports, modules } = names;
    if (defined.length === 0 && refNames.length === 0) {
      this.removeFile(path);
      return;
    }
    let node = this.index.files.get(path);
    // An edit that kept every name (a function's body, a comment): no edge moves.
    if (node && this.index.hasNames(node, names)) return;
    const refCounts = Uint32Array.from(names.counts);
    // The names whose definers change: the edges of their referencers move. A new file's are its
    // own (`defined` holds each name once), without a set: a first load adds every name.
    let changed: Iterable<string> = defined;
    if (node) {
      this.index.linkPending();
      const toggled = new Set(defined);
      for (const ident of node.defined) if (!toggled.delete(ident)) toggled.add(ident);
      changed = toggled;
      const before = node.defined;
      this.index.replaceNames(node, { defined, refNames, refCounts, imports, modules });
      // Every definition was unlinked and linked again: a name it still defines has a new entry in
      // the definer index (a set emptied of it, then another), which a cached group must not outlive.
      for (const ident of before) this.definers.forget(ident);
    } else node = this.addFile(path, { defined, refNames, refCounts, imports, modules }, defined.length + refNames.length);
    this.related.fileChanged(node);
    this.definersChanged(changed, node);
  }

  removeFile(path: string): void {
    const node = this.index.files.get(path);
    if (!node) return;
    this.index.remove(node);
    this.related.fileRemoved(node);
    this.numbering.remove(node);
    this.definersChanged(node.defined, node);
  }

  /** A new file's node, numbered; linked when an index is first read (see NameIndex.linkPending). */
  private addFile(path: string, names: NodeNames | undefined, links: number): FileNode {
    const node = this.index.add(path, names, links);
    this.numbering.insert(node);
    return node;
  }

  /** The file `changed` started or stopped defining `idents`: what was derived from them is forgotten. */
  private definersChanged(idents: Iterable<string>, changed: FileNode): void {
    this.aiderBase = undefined;
    this.related.invalidate();
    // Nothing derived from these names yet (a first load): nothing to forget.
    if (this.isFirstLoad()) return;
    for (const ident of idents) {
      this.definers.forget(ident);
      this.related.definerChanged(ident, changed);
    }
    this.related.settle();
  }

  /**
   * Where the related graph learns what each file imports (IndexLookups.importsOf): a reference
   * then links to the definers among its file's imports first. Every edge is derived again under
   * the new answers; after that, a change to a file's imports comes with a change of its names
   * (setFile), and one to what a path resolves to with a file that comes or goes, whose names'
   * referencers move (definersChanged); a changed project file (tsconfig.json, go.mod) calls this again.
   */
  useImports(importsOf: (path: string) => readonly string[]): void {
    this.related.useImports(importsOf);
    this.aiderBase = undefined;
  }

  /**
   * Aider's weighted graph for one request, factored through identifiers: nodes are the files
   * with a definition or a reference to a defined name (as in Aider, files without any edge are
   * not nodes); a reference weighs the identifier's multiplier x the chat multiplier x sqrt(count)
   * toward each definer; a definition nobody references keeps a self edge. The graph without
   * request multipliers is built once per change; a request multiplies the references of its chat
   * files and of its mentioned identifiers (EDGE_WEIGHTS). Deterministic.
   */
  compile(request: EdgeRequest): AiderGraph {
    this.aiderBase ??= compileAiderBase(this.index, this.numbering.nodes(), this.definers);
    return weighAiderRequest(this.aiderBase, request);
  }

  /**
   * The graph of the 'repomap' ranking. Every file with tags is a node, linked or not. A reference
   * resolves to the definers in the referencing file's own folder when there are any (a Go package,
   * a sibling module), else to every definer, its weight (Aider's multipliers times the square root
   * of the count) split evenly among them rather than copied to each. Each link runs both ways:
   * a file is related to what it uses and to what uses it. A request's mentions patch the weights
   * in place until the next request (see RelatedGraph.patched).
   */
  compileRelated(request: EdgeRequest): RelatedGraph {
    return this.related.compile(request);
  }

  /**
   * Builds the related graph now, with (unless `room` is false) room in its arrays for the edges
   * later changes add (see RelatedState.prepare): a daemon does this before requests ask, so
   * neither a request nor the next change pays for it. Without, a graph written in full is lean.
   */
  prepareRelated({ room = true }: { room?: boolean } = {}): void {
    this.related.prepare(room);
  }

  /**
   * Lets go of each file's forward edges (see RelatedState.forgetFileEdges): a daemon whose graph
   * was built, not restored, holds then what a restored one holds (on a kernel 118 MiB less).
   */
  forgetFileEdges(): void {
    this.related.forgetFileEdges();
  }

  /** See warm-up.ts rehearseChange; a daemon does this once it is ready. */
  rehearseChange(times = REHEARSALS): void {
    const nodes = this.numbering.sortedIfAny;
    if (!this.related.isBuilt || !nodes?.length) return;
    this.index.linkPending();
    rehearseChange(this, nodes, this.index, times);
  }

  /** See warm-up.ts rehearsePatch; a daemon does this once the watcher follows the tree. */
  rehearsePatch(times: number): void {
    const nodes = this.numbering.sortedIfAny;
    if (!this.related.isBuilt || !nodes?.length) return;
    rehearsePatch(this.related, nodes, (node) => this.index.nameCount(node), times);
  }

  /**
   * The related graph as it stands, without a request's patch, for saving (see graph-file); undefined
   * when changes since the last one are not built into it yet.
   */
  savedRelated(): SavedRelated | undefined {
    const saved = this.related.saved();
    if (!saved) return undefined;
    const definitions = this.index.definitionHashes(saved.paths);
    return definitions ? { ...saved, definitionOffsets: definitions.offsets, definitionHashes: definitions.hashes } : saved;
  }

  /**
   * Takes a saved related graph instead of deriving one, when it was saved from these same files:
   * the caller vouches that each file's names are those it had then (its content hash is the
   * same), and that the arrays are as savedRelated gave them (graph-file checks a checksum; here
   * only their lengths and bounds are checked: checking every edge would cost a warm start what
   * it saves). Only into a graph whose related graph was never built. Returns whether it took it.
   * A file's edges are then derived when a change first needs them.
   */
  restoreRelated(saved: SavedRelated): boolean {
    if (!this.related.restore(saved)) return false;
    const { definitionOffsets: offsets, definitionHashes: hashes } = saved;
    if (offsets && hashes) this.index.useSavedDefinitions({ offsets, hashes }, saved.paths);
    return true;
  }

  /** Files in the graph. */
  get fileCount(): number {
    return this.index.files.size;
  }

  /** Links in the graph: one per (file, name it defines) and per (file, name it references). */
  get linkCount(): number {
    return this.index.linkCount;
  }

  /** Distinct names the graph's files reference or import (see NameTable). */
  get nameTableSize(): number {
    return this.index.names.size;
  }

  /** Names the definers cache holds an entry for (see DefinerCache.size). */
  get definerCacheSize(): number {
    return this.definers.size;
  }

  /** Files whose related edges were derived so far: a work count (see RelatedState.derivedCount). */
  get relatedDerivations(): number {
    return this.related.derivedCount;
  }

  /** Files taken but not yet linked into both name indexes. */
  get pendingCount(): number {
    return this.index.pendingCount;
  }

  /** See NameIndex.namesRead. */
  get namesRead(): number {
    return this.index.namesRead;
  }

  /** See NameIndex.linkPending. */
  linkPending(limit = Infinity): boolean {
    return this.index.linkPending(limit);
  }

  /** See NameIndex.linkDefiners. */
  linkDefiners(end?: number): void {
    this.index.linkDefiners(end);
  }

  /**
   * Links what the related graph reads (see NameIndex.linkForRelated), which building it does
   * first anyway; returns whether that read names from the store, whose pages a caller may then let go of.
   */
  linkForRelated(): boolean {
    // Names from a parse: the definitions of those nobody references go to the cold definitions before the rest are linked.
    if (this.coldParsedDefinitions()) return false;
    return this.index.linkForRelated();
  }

  /**
   * See NameIndex.coldParsedDefinitions. The definers cache holds the definer index's entries,
   * some of which leave it: it is emptied. What was derived from the names stays (the related
   * graph's edges, Aider's graph): every name keeps its definers, in the same order.
   */
  coldParsedDefinitions(): boolean {
    if (!this.index.coldParsedDefinitions()) return false;
    this.definers.release();
    return true;
  }

  /** The files in the graph, sorted. */
  filePaths(): string[] {
    return this.numbering.paths();
  }

  /** Whether the graph holds `path` (a file that defines or references some name). */
  hasFile(path: string): boolean {
    return this.index.files.has(path);
  }

  /**
   * The names a file defines, references (with their counts alongside) and imports, and the
   * modules it imports (all sorted; empty for a file outside the graph).
   */
  fileNames(path: string): { defined: readonly string[]; referenced: readonly string[]; counts: ArrayLike<number>; imports: readonly string[]; modules: readonly string[] } {
    const node = this.index.files.get(path);
    if (node) this.index.load(node);
    const { index } = this;
    return {
      // Read when asked: a file's cold definitions are read from the store, and most callers want its imports only.
      get defined() {
        return node ? index.definedOf(node) : [];
      },
      get referenced() {
        return node ? index.refNamesOf(node) : [];
      },
      counts: node?.refCounts ?? NO_SLOTS,
      get imports() {
        return node ? index.names.namesOf(node.importIds) : [];
      },
      modules: node?.modules ?? [],
    };
  }

  /** Every name some file defines that `matching` takes (those no file references read from the store: a one-off question). */
  definedNames(matching?: (ident: string) => boolean): IterableIterator<string> {
    return this.index.definedNames(matching);
  }

  /** Every name some file references. */
  referencedNames(): IterableIterator<string> {
    return this.index.referencedNames();
  }

  /** The files that define `ident`, and those that reference it (with their counts, in no particular order). */
  namesOf(ident: string): NameFiles {
    this.index.linkPending();
    return namesOfAll(this.index, [ident]).get(ident)!;
  }

  /** See name-queries.ts namesOfAll: files not linked yet are scanned, not linked. */
  namesOfAll(idents: Iterable<string>): Map<string, NameFiles> {
    return namesOfAll(this.index, idents);
  }

  /** See name-queries.ts definersOfAll. */
  definersOfAll(idents: Iterable<string>): Map<string, ReadonlySet<string> | undefined> {
    return definersOfAll(this.index, idents);
  }

  /**
   * What namesOfAll says, by node number (a file's place in filePaths()) and without a list per
   * name: `next` before each name, then `visit` for each file defining it (count 1) or
   * referencing it. A map request visits tens of thousands of files, each of whose paths would
   * cost a string lookup to number.
   */
  visitNamers(idents: Iterable<string>, next: () => void, visit: (node: number, count: number) => void): void {
    this.numbering.nodes();
    eachNamer(this.index, idents, next, (node, count) => visit(node.dense, count));
  }
}
