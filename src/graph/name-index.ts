// The name indexes of the reference graph: its files by path, the files defining each name and the
// files referencing it. Files come in without being linked (see NameIndex.pending) and, when taken
// from stored records, without their names read (see load): both happen when first needed.
import { familyOfPath } from '../extract/languages.js';
import type { FileNames } from '../records.js';
import type { NameFiles } from './graph-types.js';
import { type DefinerFiles, EMPTY_NAMES, type FileNode, type NodeNames, NO_SLOTS, type Referencers, UNREAD, interner } from './nodes.js';

/**
 * Invariants: every file in `files` is in `pending` from `referencersFrom` on, or linked into the
 * referencer index; likewise from `definersFrom` on for the definer index (definersFrom >=
 * referencersFrom). `links + pendingLinks` counts every (file, name) pair, read or not.
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
   * New files not yet in the name indexes: in the definer index from `definersFrom` on, in the
   * referencer index from `referencersFrom` on (see linkPending). A warm start whose related graph
   * is read from the cache needs neither index for its first map, and deriving a related graph
   * needs only the definers, so linking waits until something reads an index.
   */
  private pending: FileNode[] = [];
  private definersFrom = 0;
  private referencersFrom = 0;
  private pendingLinks = 0;
  private readonly folders = interner();
  private links = 0;

  /**
   * `readNames` reads a file's names from the tag store, for files taken without them (see
   * ReferenceGraph.takeRecord).
   */
  constructor(readonly readNames?: (path: string) => FileNames | undefined) {}

  /** Links in the graph: one per (file, name it defines) and per (file, name it references). */
  get linkCount(): number {
    return this.links + this.pendingLinks;
  }

  /** Files taken but not yet linked into both name indexes. */
  get pendingCount(): number {
    return this.pending.length - this.referencersFrom;
  }

  /** The definer index, every file linked into it first. */
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

  /** A new file's node, with its names or (undefined) without them yet; linked when an index is first read (see linkPending). */
  add(path: string, names: NodeNames | undefined, links: number): FileNode {
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
    this.pending.push(node);
    this.pendingLinks += links;
    return node;
  }

  /** Gives a linked node new names, moving its links. */
  replaceNames(node: FileNode, names: NodeNames): void {
    this.linkPending();
    this.unlink(node);
    node.defined = names.defined;
    node.refNames = names.refNames;
    node.refCounts = names.refCounts;
    node.imports = names.imports;
    node.modules = names.modules;
    this.link(node);
  }

  /** Takes a file out of the indexes. */
  remove(node: FileNode): void {
    this.linkPending();
    this.unlink(node);
    this.files.delete(node.path);
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
