// Lock files held by a process: one daemon per root, one eval per tag cache. A lock file holds its
// holder's pid; one whose holder died is taken over.
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * Whether a process with this pid exists (another user's counts), a zombie not: a killed holder
 * that nobody reaped yet (an orphan under a slow init) is dead, though its pid still answers.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** Whether Linux's /proc says the process is a zombie (state Z); false where there is no /proc. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name, which is in parentheses and may hold any character.
    return stat[stat.lastIndexOf(')') + 2] === 'Z';
  } catch {
    return false;
  }
}

/** The pid in a lock file, or undefined when there is none or it is unreadable. */
export function readLockPid(lock: string): number | undefined {
  try {
    const pid = Number(readFileSync(lock, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes a lock for this process: created exclusively; a lock left by a dead process is removed
 * and taken. Returns the pid of the live holder when another process has it.
 */
export function acquireLock(lock: string): { ok: true } | { ok: false; holder: number } {
  // The lock appears with its pid already in it (a hard link to a file written first): a starter
  // that finds it never reads it empty and takes a live holder's lock for a dead one's.
  const written = `${lock}.${process.pid}`;
  writeFileSync(written, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(written, lock);
        return { ok: true };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const holder = readLockPid(lock);
        if (holder !== undefined && holder !== process.pid && isProcessAlive(holder)) return { ok: false, holder };
        try {
          unlinkSync(lock); // stale: its holder died without cleaning up
        } catch {
          // another starter removed it first
        }
      }
    }
  } finally {
    unlinkSync(written);
  }
  throw new Error(`could not take the lock ${lock}`);
}

/** Removes the lock if this process holds it. */
export function releaseLock(lock: string): void {
  if (readLockPid(lock) === process.pid) {
    try {
      unlinkSync(lock);
    } catch {
      // already gone
    }
  }
}
