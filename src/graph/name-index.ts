// The name indexes of the reference graph: its files by path and, per name, the files defining and
// referencing it (the rows: name-rows.ts; the definitions nobody references: cold-links.ts). This
// module decides when names are read and linked: files come in without being linked (see
// NameIndex.pending) and, when taken from stored records, without their names read (see load);
// both happen when first needed. What a request asks of them is name-queries.ts's.
import { familyOfPath } from '../extract/languages.js';
import { collectGarbage } from '../extract/memory.js';
import type { FileNames } from '../records.js';
import { ColdLinks } from './cold-links.js';
import type { DefinitionHashes, NameFiles } from './graph-types.js';
import { NameRows } from './name-rows.js';
import { NameTable } from './name-table.js';
import { DEFINED_IN_STORE, DEFINED_PACKED, type DefinerFiles, EMPTY_NAMES, type FileNode, NAMES_AS_STORED, NAMES_IN_MEMORY, type NodeNames, NO_SLOTS, type Referencers, UNREAD, Interner, sameReferences, sameStrings } from './nodes.js';
import { nameFields, packedCount, referencedBy, releaseIds, unpackDefinitions, unpackNames } from './node-names.js';
import { SavedDefinitions, definitionHashes } from './saved-definitions.js';

/** A name's definers and referencers among the files not linked yet (see NameIndex.scanWaiting): referencers as [file, count, ...]. */
export interface WaitingNamers {
  definers: FileNode[];
  referencers: Array<FileNode | number>;
}

/**
 * Invariants: every file in `files` is in `pending` from `referencersFrom` on, or linked into the
 * referencer index; likewise from `definersFrom` on for its definitions, linked into the definer
 * index or the cold definitions. No name of the cold definitions is referenced by a file whose
 * names are read: the definer index holds every definer of a name a read file references, and a
 * file that comes to reference a cold name moves its definitions into it (see ColdLinks.promote). `links +
 * pendingLinks` counts every (file, name) pair, read or not.
 */
export class NameIndex {
  readonly files = new Map<string, FileNode>();
  /** The names the files reference and import, each once: their nodes hold ids (see NameTable). */
  readonly names = new NameTable();
  /** The definer and referencer indexes (see NameRows). */
  private readonly rows = new NameRows(this.names);
  /** The definitions of names no file referenced when they were linked, out of the definer index and the files' `defined` (see ColdLinks). */
  private readonly cold: ColdLinks;
  /**
   * Each file's definitions as hashes, as a saved related graph had them (see useSavedDefinitions),
   * with the file of each list: which files may define a name, so that a look-up reads those
   * files' names instead of every waiting file's. Dropped when a file comes, changes or goes.
   */
  private savedDefinitions: SavedDefinitions | undefined;
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
  /** Waiting files whose definitions, dropped while their references were linked, are to be read again. */
  private toReadAgain = 0;
  /** Files' names read from the store so far (see namesRead). */
  private storeReads = 0;

  /**
   * `readNames` reads a file's names from the tag store, for files taken without them (see
   * ReferenceGraph.takeRecord). `definersMoved` is told of each name whose definitions move from
   * the cold definitions into the definer index (see ColdLinks.promote).
   */
  constructor(
    readonly readNames?: (path: string) => FileNames | undefined,
    definersMoved: (ident: string) => void = () => {},
  ) {
    this.cold = new ColdLinks(this.rows, (node) => this.readDefined(node), definersMoved);
  }

  /** Links in the graph: one per (file, name it defines) and per (file, name it references). */
  get linkCount(): number {
    return this.rows.links + this.pendingLinks;
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
    return this.rows.definers;
  }

  /** The referencers of `ident` in the referencer index, every file linked into it first. */
  referencersOf(ident: string): Referencers | undefined {
    if (this.pending.length > 0) this.linkPending();
    return this.rows.referencersOf(ident);
  }

  /** Every name some file references, every file linked first. */
  referencedNames(): IterableIterator<string> {
    this.linkPending();
    return this.rows.referencedNames();
  }

  /** The names of a file's references, sorted (its refIds as strings). */
  refNamesOf(node: FileNode): string[] {
    return this.names.namesOf(this.load(node).refIds);
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
    node.refIds = this.names.take(names.referenced);
    node.refCounts = Uint32Array.from(names.counts);
    node.importIds = this.names.take(names.imports);
    node.modules = names.modules;
    node.storedNames = NAMES_AS_STORED;
    this.cold.promote(names.referenced);
    return node;
  }

  /**
   * Whether a file's new names are those its node has. Names not read yet cannot tell (read now,
   * they would be the new ones: the store has them). Cold definitions are compared by hash (see
   * ColdLinks.sameDefinitions).
   */
  hasNames(node: FileNode, names: FileNames): boolean {
    if (node.unread !== undefined || node.defined === DEFINED_IN_STORE || !sameReferences(node, names, this.names)) return false;
    return node.storedNames < 0 ? sameStrings(this.definedOf(node), names.defined) : this.cold.sameDefinitions(node, names.defined);
  }

  /**
   * Each file's definitions as hashes (nameHash), the files in the order of `paths` (the numbering's:
   * FileNode.dense is a file's place there): saved with a related graph, they let a graph restored
   * from it find a name's definers without reading every file's names (see useSavedDefinitions).
   * Undefined when `paths` is not the numbering. Links every file's definitions first.
   */
  definitionHashes(paths: readonly string[]): DefinitionHashes | undefined {
    return definitionHashes(this.definers, this.cold.definitions, paths);
  }

  /**
   * Takes the definition hashes a related graph was saved with (definitionHashes, the files those of
   * `paths`), for files whose names are those they had then (the caller vouches: their content
   * hashes are the same). Until a file comes, changes or goes, definersOfAll reads the names of
   * only the waiting files whose hashes hold a name asked.
   */
  useSavedDefinitions(definitions: DefinitionHashes, paths: readonly string[]): void {
    this.savedDefinitions = new SavedDefinitions(definitions, paths.map((path) => this.files.get(path)));
  }

  /** Every name a file defines, sorted: read from the store for a file with cold definitions. */
  definedOf(node: FileNode): readonly string[] {
    if (node.storedNames >= 0 || node.defined === DEFINED_IN_STORE) return this.readDefined(node);
    // Packed definitions are unpacked for the question and stay packed: a scan asks of every waiting file.
    return node.defined === DEFINED_PACKED ? unpackNames(node.packed!) : this.load(node).defined;
  }

  /** Whether a file defines any name. */
  definesAny(node: FileNode): boolean {
    return node.storedNames >= 0 || this.definedOf(node).length > 0;
  }

  /** How many names a linked file defines and references, its cold definitions included. */
  nameCount(node: FileNode): number {
    return this.definitionCount(node) + node.refIds.length;
  }

  /** How many names a linked file defines, its cold definitions included. */
  definitionCount(node: FileNode): number {
    return (node.defined === DEFINED_PACKED ? packedCount(node.packed!) : node.defined.length) + this.cold.count(node);
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
      this.rows.linkReferences(node);
      this.pendingLinks -= node.refIds.length;
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
    this.cold.definitions.settle();
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
   * Moves the definitions of names no file references to the cold definitions, as linking does
   * for names read from the store (see linkPending), but from the names in memory, none read; then
   * links the rest into the definer index. Only for a graph whose every file an index pass parsed,
   * its references all waiting, the caller vouching that the store holds each file's names as the
   * graph does (the pass wrote them): a look-up of a cold name confirms it from them. A pass links
   * no definition as it parses: on a kernel 2.27 of the 2.82 million names defined are referenced
   * by no file, and a definer index of them all was most of the pass's peak. Definitions a question
   * linked meanwhile leave the index. The references stay waiting. Returns whether it moved them
   * (the graph is in that state); a graph in any other state is left as it is.
   */
  coldParsedDefinitions(): boolean {
    const { pending } = this;
    if (!this.readNames || pending.length === 0 || pending.length !== this.files.size) return false;
    if (this.referencersFrom !== 0 || !this.cold.isEmpty || pending.some((node) => node.storedNames !== NAMES_IN_MEMORY)) return false;
    const { names } = this;
    const referencedAs = referencedBy(names, pending);
    const linked = this.definersFrom;
    for (let i = 0; i < linked; i++) this.cold.splitLinked(pending[i], referencedAs);
    for (let i = linked; i < pending.length; i++) {
      unpackDefinitions(names, pending[i]);
      // Counted as linked, as the cold definitions of a linked file are.
      const moved = this.cold.splitWaiting(pending[i], referencedAs);
      this.pendingLinks -= moved;
      this.rows.links += moved;
    }
    if (linked > 0) this.rows.compactDefiners();
    this.linkDefiners();
    this.cold.definitions.settle();
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
   * reads (see linkForRelated). Once every file's references are linked, the definitions of a name
   * nobody references go to the cold definitions (see ColdLinks.split); before, all go to the definer index.
   */
  linkDefiners(end = this.pending.length): void {
    const split = this.readNames !== undefined && this.referencersFrom === this.pending.length;
    for (let i = this.definersFrom; i < end; i++) {
      const node = this.load(this.pending[i]);
      unpackDefinitions(this.names, node);
      if (node.defined === DEFINED_IN_STORE) {
        node.defined = this.readDefined(node);
        this.toReadAgain--;
      }
      this.pendingLinks -= node.defined.length;
      if (split && node.storedNames === NAMES_AS_STORED) this.rows.links += this.cold.split(node);
      this.rows.linkDefinitions(node);
    }
    this.definersFrom = Math.max(end, this.definersFrom);
  }

  /**
   * Every name some file defines that `matching` takes, each once: those of the definer index,
   * then the cold ones (each file's read from the store; only those taken are remembered, to give
   * each once).
   */
  *definedNames(matching: (ident: string) => boolean = () => true): IterableIterator<string> {
    for (const ident of this.definers.keys()) if (matching(ident)) yield ident;
    yield* this.cold.names(matching);
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
      ...(names ? nameFields(this.names, names, true) : UNREAD),
      refSlots: NO_SLOTS,
      unread: names ? undefined : links,
      storedNames: names ? NAMES_IN_MEMORY : NAMES_AS_STORED,
      linkedAt: 0,
      related: undefined,
    };
    this.files.set(path, node);
    this.pending.push(node);
    this.pendingLinks += links;
    if (names) this.cold.promote(names.refNames);
    return node;
  }

  /** Gives a linked node new names, moving its links. */
  replaceNames(node: FileNode, names: NodeNames): void {
    this.savedDefinitions = undefined;
    this.linkPending();
    this.unlink(node);
    const before = { refIds: node.refIds, importIds: node.importIds };
    Object.assign(node, nameFields(this.names, names, false));
    releaseIds(this.names, before);
    this.cold.promote(names.refNames);
    this.link(node);
  }

  /** Takes a file out of the indexes. */
  remove(node: FileNode): void {
    this.savedDefinitions = undefined;
    this.linkPending();
    this.unlink(node);
    releaseIds(this.names, node);
    node.refIds = node.importIds = NO_SLOTS;
    this.files.delete(node.path);
  }

  private link(node: FileNode): void {
    this.rows.linkDefinitions(node);
    this.rows.linkReferences(node);
  }

  private unlink(node: FileNode): void {
    this.rows.unlink(node);
    this.rows.links -= this.cold.drop(node);
    // Its names are to be replaced, or it leaves: none of them is the store's any longer.
    node.storedNames = NAMES_IN_MEMORY;
  }

  /**
   * The files not linked yet, scanned for `wanted` (a request's names) rather than linked: a request
   * asks about a few hundred names, and one pass over the waiting files' names costs a fraction of
   * linking them all. Per name, its definers among them and (unless `referencers` is false) its
   * referencers there: [file, count, ...]. Undefined when no file waits or no name is asked.
   */
  scanWaiting(wanted: readonly string[], referencers: boolean): Map<string, WaitingNamers> | undefined {
    // No name asked, no file read: a map with no chat file and no mention asks none.
    const from = referencers ? Math.min(this.referencersFrom, this.definersFrom) : this.definersFrom;
    if (from >= this.pending.length || wanted.length === 0) return undefined;
    const scanned = new Map<string, WaitingNamers>();
    for (const ident of wanted) scanned.set(ident, { definers: [], referencers: [] });
    // With the saved definitions, only the files they say may define a name asked are read for definers.
    const mayDefine = this.savedDefinitions?.definersOf(wanted);
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
      const refCounts = stored ? stored.counts : node.refCounts;
      const count = stored ? stored.referenced.length : node.refIds.length;
      for (let k = 0; k < count; k++) scanned.get(stored ? stored.referenced[k] : this.names.nameOf(node.refIds[k]))?.referencers.push(node, refCounts[k]);
    }
    return scanned;
  }

  /** The linked definers of `ident` (the rows', without linking the waiting files). */
  linkedDefiners(ident: string): DefinerFiles | undefined {
    return this.rows.definers.get(ident);
  }

  /** The files whose cold definitions include each of `idents` (see ColdLinks.definersOf). */
  coldDefiners(idents: readonly string[]): Map<string, FileNode[]> {
    return this.cold.definersOf(idents);
  }

  /** The linked referencers of `ident`, with their counts (see NameRows.visitReferencers). */
  visitLinkedReferencers(ident: string, visit: (node: FileNode, count: number) => void): void {
    this.rows.visitReferencers(ident, visit);
  }
}
