// A folder only this user may have made or changed: the daemon's runtime folder (its sockets) and
// the shared tag cache (tags every repository reads as its own). Imports nothing heavy: the thin
// client checks the runtime folder with it.
import { chmodSync, lstatSync } from 'node:fs';
import { RepomapError, errorMessage } from './errors.js';
import { makeFolder } from './paths.js';

export interface PrivateFolderOptions {
  /**
   * A folder of this user that others may read but not write (0755, as earlier versions made the
   * shared cache) is made 0700 rather than refused: nobody else could have changed it.
   */
  tighten?: boolean;
}

/** Makes the folder (0700, its missing parents too) if needed, and checks it (see checkPrivateFolder). `what` names it in an error. */
export function ensurePrivateFolder(dir: string, what: string, options: PrivateFolderOptions = {}): void {
  try {
    makeFolder(dir, 0o700);
  } catch (err) {
    throw new RepomapError('refused', `${what} ${dir} cannot be made: ${errorMessage(err)}`);
  }
  checkPrivateFolder(dir, what, options);
}

/**
 * Refuses a folder anyone but this user could have made or changed: a symlink, one owned by another
 * user, one open to group or others (not 0700; with `tighten`, one they can only read is made 0700).
 * Where its name is predictable, another local user could make it first and put files of their own
 * where this user's are looked for. Throws ENOENT when the folder does not exist, a 'refused'
 * RepomapError naming the folder (`what` and its path), the rule it breaks and the refusal otherwise.
 */
export function checkPrivateFolder(dir: string, what: string, { tighten = false }: PrivateFolderOptions = {}): void {
  const info = lstatSync(dir);
  if (info.isSymbolicLink()) throw new RepomapError('refused', `${what} ${dir} is a symlink; refusing to use it`);
  if (!info.isDirectory()) throw new RepomapError('refused', `${what} ${dir} is not a directory`);
  checkOwner(info.uid, `${what} ${dir}`);
  const open = info.mode & 0o077;
  if (open === 0) return;
  if (tighten && (open & 0o022) === 0) {
    chmodSync(dir, 0o700);
    return;
  }
  throw new RepomapError('refused', `${what} ${dir} is open to group or others (mode ${(info.mode & 0o777).toString(8)}, not 700); refusing to use it`);
}

/** Refuses what another user owns (`what` names it). */
export function checkOwner(owner: number, what: string): void {
  const uid = process.getuid?.();
  if (uid !== undefined && owner !== uid) throw new RepomapError('refused', `${what} belongs to another user (uid ${owner}); refusing to use it`);
}
