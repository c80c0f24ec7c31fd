import { lstat, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { type DiscoverOptions, comparePaths, discoverFiles } from '../discover/discover.js';
import { DEFAULT_PARSE_TIMEOUT_MS } from '../extract/extract.js';
import type { FileJob, FileStat } from '../extract/file.js';
import { languageForPath } from '../extract/languages.js';
import { TagStore } from '../store/store.js';
import type { FileRecord, SkippedFile } from '../types.js';
import { type ParseRunner, createRunner } from './pool.js';

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
/** Files stat'ed at once; bounded so a huge tree does not open thousands of handles. */
const STAT_CONCURRENCY = 64;

export interface IndexOptions extends DiscoverOptions {
  /** Real path of the repository root. */
  root: string;
  cacheDir: string;
  maxFileBytes?: number;
  parseTimeoutMs?: number;
  /** Parse threads: 1 parses in this thread; more use a worker pool (default 1 here; the CLI defaults to the cores). */
  workers?: number;
  /** A runner to reuse (the daemon keeps one); when given, `workers` is ignored and the runner is not closed. */
  runner?: ParseRunner;
  onNotice?: (message: string) => void;
  /** Called as files needing work are done: done of total. */
  onProgress?: (done: number, total: number) => void;
}

/** Work counts of one indexing pass, for tests and benchmarks. */
export interface IndexStats {
  /** Files discovered (after --exclude), of any language. */
  discovered: number;
  /** Files that went through the parser. */
  parsed: number;
  /** Files whose stored record was reused because mtime and size matched. */
  reusedByStat: number;
  /** Files re-read because mtime or size changed, whose content hash matched: not parsed. */
  reusedByHash: number;
  /** Stored records dropped because their files are gone. */
  removed: number;
}

export interface RepoIndex {
  root: string;
  /** Every discovered path, sorted (source files and others alike). */
  paths: string[];
  /** Records of the files with tags, sorted by path. */
  records: FileRecord[];
  skipped: SkippedFile[];
  stats: IndexStats;
}

/**
 * Discover, then bring the store up to date: reuse what is unchanged, parse what changed (on
 * the pool), drop what is gone. Returns the records the graph is built from.
 */
export async function indexRepository(options: IndexOptions): Promise<RepoIndex> {
  const { root } = options;
  const discovery = await discoverFiles(root, options);
  const store = TagStore.open(options.cacheDir, { onNotice: options.onNotice });
  const runner = options.runner ?? createRunner(options.workers ?? 1);
  try {
    const stats: IndexStats = { discovered: discovery.paths.length, parsed: 0, reusedByStat: 0, reusedByHash: 0, removed: 0 };
    const skipped: SkippedFile[] = [];
    const sources = discovery.paths.filter((path) => {
      if (languageForPath(path)) return true;
      skipped.push({ path, reason: 'no grammar' });
      return false;
    });
    const stats_ = await mapConcurrent(sources, STAT_CONCURRENCY, (path) => statInsideRoot(root, path));

    // Reuse what mtime and size vouch for; everything else is a job for the parser.
    const current = new Map<string, FileRecord>();
    const jobs: FileJob[] = [];
    const previousOf = new Map<string, FileRecord>();
    for (let i = 0; i < sources.length; i++) {
      const path = sources[i];
      const found = stats_[i];
      if (found === 'missing') continue;
      if (found === 'outside') {
        skipped.push({ path, reason: 'symlink outside root' });
        continue;
      }
      const previous = store.get(path);
      if (previous && previous.mtimeMs === found.mtimeMs && previous.size === found.size) {
        stats.reusedByStat++;
        current.set(path, previous);
        continue;
      }
      if (previous) previousOf.set(path, previous);
      jobs.push({ path, stat: found, ...(previous?.hash ? { previousHash: previous.hash } : {}) });
    }

    let done = 0;
    options.onProgress?.(0, jobs.length);
    const results = await runner.run(
      root,
      jobs,
      { maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, parseTimeoutMs: options.parseTimeoutMs ?? DEFAULT_PARSE_TIMEOUT_MS },
      (files) => options.onProgress?.((done += files), jobs.length),
    );
    const changed: FileRecord[] = [];
    for (let i = 0; i < jobs.length; i++) {
      const result = results[i];
      const { path, stat: found } = jobs[i];
      let record: FileRecord;
      if (result.outcome === 'reused') {
        stats.reusedByHash++;
        record = { ...previousOf.get(path)!, mtimeMs: found.mtimeMs, size: found.size };
      } else {
        if (result.outcome === 'parsed') stats.parsed++;
        record = result.record;
      }
      changed.push(record);
      current.set(path, record);
    }

    const records: FileRecord[] = [];
    for (const path of sources) {
      const record = current.get(path);
      if (!record) continue;
      if (record.skip) skipped.push({ path, reason: record.skip, ...(record.detail ? { detail: record.detail } : {}) });
      else records.push(record);
    }
    const present = new Set(sources);
    const removed = store.paths().filter((path) => !present.has(path));
    stats.removed = removed.length;
    store.commit(changed, removed);
    skipped.sort((a, b) => comparePaths(a.path, b.path));
    return { root, paths: discovery.paths, records, skipped, stats };
  } finally {
    if (!options.runner) await runner.close();
    await store.close();
  }
}

/** The stat of a file, following a symlink only when its target stays inside the root. */
async function statInsideRoot(root: string, path: string): Promise<FileStat | 'missing' | 'outside'> {
  const abs = join(root, path);
  try {
    let info = await lstat(abs);
    if (info.isSymbolicLink()) {
      const target = await realpath(abs);
      if (target !== root && !target.startsWith(root + sep)) return 'outside';
      info = await stat(target);
    }
    if (!info.isFile()) return 'missing';
    return { mtimeMs: info.mtimeMs, size: info.size };
  } catch {
    return 'missing'; // deleted since discovery (or a dangling link): not part of the tree
  }
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
