import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
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

/** Makes a cache folder (and its parents) if needed; a path that is a file, or cannot be made, is a 'refused' RepomapError naming it. */
export function ensureCacheDir(dir: string): void {
  try {
    makeFolder(dir);
  } catch (err) {
    if (isFile(dir)) throw new RepomapError('refused', `cache folder ${dir} is a file, not a folder`);
    throw new RepomapError('refused', `cache folder ${dir} cannot be made: ${errorMessage(err)}`);
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
