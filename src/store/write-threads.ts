// Knowing when lmdb-js's write threads are done with an environment, so that closing it is safe.
//
// lmdb-js (3.x) runs each asynchronous transaction on a thread of libuv's pool and settles the
// transaction's writes as soon as its commit is visible. The thread is not done then: it goes on to
// notify commit listeners under a lock that the environment owns. `close()` waits for the writes,
// not for the thread, so a close in that window frees the lock under the thread and the process
// aborts ("The futex facility returned an unexpected error code", or a segmentation fault). The
// thread's completion callback on the JavaScript thread is the last thing lmdb-js runs for it:
// counting threads started and completed tells when none is left.
import type { RootDatabase } from 'lmdb';

/** lmdb-js's native environment: `startWriting(address, callback)` queues one write thread. */
interface NativeEnv {
  startWriting?: (address: number, callback: (status: number) => unknown) => unknown;
}

/** The statuses lmdb-js's write thread reports while it runs; any other is its completion (0, or an error code). */
const PROGRESS_STATUSES = new Set([1, 2]);
/** How long `idle` waits at most: a completion it could not tell from progress must not hold a close forever. */
const IDLE_BOUND_MS = 2000;

/** Counts the write threads of one environment. */
export class WriteThreads {
  /** Write threads started since tracking began. */
  started = 0;
  /** Write threads started and not yet completed. */
  running = 0;
  private waiters: Array<() => void> = [];

  /** Tracks the write threads `root` starts from now on (none, if lmdb-js's internals are not as expected: closing is then as lmdb-js does it). */
  static track(root: RootDatabase): WriteThreads {
    const threads = new WriteThreads();
    const env = (root as unknown as { env?: NativeEnv }).env;
    const startWriting = env?.startWriting;
    if (env === undefined || typeof startWriting !== 'function') return threads;
    // The method is read-only on the prototype; an own property of the instance shadows it.
    Object.defineProperty(env, 'startWriting', {
      configurable: true,
      value: (address: number, callback: (status: number) => unknown) => {
        threads.started++;
        threads.running++;
        return startWriting.call(env, address, (status: number) => {
          try {
            return callback(status);
          } finally {
            if (!PROGRESS_STATUSES.has(status)) threads.completed();
          }
        });
      },
    });
    return threads;
  }

  /** Settles when no write thread is running (or after a bound, see IDLE_BOUND_MS). */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, IDLE_BOUND_MS);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private completed(): void {
    this.running = Math.max(0, this.running - 1);
    if (this.running > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
