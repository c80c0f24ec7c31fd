import { close, open, read } from 'node:fs';
import { join } from 'node:path';

/** Files read ahead of the one being parsed ... */
const AHEAD_FILES = 16;
/** ... and at most this many bytes of them (beyond the first). */
const AHEAD_BYTES = 1024 * 1024;
/** Files up to this size are read into buffers kept for reuse; larger ones into their own. */
const POOLED_BYTES = 64 * 1024;
/** Reusable buffers kept per thread: enough for two lists read at once (a worker's two tasks). */
const POOL_LIMIT = 2 * AHEAD_FILES;

/** What a read ahead gives: the file's bytes, the error reading it, or nothing (read it in place). */
export type ReadOutcome = Buffer | NodeJS.ErrnoException | undefined;

const pool: Buffer[] = [];

/**
 * Reads a list's files ahead of their parsing, on libuv's threads: a parse never waits on a disk
 * that has dropped the file from its cache (on this machine's large corpus a worker spent 8 s of
 * 88 blocked in read(2) when every file was read in its turn). `wanted` says which jobs are read
 * at all (a file past the size limit is skipped unread).
 */
export class ReadAhead {
  private readonly reads: Array<Promise<ReadOutcome> | undefined>;
  private readonly buffers: Array<Buffer | undefined>;
  private next = 0;
  private bytesAhead = 0;

  constructor(
    private readonly root: string,
    private readonly jobs: ReadonlyArray<{ path: string; stat: { size: number } }>,
    private readonly wanted: (index: number) => boolean,
  ) {
    this.reads = new Array(jobs.length);
    this.buffers = new Array(jobs.length);
  }

  /** The bytes of job `index` (valid until `release(index)`), reading further ahead meanwhile. */
  take(index: number): Promise<ReadOutcome> {
    this.fill(index);
    return this.reads[index] ?? Promise.resolve(undefined);
  }

  /** How many jobs the reads have reached (whether read or not wanted). */
  get issued(): number {
    return this.next;
  }

  /** Done with job `index`: its buffer goes back to the pool. */
  release(index: number): void {
    const buffer = this.buffers[index];
    this.reads[index] = undefined;
    this.buffers[index] = undefined;
    if (!buffer) return;
    this.bytesAhead -= buffer.length;
    if (buffer.length === POOLED_BYTES && pool.length < POOL_LIMIT) pool.push(buffer);
  }

  private fill(current: number): void {
    while (this.next < this.jobs.length && this.next - current < AHEAD_FILES && (this.next === current || this.bytesAhead < AHEAD_BYTES)) {
      const index = this.next++;
      if (!this.wanted(index)) continue;
      const { path, stat } = this.jobs[index];
      // One byte more than the stat said: a file that has grown or shrunk since is read in place.
      const buffer = stat.size < POOLED_BYTES ? (pool.pop() ?? Buffer.allocUnsafe(POOLED_BYTES)) : Buffer.allocUnsafe(stat.size + 1);
      this.buffers[index] = buffer;
      this.bytesAhead += buffer.length;
      this.reads[index] = readInto(join(this.root, path), buffer, Math.min(buffer.length, stat.size + 1)).then(
        (length) => (length === stat.size ? buffer.subarray(0, length) : undefined),
        (err: NodeJS.ErrnoException) => err,
      );
    }
  }
}

/** Reads up to `length` bytes of a file from its start: one open, one read, one close on libuv's threads. */
function readInto(file: string, buffer: Buffer, length: number): Promise<number> {
  return new Promise((resolve, reject) => {
    open(file, 'r', (openError, fd) => {
      if (openError) return reject(openError);
      read(fd, buffer, 0, length, 0, (readError, bytesRead) => {
        close(fd, () => (readError ? reject(readError) : resolve(bytesRead)));
      });
    });
  });
}
