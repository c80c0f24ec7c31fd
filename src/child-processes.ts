// The child processes repomap starts that must not outlive it (git, the extraction children of
// src/indexer/process-pool.ts): each is adopted here, and whatever is still running when this
// process exits is killed with SIGKILL. A child left behind (a git reading a FIFO, or matching a
// pattern for minutes; a child stuck in a query) would run on, re-parented to pid 1, long after
// the daemon or the map that started it is gone.
import type { ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();
let hooked = false;

/** Tracks `child` until it exits; returns it. Killed by killAll, and at this process's exit. */
export function adopt<T extends ChildProcess>(child: T): T {
  if (child.exitCode !== null || child.signalCode !== null) return child;
  running.add(child);
  const forget = () => running.delete(child);
  child.once('exit', forget);
  child.once('error', forget); // never started (no such program): no exit event follows
  if (!hooked) {
    hooked = true;
    // 'exit' runs on process.exit() and on a natural end (not on a SIGKILL, which nothing survives to handle).
    process.once('exit', killAll);
  }
  return child;
}

/** SIGKILLs every adopted child still running. */
export function killAll(): void {
  for (const child of running) {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone already
    }
  }
  running.clear();
}

/** How many adopted children are running (for tests and logs). */
export function runningChildren(): number {
  return running.size;
}
