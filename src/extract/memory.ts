import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Native tree-sitter trees hold memory V8 does not count, so V8 sees no reason to collect them,
// and a thread parsing tens of thousands of files grows by gigabytes. A full collection every few
// MB of parsed source keeps a thread's resident memory flat, and costs little.
const COLLECT_EVERY_BYTES = 4 * 1024 * 1024;

/** Memory-reducing collections that giveBackMemory makes at most. */
const GIVE_BACK_ROUNDS = 4;
/** A memory-reducing collection that shrinks the heap by less than this is the last of giveBackMemory's. */
const GIVE_BACK_MIN_BYTES = 16 * 1024 * 1024;

const collect: (() => void) | undefined = (() => {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
})();

let sinceCollect = 0;

/**
 * A full collection now, when the runtime allows it (see above); returns whether it ran. With
 * `reduceMemory`, it is one that V8 makes when optimizing for size: it moves the live objects of a
 * bounded share of the sparsest pages, and gives the free ranges of the others back to the system.
 * A plain one keeps every page that holds a live object whole: a heap whose objects mostly died
 * (names read and dropped) would keep its size, free space resident included.
 */
export function collectGarbage({ reduceMemory = false } = {}): boolean {
  if (!collect) return false;
  if (!reduceMemory) {
    collect();
    return true;
  }
  // V8 reads the flag at each collection: set for this one only, it changes nothing else.
  setFlagsFromString('--optimize-for-size');
  try {
    collect();
  } finally {
    setFlagsFromString('--no-optimize-for-size');
  }
  return true;
}

/** Counts parsed source; collects garbage (and with it released trees) every few MB. */
export function noteParsedSource(bytes: number): void {
  sinceCollect += bytes;
  if (sinceCollect >= COLLECT_EVERY_BYTES && collect) {
    sinceCollect = 0;
    collect();
  }
}

/**
 * Memory-reducing collections (see collectGarbage), each in a turn of the event loop of its own,
 * for as long as each shrinks the heap by much: each moves a bounded share of the sparse pages,
 * so a heap whose objects mostly died gives its memory back over a few.
 */
export async function giveBackMemory(): Promise<void> {
  let size = getHeapStatistics().total_heap_size;
  for (let round = 0; round < GIVE_BACK_ROUNDS && collectGarbage({ reduceMemory: true }); round++) {
    const after = getHeapStatistics().total_heap_size;
    if (size - after < GIVE_BACK_MIN_BYTES) return;
    size = after;
    await new Promise((resume) => setImmediate(resume));
  }
}
