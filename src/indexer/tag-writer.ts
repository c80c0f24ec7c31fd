import type { FileResult } from '../extract/file.js';
import { TagStore } from '../store/store.js';

/**
 * Writes the tags of freshly parsed records to the store and takes them off the records, so that
 * only records (stat, hash, names) travel on: a worker's tags are never copied to the main
 * thread, decoded there and encoded again. Each record is written after its tags (see TagStore).
 */
export function storeTags(results: readonly FileResult[], store: TagStore): void {
  for (const result of results) {
    if (result.outcome !== 'parsed' || !result.record.tags) continue;
    store.writeTags(result.record.path, result.record.tags);
    delete result.record.tags;
  }
}

/** Stores attached in this thread, by cache directory (a worker writes into its caller's). */
const attached = new Map<string, TagStore>();

/** The store in `cacheDir`, opened in this thread once. */
export function attachedStore(cacheDir: string): TagStore {
  let store = attached.get(cacheDir);
  if (!store) {
    store = TagStore.attach(cacheDir);
    attached.set(cacheDir, store);
  }
  return store;
}
