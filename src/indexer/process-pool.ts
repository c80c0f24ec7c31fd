// Child processes (workers/extract-process.ts) that parse the files of a repository's own
// languages: its tag queries, and the grammars its config names. Such a query can crash
// tree-sitter's native runtime (SIGSEGV) or match for minutes inside native code, where no
// timeout of tree-sitter's reaches; a thread stopped there aborts the whole process, and a thread's
// crash is its process's. A child process dies alone, and is killed (SIGKILL) once a file has run
// past its bound. A child parses one batch at a time and sends each file's result as it has it, so
// the file it was on when it died or was killed is known: that file alone is charged (`query timed
// out` at once; `parse failed` when a fresh child dies on it again), and the rest of the batch goes
// on in a fresh child. Results come back with their tags: a child writes to no store.
import { type ChildProcess, fork } from 'node:child_process';
import { adopt } from '../child-processes.js';
import { fileURLToPath } from 'node:url';
import type { FileResult } from '../extract/file.js';
import type { FileBounds } from '../extract/parse-bound.js';
import { shownQuoted } from '../paths.js';
import type { BatchTask } from './worker-protocol.js';

const CHILD = fileURLToPath(new URL('../../workers/extract-process.js', import.meta.url));
/** A child's JavaScript heap: a batch's results are a few MB at most; a query gone wild ends there. */
const CHILD_HEAP_MIB = 2048;
/** A child idle this long ends, as an idle parse thread does: a daemon holds no process between edits. */
const IDLE_MS = 30_000;
/** How much of a child's stderr is kept, to say why it died. */
const STDERR_TAIL_CHARS = 2000;

/** What a child sends: that it has loaded the batch's languages, the next file's result, or that the batch is done. */
export type ProcessReply = { ready: true } | { result: FileResult } | { done: true };

/** Where a child stopped short of a batch's end: the index of the file it was on, and why. */
interface Stop {
  at: number;
  /** Set when it was killed past that file's bound: the bound. */
  timedOutAfterMs: number | undefined;
  reason: string;
}

/** One child process and the batch it runs. */
class ExtractProcess {
  private readonly child: ChildProcess;
  private stderr = '';
  private pending: { onResult: (index: number, result: FileResult) => void; done: (stop?: Stop) => void; next: number; armTimer: (boundMs?: number) => void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timedOutAfterMs: number | undefined;
  ended = false;

  constructor() {
    // Adopted: killed when this process exits, whatever the child is doing (see child-processes.ts).
    this.child = adopt(fork(CHILD, [], { execArgv: [`--max-old-space-size=${CHILD_HEAP_MIB}`], serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] }));
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL_CHARS)));
    this.child.on('message', (reply: ProcessReply) => this.receive(reply));
    this.child.once('exit', (code, signal) => this.end(signal ? `its process was killed by ${signal}` : `its process exited with status ${code}`));
    this.child.once('error', (err) => this.end(`its process failed: ${err.message}`));
  }

  /**
   * Runs the batch's jobs from index `from` on, handing each result to `onResult`; resolves with
   * nothing once all are done, or with where the child stopped (it is then dead).
   */
  run(batch: BatchTask, from: number, bounds: FileBounds | undefined, onResult: (index: number, result: FileResult) => void): Promise<Stop | undefined> {
    this.holdCaller(true);
    return new Promise<Stop | undefined>((resolve) => {
      // Until the child says it is ready, the bound is its start's; then each file's.
      const armTimer = (boundMs = bounds?.fileMs) => {
        clearTimeout(this.timer);
        if (boundMs === undefined) return;
        this.timer = setTimeout(() => {
          this.timedOutAfterMs = boundMs;
          this.child.kill('SIGKILL');
        }, boundMs);
      };
      const done = (stop?: Stop) => {
        clearTimeout(this.timer);
        this.pending = undefined;
        this.holdCaller(false);
        resolve(stop);
      };
      this.pending = { onResult, done, next: from, armTimer };
      armTimer(bounds?.startMs);
      this.child.send({ ...batch, jobs: batch.jobs.slice(from) }, (err) => err && this.end(`its process could not be sent the batch: ${err.message}`));
    });
  }

  private receive(reply: ProcessReply): void {
    const pending = this.pending;
    if (!pending) return;
    if ('done' in reply) return pending.done();
    if ('ready' in reply) return pending.armTimer();
    pending.onResult(pending.next, reply.result);
    pending.next++;
    pending.armTimer();
  }

  /** An idle child (and its channel) keeps no caller's process from exiting. */
  private holdCaller(hold: boolean): void {
    if (hold) {
      this.child.ref();
      this.child.channel?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
    }
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  private end(why: string): void {
    if (this.ended) return;
    this.ended = true;
    const pending = this.pending;
    if (!pending) return;
    const said = this.stderr.trim().split('\n').pop();
    pending.done({ at: pending.next, timedOutAfterMs: this.timedOutAfterMs, reason: said ? `${why}: ${shownQuoted(said)}` : why });
  }
}

/** Up to `size` child processes, started as batches come and kept for the next ones. */
export class ProcessPool {
  /** Idle processes, each with the timer that ends it (see IDLE_MS). */
  private readonly idle: Array<{ worker: ExtractProcess; timer: NodeJS.Timeout }> = [];
  private readonly all = new Set<ExtractProcess>();
  /** Batches waiting for a process. */
  private readonly waiting: Array<() => void> = [];
  private busy = 0;
  private closed = false;

  constructor(private readonly size: number) {}

  /**
   * Every job's result, in job order. A file its child was on past its bound is skipped as 'query
   * timed out'; one a child died on is tried again in a fresh child (a death there may not have
   * been its own: an out-of-memory), and recorded as failed when that one dies on it too. Rejects
   * only when the pool is closed.
   */
  async run(batch: BatchTask, bounds: FileBounds | undefined): Promise<FileResult[]> {
    const results: FileResult[] = [];
    const diedOn = new Set<number>();
    for (let from = 0; from < batch.jobs.length; ) {
      const stop = await this.withProcess((worker) => worker.run(batch, from, bounds, (index, result) => (results[index] = result)));
      if (!stop) break;
      const job = batch.jobs[stop.at];
      const { failedResult } = await import('../extract/file.js');
      if (stop.timedOutAfterMs !== undefined) {
        results[stop.at] = failedResult(job, `its process ran past its bound of ${stop.timedOutAfterMs} ms and was killed`, 'query timed out');
      } else if (diedOn.has(stop.at)) {
        results[stop.at] = failedResult(job, `a worker died parsing it (${stop.reason})`);
      } else {
        diedOn.add(stop.at);
        from = stop.at;
        continue;
      }
      from = stop.at + 1;
    }
    return results;
  }

  /** Runs `work` on an idle process or a new one, once fewer than `size` are busy. */
  private async withProcess<T>(work: (worker: ExtractProcess) => Promise<T>): Promise<T> {
    if (this.busy >= this.size) await new Promise<void>((go) => this.waiting.push(go));
    if (this.closed) throw new Error('the extraction processes were stopped');
    this.busy++;
    const kept = this.idle.pop();
    clearTimeout(kept?.timer);
    let worker = kept?.worker;
    if (!worker || worker.ended) {
      worker = new ExtractProcess();
      this.all.add(worker);
    }
    try {
      return await work(worker);
    } finally {
      this.busy--;
      if (worker.ended) this.all.delete(worker);
      else this.keepIdle(worker);
      this.waiting.shift()?.();
    }
  }

  private keepIdle(worker: ExtractProcess): void {
    const timer = setTimeout(() => {
      this.idle.splice(this.idle.findIndex((entry) => entry.worker === worker), 1);
      this.all.delete(worker);
      worker.kill();
    }, IDLE_MS);
    timer.unref();
    this.idle.push({ worker, timer });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const { timer } of this.idle) clearTimeout(timer);
    for (const worker of this.all) worker.kill();
    for (const go of this.waiting.splice(0)) go();
  }
}
