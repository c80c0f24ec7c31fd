// Tags shared by every root of a user: a file's tags keyed by its content (git's blob id), so that a
// second clone or work tree of a repository copies what another one parsed instead of parsing it.
import { join } from 'node:path';
import { type Database, type RootDatabase, open } from 'lmdb';
import { errorMessage } from '../errors.js';
import { STORE_FORMAT, type StoredCopy } from './store.js';
import { ensureCacheDir } from './cache-dir.js';

const META_KEY = 'format';
const opened = new Map<string, SharedTags | undefined>();
/** Copies stored per transaction (see putAll). */
const PUT_BATCH = 256;

/**
 * A content-keyed LMDB store beside the per-root ones (which stay complete on their own: a root's
 * store holds its copies, so a shared store lost or cleared costs parses, never a wrong map). Keys
 * are git blob ids of files git takes as unmodified (see GitBlobs); a value is what a root's store
 * holds of a file apart from its path and stat. Several processes may use it at once (LMDB's
 * locking). Any failure of it is said once and turns it off for the pass: it is an optimization.
 */
export class SharedTags {
  private failed = false;

  private constructor(
    readonly dir: string,
    private readonly root: RootDatabase,
    private readonly tags: Database<StoredCopy, string>,
    private readonly onNotice?: (message: string) => void,
  ) {}

  /** The shared store in `dir`, opened once per process (and never closed: LMDB commits are durable as made); undefined, with a notice, when it cannot be used. */
  static open(dir: string, onNotice?: (message: string) => void): SharedTags | undefined {
    if (opened.has(dir)) return opened.get(dir);
    const shared = SharedTags.openNow(dir, onNotice);
    opened.set(dir, shared);
    return shared;
  }

  private static openNow(dir: string, onNotice?: (message: string) => void): SharedTags | undefined {
    try {
      ensureCacheDir(dir);
      const root = open({ path: join(dir, 'shared.lmdb'), noSubdir: false, compression: true });
      const tags = root.openDB<StoredCopy, string>({ name: 'tags' });
      if (root.get(META_KEY) !== STORE_FORMAT) {
        tags.clearSync();
        root.putSync(META_KEY, STORE_FORMAT);
      }
      return new SharedTags(dir, root, tags, onNotice);
    } catch (err) {
      onNotice?.(`repomap: shared tag cache at ${dir} cannot be used (${errorMessage(err)}); every file is parsed`);
      return undefined;
    }
  }

  /** The copy stored under a content key. */
  get(key: string): StoredCopy | undefined {
    if (this.failed) return undefined;
    try {
      return this.tags.get(key);
    } catch (err) {
      this.fail(err);
      return undefined;
    }
  }

  /**
   * Stores copies under their content keys (keys already there are left as they are: same content,
   * same tags), PUT_BATCH to a transaction: a transaction's puts are held in memory until it
   * commits, and a cold index of a large tree has hundreds of megabytes of them.
   */
  async putAll(copies: Iterable<[string, StoredCopy]>): Promise<void> {
    let batch: Array<[string, StoredCopy]> = [];
    const commit = async () => {
      const puts = batch;
      batch = [];
      if (this.failed || puts.length === 0) return;
      try {
        await this.tags.transaction(() => {
          for (const [key, copy] of puts) if (!this.tags.doesExist(key)) this.tags.put(key, copy);
        });
      } catch (err) {
        this.fail(err);
      }
    };
    for (const entry of copies) {
      batch.push(entry);
      if (batch.length >= PUT_BATCH) await commit();
    }
    await commit();
  }

  private fail(err: unknown): void {
    this.failed = true;
    this.onNotice?.(`repomap: shared tag cache at ${this.dir} failed (${errorMessage(err)}); not used until the next start`);
  }
}
