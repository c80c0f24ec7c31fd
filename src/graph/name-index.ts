// The name indexes of the reference graph: its files by path, the files defining each name and the
// files referencing it. Files come in without being linked (see NameIndex.pending) and, when taken
// from stored records, without their names read (see load): both happen when first needed.
import { familyOfPath } from '../extract/languages.js';
import { collectGarbage } from '../extract/memory.js';
import type { FileNames } from '../records.js';
import { ColdDefinitions, nameHash } from './cold-names.js';
import type { DefinitionHashes, NameFiles } from './graph-types.js';
import { DEFINED_IN_STORE, type DefinerFiles, EMPTY_NAMES, type FileNode, NAMES_AS_STORED, NAMES_IN_MEMORY, type NodeNames, NO_SLOTS, type Referencers, UNREAD, getOrCreate, Interner, isDefiner, sameReferences, sameStrings } from './nodes.js';

const NO_NODES: readonly FileNode[] = [];
/** The size of the bit filter of savedDefiners (128 KiB: it stays in the cache while millions of hashes are checked). */
const FILTER_BITS = 1 << 20;
const FILTER_MASK = FILTER_BITS - 1;

function byLinks(a: FileNode, b: FileNode): number {
  return a.linkedAt - b.linkedAt;
}

/** The string of a name its referencers share (see linkReferences). */
function sharedName(list: Referencers): string {
  return (list[0] as FileNode).refNames[list[1] as number];
}

/**
 * Invariants: every file in `files` is in `pending` from `referencersFrom` on, or linked into the
 * referencer index; likewise from `definersFrom` on for its definitions, linked into the definer
 * index or the cold definitions. No name of the cold definitions is referenced by a file whose
 * names are read: the definer index holds every definer of a name a read file references, and a
 * file that comes to reference a cold name moves its definitions into it (see promote). `links +
 * pendingLinks` counts every (file, name) pair, read or not.
 */
export class NameIndex {
  readonly files = new Map<string, FileNode>();
  /** Per name, the files defining it: one node, or a set of two or more (most names have one definer). */
  private readonly definerIndex = new Map<string, DefinerFiles>();
  /**
   * Per name, the files referencing it, each followed by the name's position in its refNames: a
   * count is then read without a search (a request counts the referencers of every name it asks
   * about, thousands for a common one). An array per name, not a Map: there are millions of links.
   */
  private readonly referencerIndex = new Map<string, Referencers>();
  /**
   * The definitions of names no file referenced when they were linked, out of the definer index
   * and the files' `defined` (see splitDefinitions): on a kernel most defined names are register
   * masks of generated headers that nothing references. Only files whose names are the store's:
   * a look-up confirms a hash's files from their stored names (see coldDefiners).
   */
  private readonly cold = new ColdDefinitions();
  /**
   * Each file's definitions as hashes, as a saved related graph had them (see useSavedDefinitions),
   * with the file of each list: which files may define a name, so that a look-up reads those
   * files' names instead of every waiting file's. Dropped when a file comes, changes or goes.
   */
  private savedDefinitions: (DefinitionHashes & { nodes: Array<FileNode | undefined> }) | undefined;
  /**
   * New files not yet in the name indexes: in the definer index from `definersFrom` on, in the
   * referencer index from `referencersFrom` on (see linkPending). A warm start whose related graph
   * is read from the cache needs neither index for its first map, and deriving a related graph
   * needs only the definers, so linking waits until something reads an index.
   */
  private pending: FileNode[] = [];
  private definersFrom = 0;
  private referencersFrom = 0;
  private pendingLinks = 0;
  private readonly folders = new Interner();
  private links = 0;
  /** Definitions linked so far, file by file (FileNode.linkedAt). */
  private linkings = 0;
  /** Waiting files whose definitions, dropped while their references were linked, are to be read again. */
  private toReadAgain = 0;
  /** Files' names read from the store so far (see namesRead). */
  private storeReads = 0;

  /**
   * `readNames` reads a file's names from the tag store, for files taken without them (see
   * ReferenceGraph.takeRecord). `definersMoved` is told of each name whose definitions move from
   * the cold definitions into the definer index (see promote).
   */
  constructor(
    readonly readNames?: (path: string) => FileNames | undefined,
    private readonly definersMoved: (ident: string) => void = () => {},
  ) {}

  /** Links in the graph: one per (file, name it defines) and per (file, name it references). */
  get linkCount(): number {
    return this.links + this.pendingLinks;
  }

  /**
   * How many times a file's names were read from the store: a work count, by which a caller that
   * links in slices lets go of the store's pages those reads mapped (see WarmUp).
   */
  get namesRead(): number {
    return this.storeReads;
  }

  /** A file's names as stored (none for a record whose names cannot be read: see load). */
  private readStored(path: string): FileNames {
    if (!this.readNames) return EMPTY_NAMES;
    this.storeReads++;
    return this.readNames(path) ?? EMPTY_NAMES;
  }

  /** Files taken but not yet linked into both name indexes. */
  get pendingCount(): number {
    return this.pending.length - Math.min(this.referencersFrom, this.definersFrom);
  }

  /**
   * The definer index, every file linked into it first. It holds every definer of a name some
   * file whose names are read references; a name nobody references may have its definers in the
   * cold definitions instead (definersOfAll and namesOfAll answer for any name).
   */
  get definers(): ReadonlyMap<string, DefinerFiles> {
    this.linkDefiners();
    return this.definerIndex;
  }

  /** The referencer index, every file linked into it first. */
  get referencers(): ReadonlyMap<string, Referencers> {
    this.linkPending();
    return this.referencerIndex;
  }

  /**
   * A node with its names: those of a file taken from a stored record are read now. A record
   * whose names cannot be read (a damaged value: the store writes them before the record) is a
   * file without names until it changes.
   */
  load(node: FileNode): FileNode {
    if (node.unread === undefined) return node;
    const names = this.readStored(node.path);
    this.pendingLinks += names.defined.length + names.referenced.length - node.unread;
    node.unread = undefined;
    node.defined = names.defined;
    node.refNames = names.referenced;
    node.refCounts = Uint32Array.from(names.counts);
    node.imports = names.imports;
    node.modules = names.modules;
    node.storedNames = NAMES_AS_STORED;
    this.promote(node.refNames);
    return node;
  }

  /**
   * Whether a file's new names are those its node has. Names not read yet cannot tell (read now,
   * they would be the new ones: the store has them). Cold definitions are compared by hash: each
   * new name that is not in `defined` must be one of the file's cold keys, and referenced by no
   * file (else it belongs in the definer index). That answers as exactly as the names would: a
   * look-up confirms a hash's files from their stored names, the new ones.
   */
  hasNames(node: FileNode, names: FileNames): boolean {
    if (node.unread !== undefined || node.defined === DEFINED_IN_STORE || !sameReferences(node, names)) return false;
    if (node.storedNames < 0) return sameStrings(node.defined, names.defined);
    const slot = node.storedNames;
    if (names.defined.length !== node.defined.length + this.cold.count(slot)) return false;
    const inMemory = new Set(node.defined);
    let found = 0;
    for (const ident of names.defined) {
      if (inMemory.has(ident)) found++;
      else if (this.referencerIndex.has(ident) || !this.cold.holds(ident, slot)) return false;
    }
    return found === node.defined.length;
  }

  /**
   * Each file's definitions as hashes (nameHash), the files in the order of `paths` (the numbering's:
   * FileNode.dense is a file's place there): saved with a related graph, they let a graph restored
   * from it find a name's definers without reading every file's names (see useSavedDefinitions).
   * Undefined when `paths` is not the numbering. Links every file's definitions first.
   */
  definitionHashes(paths: readonly string[]): DefinitionHashes | undefined {
    const definers = this.definers;
    let unnumbered = false;
    const numberOf = (node: FileNode) => {
      if (paths[node.dense] !== node.path) unnumbered = true;
      return node.dense;
    };
    // Twice over every definition, counting each file's and then placing them: no list of pairs is held.
    const offsets = new Uint32Array(paths.length + 1);
    const visitAll = (visit: (hash: number, file: number) => void) => {
      for (const [ident, entry] of definers) {
        const hash = nameHash(ident);
        if (entry instanceof Set) for (const node of entry) visit(hash, numberOf(node));
        else visit(hash, numberOf(entry));
      }
      // A cold definition moved back into the definer index keeps its key there too: listed twice, it is read once.
      this.cold.forEachDefinition(numberOf, visit);
    };
    visitAll((_hash, file) => offsets[file + 1]++);
    if (unnumbered) return undefined; // hashes that miss a file's definitions would hide it as a definer
    for (let file = 0; file < paths.length; file++) offsets[file + 1] += offsets[file];
    const hashes = new Uint32Array(offsets[paths.length]);
    const next = offsets.slice(0, paths.length);
    visitAll((hash, file) => (hashes[next[file]++] = hash));
    return { offsets, hashes };
  }

  /**
   * Takes the definition hashes a related graph was saved with (definitionHashes, the files those of
   * `paths`), for files whose names are those they had then (the caller vouches: their content
   * hashes are the same). Until a file comes, changes or goes, definersOfAll reads the names of
   * only the waiting files whose hashes hold a name asked.
   */
  useSavedDefinitions(definitions: DefinitionHashes, paths: readonly string[]): void {
    this.savedDefinitions = { ...definitions, nodes: paths.map((path) => this.files.get(path)) };
  }

  /** The files whose saved definition hashes hold one of `idents`' (see useSavedDefinitions). */
  private savedDefiners(saved: NonNullable<NameIndex['savedDefinitions']>, idents: readonly string[]): Set<FileNode> {
    const wanted = new Set(idents.map(nameHash));
    // A bit per low 20 bits of a wanted hash: the scan of millions of hashes asks the set about a few.
    const filter = new Uint8Array(FILTER_BITS >>> 3);
    for (const hash of wanted) filter[(hash & FILTER_MASK) >>> 3] |= 1 << (hash & 7);
    const { offsets, hashes, nodes } = saved;
    const found = new Set<FileNode>();
    for (let file = 0; file < nodes.length; file++) {
      for (let k = offsets[file]; k < offsets[file + 1]; k++) {
        const hash = hashes[k];
        if ((filter[(hash & FILTER_MASK) >>> 3] & (1 << (hash & 7))) === 0 || !wanted.has(hash)) continue;
        const node = nodes[file];
        if (node) found.add(node);
        break;
      }
    }
    return found;
  }

  /** Every name a file defines, sorted: read from the store for a file with cold definitions. */
  definedOf(node: FileNode): readonly string[] {
    return node.storedNames >= 0 || node.defined === DEFINED_IN_STORE ? this.readDefined(node) : this.load(node).defined;
  }

  /** Whether a file defines any name. */
  definesAny(node: FileNode): boolean {
    return node.storedNames >= 0 || this.definedOf(node).length > 0;
  }

  /** How many names a linked file defines and references, its cold definitions included. */
  nameCount(node: FileNode): number {
    return this.definitionCount(node) + node.refNames.length;
  }

  /** How many names a linked file defines, its cold definitions included. */
  definitionCount(node: FileNode): number {
    return node.defined.length + (node.storedNames >= 0 ? this.cold.count(node.storedNames) : 0);
  }

  private readDefined(node: FileNode): string[] {
    return this.readStored(node.path).defined;
  }

  /**
   * Links up to `limit` files waiting for the name indexes (all by default), each file's
   * references first and then, once every file's are, the definitions; returns whether none is
   * left. Where a definition goes depends on whether any file references its name, so until the
   * definitions are linked a file whose names are the store's holds none of them: they are read
   * again then, rather than all held at once beside the indexes. Anything that reads the
   * referencer index links them all first; a daemon links them a slice at a time once it answers.
   */
  linkPending(limit = Infinity): boolean {
    const { pending } = this;
    const start = this.referencersFrom;
    const end = Math.min(pending.length, start + limit);
    for (let i = start; i < end; i++) {
      const node = this.load(pending[i]);
      this.linkReferences(node);
      this.pendingLinks -= node.refNames.length;
      if (i >= this.definersFrom && node.storedNames === NAMES_AS_STORED && this.readNames) {
        node.defined = DEFINED_IN_STORE;
        this.toReadAgain++;
      }
    }
    this.referencersFrom = end;
    if (end < pending.length) return false;
    // Every reference is linked, and the definitions dropped meanwhile are read again next. A full
    // collection first lets go of the garbage of reading every file's names (the definitions
    // dropped, the referencer lists' outgrown copies), which V8 would keep until its heap's next
    // bound while the second pass adds as much again; and gives back to the system the pages and
    // free ranges that garbage leaves, which a plain one would keep resident for the second pass.
    if (start < end && this.toReadAgain > 0) collectGarbage({ reduceMemory: true });
    this.linkDefiners(Math.min(pending.length, this.definersFrom + limit - (end - start)));
    if (this.definersFrom < pending.length) return false;
    this.cold.settle();
    if (pending.length > 0) this.pending = [];
    this.definersFrom = this.referencersFrom = this.toReadAgain = 0;
    return true;
  }

  /**
   * Links what deriving a related graph reads: every waiting file's definitions. When some of
   * them are the store's, every file's references are linked first (linkPending, the order a
   * daemon's warm-up links in), so that the definitions of names no file references go to the
   * cold definitions rather than the definer index; otherwise (names from a parse: a cold index)
   * the definitions alone, the references left waiting, since the related graph reads none.
   * Returns whether it read names from the store.
   */
  linkForRelated(): boolean {
    const fromStore = this.firstAsStored() < this.pending.length;
    if (fromStore) this.linkPending();
    else this.linkDefiners();
    return fromStore;
  }

  /**
   * Links the waiting files' definitions as an index pass parses them (beside the workers, not
   * after them), up to the first file whose names are the store's: where its definitions go
   * waits for every file's references (see linkForRelated). A pass over stored records takes
   * them before the parsed files, so such a pass links nothing until the related graph asks.
   */
  linkParsedDefiners(): void {
    this.linkDefiners(this.firstAsStored());
  }

  /**
   * Takes the definitions out of the definer index to be linked again as a start over stored
   * records links them (see linkPending): once every reference is, the definitions of names no
   * file references go to the cold definitions. Only for a graph whose every file an index pass
   * parsed and linked the definitions of as it came (see linkParsedDefiners), its references all
   * waiting, the caller vouching that the store holds each file's names as the graph does (the
   * pass wrote them): every definition is then in the definer index, on a kernel 4.19 million of
   * them for 2.82 million names of which 2.27 million no file references, held as strings beside
   * the referencer index that linking builds. Returns whether it took them out (the graph is in
   * that state); a graph in any other state is left as it is.
   */
  unlinkParsedDefinitions(): boolean {
    const { pending } = this;
    if (!this.readNames || pending.length === 0 || pending.length !== this.files.size) return false;
    if (this.referencersFrom !== 0 || this.definersFrom !== pending.length || !this.cold.isEmpty) return false;
    if (pending.some((node) => node.storedNames !== NAMES_IN_MEMORY)) return false;
    this.definerIndex.clear();
    for (const node of pending) {
      node.storedNames = NAMES_AS_STORED;
      this.links -= node.defined.length;
      this.pendingLinks += node.defined.length;
    }
    this.definersFrom = 0;
    return true;
  }

  /** The first waiting file, from `definersFrom` on, whose definitions are the store's (pending.length when none is). */
  private firstAsStored(): number {
    const { pending } = this;
    if (!this.readNames) return pending.length;
    let i = this.definersFrom;
    while (i < pending.length && pending[i].storedNames !== NAMES_AS_STORED) i++;
    return i;
  }

  /**
   * Links the waiting files' definitions (up to the `end`th waiting file): all a related graph
   * reads (see linkForRelated and linkParsedDefiners). Once every file's references are linked, the definitions of a name nobody references go to the
   * cold definitions (see splitDefinitions); before, all go to the definer index.
   */
  linkDefiners(end = this.pending.length): void {
    const split = this.readNames !== undefined && this.referencersFrom === this.pending.length;
    for (let i = this.definersFrom; i < end; i++) {
      const node = this.load(this.pending[i]);
      if (node.defined === DEFINED_IN_STORE) {
        node.defined = this.readDefined(node);
        this.toReadAgain--;
      }
      this.pendingLinks -= node.defined.length;
      if (split && node.storedNames === NAMES_AS_STORED) this.splitDefinitions(node);
      this.linkDefinitions(node);
    }
    this.definersFrom = Math.max(end, this.definersFrom);
  }

  /**
   * Moves the definitions of `node` (not linked yet, its names the store's) whose name no file
   * references to the cold definitions: `defined` keeps the rest.
   */
  private splitDefinitions(node: FileNode): void {
    const referenced: string[] = [];
    const unreferenced: string[] = [];
    for (const ident of node.defined) {
      const list = this.referencerIndex.get(ident);
      if (list) referenced.push(sharedName(list));
      else unreferenced.push(ident);
    }
    if (unreferenced.length === 0 || !this.cold.hasRoom) return;
    node.defined = referenced;
    node.storedNames = this.cold.add(node, unreferenced);
    this.links += unreferenced.length;
  }

  /**
   * Moves the cold definitions of each of `idents` (names a file comes to reference) into the
   * definer index and their files' `defined`.
   */
  private promote(idents: readonly string[]): void {
    if (this.cold.isEmpty) return;
    const wanted: string[] = [];
    for (const ident of idents) if (!this.referencerIndex.has(ident)) wanted.push(ident);
    for (const [ident, nodes] of this.coldDefiners(wanted)) {
      for (const node of nodes) {
        node.defined.push(ident);
        this.cold.moved(node.storedNames);
        this.linkDefinition(ident, node);
      }
      // In the order of their links, as if they had been in the index all along.
      const entry = this.definerIndex.get(ident);
      if (entry instanceof Set) this.definerIndex.set(ident, new Set([...entry].sort(byLinks)));
      this.definersMoved(ident);
    }
  }

  /**
   * The files whose cold definitions include each of `idents`, by name (only names with some), each
   * list in the order of their links. A hash names the candidates; their stored names
   * confirm, each file read once. A file holding the name in `defined` (moved back) is not one.
   */
  private coldDefiners(idents: readonly string[]): Map<string, FileNode[]> {
    const found = new Map<string, FileNode[]>();
    if (this.cold.isEmpty || idents.length === 0) return found;
    const asked = new Map<FileNode, string[]>();
    for (const ident of idents) {
      for (const node of this.cold.candidates(ident)) if (!isDefiner(this.definerIndex.get(ident), node)) getOrCreate(asked, node, () => []).push(ident);
    }
    for (const [node, names] of asked) {
      const defined = new Set(this.readDefined(node));
      for (const ident of names) if (defined.has(ident)) getOrCreate(found, ident, () => []).push(node);
    }
    for (const nodes of found.values()) if (nodes.length > 1) nodes.sort(byLinks);
    return found;
  }

  /**
   * Every name some file defines that `matching` takes, each once: those of the definer index,
   * then the cold ones (each file's read from the store; only those taken are remembered, to give
   * each once).
   */
  *definedNames(matching: (ident: string) => boolean = () => true): IterableIterator<string> {
    const hot = this.definers;
    for (const ident of hot.keys()) if (matching(ident)) yield ident;
    const seen = new Set<string>();
    for (const node of this.cold.files()) {
      for (const ident of this.readDefined(node)) {
        if (!matching(ident) || hot.has(ident) || seen.has(ident)) continue;
        seen.add(ident);
        yield ident;
      }
    }
  }

  /** A new file's node, with its names or (undefined) without them yet; linked when an index is first read (see linkPending). */
  add(path: string, names: NodeNames | undefined, links: number): FileNode {
    this.savedDefinitions = undefined;
    const folder = this.folders.id(path.slice(0, path.lastIndexOf('/') + 1));
    const node: FileNode = {
      path,
      folder,
      family: familyOfPath(path) ?? '',
      dense: -1,
      ...(names ?? UNREAD),
      refSlots: NO_SLOTS,
      unread: names ? undefined : links,
      storedNames: names ? NAMES_IN_MEMORY : NAMES_AS_STORED,
      linkedAt: 0,
      related: undefined,
    };
    this.files.set(path, node);
    this.pending.push(node);
    this.pendingLinks += links;
    if (names) this.promote(names.refNames);
    return node;
  }

  /** Gives a linked node new names, moving its links. */
  replaceNames(node: FileNode, names: NodeNames): void {
    this.savedDefinitions = undefined;
    this.linkPending();
    this.unlink(node);
    node.defined = names.defined;
    node.refNames = names.refNames;
    node.refCounts = names.refCounts;
    node.imports = names.imports;
    node.modules = names.modules;
    this.promote(node.refNames);
    this.link(node);
  }

  /** Takes a file out of the indexes. */
  remove(node: FileNode): void {
    this.savedDefinitions = undefined;
    this.linkPending();
    this.unlink(node);
    this.files.delete(node.path);
  }

  private link(node: FileNode): void {
    this.linkDefinitions(node);
    this.linkReferences(node);
  }

  private linkDefinitions(node: FileNode): void {
    node.linkedAt = ++this.linkings;
    for (const ident of node.defined) this.linkDefinition(ident, node);
    this.links += node.defined.length;
  }

  private linkDefinition(ident: string, node: FileNode): void {
    const entry = this.definerIndex.get(ident);
    if (entry === undefined) this.definerIndex.set(ident, node);
    else if (entry instanceof Set) entry.add(node);
    else this.definerIndex.set(ident, new Set([entry, node]));
  }

  private linkReferences(node: FileNode): void {
    const { refNames } = node;
    node.refSlots = new Uint32Array(refNames.length);
    for (let k = 0; k < refNames.length; k++) {
      const list = this.referencerIndex.get(refNames[k]);
      if (list) {
        // One string per name, the one its referencers already share: a file's names are read as
        // strings of its own, and a name a thousand files reference would be held a thousand times.
        refNames[k] = sharedName(list);
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
    if (node.storedNames >= 0) this.links -= this.cold.drop(node.storedNames);
    // Its names are to be replaced, or it leaves: none of them is the store's any longer.
    node.storedNames = NAMES_IN_MEMORY;
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

  /** Each of `idents` once (`onName` first), then each of its definers and referencers: from the name indexes, and from a scan of the files not linked yet. */
  eachNamer(
    idents: Iterable<string>,
    onName: (ident: string) => void,
    visit: (node: FileNode, count: number, defines: boolean) => void,
    { referencers = true } = {},
  ): void {
    const wanted = [...new Set(idents)];
    // Per name, its definers among the files scanned, and its referencers there: [file, count, ...].
    const scanned = new Map<string, { definers: FileNode[]; referencers: Array<FileNode | number> }>();
    // No name asked, no file read: a map with no chat file and no mention asks none.
    const from = referencers ? Math.min(this.referencersFrom, this.definersFrom) : this.definersFrom;
    if (from < this.pending.length && wanted.length > 0) {
      for (const ident of wanted) scanned.set(ident, { definers: [], referencers: [] });
      // With the saved definitions, only the files they say may define a name asked are read for definers.
      const mayDefine = this.savedDefinitions && this.savedDefiners(this.savedDefinitions, wanted);
      for (let i = from; i < this.pending.length; i++) {
        const node = this.pending[i];
        const forDefiners = i >= this.definersFrom && (!mayDefine || mayDefine.has(node));
        const forReferencers = referencers && i >= this.referencersFrom;
        if (!forDefiners && !forReferencers) continue;
        // Names not read yet are read for the question and not kept: a first map would otherwise
        // hold every file's names before linking them, and linking reads them again anyway.
        const stored = node.unread === undefined ? undefined : this.readStored(node.path);
        if (forDefiners) for (const ident of stored ? stored.defined : this.definedOf(node)) scanned.get(ident)?.definers.push(node);
        if (!forReferencers) continue;
        const refNames = stored ? stored.referenced : node.refNames;
        const refCounts = stored ? stored.counts : node.refCounts;
        for (let k = 0; k < refNames.length; k++) scanned.get(refNames[k])?.referencers.push(node, refCounts[k]);
      }
    }
    const visitReferencers = (list: Referencers) => {
      for (let j = 0; j < list.length; j += 2) {
        const node = list[j] as FileNode;
        visit(node, node.refCounts[list[j + 1] as number], false);
      }
    };
    const cold = this.coldDefiners(wanted);
    for (const ident of wanted) {
      onName(ident);
      const entry = this.definerIndex.get(ident);
      const coldOnes = cold.get(ident);
      if (coldOnes) {
        // Both in the order of their links, merged: the order one index of them all would hold.
        const hot = entry === undefined ? NO_NODES : entry instanceof Set ? [...entry] : [entry];
        for (let h = 0, c = 0; h < hot.length || c < coldOnes.length; ) {
          visit(c >= coldOnes.length || (h < hot.length && hot[h].linkedAt < coldOnes[c].linkedAt) ? hot[h++] : coldOnes[c++], 1, true);
        }
      } else if (entry instanceof Set) for (const node of entry) visit(node, 1, true);
      else if (entry) visit(entry, 1, true);
      const extra = scanned.get(ident);
      for (const node of extra?.definers ?? []) visit(node, 1, true);
      if (!referencers) continue;
      visitReferencers(this.referencerIndex.get(ident) ?? []);
      if (!extra) continue;
      for (let j = 0; j < extra.referencers.length; j += 2) visit(extra.referencers[j] as FileNode, extra.referencers[j + 1] as number, false);
    }
  }
}
