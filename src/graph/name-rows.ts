// The rows of the name indexes: per name, the files defining it and the files referencing it, and
// the count of links they hold. What goes into them and when (files waiting, names read lazily, the
// definitions nobody references kept out) is the NameIndex's (name-index.ts); this module keeps the
// rows consistent as a file's names are linked and unlinked.
import type { NameTable } from './name-table.js';
import type { DefinerFiles, FileNode, Referencers } from './nodes.js';

/**
 * Invariants: `definers` holds, per name, exactly the linked files whose `defined` has it, in the
 * order of their links (FileNode.linkedAt); `referencerRows[id]` holds each linked file whose
 * `refIds` has `id` once, at the slot its `refSlots` says, and is undefined for an id no linked
 * file references (so a freed id, reused for another name, has no row). `links` counts the pairs of both.
 */
export class NameRows {
  /** Per name, the files defining it: one node, or a set of two or more (most names have one definer). */
  private definerRows = new Map<string, DefinerFiles>();
  /**
   * Per name id (see NameTable), the files referencing it, each followed by the name's position in
   * its refIds: a count is then read without a search (a request counts the referencers of every
   * name it asks about, thousands for a common one). An array per name, not a Map: there are
   * millions of links.
   */
  private readonly referencerRows: Array<Referencers | undefined> = [];
  /** Names referenced by some linked file. */
  private referencedCount = 0;

  constructor(readonly table: NameTable) {}

  get definers(): Map<string, DefinerFiles> {
    return this.definerRows;
  }

  /** The linked referencers of the name `id`. */
  referencersOfId(id: number): Referencers | undefined {
    return this.referencerRows[id];
  }

  /** The linked referencers of `ident`. */
  referencersOf(ident: string): Referencers | undefined {
    const id = this.table.idOf(ident);
    return id === undefined ? undefined : this.referencerRows[id];
  }

  /** Whether some linked file references `ident`. */
  isReferenced(ident: string): boolean {
    return this.referencersOf(ident) !== undefined;
  }

  /** How many names some linked file references. */
  get referencedNameCount(): number {
    return this.referencedCount;
  }

  /** Every name some linked file references, in the order of their ids. */
  *referencedNames(): IterableIterator<string> {
    const rows = this.referencerRows;
    for (let id = 0; id < rows.length; id++) if (rows[id]) yield this.table.nameOf(id);
  }

  /** Links held: one per (file, name it defines) and per (file, name it references); the NameIndex adds the cold ones. */
  links = 0;
  /** Definitions linked so far, file by file (FileNode.linkedAt). */
  private linkings = 0;

  /** Links a file's definitions, after every file linked before it. */
  linkDefinitions(node: FileNode): void {
    node.linkedAt = ++this.linkings;
    for (const ident of node.defined) this.linkDefinition(ident, node);
    this.links += node.defined.length;
  }

  /** Adds `node` to the definers of `ident` (the caller counts the link). */
  linkDefinition(ident: string, node: FileNode): void {
    const entry = this.definers.get(ident);
    if (entry === undefined) this.definers.set(ident, node);
    else if (entry instanceof Set) entry.add(node);
    else this.definers.set(ident, new Set([entry, node]));
  }

  /** Takes `node` out of the definers of `ident` (the caller counts the link). */
  unlinkDefinition(ident: string, node: FileNode): void {
    const entry = this.definers.get(ident);
    if (entry === node) this.definers.delete(ident);
    else if (entry instanceof Set && entry.delete(node) && entry.size === 1) this.definers.set(ident, entry.values().next().value!);
  }

  /** Links a file's references. */
  linkReferences(node: FileNode): void {
    const { refIds } = node;
    const rows = this.referencerRows;
    node.refSlots = new Uint32Array(refIds.length);
    for (let k = 0; k < refIds.length; k++) {
      const id = refIds[k];
      // Grown one id at a time with undefined: a packed array, not a sparse one.
      while (rows.length <= id) rows.push(undefined);
      const list = rows[id];
      if (list) {
        node.refSlots[k] = list.length / 2;
        list.push(node, k);
      } else {
        rows[id] = [node, k];
        this.referencedCount++;
      }
    }
    this.links += refIds.length;
  }

  /** Takes a linked file's definitions (those in `defined`) and references out of the rows. */
  unlink(node: FileNode): void {
    for (const ident of node.defined) this.unlinkDefinition(ident, node);
    const { refIds, refSlots } = node;
    const rows = this.referencerRows;
    for (let k = 0; k < refIds.length; k++) {
      const id = refIds[k];
      const list = rows[id]!;
      // Order does not matter to the readers (sums and sets): the last one takes the freed place.
      const lastK = list.pop() as number;
      const last = list.pop() as FileNode;
      if (last !== node) {
        const slot = refSlots[k];
        list[2 * slot] = last;
        list[2 * slot + 1] = lastK;
        last.refSlots[lastK] = slot;
      }
      if (list.length === 0) {
        rows[id] = undefined;
        this.referencedCount--;
      }
    }
    this.links -= node.defined.length + refIds.length;
  }

  /** Copies the definer rows into a Map of their size, in the same order (after many were taken out: a Map keeps its room). */
  compactDefiners(): void {
    this.definerRows = new Map(this.definerRows);
  }

  /** Each referencer of `ident` with its count of the name, in no particular order. */
  visitReferencers(ident: string, visit: (node: FileNode, count: number) => void): void {
    const list = this.referencersOf(ident);
    if (!list) return;
    for (let j = 0; j < list.length; j += 2) {
      const node = list[j] as FileNode;
      visit(node, node.refCounts[list[j + 1] as number]);
    }
  }
}
