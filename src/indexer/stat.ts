import { type Stats, lstatSync, realpathSync, statSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { type FileStat, statOf } from '../records.js';
import type { SkipReason, SkippedFile } from '../api/types.js';
import { errorCode, isAbsent, leadsNowhere } from '../errors.js';

/**
 * What a path is: a file's stat, gone (or a folder), out of reach (see Unreachable), a symlink
 * leading outside the root, a symlink leading nowhere (see leadsNowhere: its target missing, or a
 * loop; skipped as a 'broken symlink'), or something
 * that is not a file to read (a FIFO, a socket, a device, a symlink to a folder: never read).
 */
export type StatResult = FileStat | Unreachable | 'missing' | 'outside' | 'broken' | 'special';

/**
 * A path whose lstat failed though something may be there (EACCES: a folder on its way this user
 * may not search; ELOOP: a loop of symlinks on its way; EIO), with the error's code. Not gone: git
 * lists it, its record is not dropped as a deleted file's, and it is skipped as unreadable (nothing
 * is skipped silently).
 */
export interface Unreachable {
  unreadable: string;
}

/** Whether a stat result is a path out of reach. */
export function isUnreachable(info: StatResult): info is Unreachable {
  return typeof info === 'object' && 'unreadable' in info;
}

/** Whether a stat result is a file's stat: a file to read. */
export function isFileStat(info: StatResult): info is FileStat {
  return typeof info === 'object' && !isUnreachable(info);
}

/** The skip of a path whose stat shows no file to read (and that is not gone). */
export function statSkip(path: string, info: Exclude<StatResult, FileStat | 'missing'>): SkippedFile {
  return typeof info === 'object' ? { path, reason: 'unreadable', detail: info.unreadable } : { path, reason: UNREAD_SKIPS[info] };
}

/** The skip of a path its stat shows is no file to read. */
const UNREAD_SKIPS = { outside: 'symlink outside root', broken: 'broken symlink', special: 'not a regular file' } as const satisfies Record<string, SkipReason>;

/** Files stat'ed between two turns of the event loop (a daemon answers `status` meanwhile). */
export const STAT_CHUNK = 1024;
/** Files stat'ed at once when the disk is read; bounded so a huge tree does not queue thousands of requests. */
const STAT_CONCURRENCY = 64;
/**
 * A chunk slower than this per file is reading inodes from disk (a cold cache, after a reboot):
 * the rest are stat'ed concurrently, as the disk allows. Inodes in memory take a few microseconds
 * each, well under this bound.
 */
const SLOW_STAT_US = 40;
/**
 * Chunks in a row that must be that slow: a first chunk alone also pays for compiling the code,
 * and meets the other threads of a start (the tokenizer loading, git), which can take it over the
 * bar with every inode in memory, where going concurrent would make a warm start's stat slower.
 */
const SLOW_CHUNKS = 2;

export interface StatAllOptions {
  /** Per-file time past which the rest go concurrently (tests set 0 to take that path). */
  slowStatUs?: number;
}

/**
 * The stat of each path. Synchronous calls in chunks, when the inodes are in memory (a warm
 * start: a synchronous lstat costs a fraction of a promise's round trip through the thread pool);
 * concurrent ones when they are not.
 */
export async function statAll(root: string, paths: readonly string[], options: StatAllOptions = {}): Promise<StatResult[]> {
  const results: StatResult[] = [];
  for await (const chunk of statChunks(root, paths, options)) for (const result of chunk) results.push(result);
  return results;
}

/**
 * statAll a chunk at a time, in order, so that a caller can act on the first files (a cold index
 * parses them) while the rest are stat'ed. Between two chunks the event loop turns.
 */
export async function* statChunks(root: string, paths: readonly string[], options: StatAllOptions = {}): AsyncGenerator<StatResult[]> {
  let start = 0;
  const next = () => paths.slice(start, (start += STAT_CHUNK));
  for await (const { results } of statTaken(root, next, options)) yield results;
}

/**
 * The stat of the paths `next` hands out, a chunk at a time until it hands out none (each chunk
 * with its paths): the caller may change what comes next between two chunks (see ParseQueue).
 */
export async function* statTaken(
  root: string,
  next: () => string[],
  { slowStatUs = SLOW_STAT_US }: StatAllOptions = {},
): AsyncGenerator<{ paths: string[]; results: StatResult[] }> {
  let slowChunks = 0;
  for (let chunk = next(); chunk.length > 0; chunk = next()) {
    if (slowChunks >= SLOW_CHUNKS) {
      yield { paths: chunk, results: await mapConcurrent(chunk, STAT_CONCURRENCY, (path) => statInsideRoot(root, path)) };
      continue;
    }
    const started = performance.now();
    const results = chunk.map((path) => statInsideRootSync(root, path));
    const slow = ((performance.now() - started) * 1000) / chunk.length > slowStatUs;
    slowChunks = slow ? slowChunks + 1 : 0;
    yield { paths: chunk, results };
    await new Promise((resume) => setImmediate(resume));
  }
}

/** The stat of a file, following a symlink only when its target stays inside the root. */
function statInsideRootSync(root: string, path: string): StatResult {
  const abs = join(root, path);
  try {
    return classify(root, abs, lstatSync(abs, { throwIfNoEntry: false }));
  } catch (err) {
    return failedStat(err);
  }
}

async function statInsideRoot(root: string, path: string): Promise<StatResult> {
  const abs = join(root, path);
  try {
    return classify(root, abs, await lstat(abs));
  } catch (err) {
    return failedStat(err);
  }
}

/**
 * A path whose stat threw: gone when nothing is there (deleted since discovery, or a folder on its
 * way replaced by a file), else out of reach, not taken for a deletion (see Unreachable).
 */
function failedStat(err: unknown): StatResult {
  return isAbsent(err) ? 'missing' : { unreadable: errorCode(err) };
}

/** A path's result from its lstat (a symlink's target is looked up here: they are few). */
function classify(root: string, abs: string, info: Stats | undefined): StatResult {
  if (!info) return 'missing';
  if (info.isSymbolicLink()) {
    let target: string;
    try {
      target = realpathSync.native(abs);
    } catch (err) {
      // Leading nowhere (see leadsNowhere) or out of reach (EACCES on the way to its target).
      return leadsNowhere(err) ? 'broken' : { unreadable: errorCode(err) };
    }
    if (target !== root && !target.startsWith(root + sep)) return 'outside';
    // A folder's symlink is not followed (see discovery): listed, and skipped as not a file to read.
    info = statSync(target);
    return info.isFile() ? statOf(info) : 'special';
  }
  if (info.isFile()) return statOf(info);
  return info.isDirectory() ? 'missing' : 'special';
}

async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
