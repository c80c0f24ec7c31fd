import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type FileRecord, type FileStat, statOf } from '../records.js';
import type { SkipReason } from '../api/types.js';
import { errorCode, errorMessage } from '../errors.js';
import { type ExtractOptions, extractTags, isLanguageReady, prepareLanguage } from './extract.js';
import { type LanguageOverride, languageSet } from './user-languages.js';
import { type ReadOutcome, ReadAhead, readWhole } from './read-ahead.js';
import { fileNames } from './refs.js';

/** A line longer than this marks a minified or generated file. */
export const MINIFIED_LINE_LENGTH = 2000;
/** Bytes scanned for a NUL byte to tell binary files. */
const BINARY_SNIFF_BYTES = 8000;

export type { FileStat } from '../records.js';

/** One file to bring up to date: where it is, its stat, and the content hash stored for it, if any. */
export interface FileJob {
  path: string;
  stat: FileStat;
  previousHash?: string;
}

export interface IndexFileOptions extends ExtractOptions {
  /** Files larger than this are skipped unread. */
  maxFileBytes: number;
  /** The repository's own languages and query overrides (see resolveLanguages). */
  languages?: readonly LanguageOverride[];
}

/**
 * parsed: went through the parser; skipped: left out before parsing; reused: the content hash
 * matched `previousHash`, so the stored record stands (with the new mtime).
 */
export type FileResult = { outcome: 'parsed' | 'skipped'; record: FileRecord } | { outcome: 'reused' };

export function contentHash(content: Buffer): string {
  return createHash('sha1').update(content).digest('hex');
}

/** The record of a file skipped unread for its size: made without a parse thread (nothing is read). */
export function tooLargeRecord({ path, stat }: FileJob): FileRecord {
  return { path, ...statOf(stat), hash: '', tags: null, skip: 'too large', detail: `${stat.size} bytes` };
}

/**
 * Turns one file into its record: size and binary checks, content hash, and (unless the hash
 * matches) parsing. The one extraction path, used in-process and by the pool's workers. `preread`
 * is the file as read ahead (see ReadAhead); without it the file is read here.
 */
export function indexFile(root: string, job: FileJob, options: IndexFileOptions, preread?: ReadOutcome): FileResult {
  const { path, stat } = job;
  const base = { path, ...statOf(stat) };
  const skipped = (skip: SkipReason, hash: string, detail?: string): FileResult => ({
    outcome: 'skipped',
    record: { ...base, hash, tags: null, skip, ...(detail ? { detail } : {}) },
  });

  const languages = languageSet(options.languages);
  const lang = languages.forPath(path);
  if (!lang) return skipped('no grammar', '');
  if (stat.size > options.maxFileBytes) return { outcome: 'skipped', record: tooLargeRecord(job) };

  let content: Buffer;
  try {
    if (preread instanceof Error) throw preread;
    content = preread ?? readWhole(join(root, path));
  } catch (err) {
    return skipped('unreadable', '', errorCode(err));
  }
  // The size read now wins over the stat: the file may have changed in between.
  base.size = content.length;
  const hash = contentHash(content);
  if (hash === job.previousHash) return { outcome: 'reused' };
  if (content.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return skipped('binary', hash);
  const source = content.toString('utf8');
  const longLine = longestLine(source);
  if (longLine > MINIFIED_LINE_LENGTH) return skipped('minified', hash, `a line of ${longLine} characters`);

  const result = extractTags(lang, source, options, languages);
  const record: FileRecord = result.ok
    ? { ...base, hash, tags: result.tags, names: fileNames(result.tags), skip: null }
    : { ...base, hash, tags: null, skip: result.skip, detail: result.detail };
  return { outcome: 'parsed', record };
}

/** Whether indexFile reads the file: it has a grammar, and is not too large (the two checks above). */
function isRead(job: FileJob, options: IndexFileOptions): boolean {
  return languageSet(options.languages).forPath(job.path) !== undefined && job.stat.size <= options.maxFileBytes;
}

function longestLine(text: string): number {
  let longest = 0;
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    const length = (end === -1 ? text.length : end) - start;
    if (length > longest) longest = length;
    if (end === -1) return longest;
    start = end + 1;
  }
}

/** indexFile, with any exception turned into a 'parse failed' record: one bad file never fails a batch. */
export function indexFileSafely(root: string, job: FileJob, options: IndexFileOptions, preread?: ReadOutcome): FileResult {
  try {
    return indexFile(root, job, options, preread);
  } catch (err) {
    return failedResult(job, errorMessage(err));
  }
}

/** Files parsed between two turns of the event loop (where the reads ahead complete). */
const YIELD_EVERY_FILES = 8;

/**
 * indexFileSafely over a list (its files read as ReadAhead says), yielding to the event loop now
 * and then: freed trees are only released by finalizers, which run between turns (without this a
 * thread's resident memory grows by GBs), and a daemon parsing in its own thread goes on
 * answering. A file still being read ahead is awaited: a worker's other task parses meanwhile,
 * and so is a WebAssembly grammar's first load (see prepareLanguage).
 */
export async function indexFiles(root: string, jobs: readonly FileJob[], options: IndexFileOptions, onResult: (index: number, result: FileResult) => void): Promise<void> {
  const ahead = new ReadAhead(root, jobs, (i) => isRead(jobs[i], options));
  const languages = languageSet(options.languages);
  for (let i = 0; i < jobs.length; i++) {
    const lang = languages.forPath(jobs[i].path);
    if (lang && !isLanguageReady(lang, languages)) await prepareLanguage(lang, languages);
    let preread = ahead.take(i);
    if (preread instanceof Promise) preread = await preread;
    onResult(i, indexFileSafely(root, jobs[i], options, preread));
    ahead.release(i);
    if (i % YIELD_EVERY_FILES === YIELD_EVERY_FILES - 1) await new Promise((resume) => setImmediate(resume));
  }
}

/** The result for a file whose extraction failed outright (an exception, a dead worker: 'parse failed'; a stopped one: 'query timed out'). */
export function failedResult(job: FileJob, detail: string, skip: SkipReason = 'parse failed'): FileResult {
  const { path, stat } = job;
  return { outcome: 'parsed', record: { path, ...statOf(stat), hash: '', tags: null, skip, detail } };
}
