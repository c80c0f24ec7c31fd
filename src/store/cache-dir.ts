import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The default cache folder of a repository: $XDG_CACHE_HOME/repomap/<hash of the root's real path>. */
export function defaultCacheDir(realRoot: string): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const digest = createHash('sha256').update(realRoot).digest('hex').slice(0, 16);
  return join(base, 'repomap', digest);
}
