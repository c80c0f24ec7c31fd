import { createHash } from 'node:crypto';
import { closeSync, lstatSync, openSync, rmSync, statSync } from 'node:fs';
import { constants, homedir } from 'node:os';
import { join } from 'node:path';
import { RepomapError, errorMessage } from '../errors.js';
import { makeFolder } from '../paths.js';

/** The default cache folder of a repository: $XDG_CACHE_HOME/repomap/<hash of the root's real path>. */
export function defaultCacheDir(realRoot: string): string {
  const digest = createHash('sha256').update(realRoot).digest('hex').slice(0, 16);
  return join(cacheBase(), digest);
}

/** $XDG_CACHE_HOME/repomap (or ~/.cache/repomap). */
function cacheBase(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'repomap');
}

/**
 * The folder of the tag cache shared by every root (see SharedTags): $REPOMAP_SHARED_CACHE when set
 * (set empty, none); otherwise $XDG_CACHE_HOME/repomap/shared, unless the root's cache folder was
 * given (`--cache-dir`: that root's tags are kept to that folder, as tests and benchmarks want).
 */
export function sharedCacheDir(cacheDirGiven: boolean): string | undefined {
  const set = process.env.REPOMAP_SHARED_CACHE;
  if (set !== undefined) return set === '' ? undefined : set;
  if (cacheDirGiven) return undefined;
  return join(cacheBase(), 'shared');
}

/** The root's tag store's folder in its cache folder (see TagStore). */
export const TAG_STORE_FOLDER = 'tags.lmdb';

/**
 * Makes a cache folder (and its parents) if needed, and with `store` the folder of that LMDB store
 * in it, and checks that this process can write in each (a probe file made and removed: a
 * read-only or another user's folder, or one on a file system that takes no files such as /proc,
 * fails here, not in LMDB). A path that is a file, a folder that cannot be made or written, is a
 * 'refused' RepomapError naming it. The store's folder is made here, never by LMDB: lmdb-js makes
 * a missing one with Node's recursive mkdir, which never returns where mkdir says ENOENT under a
 * parent that exists (/proc). The folders it makes have `mode` (the umask's default when unset).
 */
export function ensureCacheDir(dir: string, store?: string, mode?: number): void {
  for (const folder of store === undefined ? [dir] : [dir, join(dir, store)]) {
    const what = folder === dir ? 'cache folder' : 'tag cache folder';
    try {
      makeFolder(folder, mode);
    } catch (err) {
      if (isFile(folder)) throw new RepomapError('refused', `${what} ${folder} is a file, not a folder`);
      if (isBrokenLink(folder)) throw new RepomapError('refused', `${what} ${folder} is a symlink to nothing`);
      throw new RepomapError('refused', `${what} ${folder} cannot be made: ${errorMessage(err)}`);
    }
    const probe = join(folder, `.repomap-probe-${process.pid}`);
    try {
      closeSync(openSync(probe, 'w'));
      rmSync(probe, { force: true });
    } catch (err) {
      // A folder that is there but takes no new file answers ENOENT on some file systems (/proc).
      const code = (err as NodeJS.ErrnoException).code;
      const reason = code === 'ENOENT' ? 'its file system takes no new files' : osReason(err);
      throw new RepomapError('refused', `${what} ${folder} cannot be written: ${reason}`);
    }
  }
  if (store !== undefined) for (const name of STORE_FILES) checkStoreFile(join(dir, store, name));
}

/** The files of an LMDB store's folder, which LMDB opens for reading and writing. */
export const STORE_FILES = ['data.mdb', 'lock.mdb'] as const;

/**
 * A store's file, when there is one, must be a regular file this process can open to write: LMDB
 * crashes the process (SIGSEGV) on a lock file it cannot open, and a FIFO would block its open.
 */
function checkStoreFile(file: string): void {
  let info;
  try {
    info = lstatSync(file);
  } catch {
    return; // none yet: LMDB makes it
  }
  if (!info.isFile()) throw new RepomapError('refused', `tag cache file ${file} is not a regular file`);
  try {
    closeSync(openSync(file, 'r+'));
  } catch (err) {
    throw new RepomapError('refused', `tag cache file ${file} cannot be written: ${osReason(err)}`);
  }
}

/**
 * An OS error's code and description (`EACCES: permission denied`), without the call and path Node
 * appends to its message: here that is the probe's, which names nothing the user made.
 */
function osReason(err: unknown): string {
  const message = errorMessage(err);
  const { syscall } = err as NodeJS.ErrnoException;
  const at = syscall === undefined ? -1 : message.indexOf(`, ${syscall} '`);
  return at > 0 ? message.slice(0, at) : message;
}

/** The OS errors that refuse access to a file or folder (its permissions, a read-only file system, an immutable file) rather than find it damaged. */
const ACCESS_ERRORS = ['EACCES', 'EPERM', 'EROFS'] as const;

/**
 * Whether an error is the OS refusing access (see ACCESS_ERRORS), as Node's fs reports it (the
 * error's name as its code) or LMDB does (the errno as its code, positive: LMDB's own codes are
 * negative).
 */
export function isAccessError(err: unknown): boolean {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return ACCESS_ERRORS.some((name) => code === name || code === constants.errno[name]);
}

function isBrokenLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink() && !statSync(path, { throwIfNoEntry: false });
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A file's size in bytes; 0 when there is none (a store's data file not made yet). */
export function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
