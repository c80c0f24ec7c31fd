// The definitions no file references, kept out of the name indexes: per definition, a 32-bit hash
// of the name (nameHash, also the saved related graph's, see saved-definitions.ts) and the
// number of its file, in one sorted typed array. A hash says only which files may define a name;
// the caller confirms it from the file's names in the tag store (see ColdLinks.definersOf). A
// generated header defines hundreds of thousands of names nobody references (register masks): held
// as strings in a Map, they were most of a large graph's heap.
import type { FileNode } from './nodes.js';

/** File numbers take the low bits of a key, the hash the high ones: a key stays a safe integer. */
const SLOT_BITS = 21;
const SLOTS = 2 ** SLOT_BITS;

/** FNV-1a over the name's UTF-16 code units. */
export function nameHash(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Invariants: `nodes[slot]` is the file whose definitions the keys with that slot stand for, or
 * undefined once the file changed or left (its keys then stand for nothing and are skipped);
 * keys[0, length) is sorted whenever `sorted` is set.
 */
export class ColdDefinitions {
  private keys = new Float64Array(0);
  private length = 0;
  private sorted = true;
  private readonly nodes: Array<FileNode | undefined> = [];
  /** Per slot, how many definitions it holds (a graph counts them among its links). */
  private readonly counts: number[] = [];

  get isEmpty(): boolean {
    return this.length === 0;
  }

  /** Whether another file can be taken (its number must fit a key). */
  get hasRoom(): boolean {
    return this.nodes.length < SLOTS;
  }

  /** Takes `node`'s definitions `names` (none yet taken for it); returns its slot. */
  add(node: FileNode, names: readonly string[]): number {
    const slot = this.nodes.length;
    this.nodes.push(node);
    this.counts.push(names.length);
    if (this.length + names.length > this.keys.length) {
      const grown = new Float64Array(Math.max(this.length + names.length, this.keys.length * 2, 1024));
      grown.set(this.keys.subarray(0, this.length));
      this.keys = grown;
    }
    for (const name of names) this.keys[this.length++] = nameHash(name) * SLOTS + slot;
    if (names.length > 0) this.sorted = false;
    return slot;
  }

  /** How many definitions `slot` holds. */
  count(slot: number): number {
    return this.counts[slot];
  }

  /** Forgets the definitions of `slot` (its file changed or left); returns how many there were. */
  drop(slot: number): number {
    this.nodes[slot] = undefined;
    return this.counts[slot];
  }

  /** One definition of `slot` moved back into the name indexes (its key stays, and is skipped there). */
  moved(slot: number): void {
    this.counts[slot]--;
  }

  /** Sorts the keys and gives back the spare room (once every file is taken, and before a look-up). */
  settle(): void {
    if (!this.sorted) {
      this.keys.subarray(0, this.length).sort();
      this.sorted = true;
    }
    if (this.keys.length > this.length) this.keys = this.keys.slice(0, this.length);
  }

  /** Whether `slot` holds a definition of `name`'s hash. */
  holds(name: string, slot: number): boolean {
    const key = nameHash(name) * SLOTS + slot;
    const at = this.firstAtLeast(key);
    return at < this.length && this.keys[at] === key;
  }

  /** The files whose definitions include a name of `name`'s hash, in the order they were taken (each once). */
  candidates(name: string): FileNode[] {
    const low = nameHash(name) * SLOTS;
    const lo = this.firstAtLeast(low);
    const { keys } = this; // after the sort, which may give back room (another array)
    const found: FileNode[] = [];
    let last = -1;
    for (let i = lo; i < this.length && keys[i] < low + SLOTS; i++) {
      const slot = keys[i] - low;
      const node = this.nodes[slot];
      if (node && slot !== last) found.push(node);
      last = slot;
    }
    return found;
  }

  /** The position of the first key not below `key` (the keys sorted first). */
  private firstAtLeast(key: number): number {
    if (!this.sorted) this.settle();
    const { keys } = this;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Each definition held, as its name's hash and its file's number by `numberOf` (taken once per
   * file, into a typed array: the loop over millions of keys touches no file's object); the keys of
   * a file changed or left are skipped.
   */
  forEachDefinition(numberOf: (node: FileNode) => number, visit: (hash: number, file: number) => void): void {
    const { keys, nodes } = this;
    const numbers = new Int32Array(nodes.length);
    for (let slot = 0; slot < nodes.length; slot++) numbers[slot] = nodes[slot] ? numberOf(nodes[slot]!) : -1;
    for (let i = 0; i < this.length; i++) {
      const key = keys[i];
      // Exact in doubles (SLOTS is a power of two), and cheaper than `%` on them.
      const hash = Math.floor(key / SLOTS);
      const file = numbers[key - hash * SLOTS];
      if (file >= 0) visit(hash, file);
    }
  }

  /** The files with definitions here, in the order they were taken. */
  files(): FileNode[] {
    return this.nodes.filter((node) => node !== undefined);
  }
}
