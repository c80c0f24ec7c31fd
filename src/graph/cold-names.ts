// Definitions held as hashes: per definition, a 32-bit hash of the name and the number of its file,
// in one sorted typed array. A hash says only which files may define a name; the caller confirms
// it from the file's names in the tag store. Two uses: the definitions no file references, kept
// out of the name indexes (ColdDefinitions, see NameIndex.coldDefiners: a generated header defines
// hundreds of thousands of names nobody references, register masks, which held as strings in a Map
// were most of a large graph's heap); and every definition of a saved related graph's files, by
// which a graph restored from it finds a name's definers without reading every file's names.
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

/** A definition's key: its name's hash in the high bits, its file's slot in the low ones. */
export function definitionKey(name: string, slot: number): number {
  return nameHash(name) * SLOTS + slot;
}

/** The most files a set of definition keys can number (slots are SLOT_BITS wide). */
export const MAX_DEFINITION_FILES = SLOTS;

/**
 * Definitions as keys (see definitionKey) and the file of each slot: which files may define a
 * name. Invariants: `nodes[slot]` is the file whose definitions the keys with that slot stand for,
 * or undefined once the file changed or left (its keys then stand for nothing and are skipped);
 * keys[0, length) is sorted whenever `sorted` is set.
 */
export class HashedDefinitions {
  protected sorted = true;

  constructor(
    protected keys: Float64Array,
    protected length: number,
    protected readonly nodes: Array<FileNode | undefined>,
  ) {}

  get isEmpty(): boolean {
    return this.length === 0;
  }

  /** Sorts the keys and gives back the spare room (once every file is taken, and before a look-up). */
  settle(): void {
    if (!this.sorted) {
      this.keys.subarray(0, this.length).sort();
      this.sorted = true;
    }
    if (this.keys.length > this.length) this.keys = this.keys.slice(0, this.length);
  }

  /** The files whose definitions include a name of `name`'s hash, in the order of their slots (each once). */
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
  protected firstAtLeast(key: number): number {
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
   * Writes each definition held into `into` from `at` on, with its file's slot replaced by
   * `slotOf(node)`; the keys of a file changed or left are skipped. Returns where it stopped
   * (`into` must have room for every key held).
   */
  rekeyInto(into: Float64Array, at: number, slotOf: (node: FileNode) => number): number {
    const { keys, nodes } = this;
    // Per slot its new one (-1: skipped), in a typed array: the loop over millions of keys touches no file's object.
    const slots = new Float64Array(nodes.length);
    for (let slot = 0; slot < nodes.length; slot++) slots[slot] = nodes[slot] ? slotOf(nodes[slot]!) : -1;
    for (let i = 0; i < this.length; i++) {
      const key = keys[i];
      // Exact in doubles (SLOTS is a power of two).
      const slotZero = Math.floor(key / SLOTS) * SLOTS;
      const slot = slots[key - slotZero];
      if (slot >= 0) into[at++] = slotZero + slot;
    }
    return at;
  }

  /** How many keys are held (those of files changed or left included). */
  get keyCount(): number {
    return this.length;
  }
}

/** The definitions of files that no file references (see NameIndex.splitDefinitions), a slot per file in the order taken. */
export class ColdDefinitions extends HashedDefinitions {
  /** Per slot, how many definitions it holds (a graph counts them among its links). */
  private readonly counts: number[] = [];

  constructor() {
    super(new Float64Array(0), 0, []);
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
    for (const name of names) this.keys[this.length++] = definitionKey(name, slot);
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

  /** Whether `slot` holds a definition of `name`'s hash. */
  holds(name: string, slot: number): boolean {
    const key = definitionKey(name, slot);
    const at = this.firstAtLeast(key);
    return at < this.length && this.keys[at] === key;
  }

  /** The files with definitions here, in the order they were taken. */
  files(): FileNode[] {
    return this.nodes.filter((node) => node !== undefined);
  }
}
