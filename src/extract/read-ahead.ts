import { closeSync, openSync, read } from 'node:fs';
import { join } from 'node:path';
import { readUpTo } from '../bounded-read.js';

/**
 * Files read ahead of the one being parsed: a read's callback runs when the parsing thread turns
 * its event loop (see indexFiles), so a read must be issued a few turns before it is needed ...
 */
const AHEAD_FILES = 32;
/** ... and at most this many bytes of them (beyond the first). */
const AHEAD_BYTES = 2 * 1024 * 1024;
/** The smallest read buffer; larger ones go by powers of two. */
const MIN_BUFFER_BYTES = 64 * 1024;
/** Buffers of one size kept for reuse, per thread: enough for two lists read at once (a worker's two tasks). */
const POOL_LIMIT = 2 * AHEAD_FILES;

/** A read in place slower than this (plus as much per MB; a cached one takes tens of microseconds) came from the disk, not the page cache ... */
const SLOW_READ_MS = 0.25;
/** ... and after this many such reads, a thread reads ahead. */
const SLOW_READS = 8;

/** What a read gives: the file's bytes, the error reading it, or nothing (read it in place). */
export type ReadOutcome = Buffer | NodeJS.ErrnoException | undefined;

/**
 * Read buffers for reuse, by size. Never one allocated per file: a fresh buffer is memory outside
 * V8's heap, and enough of it makes V8 collect the whole heap (a second or more each time on a
 * thread that holds the graph of a large repository).
 */
const pool = new Map<number, Buffer[]>();

function takeBuffer(bytes: number): Buffer {
  let size = MIN_BUFFER_BYTES;
  while (size < bytes) size *= 2;
  return pool.get(size)?.pop() ?? Buffer.allocUnsafe(size);
}

function giveBack(buffer: Buffer): void {
  let kept = pool.get(buffer.length);
  if (!kept) pool.set(buffer.length, (kept = []));
  if (kept.length < POOL_LIMIT) kept.push(buffer);
}

/**
 * Whether a thread's files come from the disk: told by the time of its reads in place, and kept
 * once known (when some of a tree's files have left the page cache, most have).
 */
export class ReadTiming {
  private slowReads = 0;

  constructor(
    /** Set: read ahead from the start (tests). */
    public fromDisk = false,
    private readonly slowReadMs = SLOW_READ_MS,
  ) {}

  note(ms: number, bytes: number): void {
    if (ms > this.slowReadMs * (1 + bytes / (1024 * 1024)) && ++this.slowReads >= SLOW_READS) this.fromDisk = true;
  }
}

/** This thread's reads. */
const threadTiming = new ReadTiming();

/**
 * Reads a list's files for their parsing: in place, one at a time into one buffer, while they
 * come from the page cache; once reads turn out to wait on the disk, ahead of the parser on
 * libuv's threads, so that a parse never waits for one (files read a few minutes ago may be out of
 * the page cache already; reading ahead costs thread hand-offs, so it waits until reads wait on
 * the disk). `wanted` says which jobs are read at all (a file past the size limit is skipped
 * unread).
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
    private readonly timing = threadTiming,
  ) {
    this.reads = new Array(jobs.length);
    this.buffers = new Array(jobs.length);
  }

  /**
   * The bytes of job `index`, valid until `release(index)`: read ahead (a promise, while further
   * reads are issued), or read in place (at once, into the thread's buffer: use them before the
   * thread reads again).
   */
  take(index: number): ReadOutcome | Promise<ReadOutcome> {
    if (this.timing.fromDisk) {
      this.fill(index);
      return this.reads[index];
    }
    if (!this.wanted(index)) return undefined;
    const started = performance.now();
    try {
      const content = readWhole(join(this.root, this.jobs[index].path));
      this.timing.note(performance.now() - started, content.length);
      return content;
    } catch (err) {
      return err as NodeJS.ErrnoException;
    }
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
    this.bytesAhead -= this.jobs[index].stat.size;
    giveBack(buffer);
  }

  private fill(current: number): void {
    this.next = Math.max(this.next, current);
    while (this.next < this.jobs.length && this.next - current < AHEAD_FILES && (this.next === current || this.bytesAhead < AHEAD_BYTES)) {
      const index = this.next++;
      if (!this.wanted(index)) continue;
      const { path, stat } = this.jobs[index];
      // One byte more than the stat said: a file that has grown or shrunk since is read in place.
      const buffer = takeBuffer(stat.size + 1);
      this.buffers[index] = buffer;
      this.bytesAhead += stat.size;
      this.reads[index] = readInto(join(this.root, path), buffer, Math.min(buffer.length, stat.size + 1)).then(
        (length) => (length === stat.size ? buffer.subarray(0, length) : undefined),
        (err: NodeJS.ErrnoException) => err,
      );
    }
  }
}

/**
 * Reads up to `length` bytes of a file from its start, the read on libuv's threads. The open and
 * the close stay synchronous (the stat before brought the inode in): one read per file is one
 * turn of the event loop, where a chain of three asynchronous calls would take three.
 */
function readInto(file: string, buffer: Buffer, length: number): Promise<number> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    return Promise.reject(err as Error);
  }
  return new Promise((resolve, reject) => {
    read(fd, buffer, 0, length, 0, (readError, bytesRead) => {
      closeSync(fd);
      if (readError) reject(readError);
      else resolve(bytesRead);
    });
  });
}

/** The thread's read buffer: grown to the largest file read, never shrunk (files past maxFileBytes are not read). */
let readBuffer: Buffer = Buffer.allocUnsafe(1 << 20);

/**
 * A file's bytes, read in place into the thread's read buffer (valid until the next call). Into
 * one buffer, not a fresh one per file: readFileSync's allocation and first-touch page faults of a
 * fresh buffer cost more than the read itself.
 */
export function readWhole(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const read = readUpTo(fd, readBuffer);
    readBuffer = read.buffer;
    return read.buffer.subarray(0, read.length);
  } finally {
    closeSync(fd);
  }
}
