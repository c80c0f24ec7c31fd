// Tags shared by every root of a user: a file's tags keyed by its content (git's blob id) and language, so that a
// second clone or work tree of a repository copies what another one parsed instead of parsing it.
import { join } from 'node:path';
import { type Database, type RootDatabase, open } from 'lmdb';
import { errorMessage } from '../errors.js';
import { STORE_FORMAT, type StoredCopy } from './store.js';
import { ensureCacheDir } from './cache-dir.js';
import { WriteThreads } from './write-threads.js';

const META_KEY = 'format';
/**
 * What the keys and values are: the tag store's format, and how keys are made (2: a blob id with the
 * language that parses it; see sharedKey). A store of another format is cleared when opened.
 */
const SHARED_FORMAT = `${STORE_FORMAT} keys 2`;
const opened = new Map<string, SharedTags | undefined>();
/** Copies stored per transaction (see putAll). */
const PUT_BATCH = 256;
/** putAll lets go of the store's map after this many copies (see releasePages): a first index of a large tree maps all of it. */
const RELEASE_EVERY = 8192;

/** The shared store's environment, its one database, and its write threads (see write-threads.ts). */
interface SharedDatabases {
  root: RootDatabase;
  tags: Database<StoredCopy, string>;
  writeThreads: WriteThreads;
}

/**
 * A content-keyed LMDB store beside the per-root ones (which stay complete on their own: a root's
 * store holds its copies, so a shared store lost or cleared costs parses, never a wrong map). Keys
 * are git blob ids (read from git's index for files git takes as unmodified, see GitBlobs) with the
 * language that parses the file (see sharedKey); a value is what a root's store
 * holds of a file apart from its path and stat. Several processes may use it at once (LMDB's
 * locking). Any failure of it is said once and turns it off for the pass: it is an optimization.
 * Invariant: `dbs` is open, or undefined after releasePages until the next read or write opens it.
 */
export class SharedTags {
  private failed = false;

  private constructor(
    readonly dir: string,
    private dbs: SharedDatabases | undefined,
    private readonly onNotice?: (message: string) => void,
  ) {}

  /** The shared store in `dir`, opened once per process (LMDB commits are durable as made); undefined, with a notice, when it cannot be used. */
  static open(dir: string, onNotice?: (message: string) => void): SharedTags | undefined {
    if (opened.has(dir)) return opened.get(dir);
    let shared: SharedTags | undefined;
    try {
      shared = new SharedTags(dir, SharedTags.openNow(dir), onNotice);
    } catch (err) {
      onNotice?.(`repomap: shared tag cache at ${dir} cannot be used (${errorMessage(err)}); every file is parsed`);
    }
    opened.set(dir, shared);
    return shared;
  }

  private static openNow(dir: string): SharedDatabases {
    ensureCacheDir(dir);
    const root = open({ path: join(dir, 'shared.lmdb'), noSubdir: false, compression: true });
    const tags = root.openDB<StoredCopy, string>({ name: 'tags' });
    if (root.get(META_KEY) !== SHARED_FORMAT) {
      tags.clearSync();
      root.putSync(META_KEY, SHARED_FORMAT);
    }
    return { root, tags, writeThreads: WriteThreads.track(root) };
  }

  /** The open databases, opened again after releasePages. */
  private databases(): SharedDatabases {
    this.dbs ??= SharedTags.openNow(this.dir);
    return this.dbs;
  }

  /** The copy stored under a content key. */
  get(key: string): StoredCopy | undefined {
    if (this.failed) return undefined;
    try {
      return this.databases().tags.get(key);
    } catch (err) {
      this.fail(err);
      return undefined;
    }
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
        const { tags } = this.databases();
        await tags.transaction(() => {
          for (const [key, copy] of puts) if (!tags.doesExist(key)) tags.put(key, copy);
        });
      } catch (err) {
        this.fail(err);
      }
    };
    let sinceRelease = 0;
    for await (const entry of copies) {
      if (this.failed) return;
      batch.push(entry);
      if (batch.length < PUT_BATCH) continue;
      sinceRelease += batch.length;
      await commit();
      if (sinceRelease >= RELEASE_EVERY) {
        sinceRelease = 0;
        await this.releasePages();
      }
    }
    await commit();
  }

  /**
   * Lets go of the store's map: the pages a pass read or wrote stay mapped, and count in the
   * process's resident memory, until the environment closes (a pass over a large tree maps most
   * of the store). It is opened again when next read or written. Closed only once lmdb-js's
   * write threads have returned (see write-threads.ts).
   */
  async releasePages(): Promise<void> {
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
