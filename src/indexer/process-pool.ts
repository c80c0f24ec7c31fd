// Child processes (workers/extract-process.ts) that parse the files of a repository's own
// languages: its tag queries, and the grammars its config names. Such a query can crash
// tree-sitter's native runtime (SIGSEGV) or match for minutes inside native code, where no
// timeout of tree-sitter's reaches; a thread stopped there aborts the whole process, and a thread's
// crash is its process's. A child process dies alone, and is killed (SIGKILL) past a batch's
// bound. Each runs one batch at a time, so a death or a kill is that batch's own. Results come
// back with their tags: a child writes to no store.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FileResult } from '../extract/file.js';
import { quoted } from '../errors.js';
import { BatchTimeout, type TaskPool } from './task-pool.js';
import type { BatchTask } from './worker-protocol.js';

const CHILD = fileURLToPath(new URL('../../workers/extract-process.js', import.meta.url));
/** A child's JavaScript heap: a batch's results are a few MB at most; a query gone wild ends there. */
const CHILD_HEAP_MIB = 2048;
/** A child idle this long ends, as an idle parse thread does: a daemon holds no process between edits. */
const IDLE_MS = 30_000;
/** How much of a child's stderr is kept, to say why it died. */
const STDERR_TAIL_CHARS = 2000;

/** What a child sends back for a batch. */
export type ProcessReply = { results: FileResult[] } | { error: string };

/** Every child of this process that runs: killed when the process exits, whatever it is doing. */
const running = new Set<ChildProcess>();
let killedOnExit = false;

/** Kills every extraction child of this process (one stuck in native code never reads a request to stop). */
export function killExtractProcesses(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** One child process and the batch it runs. */
class ExtractProcess {
  private readonly child: ChildProcess;
  private stderr = '';
  private pending: { resolve: (results: FileResult[]) => void; reject: (err: Error) => void } | undefined;
  private boundPassed: number | undefined;
  ended = false;

  constructor() {
    if (!killedOnExit) {
      killedOnExit = true;
      process.once('exit', killExtractProcesses);
    }
    this.child = fork(CHILD, [], { execArgv: [`--max-old-space-size=${CHILD_HEAP_MIB}`], serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    running.add(this.child);
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL_CHARS)));
    this.child.on('message', (reply: ProcessReply) => this.settle('results' in reply ? reply.results : new Error(reply.error)));
    this.child.once('exit', (code, signal) => this.end(signal ? `its process was killed by ${signal}` : `its process exited with status ${code}`));
    this.child.once('error', (err) => this.end(`its process failed: ${err.message}`));
  }

  run(task: BatchTask, boundMs: number | undefined): Promise<FileResult[]> {
    this.boundPassed = undefined;
    this.holdCaller(true);
    return new Promise<FileResult[]>((resolve, reject) => {
      const timer = boundMs === undefined ? undefined : setTimeout(() => {
        this.boundPassed = boundMs;
        this.child.kill('SIGKILL');
      }, boundMs);
      const settled = () => {
        clearTimeout(timer);
        this.holdCaller(false);
      };
      this.pending = { resolve: (results) => (settled(), resolve(results)), reject: (err) => (settled(), reject(err)) };
      this.child.send(task, (err) => err && this.end(`its process could not be sent the batch: ${err.message}`));
    });
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
    running.delete(this.child);
    if (this.boundPassed !== undefined) return this.settle(new BatchTimeout(`its process ran past the batch's bound of ${this.boundPassed} ms and was killed`));
    const said = this.stderr.trim().split('\n').pop();
    this.settle(new Error(said ? `${why}: ${quoted(said)}` : why));
  }

  private settle(outcome: FileResult[] | Error): void {
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) return;
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  }
}

/** Up to `size` child processes, started as batches come and kept for the next ones. */
export class ProcessPool implements TaskPool {
  /** Idle processes, each with the timer that ends it (see IDLE_MS). */
  private readonly idle: Array<{ worker: ExtractProcess; timer: NodeJS.Timeout }> = [];
  private readonly all = new Set<ExtractProcess>();
  /** Batches waiting for a process. */
  private readonly waiting: Array<() => void> = [];
  private busy = 0;
  private closed = false;

  constructor(private readonly size: number) {}

  async run(task: BatchTask, boundMs?: number): Promise<FileResult[]> {
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
      return await worker.run(task, boundMs);
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
