// Tags shared by every root of a user: a file's tags keyed by its content (git's blob id) and language, so that a
// second clone or work tree of a repository reads what another one parsed instead of parsing it.
import { randomUUID } from 'node:crypto';
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, type RootDatabase, open } from 'lmdb';
import type { FileNames } from '../records.js';
import { RepomapError, errorMessage } from '../errors.js';
import { ensurePrivateFolder } from '../private-folder.js';
import { Outline } from './outline.js';
import { type ContentRecord, STORE_FORMAT, type StoredCopy, type StoredSites } from './stored.js';
import { STORE_FILES, ensureCacheDir, fileSize, isAccessError } from './cache-dir.js';
import { checkDataFile, coverNamedPages, moveAside } from './data-file.js';
import { WriteThreads } from './write-threads.js';

const META_KEY = 'format';
/** The store's folder in its cache folder. */
const STORE_FOLDER = 'shared.lmdb';
/** The store's identity, drawn anew whenever it is cleared: a root whose records read from another one drops them (see TagStore.open). */
const ID_KEY = 'id';
/**
 * What the keys and values are: the tag store's format, and how keys are made and values kept (3:
 * a blob id with the language that parses it, see sharedKey; a database per part, as a root's
 * store has). A store of another format is cleared when opened.
 */
const SHARED_FORMAT = `${STORE_FORMAT} keys 3`;
const opened = new Map<string, SharedTags | undefined>();
/**
 * Copies stored per transaction (see putAll): a transaction's dirty pages (four trees' of them) are
 * memory the process may keep after the commit, so transactions stay small.
 */
const PUT_BATCH = 64;
/** putAll lets go of the store's map after this many copies (see releasePages): a first index of a large tree maps all of it. */
const RELEASE_EVERY = 8192;

/** The shared store's environment, its databases (a root store's, keyed by content), and its write threads (see write-threads.ts). */
interface SharedDatabases {
  root: RootDatabase;
  records: Database<ContentRecord, string>;
  names: Database<FileNames, string>;
  outlines: Database<Buffer, string>;
  sites: Database<StoredSites, string>;
  writeThreads: WriteThreads;
}

/**
 * A content-keyed LMDB store beside the per-root ones. Keys are git blob ids (read from git's index
 * for files git takes as unmodified, see GitBlobs) with the language that parses the file (see
 * sharedKey); the values are what a root's store holds of a file apart from its path and stat, in
 * the same four databases. A root's record of a file found here points to it by key (see
 * TagStore.writeReference) and is read from here in place: a second clone copies nothing but its
 * paths and stats. Entries are never removed, only all at once when the store is cleared (another
 * format), which gives it a new `id`: a root whose records point into a store of another id drops
 * them and parses those files again. Several processes may use it at once (LMDB's locking). Any
 * failure of it is said once and turns it off until the process ends.
 * Invariant: `dbs` is open, or undefined after releasePages until the next read or write opens it.
 */
export class SharedTags {
  private failed = false;
  /** putAll calls under way: the map is not let go of under a transaction. */
  private writing = 0;

  private constructor(
    readonly dir: string,
    /** Drawn when the store was made or last cleared (see ID_KEY). */
    readonly id: string,
    private dbs: SharedDatabases | undefined,
    private readonly onNotice?: (message: string) => void,
  ) {}

  /**
   * The shared store in `dir`, opened once per process (LMDB commits are durable as made);
   * undefined, with a notice, when it cannot be used. The folder must be this user's and private
   * (see checkPrivateFolder): its entries become any root's tags. A store whose data file is
   * damaged is moved aside, with a notice, and a new one made.
   */
  static open(dir: string, onNotice?: (message: string) => void): SharedTags | undefined {
    if (opened.has(dir)) return opened.get(dir);
    let shared: SharedTags | undefined;
    try {
      ensurePrivateFolder(dir, 'shared tag cache folder', { tighten: true });
      try {
        shared = SharedTags.openOrHeal(dir, onNotice);
      } catch (err) {
        onNotice?.(`repomap: shared tag cache at ${dir} cannot be used (${errorMessage(err)}); every file is parsed`);
      }
    } catch (err) {
      onNotice?.(`repomap: ${errorMessage(err)}; every file is parsed`);
    }
    opened.set(dir, shared);
    return shared;
  }

  /** The store, opened; a damaged one (see checkDataFile, and what LMDB finds as it opens) moved aside and a new one opened in its place. */
  private static openOrHeal(dir: string, onNotice: ((message: string) => void) | undefined): SharedTags {
    let dbs: SharedDatabases;
    try {
      dbs = SharedTags.openNow(dir);
    } catch (err) {
      // A file the OS refuses, or one that is no regular file (see ensureCacheDir), is not moved aside: it is not the store's damage.
      if (isAccessError(err) || err instanceof RepomapError) throw err;
      const folder = join(dir, STORE_FOLDER);
      onNotice?.(`repomap: shared tag cache at ${folder} is damaged (${errorMessage(err)}); ${moveAside(folder, 'shared tag cache')}, a new one is made`);
      dbs = SharedTags.openNow(dir);
    }
    return new SharedTags(dir, dbs.root.get(ID_KEY) as string, dbs, onNotice);
  }

  /**
   * Opens the store, its data file checked first (see checkDataFile): LMDB maps it and trusts it.
   * Its folder is 0700 and its files 0600 (tightened when an earlier version made them readable to
   * others); LMDB makes its files with the mode it likes, in the folder nobody else can enter.
   */
  private static openNow(dir: string): SharedDatabases {
    ensureCacheDir(dir, STORE_FOLDER, 0o700);
    const folder = join(dir, STORE_FOLDER);
    keepPrivate(folder, 0o700);
    checkDataFile(join(folder, 'data.mdb'));
    const root = open({ path: folder, noSubdir: false, compression: true });
    try {
      for (const name of STORE_FILES) keepPrivate(join(folder, name), 0o600);
      const dbs = {
        root,
        records: root.openDB<ContentRecord, string>({ name: 'records' }),
        names: root.openDB<FileNames, string>({ name: 'names' }),
        outlines: root.openDB<Buffer, string>({ name: 'outlines', encoding: 'binary' }),
        sites: root.openDB<StoredSites, string>({ name: 'sites' }),
        writeThreads: WriteThreads.track(root),
      };
      if (root.get(META_KEY) !== SHARED_FORMAT || typeof root.get(ID_KEY) !== 'string') {
        // A store of an older format kept every part of a file in one database. The id goes last: a
        // crash before it leaves a store that is cleared again.
        root.openDB({ name: 'tags' }).clearSync();
        for (const db of [dbs.records, dbs.names, dbs.outlines, dbs.sites]) db.clearSync();
        root.putSync(META_KEY, SHARED_FORMAT);
        root.putSync(ID_KEY, randomUUID());
        coverPages(root, folder);
      }
      return dbs;
    } catch (err) {
      try {
        root.close();
      } catch {
        // a damaged environment may not close cleanly: it is moved aside all the same
      }
      throw err;
    }
  }

  /**
   * The open databases, opened again after releasePages: the same store (its id), or a failure
   * (see fail) when another took its place meanwhile (moved aside as damaged by another process).
   */
  private databases(): SharedDatabases {
    if (!this.dbs) {
      const dbs = SharedTags.openNow(this.dir);
      this.dbs = dbs;
      if (dbs.root.get(ID_KEY) !== this.id) throw new Error('another shared tag cache took its place while it was closed');
    }
    return this.dbs;
  }

  /** Reads from the store; a failure turns it off (see fail). */
  private read<T>(get: (dbs: SharedDatabases) => T | undefined): T | undefined {
    if (this.failed) return undefined;
    try {
      return get(this.databases());
    } catch (err) {
      this.fail(err);
      return undefined;
    }
  }

  /** The size of the store's data file: the most of it that its map can hold resident. */
  dataBytes(): number {
    return fileSize(join(this.dir, STORE_FOLDER, 'data.mdb'));
  }

  /** The record stored under a content key. */
  record(key: string): ContentRecord | undefined {
    return this.read((dbs) => dbs.records.get(key));
  }

  /** The names of the file stored under a content key. */
  names(key: string): FileNames | undefined {
    return this.read((dbs) => dbs.names.get(key));
  }

  /** The outline of the file stored under a content key. */
  outline(key: string): Outline | undefined {
    return this.read((dbs) => Outline.read(dbs.outlines, key));
  }

  /** The reference sites of the file stored under a content key. */
  sites(key: string): StoredSites | undefined {
    return this.read((dbs) => dbs.sites.get(key));
  }

  /**
   * Stores copies under their content keys (keys already there are left as they are: same content,
   * same tags), PUT_BATCH to a transaction: a transaction's puts are held in memory until it
   * commits, and a cold index of a large tree has hundreds of megabytes of them. The pages a
   * transaction reads (the tree it adds to) stay mapped: the map is let go of every RELEASE_EVERY
   * copies. `copies` may be produced asynchronously (a producer that reads another store lets go
   * of that one's map as it goes); it is read no further once the store has failed.
   */
  async putAll(copies: Iterable<[string, StoredCopy]> | AsyncIterable<[string, StoredCopy]>): Promise<void> {
    let batch: Array<[string, StoredCopy]> = [];
    const commit = async () => {
      const puts = batch;
      batch = [];
      if (this.failed || puts.length === 0) return;
      try {
        const { root, records, names, outlines, sites } = this.databases();
        // The record last: one vouches for its parts (and all of a transaction commits, or none).
        await records.transaction(() => {
          for (const [key, copy] of puts) {
            if (records.doesExist(key)) continue;
            if (copy.names) names.put(key, copy.names);
            if (copy.outline) outlines.put(key, copy.outline);
            if (copy.sites) sites.put(key, copy.sites);
            records.put(key, copy.record);
          }
        });
        coverPages(root, join(this.dir, STORE_FOLDER));
      } catch (err) {
        this.fail(err);
      }
    };
    let sinceRelease = 0;
    this.writing++;
    try {
      for await (const entry of copies) {
        if (this.failed) return;
        batch.push(entry);
        if (batch.length < PUT_BATCH) continue;
        sinceRelease += batch.length;
        await commit();
        if (sinceRelease >= RELEASE_EVERY) {
          sinceRelease = 0;
          await this.release();
        }
      }
      await commit();
    } finally {
      this.writing--;
    }
  }

  /**
   * Lets go of the store's map: the pages a pass read or wrote stay mapped, and count in the
   * process's resident memory, until the environment closes (a pass over a large tree maps most
   * of the store). It is opened again when next read or written. Closed only once lmdb-js's
   * write threads have returned (see write-threads.ts).
   */
  async releasePages(): Promise<void> {
    // A putAll under way lets go of it itself, between its transactions.
    if (this.writing === 0) await this.release();
  }

  private async release(): Promise<void> {
    const dbs = this.dbs;
    if (!dbs) return;
    this.dbs = undefined;
    try {
      await dbs.writeThreads.idle();
      await dbs.root.close();
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    this.failed = true;
    this.onNotice?.(`repomap: shared tag cache at ${this.dir} failed (${errorMessage(err)}); not used until the next start`);
  }
}

/**
 * Extends the data file to every page its meta pages name (see coverNamedPages), in a write
 * transaction, after each commit: another process opening the store checks its size (see
 * checkDataFile), and a commit that left it short would look truncated to it.
 */
function coverPages(root: RootDatabase, folder: string): void {
  root.transactionSync(() => coverNamedPages(join(folder, 'data.mdb')));
}

/** Takes group's and others' access off a file or folder of the store that has any (made by an earlier version). */
function keepPrivate(path: string, mode: number): void {
  const info = statSync(path, { throwIfNoEntry: false });
  if (info && (info.mode & 0o077) !== 0) chmodSync(path, mode);
}
