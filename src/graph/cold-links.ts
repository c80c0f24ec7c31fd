// The definitions of names no file references, kept out of the definer rows (cold-names.ts holds
// them as hashes): which of a file's definitions go there, how one moves back into the rows when a
// file comes to reference its name, and how a look-up confirms a hash's files from their stored
// names. Used by the NameIndex for files whose names are the store's.
import { ColdDefinitions } from './cold-names.js';
import type { NameRows } from './name-rows.js';
import { type FileNode, getOrCreate, isDefiner } from './nodes.js';

export function byLinks(a: FileNode, b: FileNode): number {
  return a.linkedAt - b.linkedAt;
}

/**
 * Invariant: no name of the cold definitions is referenced by a file linked into the referencer
 * rows: the definer rows hold every definer of a name some linked file references, and a file that
 * comes to reference a cold name moves its definitions into them (see promote).
 */
export class ColdLinks {
  /**
   * On a kernel most defined names are register masks of generated headers that nothing
   * references. Only files whose names are the store's: a look-up confirms a hash's files from
   * their stored names (see definersOf).
   */
  readonly definitions = new ColdDefinitions();

  /**
   * `readDefined` reads a file's definitions from the store; `definersMoved` is told of each name
   * whose definitions move from here into the definer rows.
   */
  constructor(
    private readonly rows: NameRows,
    private readonly readDefined: (node: FileNode) => string[],
    private readonly definersMoved: (ident: string) => void,
  ) {}

  get isEmpty(): boolean {
    return this.definitions.isEmpty;
  }

  /** How many cold definitions `node` has. */
  count(node: FileNode): number {
    return node.storedNames >= 0 ? this.definitions.count(node.storedNames) : 0;
  }

  /**
   * Whether `defined` (a file's new definitions, sorted) are those of `node` (with cold ones:
   * storedNames >= 0): each one not in its `defined` must be one of its cold keys, and referenced by
   * no file (else it belongs in the definer rows). That answers as exactly as the names would: a
   * look-up confirms a hash's files from their stored names, the new ones.
   */
  sameDefinitions(node: FileNode, defined: readonly string[]): boolean {
    const slot = node.storedNames;
    if (defined.length !== node.defined.length + this.definitions.count(slot)) return false;
    const inMemory = new Set(node.defined);
    let found = 0;
    for (const ident of defined) {
      if (inMemory.has(ident)) found++;
      else if (this.rows.isReferenced(ident) || !this.definitions.holds(ident, slot)) return false;
    }
    return found === node.defined.length;
  }

  /**
   * Moves the definitions of `node` (not linked yet, its names the store's) whose name no file
   * references here: `defined` keeps the rest. Returns how many moved.
   */
  split(node: FileNode): number {
    const { table } = this.rows;
    return this.splitWaiting(node, (ident) => {
      const id = table.idOf(ident);
      return id !== undefined && this.rows.referencersOfId(id) ? table.nameOf(id) : undefined;
    });
  }

  /**
   * split for a file whose definitions are linked, its names the store's, `referencedAs` giving
   * the string a name some file references is held as (undefined for the others): those moved
   * leave the definer rows (their links are counted still, as cold ones).
   */
  splitLinked(node: FileNode, referencedAs: (ident: string) => string | undefined): void {
    const before = node.defined;
    if (this.splitWaiting(node, referencedAs) === 0) return;
    for (const ident of before) if (referencedAs(ident) === undefined) this.rows.unlinkDefinition(ident, node);
  }

  /**
   * Moves the definitions of `node` (not linked yet) for which `referencedAs` gives no string here;
   * `defined` keeps the strings it gives (the name table's: a file's own copy of a name is let go
   * of). Returns how many moved.
   */
  splitWaiting(node: FileNode, referencedAs: (ident: string) => string | undefined): number {
    const referenced: string[] = [];
    const unreferenced: string[] = [];
    for (const ident of node.defined) {
      const shared = referencedAs(ident);
      if (shared !== undefined) referenced.push(shared);
      else unreferenced.push(ident);
    }
    if (unreferenced.length === 0 || !this.definitions.hasRoom) return 0;
    node.defined = referenced;
    node.storedNames = this.definitions.add(node, unreferenced);
    return unreferenced.length;
  }

  /**
   * Moves the cold definitions of each of `idents` (names a file comes to reference) into the
   * definer rows and their files' `defined`.
   */
  promote(idents: readonly string[]): void {
    if (this.isEmpty) return;
    const wanted: string[] = [];
    for (const ident of idents) if (!this.rows.isReferenced(ident)) wanted.push(ident);
    for (const [ident, nodes] of this.definersOf(wanted)) {
      for (const node of nodes) {
        node.defined.push(ident);
        this.definitions.moved(node.storedNames);
        this.rows.linkDefinition(ident, node);
      }
      // In the order of their links, as if they had been in the rows all along.
      const entry = this.rows.definers.get(ident);
      if (entry instanceof Set) this.rows.definers.set(ident, new Set([...entry].sort(byLinks)));
      this.definersMoved(ident);
    }
  }

  /**
   * The files whose cold definitions include each of `idents`, by name (only names with some), each
   * list in the order of their links. A hash names the candidates; their stored names
   * confirm, each file read once. A file holding the name in `defined` (moved back) is not one.
   */
  definersOf(idents: readonly string[]): Map<string, FileNode[]> {
    const found = new Map<string, FileNode[]>();
    if (this.isEmpty || idents.length === 0) return found;
    const asked = new Map<FileNode, string[]>();
    for (const ident of idents) {
      for (const node of this.definitions.candidates(ident)) if (!isDefiner(this.rows.definers.get(ident), node)) getOrCreate(asked, node, () => []).push(ident);
    }
    for (const [node, names] of asked) {
      const defined = new Set(this.readDefined(node));
      for (const ident of names) if (defined.has(ident)) getOrCreate(found, ident, () => []).push(node);
    }
    for (const nodes of found.values()) if (nodes.length > 1) nodes.sort(byLinks);
    return found;
  }

  /**
   * The cold names `matching` takes and the definer rows do not hold, each once (each file's read
   * from the store; only those taken are remembered).
   */
  *names(matching: (ident: string) => boolean): IterableIterator<string> {
    const seen = new Set<string>();
    for (const node of this.definitions.files()) {
      for (const ident of this.readDefined(node)) {
        if (!matching(ident) || this.rows.definers.has(ident) || seen.has(ident)) continue;
        seen.add(ident);
        yield ident;
      }
    }
  }

  /** Forgets a file's cold definitions (it changed or left); returns how many there were. */
  drop(node: FileNode): number {
    return node.storedNames >= 0 ? this.definitions.drop(node.storedNames) : 0;
  }
}
