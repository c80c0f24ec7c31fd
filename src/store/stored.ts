// The shapes of what the tag stores keep: a root's store (store.ts) and the shared one (shared.ts) hold the same values,
// under paths in the one and content keys in the other.
import type { FileNames, FileRecord, FileRefs } from '../records.js';

/** Bump when the shape of stored records or the extraction changes: older stores are rebuilt. */
export const STORE_FORMAT = 9;

/** A path's record: stat, hash, skip and how many names it has (what a warm start decodes). */
export type StoredRecord = Omit<FileRecord, 'path' | 'tags' | 'names'>;

/** What a file's record says of its content, apart from its stat: what the shared store keeps under a content key. */
export type ContentRecord = Omit<StoredRecord, 'mtimeMs' | 'size' | 'ctimeMs' | 'shared'>;

/** The reference sites of a file (FileRefs without the names, which the names database holds). */
export type StoredSites = Pick<FileRefs, 'subkinds' | 'sites'>;

/** What is stored of a file apart from its path and stat: its content's record and tags, as stored (the outline encoded). */
export interface StoredCopy {
  record: ContentRecord;
  names?: FileNames;
  outline?: Buffer;
  sites?: StoredSites;
}
