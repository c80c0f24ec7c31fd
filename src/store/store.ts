import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, type RootDatabase, open } from 'lmdb';
import type { FileRecord } from '../types.js';

/** Bump when the shape of stored records or the extraction changes: older stores are rebuilt. */
export const STORE_FORMAT = 2;
const META_KEY = 'format';

type StoredRecord = Omit<FileRecord, 'path'>;

export interface StoreOptions {
  /** Receives one-line notices (a store rebuilt, and why). */
  onNotice?: (message: string) => void;
}

/**
 * The persistent tag store: one LMDB record per path (mtime, size, content hash, tags), plus a
 * format version. An old or corrupt store is rebuilt, never a crash.
 */
export class TagStore {
  private lastWrite: Promise<boolean> | undefined;
  private writeError: unknown;

  private constructor(
    private readonly root: RootDatabase,
    private readonly files: Database<StoredRecord, string>,
  ) {}

  static open(cacheDir: string, options: StoreOptions = {}): TagStore {
    const path = join(cacheDir, 'tags.lmdb');
    mkdirSync(cacheDir, { recursive: true });
    try {
      const store = TagStore.openAt(path);
      const format = store.root.get(META_KEY) as unknown;
      if (format === STORE_FORMAT) return store;
      if (format !== undefined) {
        options.onNotice?.(`repomap: tag cache format ${String(format)} is older than ${STORE_FORMAT}; rebuilding it`);
      }
      store.files.clearSync();
      store.root.putSync(META_KEY, STORE_FORMAT);
      return store;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      options.onNotice?.(`repomap: tag cache at ${path} is unreadable (${reason}); rebuilding it`);
      rmSync(path, { force: true, recursive: true });
      rmSync(`${path}-lock`, { force: true });
      const store = TagStore.openAt(path);
      store.root.putSync(META_KEY, STORE_FORMAT);
      return store;
    }
  }

  private static openAt(path: string): TagStore {
    checkDataFile(join(path, 'data.mdb'));
    const root = open({ path, noSubdir: false, compression: true });
    const files = root.openDB<StoredRecord, string>({ name: 'files' });
    // Touch the database so that a corrupt file fails here, inside open()'s recovery.
    for (const _ of files.getKeys({ limit: 1 })) break;
    return new TagStore(root, files);
  }

  get(path: string): FileRecord | undefined {
    let stored: StoredRecord | undefined;
    try {
      stored = this.files.get(path);
    } catch {
      return undefined; // an undecodable record is as good as none: the file is parsed again
    }
    return stored ? { path, ...stored } : undefined;
  }

  /** Whether nothing is stored yet (a first index). */
  isEmpty(): boolean {
    for (const _ of this.files.getKeys({ limit: 1 })) return false;
    return true;
  }

  /** Every stored path, in key order. */
  paths(): string[] {
    return [...this.files.getKeys()] as string[];
  }

  /** Writes records and removes paths in one transaction: a crash leaves all or none of it. */
  commit(records: readonly FileRecord[], removed: readonly string[] = []): void {
    if (records.length === 0 && removed.length === 0) return;
    this.files.transactionSync(() => {
      for (const { path, ...stored } of records) this.files.putSync(path, stored);
      for (const path of removed) this.files.removeSync(path);
    });
  }

  /**
   * Queues a record's write. lmdb-js encodes it now and batches queued writes into transactions
   * it commits off this thread, each all or nothing; `flushed` waits for them.
   */
  write(record: FileRecord): void {
    const { path, ...stored } = record;
    // Transactions commit in order, so the last write settles last; an earlier failure is kept for `flushed`.
    this.lastWrite = this.files.put(path, stored).catch((err: unknown) => {
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
