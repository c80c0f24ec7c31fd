import { join } from 'node:path';
import { type Database, type RootDatabase, open } from 'lmdb';
import { type FileNames, type FileRecord, type FileStat, type FileTags, statMatches } from '../records.js';
import { Outline } from './outline.js';
import { TAG_STORE_FOLDER, ensureCacheDir, fileSize, isAccessError } from './cache-dir.js';
import { RepomapError, errorMessage } from '../errors.js';
import { WriteThreads } from './write-threads.js';
import { OpenDataFile, checkDataFile, coverNamedPages, moveAside } from './data-file.js';
import { SharedTags } from './shared.js';
import { type ContentRecord, STORE_FORMAT, type StoredCopy, type StoredRecord, type StoredSites } from './stored.js';

export { STORE_FORMAT, type StoredCopy } from './stored.js';
const META_KEY = 'format';
const LANGUAGES_KEY = 'languages';
/** The id of the shared store that the store's records point into, noted before the first such record is written (see SharedTags.id and checkReferences). */
const SHARED_KEY = 'shared';

/** The LMDB environment of a store and its four databases. */
interface Databases {
  root: RootDatabase;
  files: Database<StoredRecord, string>;
  fileNames: Database<FileNames, string>;
  outlines: Database<Buffer, string>;
  sites: Database<StoredSites, string>;
  /** Closing waits for these (see write-threads.ts). */
  writeThreads: WriteThreads;
  /** The data file LMDB maps, checked before the store is used again (see TagStore.damage). */
  dataFile: OpenDataFile | undefined;
}

/**
 * Opens the databases of the store in `cacheDir`, each read once so that a damaged file fails here
 * (inside open()'s recovery). `checked`: the thread that owns the store checked its data file
 * already (see TagStore.attach), and this thread does not again: while the owner has it open, the
 * file may be shorter than its meta pages say (see coverNamedPages), which is no damage.
 */
function openDatabases(cacheDir: string, checked = false): Databases {
  const path = join(cacheDir, TAG_STORE_FOLDER);
  if (!checked) checkDataFile(join(path, 'data.mdb'));
  const root = open({ path, noSubdir: false, compression: true });
  const files = root.openDB<StoredRecord, string>({ name: 'files' });
  const fileNames = root.openDB<FileNames, string>({ name: 'names' });
  const outlines = root.openDB<Buffer, string>({ name: 'outlines', encoding: 'binary' });
  const sites = root.openDB<StoredSites, string>({ name: 'sites' });
  for (const db of [files, fileNames, outlines, sites]) for (const _ of db.getKeys({ limit: 1 })) break;
  return { root, files, fileNames, outlines, sites, writeThreads: WriteThreads.track(root), dataFile: OpenDataFile.at(join(path, 'data.mdb')) };
}

/**
 * A failure of the store itself (a commit or a transaction that LMDB refused): the file is
 * damaged in a way the checks at open could not see. The index pass that meets one moves the
 * store aside and rebuilds it (see TagStore.rebuild); one that reaches a caller is `internal`.
 */
export class StoreError extends RepomapError {
  override name = 'StoreError';
  constructor(
    readonly dir: string,
    cause: unknown,
  ) {
    super('internal', `tag cache at ${join(dir, TAG_STORE_FOLDER)} failed: ${errorMessage(cause)}`, { cause });
  }
}

/**
 * Whether an error is the store's: a StoreError, or one LMDB raised (an MDB_ code, a failed commit),
 * also when it crossed from a worker thread, which writes tags into the same store and whose
 * errors arrive as plain Errors.
 */
export function isStoreFailure(err: unknown): boolean {
  if (err instanceof StoreError) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return err.name === 'StoreError' || /^(Commit failed|MDB_)|tag cache at .* failed/.test(err.message) || (typeof code === 'number' && code <= -30600 && code >= -30800);
}

export interface StoreOptions {
  /** Receives one-line notices (a store rebuilt, and why). */
  onNotice?: (message: string) => void;
  /** The tag cache shared by every root (see SharedTags; sharedCacheDir gives the default); none when unset. */
  sharedCacheDir?: string;
}

/**
 * The persistent tag store, in four LMDB databases keyed by path: the records (mtime, size,
 * content hash, skip), the names the graph reads (read when it links them: a warm start that
 * reads its related graph from the cache decodes none of them, millions of strings in a large
 * repository), the outlines (definitions and their lines, read when a file is shown) and the
 * reference sites (read by symbol lookups); plus a format version. A path's tags and names are
 * written before its record (by a worker, or in the same batch), so a record never vouches for
 * any that are not there. A record may instead point to a content key of the shared store (see
 * writeReference), from which its names and tags are then read. An old or corrupt store is
 * rebuilt, never a crash.
 */
export class TagStore {
  private lastWrite: Promise<boolean> | undefined;
  private writeError: unknown;
  /** How many times the map was let go of (see releasePages): a work count. */
  private released = 0;
  /** Names, outlines and sites read since the map was last let go of: each maps a page of it or more. */
  valuesRead = 0;
  /** The content keys of records written by writeReference and not known to be committed yet, by path (see referenceOf). */
  private uncommitted = new Map<string, string>();
  /**
   * Whether records may point into the shared store (its id is noted: see checkReferences): only
   * then does a read of a file's names or tags read its record first, and do the shared store's
   * pages count among this store's (see dataBytes).
   */
  private pointsIntoShared = false;
  /** Why the data file cannot be read safely, once damage found it so (see damage). */
  private damaged: string | undefined;

  private constructor(
    /** The cache directory the store lives in. */
    readonly dir: string,
    /** Replaced when the map is let go (see releasePages). */
    private dbs: Databases,
    /** The shared store, where the records written by writeReference read their names and tags. */
    readonly shared: SharedTags | undefined,
  ) {}

  static open(cacheDir: string, options: StoreOptions = {}): TagStore {
    ignoreOrphanCommitFailures();
    const path = join(cacheDir, TAG_STORE_FOLDER);
    ensureCacheDir(cacheDir, TAG_STORE_FOLDER);
    const shared = options.sharedCacheDir ? SharedTags.open(options.sharedCacheDir, options.onNotice) : undefined;
    let store: TagStore | undefined;
    try {
      store = TagStore.openAt(cacheDir, shared);
      const format = store.dbs.root.get(META_KEY) as unknown;
      if (format !== STORE_FORMAT) {
        if (format !== undefined) {
          options.onNotice?.(`repomap: tag cache format ${String(format)} is older than ${STORE_FORMAT}; rebuilding it`);
        }
        for (const db of [store.dbs.files, store.dbs.fileNames, store.dbs.outlines, store.dbs.sites]) db.clearSync();
        store.dbs.root.putSync(META_KEY, STORE_FORMAT);
      }
      store.checkReferences(options.onNotice);
      return store;
    } catch (err) {
      const reason = errorMessage(err);
      try {
        store?.dbs.root.close();
      } catch {
        // a damaged environment may not close cleanly: it is moved aside all the same
      }
      // A file the OS refuses (another user's, immutable) is no damage: moving it aside would not
      // let this process write the store either, and would take another user's cache away.
      if (isAccessError(err)) throw new RepomapError('refused', `tag cache at ${path} cannot be opened: ${reason}`);
      options.onNotice?.(`repomap: tag cache at ${path} is unreadable (${reason}); ${moveAside(path, 'tag cache')}, rebuilding it`);
      return TagStore.fresh(cacheDir, shared);
    }
  }

  /**
   * Records written by writeReference read from the shared store whose id the store notes: when
   * that is not the shared store in use (none, or one cleared since, or another folder), they are
   * dropped, and their files are parsed (or found in the shared store in use) again.
   */
  private checkReferences(onNotice: StoreOptions['onNotice']): void {
    const noted = this.dbs.root.get(SHARED_KEY) as unknown;
    if (noted === undefined) return;
    if (noted === this.shared?.id) {
      this.pointsIntoShared = true;
      return;
    }
    const pointing: string[] = [];
    for (const { key, value } of this.dbs.files.getRange()) if (value.shared) pointing.push(key);
    this.remove(pointing);
    this.dbs.root.removeSync(SHARED_KEY);
    if (pointing.length > 0) {
      const now = this.shared ? `the one at ${this.shared.dir} is another` : 'none is in use';
      onNotice?.(`repomap: ${pointing.length} files of the tag cache at ${this.dir} read their tags from a shared tag cache, and ${now}; they are indexed again`);
    }
  }

  /**
   * Moves a store that failed during an index pass aside (closing this one first), and opens a
   * new, empty one in its place. Threads that attached to the old one must be gone first: they
   * would go on writing into it.
   */
  static async rebuild(failed: TagStore, error: unknown, options: StoreOptions = {}): Promise<TagStore> {
    await failed.close().catch(() => {}); // a failed store may not close cleanly: it is moved aside all the same
    const reason = errorMessage(error);
    options.onNotice?.(`repomap: ${reason}; ${moveAside(join(failed.dir, TAG_STORE_FOLDER), 'tag cache')}, rebuilding it from the source files`);
    return TagStore.fresh(failed.dir, failed.shared);
  }

  /** A new, empty store where the one before was moved aside or removed (see moveAside). */
  private static fresh(cacheDir: string, shared: SharedTags | undefined): TagStore {
    ensureCacheDir(cacheDir, TAG_STORE_FOLDER);
    const store = TagStore.openAt(cacheDir, shared);
    store.dbs.root.putSync(META_KEY, STORE_FORMAT);
    return store;
  }

  /**
   * The store a worker thread writes tags into, once TagStore.open has checked it (in the
   * thread that owns it): no format check, no rebuild.
   */
  static attach(cacheDir: string): TagStore {
    return new TagStore(cacheDir, openDatabases(cacheDir, true), undefined);
  }

  private static openAt(cacheDir: string, shared: SharedTags | undefined): TagStore {
    return new TagStore(cacheDir, openDatabases(cacheDir), shared);
  }

  /**
   * Lets go of the store's map and opens it again. The pages a pass wrote or read stay mapped,
   * and count in the process's resident memory (the whole store after a first index) until the
   * map goes; pages read afterwards come back one at a time. Call it when no other thread of the
   * process has the store open (a pool's workers write into it), else the map stays.
   */
  async releasePages(): Promise<void> {
    await this.flushed();
    await this.closeDatabases();
    this.dbs = openDatabases(this.dir);
    // The shared store's pages that its records' reads mapped go too.
    await this.shared?.releasePages();
    this.released++;
    this.valuesRead = 0;
  }

  /** How many times this store let go of its map (see releasePages). */
  get releases(): number {
    return this.released;
  }

  /**
   * The size of the store's data file, and of the shared store's when records point into it: the
   * most of them that their maps can hold resident (releasePages lets go of both).
   */
  dataBytes(): number {
    const shared = this.pointsIntoShared && this.shared ? this.shared.dataBytes() : 0;
    return fileSize(join(this.dir, TAG_STORE_FOLDER, 'data.mdb')) + shared;
  }

  /**
   * Why the store's data file can no longer be read safely (removed, replaced, cut or overwritten
   * since it was opened: see OpenDataFile.damage), as the StoreError that TagStore.rebuild takes;
   * undefined while it can be. A store found damaged is closed without touching its map.
   */
  damage(): StoreError | undefined {
    this.damaged ??= this.dbs.dataFile?.damage();
    return this.damaged === undefined ? undefined : new StoreError(this.dir, new Error(this.damaged));
  }

  /** A path's record, without its names and tags (see names, outline and referenceSites). */
  get(path: string): FileRecord | undefined {
    const stored = readSafely(this.dbs.files, path);
    return stored ? { path, ...stored } : undefined;
  }

  /** The names an indexed file defines and references (what the graph reads of it). */
  names(path: string): FileNames | undefined {
    this.valuesRead++;
    const key = this.referenceOf(path);
    return key ? this.shared!.names(key) : readSafely(this.dbs.fileNames, path);
  }

  /** The outline of an indexed file. */
  outline(path: string): Outline | undefined {
    this.valuesRead++;
    const key = this.referenceOf(path);
    if (key) return this.shared!.outline(key);
    try {
      return Outline.read(this.dbs.outlines, path);
    } catch {
      return undefined; // a read LMDB refused: shown without tags, as a corrupt value is
    }
  }

  /** The reference sites of an indexed file; their names are its record's referenced names (which the graph holds). */
  referenceSites(path: string): StoredSites | undefined {
    this.valuesRead++;
    const key = this.referenceOf(path);
    return key ? this.shared!.sites(key) : readSafely(this.dbs.sites, path);
  }

  /**
   * The shared store's key that a path's record reads its names and tags by (see writeReference),
   * the record committed or not yet; none when no record may point there (no record is read then).
   */
  private referenceOf(path: string): string | undefined {
    if (!this.pointsIntoShared) return undefined;
    return this.uncommitted.get(path) ?? readSafely(this.dbs.files, path)?.shared;
  }

  /** Whether nothing is stored yet (a first index). */
  isEmpty(): boolean {
    return this.guarded(() => {
      for (const _ of this.dbs.files.getKeys({ limit: 1 })) return false;
      return true;
    });
  }

  /** How many records are stored (counted by LMDB, none decoded). */
  count(): number {
    // mdb_stat's count, not getCount: a walk of every entry, which maps the records' pages (100 MB on a kernel).
    return this.guarded(() => (this.dbs.files.getStats() as { entryCount: number }).entryCount);
  }

  /** Every stored path, in key order. */
  paths(): string[] {
    return this.guarded(() => [...this.dbs.files.getKeys()] as string[]);
  }

  /** Runs a read over many pages (or a write): an LMDB error there is the store's (see StoreError). */
  private guarded<T>(read: () => T): T {
    try {
      return read();
    } catch (err) {
      throw new StoreError(this.dir, err);
    }
  }

  /**
   * Which language (and query signature) parsed each extension's files when they were stored (see
   * Reconciler.dropStaleLanguages); undefined when never noted.
   */
  languageSignatures(): Readonly<Record<string, string>> | undefined {
    return this.guarded(() => this.dbs.root.get(LANGUAGES_KEY) as Record<string, string> | undefined);
  }

  setLanguageSignatures(signatures: Readonly<Record<string, string>>): void {
    this.guarded(() => this.dbs.root.putSync(LANGUAGES_KEY, signatures));
  }

  /** Removes paths (records and tags) in one transaction: a crash leaves all or none of it. */
  remove(paths: readonly string[]): void {
    if (paths.length === 0) return;
    try {
      this.dbs.files.transactionSync(() => {
        for (const path of paths) for (const db of [this.dbs.outlines, this.dbs.sites, this.dbs.fileNames, this.dbs.files]) db.removeSync(path);
      });
      for (const path of paths) this.uncommitted.delete(path);
      // Removals free pages their transaction dirtied, which may leave the file short of its named
      // pages: another process opening the store now (a map beside a daemon) would take it for a truncated one.
      this.coverNamedPages();
    } catch (err) {
      throw new StoreError(this.dir, err);
    }
  }

  /** Extends the data file to every page its meta pages name (see coverNamedPages), in a write transaction. */
  private coverNamedPages(): void {
    this.dbs.root.transactionSync(() => coverNamedPages(join(this.dir, TAG_STORE_FOLDER, 'data.mdb')));
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
    this.uncommitted.delete(path);
    if (tags) this.writeTags(path, tags);
    else if (record.skip) {
      this.queued(this.dbs.outlines.remove(path));
      this.queued(this.dbs.sites.remove(path));
    }
    if (names) {
      this.queued(this.dbs.fileNames.put(path, names));
      stored.links = names.defined.length + names.referenced.length;
    } else if (record.skip) this.queued(this.dbs.fileNames.remove(path));
    this.queued(this.dbs.files.put(path, stored));
  }

  /**
   * What is stored of a path, as it is stored (the outline encoded): a copy for another root (see
   * SharedTags). None when the stored record is not at the stat `at` (a later pass stored another
   * version of the file).
   */
  storedCopy(path: string, at: FileStat): StoredCopy | undefined {
    const stored = readSafely(this.dbs.files, path);
    // A record that points into the shared store has nothing there to add.
    if (!stored || stored.shared || !statMatches(stored, at)) return undefined;
    const { mtimeMs: _mtime, size: _size, ctimeMs: _ctime, ...content } = stored;
    if (stored.skip) return { record: content };
    const names = readSafely(this.dbs.fileNames, path);
    const outline = this.dbs.outlines.getBinary(path);
    if (!names || !outline) return undefined;
    const sites = readSafely(this.dbs.sites, path);
    return { record: content, names, outline, ...(sites ? { sites } : {}) };
  }

  /**
   * Queues the write of a path's record, with this stat, that points to the content the shared store
   * holds under `key` (its `record` read from there): the path's names and tags are read from the
   * shared store in place, none copied. Returns the record as a stored one comes (its names left
   * in the shared store, counted by `links`): once `flushed`, a graph reads them when it needs
   * them, as it reads a reused file's.
   */
  writeReference(path: string, stat: FileStat, key: string, record: ContentRecord): FileRecord {
    // Field by field: V8 copies an object spread that does not open its literal on a slow path,
    // and a second clone makes one of these per file.
    const stored: StoredRecord = { hash: record.hash, skip: record.skip, mtimeMs: stat.mtimeMs, size: stat.size, ctimeMs: stat.ctimeMs, shared: key };
    if (record.links !== undefined) stored.links = record.links;
    if (record.detail !== undefined) stored.detail = record.detail;
    if (!this.pointsIntoShared) {
      // Committed with or before the record (writes commit in order).
      this.queued(this.dbs.root.put(SHARED_KEY, this.shared!.id));
      this.pointsIntoShared = true;
    }
    this.uncommitted.set(path, key);
    this.queued(this.dbs.files.put(path, stored));
    return Object.assign(stored, { path });
  }

  /**
   * Queues the write of a file's tags, which its record (written after them) then vouches for.
   * Extraction workers write the tags they take, so that only the record travels back.
   */
  writeTags(path: string, tags: FileTags): void {
    this.queued(this.dbs.outlines.put(path, Outline.encode(tags)));
    const { refs } = tags;
    this.queued(refs.sites.length > 0 ? this.dbs.sites.put(path, { subkinds: refs.subkinds, sites: refs.sites }) : this.dbs.sites.remove(path));
  }

  /**
   * Commits a write that changes nothing (the removal of a key no path can be: paths are
   * relative), so that the first real commit of this thread does not pay for starting lmdb-js's
   * writes (a first commit costs several times a later one). Awaited on its own, not through
   * `flushed`, which would take the error of a write queued meanwhile.
   */
  async warmWrites(): Promise<void> {
    await this.dbs.files.remove('/');
  }

  /**
   * Every write goes through here: a failed commit rejects each of its writes (and lmdb-js's
   * `commitError` with them), and one rejection left unhandled would end the process.
   */
  private queued(write: Promise<boolean>): void {
    // Transactions commit in order, so the last write settles last; an earlier failure is kept for `flushed`.
    (write as { flushed?: Promise<unknown> }).flushed?.catch(() => {}); // settles with the commit: its failure is reported there
    const settled = write.catch((err: unknown) => {
      (err as { commitError?: Promise<unknown> }).commitError?.catch(() => {}); // the same failure as err, kept below
      this.writeError ??= err;
      return false;
    });
    this.lastWrite = settled;
  }

  /**
   * Resolves when every write queued so far is committed, or failed (a failure is left for flushed
   * to report): this thread's reads see them then, and the tags a worker committed before them.
   */
  async written(): Promise<void> {
    await this.lastWrite;
  }

  /** Resolves when every queued write is committed (reads see them); rejects if one failed. */
  async flushed(): Promise<void> {
    const last = this.lastWrite;
    await last;
    // A write queued meanwhile is waited for by the next call.
    if (this.lastWrite === last) {
      this.lastWrite = undefined;
      this.uncommitted.clear();
    }
    const error = this.writeError;
    this.writeError = undefined;
    if (error !== undefined) throw new StoreError(this.dir, error);
  }

  async close(): Promise<void> {
    // A failed write is the pass's to report, through flushed; at close no caller is left to tell, and closing goes on.
    await this.flushed().catch(() => {});
    await this.closeDatabases();
  }

  /**
   * Closes the environment once lmdb-js's write threads have let go of it (see write-threads.ts),
   * its data file first made to hold every page its meta pages name (see coverNamedPages).
   */
  private async closeDatabases(): Promise<void> {
    await this.dbs.writeThreads.idle();
    // A transaction on a file cut short reads past its end: a SIGBUS.
    if (this.damaged === undefined) {
      try {
        // In a write transaction: no writer of any process allocates a page meanwhile.
        this.coverNamedPages();
      } catch {
        // a store that takes no write (damaged) is closed as it is: the check at the next open judges it
      }
    }
    await this.dbs.root.close();
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

let orphansIgnored = false;

/**
 * lmdb-js makes a promise for the instruction that starts each write batch and keeps it to itself:
 * when the batch's commit fails, that promise is rejected with nobody to handle it, and Node ends
 * the process. The failure reaches the writes of the batch (see queued), so that rejection alone
 * is let go; any other unhandled rejection is thrown as Node would, unless the process has
 * listeners of its own.
 */
function ignoreOrphanCommitFailures(): void {
  if (orphansIgnored) return;
  orphansIgnored = true;
  process.on('unhandledRejection', (reason) => {
    if (reason instanceof Error && 'commitError' in reason && reason.message.startsWith('Commit failed')) {
      (reason.commitError as Promise<unknown>).catch(() => {}); // the write's own rejection reports the failure
      return;
    }
    // Another listener (an application using the library) decides what its rejections do.
    if (process.listenerCount('unhandledRejection') > 1) return;
    throw reason;
  });
}
