// The reference graph's records: a file node, a name's definers, a file's related edges, and the
// small helpers every graph module reads them with. A leaf: the other graph modules import it.
import { comparePaths } from '../discover/discover.js';
import type { FileNames } from '../records.js';
import type { NameTable } from './name-table.js';

export const NO_SLOTS = new Uint32Array(0);
export const NO_NAMES: string[] = [];
/** A file without names: what a graph reads for a stored file whose names cannot be read. */
export const EMPTY_NAMES: FileNames = { defined: NO_NAMES, referenced: NO_NAMES, counts: [], imports: NO_NAMES, modules: NO_NAMES };

/** A file's names as a graph takes them (strings: the name index numbers them, see NameTable). */
export interface NodeNames {
  defined: string[];
  refNames: readonly string[];
  refCounts: Uint32Array;
  imports: readonly string[];
  modules: string[];
}

/** FileNode.storedNames of a file whose names came from a parse or a change: `defined` holds them all. */
export const NAMES_IN_MEMORY = -2;
/** FileNode.storedNames of a file whose names are those of its stored record, none of them cold. */
export const NAMES_AS_STORED = -1;
/**
 * FileNode.defined of a file whose references are linked and whose definitions, not linked yet,
 * are read again from the store when they are (see NameIndex.linkPending).
 */
export const DEFINED_IN_STORE: string[] = [];

/**
 * FileNode.defined of a file whose definitions, from a parse and not linked yet, are held as one
 * string (FileNode.packed): a string per name costs some 40 bytes beside its characters, and a
 * cold index holds every file's definitions until the pass ends (4 million on a kernel).
 */
export const DEFINED_PACKED: string[] = [];
/** The name fields of a node whose names are not read yet (see FileNode.unread). */
export const UNREAD: Pick<FileNode, 'defined' | 'packed' | 'refIds' | 'refCounts' | 'importIds' | 'modules'> = { defined: NO_NAMES, packed: undefined, refIds: NO_SLOTS, refCounts: NO_SLOTS, importIds: NO_SLOTS, modules: NO_NAMES };

/** A file in the graph. The same object while its path stays, so other files' edges can point at it. */
export interface FileNode {
  path: string;
  /** Its folder, numbered (files of one folder share the number). */
  folder: number;
  /** Its language family (see LanguageSpec.family): the related graph links only files of one family. */
  family: string;
  /** Its position in the sorted file list (node index of the compiled graphs), kept up to date (see Numbering). */
  dense: number;
  /** The names it defines, sorted once; DEFINED_PACKED while they are `packed`. */
  defined: string[];
  /** Its definitions as one string (see DEFINED_PACKED), until they are linked; undefined otherwise. */
  packed: string | undefined;
  /**
   * Referenced names as ids of the name index's NameTable, in the order of their names (sorted),
   * with their counts alongside (two flat arrays: a pair per name would cost an object each).
   */
  refIds: Uint32Array;
  refCounts: Uint32Array;
  /** Its position in each referenced name's list of referencers (parallel to refIds): a removal is a swap, not a search. */
  refSlots: Uint32Array;
  /** The names it imports (references of subkind 'import'), as NameTable ids, in the order of their names (sorted). */
  importIds: Uint32Array;
  /** The modules it imports, as written (FileNames.modules). */
  modules: string[];
  /**
   * While its names are not read yet (the five fields above are empty), how many there are, as
   * its stored record says; undefined once they are (see NameIndex.load).
   */
  unread: number | undefined;
  /**
   * Whether its names are its stored record's, and where its definitions are: NAMES_IN_MEMORY
   * (from a parse or a change), all in `defined`; NAMES_AS_STORED (read from the store, or not yet),
   * all in `defined`, or none while it is DEFINED_IN_STORE (see NameIndex.linkPending); from 0, its
   * slot in the NameIndex's cold definitions, which hold those of its names no file referenced when
   * they were linked, and `defined` the rest (no longer sorted once a cold one is moved back).
   */
  storedNames: number;
  /**
   * When its definitions were last linked (the name index counts the files it links): a name's
   * definers, in the definer index or the cold definitions, are visited in this order.
   */
  linkedAt: number;
  /** Its forward edges in the related graph; undefined until derived, and again after a change they depend on. */
  related: RelatedEdges | undefined;
}

/** A file's references resolved to their definers: the forward edges of the 'repomap' ranking. */
export interface RelatedEdges {
  /** Its targets; empty for edges held by their targets' numbers only (see deriveRelated), which are let go of once written. */
  to: FileNode[];
  ident: Uint32Array;
  weight: Float64Array;
  /** The targets' node indices, as of `numbering` (files added or removed renumber them: see Numbering.numbered). */
  toDense: Uint32Array;
  numbering: number;
}

/** A name's referencers: [file, the name's position in its refIds, file, position, ...]. */
export type Referencers = Array<FileNode | number>;

/** The files defining a name: its one definer (most names have one), or a set of two or more. */
export type DefinerFiles = FileNode | Set<FileNode>;

export function definerCount(entry: DefinerFiles | undefined): number {
  return entry === undefined ? 0 : entry instanceof Set ? entry.size : 1;
}

export function isDefiner(entry: DefinerFiles | undefined, node: FileNode): boolean {
  return entry instanceof Set ? entry.has(node) : entry === node;
}

/** How many of a name's definers are of `family`. */
export function familyCount(entry: DefinerFiles | undefined, family: string): number {
  if (entry === undefined) return 0;
  if (!(entry instanceof Set)) return entry.family === family ? 1 : 0;
  let count = 0;
  for (const node of entry) if (node.family === family) count++;
  return count;
}

export function byPath(a: FileNode, b: FileNode): number {
  return comparePaths(a.path, b.path);
}

/** Whether a file's names other than its definitions are the ones its node holds (`table` numbers its names). */
export function sameReferences(node: FileNode, { referenced, counts, imports, modules }: FileNames, table: NameTable): boolean {
  return table.same(node.refIds, referenced) && table.same(node.importIds, imports) && sameStrings(node.modules, modules) && node.refCounts.every((count, i) => count === counts[i]);
}

export function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Numbers strings in order of first sight: `id` gives a string's number, `list` the strings by
 * number. Invariant: `list` holds each string once (a saved graph's list was an interner's).
 */
export class Interner {
  /** Each string's number; built from `list` when first needed (see numbersOf). */
  private index: Map<string, number> | undefined;
  /** Whether numbersOf was asked once: it indexes the list from then on. */
  private scanned = false;

  /** `list`: strings numbered already, taken as they are (a restored graph's). */
  constructor(readonly list: string[] = []) {
    if (list.length === 0) this.index = new Map();
  }

  id(value: string): number {
    const index = this.indexed();
    let n = index.get(value);
    if (n === undefined) {
      n = this.list.length;
      this.list.push(value);
      index.set(value, n);
    }
    return n;
  }

  /**
   * The numbers of those of `values` that are numbered, in no particular order. A restored list
   * is scanned the first time rather than indexed: a map names a few strings of a large graph's
   * hundreds of thousands, and indexing them all costs a good part of a warm start's first map.
   * From the second ask on (a daemon's next requests), it is indexed: a scan per request costs
   * more than the index once.
   */
  numbersOf(values: Iterable<string>): Map<string, number> {
    const found = new Map<string, number>();
    const index = this.scanned ? this.indexed() : this.index;
    this.scanned = true;
    if (index) {
      for (const value of values) {
        const n = index.get(value);
        if (n !== undefined) found.set(value, n);
      }
      return found;
    }
    const wanted = new Set(values);
    if (wanted.size === 0) return found;
    const { list } = this;
    for (let n = 0; n < list.length; n++) if (wanted.has(list[n])) found.set(list[n], n);
    return found;
  }

  private indexed(): Map<string, number> {
    if (this.index) return this.index;
    const index = new Map<string, number>();
    for (let n = 0; n < this.list.length; n++) index.set(this.list[n], n);
    this.index = index;
    return index;
  }
}

export function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}
