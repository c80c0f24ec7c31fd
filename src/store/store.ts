import { closeSync, existsSync, fstatSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, type RootDatabase, open } from 'lmdb';
import type { FileNames, FileRecord, FileRefs, FileTags } from '../types.js';
import { Outline } from './outline.js';
import { ensureCacheDir } from './cache-dir.js';

/** Bump when the shape of stored records or the extraction changes: older stores are rebuilt. */
export const STORE_FORMAT = 5;
const META_KEY = 'format';

/** A path's record: stat, hash, skip and how many names it has (what a warm start decodes). */
type StoredRecord = Omit<FileRecord, 'path' | 'tags' | 'names'>;
/** The reference sites of a file (FileRefs without the names, which the names database holds). */
type StoredSites = Pick<FileRefs, 'subkinds' | 'sites'>;

export interface StoreOptions {
  /** Receives one-line notices (a store rebuilt, and why). */
  onNotice?: (message: string) => void;
}

/**
 * The persistent tag store, in four LMDB databases keyed by path: the records (mtime, size,
 * content hash, skip), the names the graph reads (read when it links them: a warm start that
 * reads its related graph from the cache decodes none of their 1.95 M strings on the large
 * corpus), the outlines (definitions and their lines, read when a file is shown) and the
 * reference sites (read by symbol lookups); plus a format version. A path's tags and names are
 * written before its record (by a worker, or in the same batch), so a record never vouches for
 * any that are not there. An old or corrupt store is rebuilt, never a crash.
 */
export class TagStore {
  private lastWrite: Promise<boolean> | undefined;
  private writeError: unknown;

  private constructor(
    /** The cache directory the store lives in. */
    readonly dir: string,
    private readonly root: RootDatabase,
    private readonly files: Database<StoredRecord, string>,
    private readonly fileNames: Database<FileNames, string>,
    private readonly outlines: Database<Buffer, string>,
    private readonly sites: Database<StoredSites, string>,
  ) {}

  static open(cacheDir: string, options: StoreOptions = {}): TagStore {
    const path = join(cacheDir, 'tags.lmdb');
    ensureCacheDir(cacheDir);
    try {
      const store = TagStore.openAt(cacheDir);
      const format = store.root.get(META_KEY) as unknown;
      if (format === STORE_FORMAT) return store;
      if (format !== undefined) {
        options.onNotice?.(`repomap: tag cache format ${String(format)} is older than ${STORE_FORMAT}; rebuilding it`);
      }
      for (const db of [store.files, store.fileNames, store.outlines, store.sites]) db.clearSync();
      store.root.putSync(META_KEY, STORE_FORMAT);
      return store;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      options.onNotice?.(`repomap: tag cache at ${path} is unreadable (${reason}); rebuilding it`);
      rmSync(path, { force: true, recursive: true });
      rmSync(`${path}-lock`, { force: true });
      const store = TagStore.openAt(cacheDir);
      store.root.putSync(META_KEY, STORE_FORMAT);
      return store;
    }
  }

  /**
   * The store a worker thread writes tags into, once TagStore.open has checked it (in the
   * thread that owns it): no format check, no rebuild.
   */
  static attach(cacheDir: string): TagStore {
    return TagStore.openAt(cacheDir);
  }

  private static openAt(cacheDir: string): TagStore {
    const path = join(cacheDir, 'tags.lmdb');
    checkDataFile(join(path, 'data.mdb'));
    const root = open({ path, noSubdir: false, compression: true });
    const files = root.openDB<StoredRecord, string>({ name: 'files' });
    const fileNames = root.openDB<FileNames, string>({ name: 'names' });
    const outlines = root.openDB<Buffer, string>({ name: 'outlines', encoding: 'binary' });
    const sites = root.openDB<StoredSites, string>({ name: 'sites' });
    // Touch the database so that a corrupt file fails here, inside open()'s recovery.
    for (const _ of files.getKeys({ limit: 1 })) break;
    return new TagStore(cacheDir, root, files, fileNames, outlines, sites);
  }

  /** A path's record, without its names and tags (see names, outline and referenceSites). */
  get(path: string): FileRecord | undefined {
    const stored = readSafely(this.files, path);
    return stored ? { path, ...stored } : undefined;
  }

  /** The names an indexed file defines and references (what the graph reads of it). */
  names(path: string): FileNames | undefined {
    return readSafely(this.fileNames, path);
  }

  /** The outline of an indexed file. */
  outline(path: string): Outline | undefined {
    try {
      // The fast read lends lmdb's buffer until the next read: decode copies what it keeps.
      const bytes = this.outlines.getBinaryFast(path);
      return bytes && Outline.decode(bytes);
    } catch {
      return undefined;
    }
  }

  /** The reference sites of an indexed file; their names are its record's referenced names (which the graph holds). */
  referenceSites(path: string): StoredSites | undefined {
    return readSafely(this.sites, path);
  }

  /** Whether nothing is stored yet (a first index). */
  isEmpty(): boolean {
    for (const _ of this.files.getKeys({ limit: 1 })) return false;
    return true;
  }

  /** How many records are stored (counted by LMDB, none decoded). */
  count(): number {
    return this.files.getCount();
  }

  /** Every stored path, in key order. */
  paths(): string[] {
    return [...this.files.getKeys()] as string[];
  }

  /** Removes paths (records and tags) in one transaction: a crash leaves all or none of it. */
  remove(paths: readonly string[]): void {
    if (paths.length === 0) return;
    this.files.transactionSync(() => {
      for (const path of paths) for (const db of [this.outlines, this.sites, this.fileNames, this.files]) db.removeSync(path);
    });
  }

  /**
   * Queues a record's write, and its tags and names when it has them (a record whose tags were
   * written already, or reused by its hash, keeps the stored ones; a skipped file has none). The
   * record goes last: should its puts ever be split between transactions, a crash leaves tags
   * without a record (parsed again), never the reverse. lmdb-js encodes it now and batches queued
   * writes into transactions it commits off this thread, each all or nothing; `flushed` waits.
   */
  write(record: FileRecord): void {
    const { path, tags, names, ...stored } = record;
    if (tags) this.writeTags(path, tags);
    else if (record.skip) {
      this.outlines.remove(path);
      this.sites.remove(path);
    }
    if (names) {
      this.fileNames.put(path, names);
      stored.links = names.defined.length + names.referenced.length;
    } else if (record.skip) this.fileNames.remove(path);
    this.queued(this.files.put(path, stored));
  }

  /**
   * Queues the write of a file's tags, which its record (written after them) then vouches for.
   * Extraction workers write the tags they take, so that only the record travels back.
   */
  writeTags(path: string, tags: FileTags): void {
    this.outlines.put(path, Outline.encode(tags));
    const { refs } = tags;
    this.queued(refs.sites.length > 0 ? this.sites.put(path, { subkinds: refs.subkinds, sites: refs.sites }) : this.sites.remove(path));
  }

  /**
   * Commits a write that changes nothing (the removal of a key no path can be: paths are
   * relative), so that the first real commit of this thread does not pay for starting lmdb-js's
   * writes: on the large corpus a worker's first commit took 26-40 ms, later ones 2-13. Awaited on
   * its own, not through `flushed`, which would take the error of a write queued meanwhile.
   */
  async warmWrites(): Promise<void> {
    await this.files.remove('/');
  }

  private queued(write: Promise<boolean>): void {
    // Transactions commit in order, so the last write settles last; an earlier failure is kept for `flushed`.
    this.lastWrite = write.catch((err: unknown) => {
      this.writeError ??= err;
      return false;
    });
  }

  /** Resolves when every queued write is committed (reads see them); rejects if one failed. */
  async flushed(): Promise<void> {
    await this.lastWrite;
    this.lastWrite = undefined;
    const error = this.writeError;
    this.writeError = undefined;
    if (error !== undefined) throw error;
  }

  async close(): Promise<void> {
    await this.flushed().catch(() => {});
    await this.root.close();
  }
}

/** A stored value, or none when it cannot be decoded (the file is then parsed again, or shown without tags). */
function readSafely<V>(db: Database<V, string>, path: string): V | undefined {
  try {
    return db.get(path);
  } catch {
    return undefined;
  }
}

const LMDB_MAGIC = 0xbeefc0de;

/**
 * LMDB trusts its file: a data file with garbage meta pages crashes the process on open. Check
 * both meta pages (magic number, page size) first, so such a file is rebuilt instead.
 */
function checkDataFile(file: string): void {
  if (!existsSync(file)) return;
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(64);
    if (readSync(fd, head, 0, 64, 0) < 64 || head.readUInt32LE(24) !== LMDB_MAGIC) throw new Error('bad LMDB header');
    const pageSize = head.readUInt32LE(48);
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0 || size < 2 * pageSize) {
      throw new Error('bad LMDB page size or truncated file');
    }
    if (readSync(fd, head, 0, 64, pageSize) < 64 || head.readUInt32LE(24) !== LMDB_MAGIC) throw new Error('bad LMDB header');
  } finally {
    closeSync(fd);
  }
}
