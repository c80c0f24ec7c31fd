// The rows of the name indexes: per name, the files defining it and the files referencing it, and
// the count of links they hold. What goes into them and when (files waiting, names read lazily, the
// definitions nobody references kept out) is the NameIndex's (name-index.ts); this module keeps the
// rows consistent as a file's names are linked and unlinked.
import type { DefinerFiles, FileNode, Referencers } from './nodes.js';

/** The string of a name its referencers share (see linkReferences). */
function sharedName(list: Referencers): string {
  return (list[0] as FileNode).refNames[list[1] as number];
}

/**
 * Invariants: `definers` holds, per name, exactly the linked files whose `defined` has it, in the
 * order of their links (FileNode.linkedAt); `referencers` holds, per name, each linked file whose
 * `refNames` has it once, at the slot its `refSlots` says. `links` counts the pairs of both.
 */
export class NameRows {
  /** Per name, the files defining it: one node, or a set of two or more (most names have one definer). */
  private definerRows = new Map<string, DefinerFiles>();
  /**
   * Per name, the files referencing it, each followed by the name's position in its refNames: a
   * count is then read without a search (a request counts the referencers of every name it asks
   * about, thousands for a common one). An array per name, not a Map: there are millions of links.
   */
  readonly referencers = new Map<string, Referencers>();
  get definers(): Map<string, DefinerFiles> {
    return this.definerRows;
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

  /** Links a file's references, each of its names then the string its referencers share. */
  linkReferences(node: FileNode): void {
    const { refNames } = node;
    node.refSlots = new Uint32Array(refNames.length);
    for (let k = 0; k < refNames.length; k++) {
      const list = this.referencers.get(refNames[k]);
      if (list) {
        // One string per name, the one its referencers already share: a file's names are read as
        // strings of its own, and a name a thousand files reference would be held a thousand times.
        refNames[k] = sharedName(list);
        node.refSlots[k] = list.length / 2;
        list.push(node, k);
      } else this.referencers.set(refNames[k], [node, k]);
    }
    this.links += refNames.length;
  }

  /** Takes a linked file's definitions (those in `defined`) and references out of the rows. */
  unlink(node: FileNode): void {
    for (const ident of node.defined) this.unlinkDefinition(ident, node);
    const { refNames, refSlots } = node;
    for (let k = 0; k < refNames.length; k++) {
      const ident = refNames[k];
      const list = this.referencers.get(ident)!;
      // Order does not matter to the readers (sums and sets): the last one takes the freed place.
      const lastK = list.pop() as number;
      const last = list.pop() as FileNode;
      if (last !== node) {
        const slot = refSlots[k];
        list[2 * slot] = last;
        list[2 * slot + 1] = lastK;
        last.refSlots[lastK] = slot;
      }
      if (list.length === 0) this.referencers.delete(ident);
    }
    this.links -= node.defined.length + node.refNames.length;
  }

  /** The string the referencers of `ident` share; undefined when no file references it. */
  referencedAs(ident: string): string | undefined {
    const list = this.referencers.get(ident);
    return list && sharedName(list);
  }

  /** Copies the definer rows into a Map of their size, in the same order (after many were taken out: a Map keeps its room). */
  compactDefiners(): void {
    this.definerRows = new Map(this.definerRows);
  }

  /** Each referencer of `ident` with its count of the name, in no particular order. */
  visitReferencers(ident: string, visit: (node: FileNode, count: number) => void): void {
    const list = this.referencers.get(ident);
    if (!list) return;
    for (let j = 0; j < list.length; j += 2) {
      const node = list[j] as FileNode;
      visit(node, node.refCounts[list[j + 1] as number]);
    }
  }
}
