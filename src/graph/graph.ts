import { comparePaths } from '../discover/discover.js';
import { familyOfPath } from '../extract/languages.js';
import type { FileNames, FileRecord } from '../records.js';
import type { CsrGraph, FactoredGraph } from '../rank/pagerank.js';

const NO_SLOTS = new Uint32Array(0);
const NO_NAMES: string[] = [];
/** A file without names: what a graph reads for a stored file whose names cannot be read. */
export const EMPTY_NAMES: FileNames = { defined: NO_NAMES, referenced: NO_NAMES, counts: [], imports: NO_NAMES, modules: NO_NAMES };
/** The names of a node whose names are not read yet (see FileNode.unread). */
const UNREAD: Pick<FileNode, 'defined' | 'refNames' | 'refCounts' | 'imports' | 'modules'> = { defined: NO_NAMES, refNames: NO_NAMES, refCounts: NO_SLOTS, imports: NO_NAMES, modules: NO_NAMES };

/** Aider's edge model (aider/repomap.py): the multipliers applied to an identifier's edges. */
export const EDGE_WEIGHTS = {
  mentionedIdent: 10,
  compoundIdent: 10,
  compoundMinLength: 8,
  privateIdent: 0.1,
  widelyDefined: 0.1,
  widelyDefinedOver: 5,
  fromChatFile: 50,
  unreferencedSelfEdge: 0.1,
} as const;

/** Per-request inputs that change edge weights. */
export interface EdgeRequest {
  chatFiles: ReadonlySet<string>;
  mentionedIdents: ReadonlySet<string>;
}

/** The weighted graph of one request, ready for PageRank: nodes are files, edges carry identifiers. */
export interface CompiledGraph {
  /** Node index -> path, sorted. */
  paths: string[];
  csr: CsrGraph;
  /** Per edge (CSR order), the index of its identifier in `idents`. */
  edgeIdent: Uint32Array;
  idents: string[];
}

const NO_MENTIONS: ReadonlySet<string> = new Set();

/** Renumberings remembered for moving stored target numbers by arithmetic. */
const MAX_SHIFTS = 64;
/** Past this many files added or removed since the last related graph, it is written anew. */
const MAX_PATCH_SHIFTS = 16;
/** Entries from which a patch copies a run of a graph's arrays with views and `set`, not a loop. */
const BLOCK_COPY = 256;

/** Where node `i` of one numbering is after `shifts` (-1: removed). */
function shifted(i: number, shifts: ReadonlyArray<{ at: number; by: 1 | -1 }>): number {
  for (const { at, by } of shifts) {
    if (by > 0) {
      if (i >= at) i++;
    } else if (i === at) return -1;
    else if (i > at) i--;
  }
  return i;
}

/** A file in the graph. The same object while its path stays, so other files' edges can point at it. */
interface FileNode {
  path: string;
  /** Its folder, numbered (files of one folder share the number). */
  folder: number;
  /** Its language family (see LanguageSpec.family): the related graph links only files of one family. */
  family: string;
  /** Its position in the sorted file list (node index of the compiled graphs), kept up to date. */
  dense: number;
  /** The names it defines, and those it references with their counts, each sorted once. */
  defined: string[];
  /** Referenced names, sorted, with their counts alongside (two flat arrays: a pair per name would cost an object each). */
  refNames: string[];
  refCounts: Uint32Array;
  /** Its position in each referenced name's list of referencers (parallel to refNames): a removal is a swap, not a search. */
  refSlots: Uint32Array;
  /** The names it imports (references of subkind 'import'), sorted. */
  imports: string[];
  /** The modules it imports, as written (FileNames.modules). */
  modules: string[];
  /**
   * While its names are not read yet (the five fields above are empty), how many there are, as
   * its stored record says; undefined once they are (see ReferenceGraph.load).
   */
  unread: number | undefined;
  /** Its forward edges in the related graph; undefined until derived, and again after a change they depend on. */
  related: RelatedEdges | undefined;
}

/**
 * The files defining a name, sorted by path, and the same grouped by folder; with what deriving
 * an edge reads of the name (one lookup per reference, not one per fact: 1.9 M on the large corpus).
 */
interface Definers {
  /** How many files define the name. */
  count: number;
  /** All of them sorted by path, built when first asked for (see allDefiners): edges never need them past a few. */
  all: FileNode[] | undefined;
  /** Grouped by folder, each group sorted; undefined for a name's one definer (most names), which `all` holds. */
  byFolder: Map<number, FileNode[]> | undefined;
  /** The definer index's entry, to tell whether a file is one of them. */
  entry: DefinerFiles;
  /** Aider's multiplier of the name without request mentions. */
  multiplier: number;
  /** The name's number in the related graph; -1 until an edge uses it (numbers are given in order of use). */
  relatedId: number;
  /** The definers' language family, when they share one; MIXED_FAMILIES when not (see byFamily). */
  family: string;
  /** The same, per family, for a name defined in several families (built when the related graph first asks). */
  byFamily?: Map<string, Definers>;
}

/** Definers.family of a name defined in files of several language families. */
const MIXED_FAMILIES = '*';

/** What definerNodes holds for a name nobody defines (never handed out). */
const NO_DEFINERS: Definers = Object.freeze({ count: 0, all: [], byFolder: undefined, entry: new Set<FileNode>(), multiplier: 0, relatedId: -1, family: '' });

/** A file's references resolved to their definers: the forward edges of the 'repomap' ranking. */
interface RelatedEdges {
  to: FileNode[];
  ident: Uint32Array;
  weight: Float64Array;
  /** The targets' node indices, as of `numbering` (files added or removed renumber them). */
  toDense: Uint32Array;
  numbering: number;
}

interface RelatedBase {
  graph: RelatedGraph;
  identIndex: Map<string, number>;
  /** The edges of each identifier (and the node each leaves), for requests that mention it; built by the first such request. */
  edgesByIdent?: { identOffsets: Uint32Array; identEdges: Uint32Array; edgeSource: Uint32Array };
  /** The weights the current request's patch replaced. */
  patch?: Patch;
}

/** Weights saved before a request patched them, to be put back exactly. */
interface Patch {
  size: number;
  edges: Uint32Array;
  edgeWeights: Float64Array;
  slots: Uint32Array;
  slotWeights: Float64Array;
  forwardCount: number;
  sources: Uint32Array;
  totals: Float64Array;
}

/** Puts back the weights a request patched (in reverse, so a slot patched twice ends at its first value). */
function unpatch(base: RelatedBase): void {
  const { patch } = base;
  if (!patch) return;
  const { csr, walk, forwardTotal } = base.graph;
  for (let k = patch.size - 1; k >= 0; k--) csr.weights[patch.edges[k]] = patch.edgeWeights[k];
  putBackWalkWeights(walk.weights, patch);
  for (let k = patch.forwardCount - 1; k >= 0; k--) forwardTotal[patch.sources[k]] = patch.totals[k];
  base.patch = undefined;
}

/** The walk weights a patch changed, as they were (in reverse: a slot patched twice ends at its first value). */
function putBackWalkWeights(weights: Float64Array, patch: Patch): void {
  for (let k = patch.size - 1; k >= 0; k--) weights[patch.slots[k]] = patch.slotWeights[k];
}

/** Runs `run` with a patch's walk weights put back (see unpatch), then puts the patched ones again. */
function withoutPatch<T>(weights: Float64Array, patch: Patch, run: () => T): T {
  const patched = new Float64Array(patch.size);
  for (let k = 0; k < patch.size; k++) patched[k] = weights[patch.slots[k]];
  putBackWalkWeights(weights, patch);
  try {
    return run();
  } finally {
    // A slot patched twice holds its final value at each of its places in `patched`.
    for (let k = 0; k < patch.size; k++) weights[patch.slots[k]] = patched[k];
  }
}

interface BaseGraph {
  compiled: AiderGraph;
  nodeIndex: Map<string, number>;
  identIndex: Map<string, number>;
}

/** The files that define a name, and those that reference it with their counts (see ReferenceGraph.namesOf). */
export interface NameFiles {
  definers: ReadonlySet<string> | undefined;
  referencers: Iterable<readonly [string, number]> | undefined;
}

/** Aider's graph of one request, factored through identifiers (see FactoredGraph). */
export interface AiderGraph {
  /** Node index -> path, sorted. */
  paths: string[];
  /** Identifier index -> identifier. */
  idents: string[];
  graph: FactoredGraph;
}

/**
 * The reference graph: each file's defined and referenced names, and the inverse indexes (the
 * files defining and referencing each name). Both compiled graphs are derived from these, once
 * per change. A change to a file moves only what depends on it: its own edges, and the edges of
 * the files that reference a name it starts or stops defining; the rest is reused.
 *
 * (An ngraph.graph of file and identifier nodes held the same links until it was measured: its
 * link objects took about 560 bytes each, 1.1 GB on the large corpus. It stays in the tests as an
 * oracle of the compiled edges.)
 */
export class ReferenceGraph {
  private readonly files = new Map<string, FileNode>();
  /** Per name, the files defining it: one node, or a set of two or more (most names have one definer: 351,138 of 429,669 on the large corpus). */
  private readonly definerIndex = new Map<string, DefinerFiles>();
  /**
   * Per name, the files referencing it, each followed by the name's position in its refNames: a
   * count is then read without a search (a request counts the referencers of every name it asks
   * about, thousands for a common one). An array per name, not a Map: 1.9 M links on the large corpus.
   */
  private readonly referencerIndex = new Map<string, Referencers>();
  /**
   * New files not yet in the name indexes: in the definer index from `definersFrom` on, in the
   * referencer index from `referencersFrom` on (never past `definersFrom`; see linkPending). A warm
   * start whose related graph is read from the cache needs neither index for its first map (on the
   * large corpus, linking 1.95 M names costs 1.5 s and as much again in garbage collection), and
   * deriving a related graph needs only the definers (a cold index links 1.4 M references less).
   */
  private pending: FileNode[] = [];
  private definersFrom = 0;
  private referencersFrom = 0;
  private pendingLinks = 0;
  private readonly folders = interner();
  private links = 0;
  /** Bumped whenever `dense` numbers change. */
  private numbering = 0;
  /** How each recent numbering became the next (shifts[k] took shiftsFrom + k to the one after); undefined: a full renumbering. */
  private shifts: Array<{ at: number; by: 1 | -1 } | undefined> = [];
  private shiftsFrom = 0;
  /** The files sorted by path; `dense` is each one's position. */
  private sorted: FileNode[] | undefined;
  private sortedPaths: string[] | undefined;
  /** Aider's graph with no request multipliers, kept until the next change (requests only patch it). */
  private base: BaseGraph | undefined;
  /** The 'repomap' ranking's graph with no request multipliers, likewise. */
  private relatedBase: RelatedBase | undefined;
  /** Files whose related edges must be derived again before the next related graph. */
  private readonly staleRelated = new Set<FileNode>();
  /** Until the first related graph, every file's edges are to be derived: nothing to track. */
  private relatedAllStale = true;
  /** Per identifier, until its definers change: its definers sorted by path, and Aider's multiplier. */
  private readonly definerNodes = new Map<string, Definers>();
  private readonly multipliers = new Map<string, number>();
  /**
   * The related graph's edge arrays, reused from one change to the next: a large repository has
   * millions of edges, and fresh arrays after every save cost full garbage collections of the
   * whole heap. A related graph is valid until the next change.
   */
  private buffers = new EdgeBuffers();
  private spareBuffers = new EdgeBuffers();
  /** The last related graph built, and the numbering it was built under (what a patch starts from). */
  private previousRelated: { base: RelatedBase; numbering: number } | undefined;
  /** Identifiers of related edges, numbered for the life of the graph. */
  private readonly relatedIdents = interner();
  /** The repository files a file imports (see useImports); none until told. */
  private importsOf: (path: string) => readonly string[] = () => NO_NAMES;

  /**
   * `readNames` reads a file's names from the tag store, for records read from it without them
   * (see takeRecord): a graph built from stored records reads them only when it needs them.
   */
  constructor(private readonly readNames?: (path: string) => FileNames | undefined) {}

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
    if (!this.readNames) throw new Error(`the record of ${path} has no names (a graph took them already), and this graph reads none from a store`);
    // A record without names was read from the store: one the graph has already is the same
    // content (a hash match), so it has the same names.
    if (this.files.has(path)) return;
    if (record.links === 0) return; // no names: not a node (see setFile)
    // A first load reads them when they are linked or asked about (see load); later, a new file
    // must say at once which names it defines, so that what depends on them moves.
    if (this.isFirstLoad()) this.addFile(path, undefined, record.links ?? 0);
    else this.setFile(path, this.readNames(path) ?? EMPTY_NAMES);
  }

  /** Whether nothing was derived from the names yet: files can come without saying theirs. */
  private isFirstLoad(): boolean {
    return this.relatedAllStale && this.definerNodes.size === 0 && this.multipliers.size === 0 && this.base === undefined;
  }

  /**
   * A node with its names: those of a file taken from a stored record are read now. A record
   * whose names cannot be read (a damaged value: the store writes them before the record) is a
   * file without names until it changes.
   */
  private load(node: FileNode): FileNode {
    if (node.unread === undefined) return node;
    const names = this.readNames!(node.path) ?? EMPTY_NAMES;
    this.pendingLinks += names.defined.length + names.referenced.length - node.unread;
    node.unread = undefined;
    node.defined = names.defined;
    node.refNames = names.referenced;
    node.refCounts = Uint32Array.from(names.counts);
    node.imports = names.imports;
    node.modules = names.modules;
    return node;
  }

  /** A graph of records (which keep their names). */
  static fromRecords(records: Iterable<FileRecord>): ReferenceGraph {
    const graph = new ReferenceGraph();
    for (const record of records) if (record.names) graph.setFile(record.path, record.names);
    return graph;
  }

  /** Files in the graph. */
  get fileCount(): number {
    return this.files.size;
  }

  /** Links in the graph: one per (file, name it defines) and per (file, name it references). */
  get linkCount(): number {
    return this.links + this.pendingLinks;
  }

  /** The definer index, every file linked into it first. */
  private get definers(): Map<string, DefinerFiles> {
    this.linkDefiners();
    return this.definerIndex;
  }

  /** The referencer index, every file linked into it first. */
  private get referencers(): Map<string, Referencers> {
    this.linkPending();
    return this.referencerIndex;
  }

  /**
   * Links up to `limit` files waiting for the name indexes (all by default); returns whether none
   * is left. Anything that reads the referencer index links them all first; a daemon links them a
   * slice at a time once it answers.
   */
  linkPending(limit = Infinity): boolean {
    const { pending } = this;
    const end = Math.min(pending.length, this.referencersFrom + limit);
    this.linkDefiners(end);
    for (let i = this.referencersFrom; i < end; i++) {
      this.linkReferences(pending[i]);
      this.pendingLinks -= pending[i].refNames.length;
    }
    this.referencersFrom = end;
    if (end < pending.length) return false;
    if (pending.length > 0) this.pending = [];
    this.definersFrom = this.referencersFrom = 0;
    return true;
  }

  /**
   * Links the waiting files' definitions (up to the `end`th waiting file): all a related graph
   * reads. An index pass links them while it parses (beside the workers, not after them).
   */
  linkDefiners(end = this.pending.length): void {
    for (let i = this.definersFrom; i < end; i++) {
      const node = this.load(this.pending[i]);
      this.linkDefinitions(node);
      this.pendingLinks -= node.defined.length;
    }
    this.definersFrom = Math.max(end, this.definersFrom);
  }

  /** Files taken but not yet linked into both name indexes. */
  get pendingCount(): number {
    return this.pending.length - this.referencersFrom;
  }

  /** The files in the graph, sorted. */
  filePaths(): string[] {
    this.sortedPaths ??= this.sortedNodes().map((node) => node.path);
    return this.sortedPaths;
  }

  private sortedNodes(): FileNode[] {
    if (!this.sorted) {
      this.sorted = [...this.files.values()].sort((a, b) => comparePaths(a.path, b.path));
      this.renumber(0);
    }
    return this.sorted;
  }

  /** Renumbers from `from` on; `shift` says how (a file inserted there: +1; removed: -1), if it is one. */
  private renumber(from: number, shift?: 1 | -1): void {
    const sorted = this.sorted!;
    for (let i = from; i < sorted.length; i++) sorted[i].dense = i;
    this.sortedPaths = undefined;
    if (this.shifts.length >= MAX_SHIFTS) {
      this.shifts.splice(0, MAX_SHIFTS / 2);
      this.shiftsFrom += MAX_SHIFTS / 2;
    }
    this.shifts.push(shift === undefined ? undefined : { at: from, by: shift });
    this.numbering++;
  }

  /** Replaces a file's definitions and references (and so its edges). */
  setFile(path: string, names: FileNames): void {
    const { defined, referenced: refNames, imports, modules } = names;
    if (defined.length === 0 && refNames.length === 0) {
      this.removeFile(path);
      return;
    }
    let node = this.files.get(path);
    // An edit that kept every name (a function's body, a comment): no edge moves. Only for names
    // in memory: a node's unread names, read now, would be the new ones (the store has them).
    if (node && node.unread === undefined && sameNames(node, names)) return;
    const refCounts = Uint32Array.from(names.counts);
    // The names whose definers change: the edges of their referencers move. A new file's are its
    // own (`defined` holds each name once), without a set: a first load adds a million names.
    let changed: Iterable<string> = defined;
    if (node) {
      this.linkPending();
      const toggled = new Set(defined);
      for (const ident of node.defined) if (!toggled.delete(ident)) toggled.add(ident);
      changed = toggled;
      this.unlink(node);
      node.defined = defined;
      node.refNames = refNames;
      node.refCounts = refCounts;
      node.imports = imports;
      node.modules = modules;
      this.link(node);
    } else node = this.addFile(path, { defined, refNames, refCounts, imports, modules }, defined.length + refNames.length);
    if (!this.relatedAllStale) this.staleRelated.add(node);
    this.definersChanged(changed, node);
  }

  /** A new file's node, with its names or (undefined) without them yet; linked when an index is first read (see linkPending). */
  private addFile(path: string, names: Pick<FileNode, 'defined' | 'refNames' | 'refCounts' | 'imports' | 'modules'> | undefined, links: number): FileNode {
    const folder = this.folders.id(path.slice(0, path.lastIndexOf('/') + 1));
    const node: FileNode = {
      path,
      folder,
      family: familyOfPath(path) ?? '',
      dense: -1,
      ...(names ?? UNREAD),
      refSlots: NO_SLOTS,
      unread: names ? undefined : links,
      related: undefined,
    };
    this.files.set(path, node);
    this.insertSorted(node);
    this.pending.push(node);
    this.pendingLinks += links;
    return node;
  }

  removeFile(path: string): void {
    const node = this.files.get(path);
    if (!node) return;
    this.linkPending();
    this.unlink(node);
    this.files.delete(path);
    this.staleRelated.delete(node);
    if (this.sorted) {
      this.sorted.splice(node.dense, 1);
      this.renumber(node.dense, -1);
    }
    this.definersChanged(node.defined, node);
  }

  private link(node: FileNode): void {
    this.linkDefinitions(node);
    this.linkReferences(node);
  }

  private linkDefinitions(node: FileNode): void {
    for (const ident of node.defined) {
      const entry = this.definerIndex.get(ident);
      if (entry === undefined) this.definerIndex.set(ident, node);
      else if (entry instanceof Set) entry.add(node);
      else this.definerIndex.set(ident, new Set([entry, node]));
    }
    this.links += node.defined.length;
  }

  private linkReferences(node: FileNode): void {
    const { refNames } = node;
    node.refSlots = new Uint32Array(refNames.length);
    for (let k = 0; k < refNames.length; k++) {
      const list = this.referencerIndex.get(refNames[k]);
      if (list) {
        node.refSlots[k] = list.length / 2;
        list.push(node, k);
      } else this.referencerIndex.set(refNames[k], [node, k]);
    }
    this.links += refNames.length;
  }

  private unlink(node: FileNode): void {
    for (const ident of node.defined) {
      const entry = this.definerIndex.get(ident);
      if (entry === node) this.definerIndex.delete(ident);
      else if (entry instanceof Set && entry.delete(node) && entry.size === 1) this.definerIndex.set(ident, entry.values().next().value!);
    }
    const { refNames, refSlots } = node;
    for (let k = 0; k < refNames.length; k++) {
      const ident = refNames[k];
      const list = this.referencerIndex.get(ident)!;
      // Order does not matter to the readers (sums and sets): the last one takes the freed place.
      const lastK = list.pop() as number;
      const last = list.pop() as FileNode;
      if (last !== node) {
        const slot = refSlots[k];
        list[2 * slot] = last;
        list[2 * slot + 1] = lastK;
        last.refSlots[lastK] = slot;
      }
      if (list.length === 0) this.referencerIndex.delete(ident);
    }
    this.links -= node.defined.length + node.refNames.length;
  }

  /** Keeps the sorted list (when there is one) in order without sorting it again. */
  private insertSorted(node: FileNode): void {
    if (!this.sorted) return;
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (comparePaths(this.sorted[mid].path, node.path) < 0) low = mid + 1;
      else high = mid;
    }
    this.sorted.splice(low, 0, node);
    this.renumber(low, 1);
  }

  /**
   * The file `changed` started or stopped defining `idents`: the edges of their referencers may
   * move. For a name with many definers, only the referencers in the file's own folder: elsewhere
   * a reference resolves to its own folder's definers (unchanged) or, with none there, to too many
   * definers to link either way, and the multiplier (over five definers) is the same.
   */
  private definersChanged(idents: Iterable<string>, changed: FileNode): void {
    this.base = this.relatedBase = undefined;
    // Nothing derived from these names yet (a first load): nothing to forget.
    if (this.isFirstLoad()) return;
    for (const ident of idents) {
      this.definerNodes.delete(ident);
      this.multipliers.delete(ident);
      if (this.relatedAllStale) continue;
      const entry = this.definers.get(ident);
      // Counted in the changed file's family: the definers its family's references link to.
      const after = familyCount(entry, changed.family);
      const before = isDefiner(entry, changed) ? after - 1 : after + 1;
      const folderOnly = Math.min(before, after) >= LOCAL_CHANGES_FROM;
      const list = this.referencers.get(ident) ?? [];
      for (let j = 0; j < list.length; j += 2) {
        const node = list[j] as FileNode;
        if (!folderOnly || node.folder === changed.folder) this.staleRelated.add(node);
      }
    }
    // A burst that touches most files (a checkout) derives them all again rather than tracking each.
    if (this.staleRelated.size > this.files.size / 2) {
      this.relatedAllStale = true;
      this.staleRelated.clear();
    }
  }

  /**
   * Aider's weighted graph for one request, factored through identifiers: nodes are the files
   * with a definition or a reference to a defined name (as in Aider, files without any edge are
   * not nodes); a reference weighs the identifier's multiplier x the chat multiplier x sqrt(count)
   * toward each definer; a definition nobody references keeps a self edge of 0.1. The graph
   * without request multipliers is built once per change; a request multiplies the references
   * of its chat files (x50) and of its mentioned identifiers (x10). Deterministic.
   */
  compile(request: EdgeRequest): AiderGraph {
    this.base ??= this.compileBase();
    const { compiled, nodeIndex, identIndex } = this.base;
    const chat = [...request.chatFiles].map((path) => nodeIndex.get(path)).filter((u) => u !== undefined);
    const mentioned = [...request.mentionedIdents].map((ident) => identIndex.get(ident)).filter((i) => i !== undefined);
    if (chat.length === 0 && mentioned.length === 0) return compiled;
    const { refOffsets, refIdent } = compiled.graph;
    const refWeight = compiled.graph.refWeight.slice();
    for (const u of chat) for (let e = refOffsets[u]; e < refOffsets[u + 1]; e++) refWeight[e] *= EDGE_WEIGHTS.fromChatFile;
    if (mentioned.length > 0) {
      const wanted = new Uint8Array(compiled.idents.length);
      for (const i of mentioned) wanted[i] = 1;
      for (let e = 0; e < refIdent.length; e++) if (wanted[refIdent[e]]) refWeight[e] *= EDGE_WEIGHTS.mentionedIdent;
    }
    return { ...compiled, graph: { ...compiled.graph, refWeight } };
  }

  private compileBase(): BaseGraph {
    this.linkPending();
    const nodes = this.sortedNodes().filter(
      (node) => node.defined.length > 0 || node.refNames.some((ident) => this.definers.has(ident)),
    );
    const paths = nodes.map((node) => node.path);
    const index = new Map(paths.map((path, i) => [path, i]));

    const { index: identIndex, list: idents, id: identId } = interner();
    const refOffsets = new Uint32Array(paths.length + 1);
    const selfOffsets = new Uint32Array(paths.length + 1);
    const refIdent: number[] = [];
    const refWeight: number[] = [];
    const selfIdent: number[] = [];
    const selfWeight: number[] = [];
    for (let u = 0; u < nodes.length; u++) {
      const { refNames, refCounts } = nodes[u];
      for (let k = 0; k < refNames.length; k++) {
        const ident = refNames[k];
        const count = refCounts[k];
        if (!this.definers.has(ident)) continue;
        refIdent.push(identId(ident));
        refWeight.push(this.multiplierOf(ident) * Math.sqrt(count));
      }
      refOffsets[u + 1] = refIdent.length;
      // A definition nobody references keeps a small self-edge so it can still rank.
      for (const ident of nodes[u].defined) {
        if (this.referencers.has(ident)) continue;
        selfIdent.push(identId(ident));
        selfWeight.push(EDGE_WEIGHTS.unreferencedSelfEdge);
      }
      selfOffsets[u + 1] = selfIdent.length;
    }

    const defOffsets = new Uint32Array(idents.length + 1);
    const defNode: number[] = [];
    for (let i = 0; i < idents.length; i++) {
      // Identifiers only on self edges need no definer list: their edges are the self edges.
      if (this.referencers.has(idents[i])) {
        for (const node of allDefiners(this.definersOf(idents[i])!)) defNode.push(index.get(node.path)!);
      }
      defOffsets[i + 1] = defNode.length;
    }
    const compiled: AiderGraph = {
      paths,
      idents,
      graph: {
        nodeCount: paths.length,
        identCount: idents.length,
        refOffsets,
        refIdent: Uint32Array.from(refIdent),
        refWeight: Float64Array.from(refWeight),
        defOffsets,
        defNode: Uint32Array.from(defNode),
        selfOffsets,
        selfIdent: Uint32Array.from(selfIdent),
        selfWeight: Float64Array.from(selfWeight),
      },
    };
    return { compiled, nodeIndex: index, identIndex };
  }

  /**
   * The files defining `ident`, sorted by path, and grouped by folder; undefined when none does.
   * A name nobody defines is remembered as such (a reference to a builtin like len or console
   * would otherwise look it up twice, for each of its thousands of referencers).
   */
  private definersOf(ident: string): Definers | undefined {
    let definers = this.definerNodes.get(ident);
    if (!definers) {
      const entry = this.definers.get(ident);
      if (entry === undefined) {
        this.definerNodes.set(ident, NO_DEFINERS);
        return undefined;
      }
      definers = this.groupDefiners(ident, entry);
      this.definerNodes.set(ident, definers);
    }
    return definers === NO_DEFINERS ? undefined : definers;
  }

  /** definersOf, narrowed to the definers of one language family (what a reference of a file of that family may link to). */
  private definersOfFamily(ident: string, family: string): Definers | undefined {
    const definers = this.definersOf(ident);
    if (!definers || definers.family === family) return definers;
    if (definers.family !== MIXED_FAMILIES) return undefined;
    if (!definers.byFamily) {
      const groups = new Map<string, Set<FileNode>>();
      for (const node of definers.entry as Set<FileNode>) getOrCreate(groups, node.family, () => new Set()).add(node);
      definers.byFamily = new Map();
      for (const [group, nodes] of groups) definers.byFamily.set(group, this.groupDefiners(ident, nodes.size === 1 ? nodes.values().next().value! : nodes));
    }
    // Each family's definers number the name alike: the related graph interns it by name.
    return definers.byFamily.get(family);
  }

  /** A name's definers grouped by folder (each group sorted), with its multiplier and family. */
  private groupDefiners(ident: string, entry: DefinerFiles): Definers {
    const count = definerCount(entry);
    const multiplier = this.multiplierOf(ident, count);
    if (entry instanceof Set) {
      // Grouped, and each group sorted, without sorting them all: a name like __init__ or get has
      // thousands of definers, and a first edit after a restart would sort them for each such name.
      const byFolder = new Map<number, FileNode[]>();
      let family: string | undefined;
      for (const node of entry) {
        getOrCreate(byFolder, node.folder, () => []).push(node);
        family = family === undefined || family === node.family ? node.family : MIXED_FAMILIES;
      }
      for (const group of byFolder.values()) if (group.length > 1) group.sort(byPath);
      return { count, all: undefined, byFolder, entry, multiplier, relatedId: -1, family: family ?? '' };
    }
    // No folder map for one definer: deriving the graph of a large repository asks for 200,000 names.
    return { count, all: [entry], byFolder: undefined, entry, multiplier, relatedId: -1, family: entry.family };
  }

  /** Aider's multiplier of `ident` without request mentions. */
  private multiplierOf(ident: string, count = definerCount(this.definers.get(ident))): number {
    let mul = this.multipliers.get(ident);
    if (mul === undefined) {
      mul = identifierMultiplier(ident, count, NO_MENTIONS);
      this.multipliers.set(ident, mul);
    }
    return mul;
  }

  /**
   * Builds the related graph now, and (unless `spare` is false) reserves and touches the arrays
   * the next one is written into: a daemon does this before requests ask, so neither a request nor
   * the next change pays for them.
   */
  prepareRelated({ spare = true }: { spare?: boolean } = {}): void {
    this.relatedBase ??= this.buildRelated();
    if (spare) this.spareBuffers.reserveLike(this.buffers);
  }

  /**
   * Makes a save's change and takes it back, `times` times: a file's definitions taken away, so
   * that the files using them derive their edges again and the related graph is patched, then
   * given back. The graph ends as it was, with the code of a change compiled and the arrays it
   * writes touched, so that the first saves after a start do not pay for them. The file is the
   * one with the most definitions among those whose change derives the edges of at most a few
   * hundred files again. A daemon does this once it is ready.
   */
  rehearseChange(times = REHEARSALS): void {
    const nodes = this.sorted;
    if (!this.relatedBase || !this.previousRelated || !nodes?.length) return;
    this.linkPending();
    // The files that may derive their edges again (an upper bound): well under a patch's limit.
    const bound = Math.min(nodes.length / 16, MAX_REHEARSED_STALE);
    const staleBound = (node: FileNode) => node.defined.reduce((sum, ident) => sum + (this.referencers.get(ident)?.length ?? 0) / 2, 0);
    // Most definitions first; the bound is summed for as few files as it takes (1 M names on the large corpus).
    const byDefinitions = nodes.filter((node) => node.defined.length > 0 && node.refNames.length > 0).sort((a, b) => b.defined.length - a.defined.length);
    const chosen = byDefinitions.find((node) => staleBound(node) <= bound);
    if (!chosen) return;
    const { path, defined, refNames: referenced, refCounts, imports, modules } = chosen;
    const names = { defined, referenced, counts: Array.from(refCounts), imports, modules };
    for (let i = 0; i < times; i++) {
      this.setFile(path, { ...names, defined: [] });
      this.prepareRelated();
      this.setFile(path, names);
      this.prepareRelated();
    }
  }

  /**
   * Writes the related graph anew as a change would (one file's edges derived again, the rest
   * copied), `times` times: the same graph, and little garbage. What a daemon does once the watcher
   * follows the tree, to compile the patch again (see rehearseChange).
   */
  rehearsePatch(times: number): void {
    const nodes = this.sorted;
    if (!this.relatedBase || !this.previousRelated || !nodes?.length) return;
    let busiest = nodes[0];
    for (const node of nodes) if (nameCount(node) > nameCount(busiest)) busiest = node;
    for (let i = 0; i < times; i++) {
      this.staleRelated.add(busiest);
      this.relatedBase = this.buildRelated();
      this.prepareRelated();
    }
  }

  /**
   * The related graph as it stands, without a request's patch, for saving (see graph-file); undefined
   * when changes since the last one are not built into it yet.
   */
  savedRelated(): SavedRelated | undefined {
    const base = this.relatedBase;
    if (!base) return undefined;
    unpatch(base);
    const { paths, idents, csr, edgeIdent, forward } = base.graph;
    return { paths, idents, offsets: csr.offsets, targets: csr.targets, weights: csr.weights, edgeIdent, forward };
  }

  /**
   * Takes a saved related graph instead of deriving one, when it was saved from these same files:
   * the caller vouches that each file's names are those it had then (its content hash is the
   * same), and that the arrays are as savedRelated gave them (graph-file checks a checksum; here
   * only their lengths are checked, as checking every edge cost a warm start 0.14 s). Only into a
   * graph whose related graph was never built. Returns whether it took it. A
   * warm start then skips deriving every file's edges (3.4 s of 11 on the large corpus); a file's
   * edges are derived when a change first needs them.
   */
  restoreRelated(saved: SavedRelated): boolean {
    if (this.previousRelated || this.relatedIdents.list.length > 0) return false;
    const paths = this.filePaths();
    const n = paths.length;
    if (saved.paths.length !== n || !saved.paths.every((path, i) => path === paths[i])) return false;
    const { offsets, targets, weights, edgeIdent, forward, idents } = saved;
    if (!isSavedGraphShaped(saved)) return false;
    // The saved list itself, so that lookups built over it while the files were listed serve (see pathIndex).
    this.sortedPaths = saved.paths;
    for (const ident of idents) this.relatedIdents.id(ident);
    if (this.relatedIdents.list.length !== idents.length) return false; // a name twice: not a graph this code saved
    this.buffers.adopt({ targets, weights, edgeIdent, forward });
    const csr = { nodeCount: n, offsets, targets, weights };
    // The merged walk is derived again rather than saved: saving it made the file 87 MB instead of
    // 53, which a start reads (from disk, when the page cache has let it go) and a save writes.
    const { walk, walkSlot } = mergeParallelEdges(csr, this.buffers);
    const forwardTotal = new Float64Array(n);
    for (let u = 0; u < n; u++) forwardTotal[u] = rowForwardTotal(csr, forward, u);
    const walkRanks = saved.walkRanks?.length === n ? saved.walkRanks : undefined;
    const graph = { paths: saved.paths, csr, edgeIdent, idents: this.relatedIdents.list, forward, walk, walkSlot, forwardTotal, walkRanks };
    this.relatedBase = { graph, identIndex: this.relatedIdents.index };
    this.previousRelated = { base: this.relatedBase, numbering: this.numbering };
    this.relatedAllStale = false;
    this.staleRelated.clear();
    return true;
  }

  /**
   * The graph of the 'repomap' ranking. Every file with tags is a node, linked or not. A reference
   * resolves to the definers in the referencing file's own folder when there are any (a Go package,
   * a sibling module), else to every definer, its weight (Aider's multipliers times the square root
   * of the count) split evenly among them rather than copied to each. Each link runs both ways:
   * a file is related to what it uses and to what uses it.
   */
  compileRelated(request: EdgeRequest): RelatedGraph {
    const base = (this.relatedBase ??= this.buildRelated());
    // The previous request's patch is taken back first: the base holds at most one at a time.
    unpatch(base);
    // In name order, not number order: identifiers are numbered in order of first use, which differs
    // between a graph built at once and one restored or patched, and the order of the additions
    // below decides the last bits of the weights they add to.
    const mentioned = [...request.mentionedIdents]
      .filter((ident) => base.identIndex.has(ident))
      .sort(comparePaths)
      .map((ident) => base.identIndex.get(ident)!);
    if (mentioned.length === 0) return base.graph;
    // A request multiplies the weights of the edges of the identifiers it mentions, in place: a
    // copy of every weight per request would cost more than the rest of the request on a large
    // repository. The patch stays until the next request; the view says it is patched.
    const { csr, walk, walkSlot, forward, forwardTotal } = base.graph;
    const { identOffsets, identEdges, edgeSource } = (base.edgesByIdent ??= edgesByIdent(base.graph, this.buffers));
    let size = 0;
    for (const i of mentioned) size += identOffsets[i + 1] - identOffsets[i];
    const saved: Patch = {
      size,
      edges: new Uint32Array(size),
      edgeWeights: new Float64Array(size),
      slots: new Uint32Array(size),
      slotWeights: new Float64Array(size),
      forwardCount: 0,
      sources: new Uint32Array(size),
      totals: new Float64Array(size),
    };
    let p = 0;
    for (const i of mentioned) {
      for (let k = identOffsets[i]; k < identOffsets[i + 1]; k++, p++) {
        const e = identEdges[k];
        const slot = walkSlot[e];
        const added = csr.weights[e] * (EDGE_WEIGHTS.mentionedIdent - 1);
        saved.edges[p] = e;
        saved.edgeWeights[p] = csr.weights[e];
        saved.slots[p] = slot;
        saved.slotWeights[p] = walk.weights[slot];
        if (forward[e]) {
          const u = edgeSource[k];
          saved.sources[saved.forwardCount] = u;
          saved.totals[saved.forwardCount++] = forwardTotal[u];
          forwardTotal[u] += added;
        }
        walk.weights[slot] += added;
        csr.weights[e] *= EDGE_WEIGHTS.mentionedIdent;
      }
    }
    base.patch = saved;
    const unpatched = <T>(run: () => T): T => {
      if (base.patch !== saved) throw new Error('a view of an earlier request: the graph compiled another since');
      return withoutPatch(walk.weights, saved, run);
    };
    return { ...base.graph, patched: true, withoutPatch: unpatched };
  }

  /**
   * Where the related graph learns what each file imports (IndexLookups.importsOf): a reference
   * then links to the definers among its file's imports first. Every edge is derived again under
   * the new answers; after that, a change to a file's imports comes with a change of its names
   * (setFile), and one to what a path resolves to with a file that comes or goes, whose names'
   * referencers move (definersChanged); a changed project file (tsconfig.json, go.mod) calls this again.
   */
  useImports(importsOf: (path: string) => readonly string[]): void {
    this.importsOf = importsOf;
    this.relatedAllStale = true;
    this.staleRelated.clear();
    this.base = this.relatedBase = undefined;
  }

  /** The nodes of the files `u` imports (of its family: the resolver answers no other). */
  private importedNodes(u: FileNode): FileNode[] {
    const nodes: FileNode[] = [];
    for (const path of this.importsOf(u.path)) {
      const node = this.files.get(path);
      if (node) nodes.push(node);
    }
    return nodes;
  }

  /** A file's forward edges, from its references and the current definers. */
  private deriveRelated(u: FileNode): RelatedEdges {
    this.load(u);
    const imported = this.importedNodes(u);
    const viaImport: FileNode[] = [];
    const to: FileNode[] = [];
    const idents: number[] = [];
    const weights: number[] = [];
    for (let k = 0; k < u.refNames.length; k++) {
      const ident = u.refNames[k];
      const count = u.refCounts[k];
      const definers = this.definersOfFamily(ident, u.family);
      if (!definers) continue;
      // First the definers among the files it imports: the name is the one they export.
      viaImport.length = 0;
      for (const v of imported) if (isDefiner(definers.entry, v)) viaImport.push(v);
      if (viaImport.length > 0) {
        if (definers.relatedId < 0) definers.relatedId = this.relatedIdents.id(ident);
        const weight = (definers.multiplier * Math.sqrt(count)) / viaImport.length;
        for (const v of viaImport) {
          to.push(v);
          idents.push(definers.relatedId);
          weights.push(weight);
        }
        continue;
      }
      // Counted from the folder index, not by walking every definer: a name like __init__ has thousands.
      const sameFolder = definersIn(definers, u.folder);
      const near = sameFolder.length - (isDefiner(definers.entry, u) ? 1 : 0);
      const others = definers.count - sameFolder.length;
      if (near + others === 0) continue;
      const onlyNear = near > 0;
      const targets = onlyNear ? near : others;
      // A name with many definers and none nearby says little about which one is meant: its
      // split weight is tiny and its links would outnumber all others. It links nothing.
      if (targets > RELATED_WEIGHTS.maxDefiners) continue;
      if (definers.relatedId < 0) definers.relatedId = this.relatedIdents.id(ident);
      const id = definers.relatedId;
      const weight = (definers.multiplier * Math.sqrt(count)) / targets;
      for (const v of onlyNear ? sameFolder : allDefiners(definers)) {
        if (v === u) continue;
        to.push(v);
        idents.push(id);
        weights.push(weight);
      }
    }
    return { to, ident: Uint32Array.from(idents), weight: Float64Array.from(weights), toDense: new Uint32Array(to.length), numbering: -1 };
  }

  /**
   * The related graph without request multipliers, in CSR form: each node's forward edges (in the
   * order of its references) interleaved with the reverse edges of the files that reference it.
   * Only the files a change made stale derive their edges again; the rest is copied.
   */
  private buildRelated(): RelatedBase {
    const nodes = this.sortedNodes();
    const previous = this.previousRelated;
    // After a few changes, only the rows of the stale files and of their old and new targets
    // change: the rest is copied from the previous graph (its numbers moved past files added or
    // removed since), rather than written again edge by edge.
    const shifts = previous ? this.shiftsSince(previous.numbering) : undefined;
    const patch =
      previous !== undefined &&
      shifts !== undefined &&
      shifts.length <= MAX_PATCH_SHIFTS &&
      !this.relatedAllStale &&
      this.staleRelated.size <= nodes.length / 8 &&
      RELATED_WEIGHTS.reverse > 0;
    const stale = this.relatedAllStale ? nodes : [...this.staleRelated];
    for (const node of stale) node.related = this.deriveRelated(node);
    // Two sets of arrays in turn: the new graph is written while the previous one is read.
    [this.buffers, this.spareBuffers] = [this.spareBuffers, this.buffers];
    if (previous) unpatch(previous.base);
    const base = patch ? this.patchRelated(previous.base, shifts!, stale) : this.flattenRelated(nodes);
    this.staleRelated.clear();
    this.relatedAllStale = false;
    this.previousRelated = { base, numbering: this.numbering };
    return base;
  }

  /** The shifts from numbering `from` to the current one; undefined if one was a full renumbering or is forgotten. */
  private shiftsSince(from: number): Array<{ at: number; by: 1 | -1 }> | undefined {
    if (from < this.shiftsFrom) return undefined;
    const ops = this.shifts.slice(from - this.shiftsFrom);
    return ops.every((op) => op !== undefined) ? (ops as Array<{ at: number; by: 1 | -1 }>) : undefined;
  }

  /** Refreshes a file's target numbers if files were added or removed since they were taken. */
  private numbered(related: RelatedEdges): RelatedEdges {
    if (related.numbering === this.numbering) return related;
    const { toDense } = related;
    const ops = related.numbering >= 0 ? this.shiftsSince(related.numbering) : undefined;
    if (ops) {
      // Files added or removed since: the numbers move by arithmetic, without visiting the targets
      // (reading each target's number costs a cache miss per edge on a large repository).
      for (let k = 0; k < toDense.length; k++) toDense[k] = shifted(toDense[k], ops);
    } else {
      for (let k = 0; k < related.to.length; k++) toDense[k] = related.to[k].dense;
    }
    related.numbering = this.numbering;
    return related;
  }

  /** The related graph in CSR form, written from every file's forward edges. */
  private flattenRelated(nodes: readonly FileNode[]): RelatedBase {
    const n = nodes.length;
    const reverse = RELATED_WEIGHTS.reverse > 0;
    const offsets = new Uint32Array(n + 1);
    for (let u = 0; u < n; u++) {
      // A graph restored from a saved one derives a file's edges when first needed.
      const { toDense } = this.numbered((nodes[u].related ??= this.deriveRelated(nodes[u])));
      offsets[u + 1] += toDense.length;
      if (reverse) for (let k = 0; k < toDense.length; k++) offsets[toDense[k] + 1]++;
    }
    for (let u = 0; u < n; u++) offsets[u + 1] += offsets[u];
    const edgeCount = offsets[n];
    const buffers = this.buffers;
    const { targets, weights, edgeIdent, forward } = buffers.edgeArrays(edgeCount);
    const fill = offsets.slice(0, n);
    for (let u = 0; u < n; u++) {
      const { toDense, ident, weight } = nodes[u].related!;
      for (let k = 0; k < toDense.length; k++) {
        const v = toDense[k];
        let slot = fill[u]++;
        targets[slot] = v;
        weights[slot] = weight[k];
        edgeIdent[slot] = ident[k];
        forward[slot] = 1;
        if (!reverse) continue;
        slot = fill[v]++;
        targets[slot] = u;
        weights[slot] = weight[k] * RELATED_WEIGHTS.reverse;
        edgeIdent[slot] = ident[k];
        forward[slot] = 0;
      }
    }
    const csr = { nodeCount: n, offsets, targets, weights };
    const { walk, walkSlot } = mergeParallelEdges(csr, buffers);
    const forwardTotal = new Float64Array(n);
    for (let u = 0; u < n; u++) forwardTotal[u] = rowForwardTotal(csr, forward, u);
    const graph = { paths: this.filePaths(), csr, edgeIdent, idents: this.relatedIdents.list, forward, walk, walkSlot, forwardTotal };
    return { graph, identIndex: this.relatedIdents.index };
  }

  /**
   * The related graph after the `stale` files took new forward edges (and files were added or
   * removed: `shifts` moves the previous graph's numbers to the current ones), written from the
   * previous graph: a row keeps its entries in the order a full flatten gives (by source: the
   * reverse entries of lower sources, its own forward entries, those of higher sources), so the
   * result is the same, entry for entry.
   */
  private patchRelated(old: RelatedBase, shifts: ReadonlyArray<{ at: number; by: 1 | -1 }>, stale: readonly FileNode[]): RelatedBase {
    const nodes = this.sorted!;
    const n = nodes.length;
    const { offsets: oldOffsets, targets: oldTargets, weights: oldWeights } = old.graph.csr;
    const { edgeIdent: oldIdent, forward: oldForward, walk: oldWalk, walkSlot: oldSlot, forwardTotal: oldTotal } = old.graph;
    // Old node -> new node (-1: removed), and new -> old (-1: added).
    const oldN = oldOffsets.length - 1;
    const newOf = new Int32Array(oldN);
    const oldOf = new Int32Array(n).fill(-1);
    for (let i = 0; i < oldN; i++) {
      newOf[i] = shifted(i, shifts);
      if (newOf[i] >= 0) oldOf[newOf[i]] = i;
    }
    const isStale = new Uint8Array(n);
    const affected = new Uint8Array(n);
    // Rows rewritten entry by entry: those of files added, and those holding entries of files added
    // or removed. The others trade whole runs of entries, a run per stale source, each found by
    // binary search: a file used everywhere has a row of tens of thousands of entries, of which an
    // edit elsewhere changes a few.
    const entryWise = new Uint8Array(n);
    for (const node of stale) isStale[node.dense] = affected[node.dense] = 1;
    // Per row, the stale files whose old entries it holds, ascending: their runs give way.
    const dropped = new Map<number, number[]>();
    // A removed file's old targets lose its reverse entries; a stale file's old targets too.
    for (let i = 0; i < oldN; i++) {
      const s = newOf[i];
      if (s >= 0 && !isStale[s]) continue;
      for (let e = oldOffsets[i]; e < oldOffsets[i + 1]; e++) {
        const t = oldForward[e] ? newOf[oldTargets[e]] : -1;
        if (t < 0) continue;
        affected[t] = 1;
        if (s < 0) entryWise[t] = 1;
        else {
          const sources = getOrCreate(dropped, t, () => []);
          if (sources[sources.length - 1] !== s) sources.push(s);
        }
      }
    }
    // Per target, the new reverse entries as (source, k) pairs, sources ascending.
    const incoming = new Map<number, number[]>();
    const staleNodes = stale.map((node) => node.dense).sort((a, b) => a - b);
    for (const s of staleNodes) {
      const { toDense } = this.numbered(nodes[s].related!);
      const added = oldOf[s] < 0;
      if (added) entryWise[s] = 1;
      for (let k = 0; k < toDense.length; k++) {
        affected[toDense[k]] = 1;
        if (added) entryWise[toDense[k]] = 1;
        getOrCreate(incoming, toDense[k], () => []).push(s, k);
      }
    }
    // An old entry of row v stays unless its source is stale or gone.
    const keeps = (v: number, e: number) => {
      if (oldForward[e]) return !isStale[v];
      const source = newOf[oldTargets[e]];
      return source >= 0 && !isStale[source];
    };
    // Row v's changes as runs of five numbers: its old entries [from, to) give way to the new
    // entries of source s, pairs [p, q) of `incoming` (s = v: the row's own forward entries).
    const runsOf = (v: number): number[] => {
      const o = oldOf[v];
      const start = oldOffsets[o];
      const end = oldOffsets[o + 1];
      const [ownFrom, ownTo] = ownEntries(oldTargets, oldForward, start, end, o);
      const pairs = incoming.get(v) ?? NO_PAIRS;
      const gone = dropped.get(v) ?? NO_PAIRS;
      const runs: number[] = [];
      let p = 0;
      let d = 0;
      let own = isStale[v] === 1;
      for (;;) {
        const s = Math.min(p < pairs.length ? pairs[p] : n, d < gone.length ? gone[d] : n, own ? v : n);
        if (s === n) return runs;
        const q = pairsEnd(pairs, p, s);
        if (s === v) {
          runs.push(ownFrom, ownTo, s, p, q);
          own = false;
        } else {
          // Reverse entries sit by source, those of lower sources before the row's own entries.
          const os = oldOf[s];
          const [from, to] = os < o ? [start, ownFrom] : [ownTo, end];
          const at = lowerBound(oldTargets, from, to, os);
          runs.push(at, lowerBound(oldTargets, at, to, os + 1), s, p, q);
        }
        p = q;
        if (gone[d] === s) d++;
      }
    };
    const runsByRow = new Map<number, number[]>();
    const offsets = new Uint32Array(n + 1);
    for (let v = 0; v < n; v++) {
      const o = oldOf[v];
      let size = o >= 0 ? oldOffsets[o + 1] - oldOffsets[o] : 0;
      if (affected[v] && !entryWise[v]) {
        const runs = runsOf(v);
        runsByRow.set(v, runs);
        for (let r = 0; r < runs.length; r += 5) {
          size -= runs[r + 1] - runs[r];
          size += runs[r + 2] === v ? nodes[v].related!.toDense.length : (runs[r + 4] - runs[r + 3]) / 2;
        }
      } else if (affected[v]) {
        size = (incoming.get(v)?.length ?? 0) / 2 + (isStale[v] ? nodes[v].related!.toDense.length : 0);
        if (o >= 0) for (let e = oldOffsets[o]; e < oldOffsets[o + 1]; e++) if (keeps(v, e)) size++;
      }
      offsets[v + 1] = offsets[v] + size;
    }
    const edgeCount = offsets[n];
    const buffers = this.buffers;
    const { targets, weights, edgeIdent, forward } = buffers.edgeArrays(edgeCount);
    // Files added or removed since: the targets of copied entries are numbered anew.
    const renumber = shifts.length > 0 ? newOf : undefined;
    let slot = 0;
    const copyOld = (from: number, to: number) => {
      if (to - from < BLOCK_COPY) {
        // A loop: views for a block copy cost more than the copy of a run of a few dozen entries.
        const shift = slot - from;
        for (let e = from; e < to; e++) {
          targets[e + shift] = renumber ? renumber[oldTargets[e]] : oldTargets[e];
          weights[e + shift] = oldWeights[e];
          edgeIdent[e + shift] = oldIdent[e];
          forward[e + shift] = oldForward[e];
        }
      } else {
        copyTargets(oldTargets, from, to, targets, slot, renumber);
        weights.set(oldWeights.subarray(from, to), slot);
        edgeIdent.set(oldIdent.subarray(from, to), slot);
        forward.set(oldForward.subarray(from, to), slot);
      }
      slot += to - from;
    };
    const write = (target: number, weight: number, ident: number, isForward: number) => {
      targets[slot] = target;
      weights[slot] = weight;
      edgeIdent[slot] = ident;
      forward[slot++] = isForward;
    };
    const writeOwn = (v: number) => {
      const own = nodes[v].related!;
      for (let k = 0; k < own.toDense.length; k++) write(own.toDense[k], own.weight[k], own.ident[k], 1);
    };
    const writeReverse = (source: number, k: number) => {
      const from = nodes[source].related!;
      write(source, from.weight[k] * RELATED_WEIGHTS.reverse, from.ident[k], 0);
    };
    // The end of the run of unchanged rows from v: rows that move as one block.
    const runEnd = (v: number) => {
      let end = v;
      while (end < n && !affected[end] && oldOf[end] === oldOf[v] + (end - v)) end++;
      return end;
    };
    for (let v = 0; v < n; ) {
      slot = offsets[v];
      if (!affected[v]) {
        const end = runEnd(v);
        copyOld(oldOffsets[oldOf[v]], oldOffsets[oldOf[end - 1] + 1]);
        v = end;
        continue;
      }
      const pairs = incoming.get(v) ?? NO_PAIRS;
      const runs = runsByRow.get(v);
      if (runs) {
        let from = oldOffsets[oldOf[v]];
        for (let r = 0; r < runs.length; r += 5) {
          copyOld(from, runs[r]);
          if (runs[r + 2] === v) writeOwn(v);
          else for (let p = runs[r + 3]; p < runs[r + 4]; p += 2) writeReverse(pairs[p], pairs[p + 1]);
          from = runs[r + 1];
        }
        copyOld(from, oldOffsets[oldOf[v] + 1]);
        v++;
        continue;
      }
      let next = 0;
      let ownPending = isStale[v] === 1;
      // Writes the new entries whose source comes before `limit`, in source order.
      const writeNewBefore = (limit: number) => {
        for (;;) {
          const source = next < pairs.length ? pairs[next] : Infinity;
          if (ownPending && v < limit && v < source) {
            writeOwn(v);
            ownPending = false;
            continue;
          }
          if (source >= limit) return;
          writeReverse(source, pairs[next + 1]);
          next += 2;
        }
      };
      const o = oldOf[v];
      if (o >= 0) {
        for (let e = oldOffsets[o]; e < oldOffsets[o + 1]; e++) {
          if (!keeps(v, e)) continue;
          const target = newOf[oldTargets[e]];
          writeNewBefore(oldForward[e] ? v : target);
          write(target, oldWeights[e], oldIdent[e], oldForward[e]);
        }
      }
      writeNewBefore(Infinity);
      v++;
    }
    const csr = { nodeCount: n, offsets, targets, weights };

    // The merged walk: unchanged rows copied (their slots shifted), changed rows merged anew.
    const walkOffsets = new Uint32Array(n + 1);
    const seen = new Int32Array(n).fill(-1);
    for (let v = 0; v < n; v++) {
      const o = oldOf[v];
      const size = affected[v] ? distinctTargets(csr, v, seen) : oldWalk.offsets[o + 1] - oldWalk.offsets[o];
      walkOffsets[v + 1] = walkOffsets[v] + size;
    }
    const { walkTargets, walkWeights, walkSlot } = buffers.walkArrays(walkOffsets[n], edgeCount);
    seen.fill(-1);
    const slotOf = new Uint32Array(n);
    for (let v = 0; v < n; ) {
      if (!affected[v]) {
        // A run of unchanged rows: its merged entries move as one block, and its edges' entries by as much.
        const end = runEnd(v);
        const from = oldWalk.offsets[oldOf[v]];
        const to = oldWalk.offsets[oldOf[end - 1] + 1];
        copyTargets(oldWalk.targets, from, to, walkTargets, walkOffsets[v], renumber);
        walkWeights.set(oldWalk.weights.subarray(from, to), walkOffsets[v]);
        const edgesFrom = oldOffsets[oldOf[v]];
        copySlots(oldSlot, edgesFrom, oldOffsets[oldOf[end - 1] + 1], walkSlot, offsets[v] - edgesFrom, walkOffsets[v] - from);
        v = end;
        continue;
      }
      mergeRow(csr, v, walkOffsets[v], seen, slotOf, walkTargets, walkWeights, walkSlot);
      v++;
    }
    const walk = { nodeCount: n, offsets: walkOffsets, targets: walkTargets, weights: walkWeights };
    const forwardTotal = new Float64Array(n);
    for (let v = 0; v < n; v++) forwardTotal[v] = isStale[v] ? rowForwardTotal(csr, forward, v) : oldTotal[oldOf[v]];
    const graph = { paths: this.filePaths(), csr, edgeIdent, idents: this.relatedIdents.list, forward, walk, walkSlot, forwardTotal };
    return { graph, identIndex: this.relatedIdents.index };
  }

  /**
   * The names a file defines, references (with their counts alongside) and imports, and the
   * modules it imports (all sorted; empty for a file outside the graph).
   */
  /** Whether the graph holds `path` (a file that defines or references some name). */
  hasFile(path: string): boolean {
    return this.files.has(path);
  }

  fileNames(path: string): { defined: readonly string[]; referenced: readonly string[]; counts: ArrayLike<number>; imports: readonly string[]; modules: readonly string[] } {
    const node = this.files.get(path);
    if (node) this.load(node);
    return { defined: node?.defined ?? [], referenced: node?.refNames ?? [], counts: node?.refCounts ?? NO_SLOTS, imports: node?.imports ?? [], modules: node?.modules ?? [] };
  }

  /** Every name some file defines. */
  definedNames(): IterableIterator<string> {
    return this.definers.keys();
  }

  /** Every name some file references. */
  referencedNames(): IterableIterator<string> {
    return this.referencers.keys();
  }

  /** The files that define `ident`, and those that reference it (with their counts, in no particular order). */
  namesOf(ident: string): NameFiles {
    this.linkPending();
    return this.namesOfAll([ident]).get(ident)!;
  }

  /**
   * namesOf for each of `idents`. Files not linked yet are scanned rather than linked: a request
   * asks about a few hundred names, and one pass over the waiting files' names costs a fraction
   * of linking them all.
   */
  namesOfAll(idents: Iterable<string>): Map<string, NameFiles> {
    const found = new Map<string, { definers: Set<string>; referencers: Array<readonly [string, number]> }>();
    let current!: { definers: Set<string>; referencers: Array<readonly [string, number]> };
    this.eachNamer(
      idents,
      (ident) => found.set(ident, (current = { definers: new Set(), referencers: [] })),
      (node, count, defines) => (defines ? current.definers.add(node.path) : current.referencers.push([node.path, count])),
    );
    const answers = new Map<string, NameFiles>();
    for (const [ident, { definers, referencers }] of found) {
      answers.set(ident, { definers: definers.size > 0 ? definers : undefined, referencers: referencers.length > 0 ? referencers : undefined });
    }
    return answers;
  }

  /** The files that define each of `idents` (namesOfAll without the referencers: a name like `get` has thousands). */
  definersOfAll(idents: Iterable<string>): Map<string, ReadonlySet<string> | undefined> {
    const found = new Map<string, Set<string> | undefined>();
    let current: string;
    this.eachNamer(
      idents,
      (ident) => found.set((current = ident), undefined),
      (node) => {
        const set = found.get(current);
        if (set) set.add(node.path);
        else found.set(current, new Set([node.path]));
      },
      { referencers: false },
    );
    return found;
  }

  /**
   * What namesOfAll says, by node number (a file's place in filePaths()) and without a list per
   * name: `next` before each name, then `visit` for each file defining it (count 1) or
   * referencing it. A map request visits tens of thousands of files, each of whose paths cost a
   * string lookup to number.
   */
  visitNamers(idents: Iterable<string>, next: () => void, visit: (node: number, count: number) => void): void {
    this.sortedNodes();
    this.eachNamer(idents, next, (node, count) => visit(node.dense, count));
  }

  /** Each of `idents` once (`onName` first), then each of its definers and referencers: from the name indexes, and from a scan of the files not linked yet. */
  private eachNamer(
    idents: Iterable<string>,
    onName: (ident: string) => void,
    visit: (node: FileNode, count: number, defines: boolean) => void,
    { referencers = true } = {},
  ): void {
    const wanted = [...new Set(idents)];
    const scanned = new Map<string, { definers: FileNode[]; referencers: Referencers }>();
    // No name asked, no file read: a map with no chat file and no mention asks none.
    const from = referencers ? this.referencersFrom : this.definersFrom;
    if (from < this.pending.length && wanted.length > 0) {
      for (const ident of wanted) scanned.set(ident, { definers: [], referencers: [] });
      for (let i = from; i < this.pending.length; i++) {
        const node = this.load(this.pending[i]);
        if (i >= this.definersFrom) for (const ident of node.defined) scanned.get(ident)?.definers.push(node);
        if (!referencers) continue;
        const { refNames } = node;
        for (let k = 0; k < refNames.length; k++) scanned.get(refNames[k])?.referencers.push(node, k);
      }
    }
    const visitReferencers = (list: Referencers) => {
      for (let j = 0; j < list.length; j += 2) {
        const node = list[j] as FileNode;
        visit(node, node.refCounts[list[j + 1] as number], false);
      }
    };
    for (const ident of wanted) {
      onName(ident);
      const entry = this.definerIndex.get(ident);
      if (entry instanceof Set) for (const node of entry) visit(node, 1, true);
      else if (entry) visit(entry, 1, true);
      const extra = scanned.get(ident);
      for (const node of extra?.definers ?? []) visit(node, 1, true);
      if (!referencers) continue;
      visitReferencers(this.referencerIndex.get(ident) ?? []);
      if (extra) visitReferencers(extra.referencers);
    }
  }

}

/**
 * The weights of this project's model (the 'repomap' ranking), chosen by `repomap eval` over a
 * dev set of public repositories (see the README).
 */
export const RELATED_WEIGHTS = {
  /** A link also runs from the definer back to the referencing file, with this share of its weight. */
  reverse: 1,
  /** A reference resolving to more definers than this links none of them. */
  maxDefiners: 10,
} as const;

/**
 * From this many definers (before and after a change) a change of definer moves only the edges of
 * the referencers in its folder (see definersChanged): past the cap of linked definers, with one
 * more for the referencing file itself, and past Aider's widely-defined threshold.
 */
const LOCAL_CHANGES_FROM = Math.max(RELATED_WEIGHTS.maxDefiners + 2, EDGE_WEIGHTS.widelyDefinedOver + 1);

/** A related graph's own arrays, without what is derived from them (the merged walk, the forward totals). */
export interface SavedRelated {
  /** Node index -> path, sorted (a graph that restores this keeps the list as its own). */
  paths: string[];
  /** Identifier number -> identifier. */
  idents: readonly string[];
  offsets: Uint32Array;
  targets: Uint32Array;
  weights: Float64Array;
  edgeIdent: Uint32Array;
  forward: Uint8Array;
  /** The unpersonalized PageRank of the merged walk, when saved with the arrays (see RelatedGraph.walkRanks). */
  walkRanks?: Float64Array;
}

/** Whether a saved graph's arrays have the lengths and bounds that fit together. */
function isSavedGraphShaped(saved: SavedRelated): boolean {
  const { paths, offsets, targets, weights, edgeIdent, forward } = saved;
  const n = paths.length;
  const edges = targets.length;
  if (offsets.length !== n + 1 || offsets[0] !== 0 || offsets[n] !== edges) return false;
  if (weights.length !== edges || edgeIdent.length !== edges || forward.length !== edges) return false;
  for (let u = 0; u < n; u++) if (offsets[u] > offsets[u + 1]) return false;
  return true;
}

/** The graph of the 'repomap' ranking: forward (reference -> definition) and reverse edges. */
export interface RelatedGraph extends CompiledGraph {
  /** Per edge, 1 when it runs from a referencing file to a definer (the edges that rank definitions). */
  forward: Uint8Array;
  /** The same graph with the parallel edges between two files merged (weights summed): what PageRank walks. */
  walk: CsrGraph;
  /** Per edge of `csr`, its merged edge in `walk`. */
  walkSlot: Uint32Array;
  /** Per node, the summed weight of its forward edges (what a definition's share is divided by). */
  forwardTotal: Float64Array;
  /**
   * The PageRank of `walk` as it stands without a request's patch and without personalization
   * (rank.ts unpersonalizedRanks), when known before any request asked: a restored graph's.
   */
  walkRanks?: Float64Array;
  /**
   * True when a request's mentions multiplied some weights. The weights are patched in place and
   * stay so until the graph compiles the next request: use a view before asking for another.
   */
  patched?: boolean;
  /** When patched: runs `run` with the walk's weights as they were before the request's patch, then patches them again. */
  withoutPatch?: <T>(run: () => T) => T;
}

type TypedArrayOf<T> = T extends Uint8ArrayConstructor ? Uint8Array : T extends Uint32ArrayConstructor ? Uint32Array : Float64Array;

/** Changes rehearsed after a start (each two patches). */
const REHEARSALS = 2;
/** At most this many files derive their edges again in a rehearsed change (the daemon waits for it). */
const MAX_REHEARSED_STALE = 256;

/** Room left in new edge arrays for the edges later changes add. */
const EDGE_HEADROOM = 1.25;

/** Named typed arrays that grow (by a quarter more than asked) and are handed out as views of the asked length. */
class EdgeBuffers {
  private readonly arrays = new Map<string, Uint8Array | Uint32Array | Float64Array>();
  /** Arrays taken as they came (a saved graph's), without room for more edges. */
  private readonly exact = new Set<string>();

  take<C extends Uint8ArrayConstructor | Uint32ArrayConstructor | Float64ArrayConstructor>(name: string, type: C, length: number): TypedArrayOf<C> {
    let array = this.arrays.get(name);
    if (!array || array.length < length) {
      array = new type(Math.ceil(length * EDGE_HEADROOM));
      this.arrays.set(name, array);
      this.exact.delete(name);
    }
    return array.subarray(0, length) as TypedArrayOf<C>;
  }

  /** Takes arrays made elsewhere (a saved graph's) as its own. */
  adopt(arrays: Record<string, Uint8Array | Uint32Array | Float64Array>): void {
    for (const [name, array] of Object.entries(arrays)) {
      this.arrays.set(name, array);
      this.exact.add(name);
    }
  }

  /**
   * Arrays as large as `other`'s (with room for more edges where `other`'s have none), written
   * once so that their pages are there when needed. Without the room, the first change adding an
   * edge after a start from a saved graph allocated and faulted in 34 MB on the large corpus (a
   * save took 500-700 ms instead of 50).
   */
  reserveLike(other: EdgeBuffers): void {
    for (const [name, array] of other.arrays) {
      const size = other.exact.has(name) ? Math.ceil(array.length * EDGE_HEADROOM) : array.length;
      const own = this.arrays.get(name);
      if (own && own.length >= size) continue;
      const reserved = new (array.constructor as new (length: number) => typeof array)(size);
      reserved.fill(0);
      this.arrays.set(name, reserved);
      this.exact.delete(name);
    }
  }

  /** The merged walk's arrays: its entries, and each edge's entry. */
  walkArrays(entries: number, edges: number): { walkTargets: Uint32Array; walkWeights: Float64Array; walkSlot: Uint32Array } {
    return {
      walkTargets: this.take('walkTargets', Uint32Array, entries),
      walkWeights: this.take('walkWeights', Float64Array, entries),
      walkSlot: this.take('walkSlot', Uint32Array, edges),
    };
  }

  /** The four per-edge arrays of a related graph's CSR. */
  edgeArrays(count: number): { targets: Uint32Array; weights: Float64Array; edgeIdent: Uint32Array; forward: Uint8Array } {
    return {
      targets: this.take('targets', Uint32Array, count),
      weights: this.take('weights', Float64Array, count),
      edgeIdent: this.take('edgeIdent', Uint32Array, count),
      forward: this.take('forward', Uint8Array, count),
    };
  }
}

/** The edges of `graph` grouped by identifier (a counting sort; edges in order within each), with the node each leaves. */
function edgesByIdent(graph: RelatedGraph, buffers: EdgeBuffers): { identOffsets: Uint32Array; identEdges: Uint32Array; edgeSource: Uint32Array } {
  const { edgeIdent, idents, csr } = graph;
  const identOffsets = new Uint32Array(idents.length + 1);
  for (let e = 0; e < edgeIdent.length; e++) identOffsets[edgeIdent[e] + 1]++;
  for (let i = 0; i < idents.length; i++) identOffsets[i + 1] += identOffsets[i];
  const fill = identOffsets.slice(0, idents.length);
  const identEdges = buffers.take('identEdges', Uint32Array, edgeIdent.length);
  const edgeSource = buffers.take('edgeSource', Uint32Array, edgeIdent.length);
  for (let u = 0; u < csr.nodeCount; u++) {
    for (let e = csr.offsets[u]; e < csr.offsets[u + 1]; e++) {
      const k = fill[edgeIdent[e]]++;
      identEdges[k] = e;
      edgeSource[k] = u;
    }
  }
  return { identOffsets, identEdges, edgeSource };
}

/**
 * Merges each node's edges to the same target into one with the summed weight. A file that uses
 * ten names of another has ten edges to it and ten back; PageRank needs one each way, and walks
 * about a third of the entries.
 */
function mergeParallelEdges(csr: CsrGraph, buffers: EdgeBuffers): { walk: CsrGraph; walkSlot: Uint32Array } {
  const n = csr.nodeCount;
  const seen = new Int32Array(n).fill(-1);
  const walkOffsets = new Uint32Array(n + 1);
  for (let u = 0; u < n; u++) walkOffsets[u + 1] = walkOffsets[u] + distinctTargets(csr, u, seen);
  seen.fill(-1);
  const slotOf = new Uint32Array(n);
  const { walkTargets, walkWeights, walkSlot } = buffers.walkArrays(walkOffsets[n], csr.targets.length);
  for (let u = 0; u < n; u++) mergeRow(csr, u, walkOffsets[u], seen, slotOf, walkTargets, walkWeights, walkSlot);
  return { walk: { nodeCount: n, offsets: walkOffsets, targets: walkTargets, weights: walkWeights }, walkSlot };
}

/** How many distinct targets row u has (`seen` holds, per node, the last row that counted it). */
function distinctTargets(csr: CsrGraph, u: number, seen: Int32Array): number {
  let count = 0;
  for (let e = csr.offsets[u]; e < csr.offsets[u + 1]; e++) {
    if (seen[csr.targets[e]] !== u) {
      seen[csr.targets[e]] = u;
      count++;
    }
  }
  return count;
}

/** Writes row u merged (one entry per target, weights summed) from walk entry `at` on, and each edge's merged entry. */
function mergeRow(
  csr: CsrGraph,
  u: number,
  at: number,
  seen: Int32Array,
  slotOf: Uint32Array,
  walkTargets: Uint32Array,
  walkWeights: Float64Array,
  walkSlot: Uint32Array,
): void {
  const { offsets, targets, weights } = csr;
  let next = at;
  for (let e = offsets[u]; e < offsets[u + 1]; e++) {
    const v = targets[e];
    if (seen[v] !== u) {
      seen[v] = u;
      slotOf[v] = next;
      walkTargets[next] = v;
      walkWeights[next++] = 0;
    }
    walkWeights[slotOf[v]] += weights[e];
    walkSlot[e] = slotOf[v];
  }
}

/** Whether a file's names are the ones its node holds. */
function sameNames(node: FileNode, { defined, referenced, counts, imports, modules }: FileNames): boolean {
  return sameStrings(node.defined, defined) && sameStrings(node.refNames, referenced) && sameStrings(node.imports, imports) && sameStrings(node.modules, modules) && node.refCounts.every((count, i) => count === counts[i]);
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** How many names a file defines and references (0 while they are not read). */
function nameCount(node: FileNode): number {
  return node.defined.length + node.refNames.length;
}

const NO_PAIRS: readonly number[] = [];

/** The end of source s's (source, k) pairs from p on. */
function pairsEnd(pairs: readonly number[], p: number, s: number): number {
  while (p < pairs.length && pairs[p] === s) p += 2;
  return p;
}

/** The first entry of [from, to) whose target is `value` or more (the entries sorted by target). */
function lowerBound(targets: Uint32Array, from: number, to: number, value: number): number {
  while (from < to) {
    const mid = (from + to) >>> 1;
    if (targets[mid] < value) from = mid + 1;
    else to = mid;
  }
  return from;
}

/**
 * Where row u's own (forward) entries begin and end in [start, end): after the reverse entries of
 * lower sources, before those of higher ones (a reverse entry's target is its source).
 */
function ownEntries(targets: Uint32Array, forward: Uint8Array, start: number, end: number, u: number): [number, number] {
  let from = start;
  let to = end;
  while (from < to) {
    const mid = (from + to) >>> 1;
    if (!forward[mid] && targets[mid] < u) from = mid + 1;
    else to = mid;
  }
  const ownFrom = from;
  to = end;
  while (from < to) {
    const mid = (from + to) >>> 1;
    if (forward[mid] || targets[mid] < u) from = mid + 1;
    else to = mid;
  }
  return [ownFrom, from];
}

/** Copies targets[from, to) to `into` from `at` on, each numbered anew by `renumber` when files came or went. */
function copyTargets(targets: Uint32Array, from: number, to: number, into: Uint32Array, at: number, renumber: Int32Array | undefined): void {
  if (!renumber) {
    into.set(targets.subarray(from, to), at);
    return;
  }
  const shift = at - from;
  // A lookup per entry: as fast as arithmetic on one file's shift (5-7 ms per 4.3 M entries, a
  // `node` loop), whose branch mispredicts on targets in no order.
  for (let e = from; e < to; e++) into[e + shift] = renumber[targets[e]];
}

/** Copies the merged-entry slots of edges [from, to) to edge e + `edgeShift`, each slot moved by `slotShift`. */
function copySlots(slots: Uint32Array, from: number, to: number, into: Uint32Array, edgeShift: number, slotShift: number): void {
  for (let e = from; e < to; e++) into[e + edgeShift] = slots[e] + slotShift;
}

/** The summed weight of row u's forward edges. */
function rowForwardTotal(csr: CsrGraph, forward: Uint8Array, u: number): number {
  let total = 0;
  for (let e = csr.offsets[u]; e < csr.offsets[u + 1]; e++) if (forward[e]) total += csr.weights[e];
  return total;
}

/** Aider's per-identifier multiplier: mentions and long compound names up, private and ubiquitous names down. */
export function identifierMultiplier(ident: string, definerCount: number, mentioned: ReadonlySet<string>): number {
  let mul = 1;
  if (mentioned.has(ident)) mul *= EDGE_WEIGHTS.mentionedIdent;
  if (isCompoundIdentifier(ident) && ident.length >= EDGE_WEIGHTS.compoundMinLength) mul *= EDGE_WEIGHTS.compoundIdent;
  if (ident.startsWith('_')) mul *= EDGE_WEIGHTS.privateIdent;
  if (definerCount > EDGE_WEIGHTS.widelyDefinedOver) mul *= EDGE_WEIGHTS.widelyDefined;
  return mul;
}

/** snake_case, kebab-case or camelCase (mixed case). */
export function isCompoundIdentifier(ident: string): boolean {
  const hasLetter = /\p{L}/u.test(ident);
  const snake = ident.includes('_') && hasLetter;
  const kebab = ident.includes('-') && hasLetter;
  const camel = /\p{Lu}/u.test(ident) && /\p{Ll}/u.test(ident);
  return snake || kebab || camel;
}

/**
 * An identifier of two words or more: camelCase (`parseOrder`, `getHTTPClient`), PascalCase of two
 * words (`PriceOrder`, `HTTPClient`, but not `Router`), snake_case or CONSTANT_CASE (an underscore
 * between two letters or digits: `load_config`, `MAX_SIZE`, but not `__init__` or `_x`). Stricter
 * than isCompoundIdentifier, which is Aider's test and keeps its model: there any mixed case counts.
 */
export function isMultiWordIdentifier(ident: string): boolean {
  return /[\p{Ll}\p{Nd}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|[\p{L}\p{Nd}]_+[\p{L}\p{Nd}]/u.test(ident);
}

/** Numbers strings in order of first sight: `id` gives a string's number, `list` the strings by number. */
function interner(): { index: Map<string, number>; list: string[]; id: (value: string) => number } {
  const index = new Map<string, number>();
  const list: string[] = [];
  const id = (value: string): number => {
    let n = index.get(value);
    if (n === undefined) {
      n = list.length;
      list.push(value);
      index.set(value, n);
    }
    return n;
  };
  return { index, list, id };
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

/** A name's definers sorted by path. */
function allDefiners(definers: Definers): FileNode[] {
  definers.all ??= [...definers.byFolder!.values()].flat().sort(byPath);
  return definers.all;
}

const NO_NODES: readonly FileNode[] = [];

/** A name's definers in one folder, sorted by path. */
function definersIn(definers: Definers, folder: number): readonly FileNode[] {
  if (definers.byFolder) return definers.byFolder.get(folder) ?? NO_NODES;
  return definers.all![0].folder === folder ? definers.all! : NO_NODES;
}

/** How many of a name's definers are of `family`. */
function familyCount(entry: DefinerFiles | undefined, family: string): number {
  if (entry === undefined) return 0;
  if (!(entry instanceof Set)) return entry.family === family ? 1 : 0;
  let count = 0;
  for (const node of entry) if (node.family === family) count++;
  return count;
}

function byPath(a: FileNode, b: FileNode): number {
  return comparePaths(a.path, b.path);
}

/** A name's referencers: [file, the name's position in its refNames, file, position, ...]. */
type Referencers = Array<FileNode | number>;

/** The files defining a name: its one definer, or a set of two or more. */
type DefinerFiles = FileNode | Set<FileNode>;

function definerCount(entry: DefinerFiles | undefined): number {
  return entry === undefined ? 0 : entry instanceof Set ? entry.size : 1;
}

function isDefiner(entry: DefinerFiles | undefined, node: FileNode): boolean {
  return entry instanceof Set ? entry.has(node) : entry === node;
}
