// Where a repository's daemon lives: a private runtime folder, a socket and a lock per root.
// Shared by the daemon and the thin client, so it imports nothing heavy.
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepomapError } from '../errors.js';
import { checkOwner, checkPrivateFolder, ensurePrivateFolder } from '../private-folder.js';
import { isProcessAlive, readLockPid } from '../lock-file.js';

export interface DaemonPaths {
  dir: string;
  socket: string;
  lock: string;
}

/** $XDG_RUNTIME_DIR/repomap, or a per-user folder in the temp folder. */
export function runtimeDir(): string {
  const xdg = process.env.XDG_RUNTIME_DIR;
  return xdg ? join(xdg, 'repomap') : join(tmpdir(), `repomap-${process.getuid?.() ?? 'user'}`);
}

export function daemonPaths(realRoot: string, dir: string = runtimeDir()): DaemonPaths {
  const id = createHash('sha256').update(realRoot).digest('hex').slice(0, 16);
  return { dir, socket: join(dir, `${id}.sock`), lock: join(dir, `${id}.lock`) };
}

/** Creates the runtime folder (0700) if needed, and checks it (see checkRuntimeDir). */
export function ensureRuntimeDir(dir: string): void {
  ensurePrivateFolder(dir, RUNTIME_FOLDER);
}

const RUNTIME_FOLDER = 'runtime folder';

/**
 * Refuses a runtime folder anyone but this user could have made or changed (see
 * checkPrivateFolder). Its name is predictable ($TMPDIR/repomap-<uid> when XDG_RUNTIME_DIR is
 * unset), so another local user could create it first and put a socket of their own where a
 * daemon's is looked for. The daemon checks it before it listens, every client before it connects.
 * Throws ENOENT when the folder does not exist (no daemon has run), a 'refused' RepomapError
 * naming the folder and the reason otherwise.
 */
export function checkRuntimeDir(dir: string): void {
  checkPrivateFolder(dir, RUNTIME_FOLDER);
}

/**
 * Refuses a socket in the runtime folder that is not a socket of this user: a client would send
 * its requests (paths, messages) to whoever made it. Throws ENOENT when there is none.
 */
export function checkSocket(socket: string): void {
  const info = lstatSync(socket);
  if (!info.isSocket()) throw new RepomapError('refused', `${socket} is not a socket; refusing to connect`);
  checkOwner(info.uid, `socket ${socket}`);
}

/** The pid of the live daemon holding a root's lock (see daemonPaths), or undefined when none does. */
export function liveDaemonPid(lock: string): number | undefined {
  const pid = readLockPid(lock);
  return pid !== undefined && isProcessAlive(pid) ? pid : undefined;
}

/**
 * The pid of the live daemon holding a root's lock, as liveDaemonPid, when it may be signalled:
 * where /proc tells, the process must be running repomapd (a lock a crash left behind may name a
 * pid the system has given to another process since); elsewhere the lock is taken at its word.
 */
export function signallableDaemonPid(lock: string): number | undefined {
  const pid = liveDaemonPid(lock);
  if (pid === undefined) return undefined;
  let command: string;
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return pid; // no /proc
  }
  return command.includes('repomapd') ? pid : undefined;
}

/** Daemons with a live lock in the runtime folder: pid and socket path. */
export function listDaemons(dir: string = runtimeDir()): Array<{ pid: number; socket: string }> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: Array<{ pid: number; socket: string }> = [];
  for (const name of names.filter((n) => n.endsWith('.lock')).sort()) {
    const pid = liveDaemonPid(join(dir, name));
    if (pid !== undefined) found.push({ pid, socket: join(dir, name.replace(/\.lock$/, '.sock')) });
  }
  return found;
}
