import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FileRecord, SkipReason } from '../types.js';
import { type ExtractOptions, extractTags } from './extract.js';
import { languageForPath } from './languages.js';

/** A line longer than this marks a minified or generated file. */
export const MINIFIED_LINE_LENGTH = 2000;
/** Bytes scanned for a NUL byte to tell binary files. */
const BINARY_SNIFF_BYTES = 8000;

export interface FileStat {
  mtimeMs: number;
  size: number;
}

export interface IndexFileOptions extends ExtractOptions {
  /** Files larger than this are skipped unread. */
  maxFileBytes: number;
}

export interface IndexFileResult {
  record: FileRecord;
  /** parsed: went through the parser; reused: content hash matched `previous`; skipped: left out before parsing. */
  outcome: 'parsed' | 'reused' | 'skipped';
}

export function contentHash(content: Buffer): string {
  return createHash('sha1').update(content).digest('hex');
}

/**
 * Turns one file into its record: size and binary checks, content hash, and (unless the hash
 * matches `previous`) parsing. The one extraction path, used in-process and by the workers.
 */
export async function indexFile(
  absPath: string,
  path: string,
  stat: FileStat,
  previous: FileRecord | undefined,
  options: IndexFileOptions,
): Promise<IndexFileResult> {
  const base = { path, mtimeMs: stat.mtimeMs, size: stat.size };
  const skipped = (skip: SkipReason, hash: string, detail?: string): IndexFileResult => ({
    record: { ...base, hash, tags: null, skip, ...(detail ? { detail } : {}) },
    outcome: 'skipped',
  });

  const lang = languageForPath(path);
  if (!lang) return skipped('no grammar', '');
  if (stat.size > options.maxFileBytes) return skipped('too large', '', `${stat.size} bytes`);

  let content: Buffer;
  try {
    content = await readFile(absPath);
  } catch (err) {
    return skipped('unreadable', '', (err as NodeJS.ErrnoException).code ?? String(err));
  }
  // The size seen now wins over the stat: the file may have changed in between.
  base.size = content.length;
  const hash = contentHash(content);
  if (previous && previous.hash === hash && previous.size === content.length) {
    return { record: { ...previous, ...base }, outcome: 'reused' };
  }
  if (content.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return skipped('binary', hash);
  const source = content.toString('utf8');
  const longLine = longestLine(source);
  if (longLine > MINIFIED_LINE_LENGTH) return skipped('minified', hash, `a line of ${longLine} characters`);

  const result = extractTags(lang, source, options);
  const record: FileRecord = result.ok
    ? { ...base, hash, tags: result.tags, skip: null }
    : { ...base, hash, tags: null, skip: result.skip, detail: result.detail };
  return { record, outcome: 'parsed' };
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
