import { realpath, stat } from 'node:fs/promises';
import { comparePaths } from './discover/discover.js';
import { UserError } from './errors.js';
import { ReferenceGraph } from './graph/graph.js';
import { importantFiles } from './important.js';
import { type IndexOptions, type IndexStats, type RepoIndex, indexRepository } from './index/indexer.js';
import { mentionedFiles, mentionedIdentifiers } from './mentions.js';
import { type PackEntry, packMap } from './pack/pack.js';
import { DEFAULT_ENCODING, tokenCounter } from './pack/tokens.js';
import { rankDefinitions } from './rank/rank.js';
import type { MapBlock } from './render/render.js';
import { defaultCacheDir } from './store/cache-dir.js';
import type { FileTags, SkipReason, SkippedFile } from './types.js';
import { toRootRelative } from './paths.js';

export const DEFAULT_TOKENS = 1024;
export const DEFAULT_MAX_TOKENS = 8192;
/** With no chat files the model knows nothing of the repository yet: the budget grows (Aider's map_mul_no_files). */
export const NO_CHAT_MULTIPLIER = 8;

/** What a map is asked for. Paths are relative to the root (or absolute, inside it). */
export interface MapRequest {
  /** Files the model already has in full: they steer the ranking and are not rendered. */
  chatFiles?: readonly string[];
  mentionedFiles?: readonly string[];
  mentionedIdents?: readonly string[];
  /** The user's request as free text: identifiers and file names are taken from it. */
  message?: string;
  /** Token budget (default 1024), multiplied by 8 when there are no chat files, up to maxTokens. */
  tokens?: number;
  maxTokens?: number;
  /** tiktoken encoding used to count tokens (default cl100k_base). */
  encoding?: string;
}

export interface RepoMap {
  root: string;
  text: string;
  /** Exact token count of `text`. */
  tokens: number;
  budget: number;
  /** Files in map order with their shown lines (0-based line numbers) and PageRank. */
  files: MapBlock[];
  /** Skipped files counted by reason, in a fixed order. */
  skipped: Partial<Record<SkipReason, number>>;
  skippedFiles: SkippedFile[];
  stats: IndexStats;
  request: { chatFiles: string[]; mentionedFiles: string[]; mentionedIdents: string[] };
}

export interface BuildMapOptions extends MapRequest, Omit<IndexOptions, 'root' | 'cacheDir'> {
  root: string;
  /** Where the tag store lives (default: $XDG_CACHE_HOME/repomap/<hash of the root>). */
  cacheDir?: string;
}

/** Resolves and checks a repository root: its real path, which must be a directory. */
export async function resolveRoot(root: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(root);
  } catch {
    throw new UserError(`repository root ${root} does not exist`);
  }
  if (!(await stat(real)).isDirectory()) throw new UserError(`repository root ${root} is not a directory`);
  return real;
}

/** Index (with the persistent cache) and map a repository in-process. */
export async function buildMap(options: BuildMapOptions): Promise<RepoMap> {
  const root = await resolveRoot(options.root);
  const cacheDir = options.cacheDir ?? defaultCacheDir(root);
  const index = await indexRepository({ ...options, root, cacheDir });
  const graph = ReferenceGraph.fromRecords(index.records);
  return mapFromIndex(index, graph, options);
}

/** The map of an indexed repository for one request. The daemon calls this on its hot graph. */
export function mapFromIndex(index: RepoIndex, graph: ReferenceGraph, request: MapRequest): RepoMap {
  const budget = budgetFor(request);
  const countTokens = tokenCounter(request.encoding ?? DEFAULT_ENCODING);
  const known = new Set(index.paths);
  const chatFiles = new Set((request.chatFiles ?? []).map((path) => toRootRelative(index.root, path)));
  const mentionedIdents = new Set(request.mentionedIdents ?? []);
  const mentioned = new Set(
    (request.mentionedFiles ?? []).map((path) => toRootRelative(index.root, path)).filter((path) => known.has(path)),
  );
  if (request.message) {
    for (const ident of mentionedIdentifiers(request.message)) mentionedIdents.add(ident);
    for (const path of mentionedFiles(request.message, index.paths, chatFiles)) mentioned.add(path);
  }

  const ranking = rankDefinitions(graph.compile({ chatFiles, mentionedIdents }), {
    chatFiles,
    mentionedFiles: mentioned,
    mentionedIdents,
  });
  const tagsByPath = new Map<string, FileTags>();
  for (const record of index.records) if (record.tags) tagsByPath.set(record.path, record.tags);
  const rankOf = (path: string) => ranking.fileRank.get(path) ?? 0;

  // Candidates in order: important files, ranked definitions, then every other file by rank.
  const important = importantFiles(index.paths).filter((path) => !chatFiles.has(path));
  const entries: PackEntry[] = important.map((path) => ({ path, rank: rankOf(path) }));
  for (const { path, ident } of ranking.definitions) {
    const tags = tagsByPath.get(path);
    for (const def of tags?.defs ?? []) if (def.name === ident) entries.push({ path, rank: rankOf(path), def });
  }
  const byRank = [...tagsByPath.keys()]
    .filter((path) => !chatFiles.has(path))
    .sort((a, b) => rankOf(b) - rankOf(a) || comparePaths(a, b));
  for (const path of byRank) entries.push({ path, rank: rankOf(path) });

  // Important files are named in the map even without a grammar: they are not skipped.
  const shownAnyway = new Set(important);
  const skippedFiles = index.skipped.filter((file) => !shownAnyway.has(file.path));
  const skipped = countSkips(skippedFiles);
  const packed = packMap(entries, (path) => tagsByPath.get(path), budget, countTokens, skipFooter(skipped));
  return {
    root: index.root,
    text: packed.text,
    tokens: packed.tokens,
    budget,
    files: packed.blocks,
    skipped,
    skippedFiles,
    stats: index.stats,
    request: {
      chatFiles: [...chatFiles].sort(comparePaths),
      mentionedFiles: [...mentioned].sort(comparePaths),
      mentionedIdents: [...mentionedIdents].sort(comparePaths),
    },
  };
}

/** The token budget of a request, validated. */
export function budgetFor(request: MapRequest): number {
  const tokens = positiveInteger(request.tokens ?? DEFAULT_TOKENS, 'tokens');
  const maxTokens = positiveInteger(request.maxTokens ?? DEFAULT_MAX_TOKENS, 'max-tokens');
  if ((request.chatFiles ?? []).length > 0) return tokens;
  return Math.max(tokens, Math.min(tokens * NO_CHAT_MULTIPLIER, maxTokens));
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value <= 0) throw new UserError(`--${name} must be a positive whole number, not ${value}`);
  return value;
}

const SKIP_ORDER: readonly SkipReason[] = [
  'no grammar',
  'too large',
  'binary',
  'minified',
  'syntax errors',
  'parse failed',
  'parse timeout',
  'unreadable',
  'symlink outside root',
];

function countSkips(skipped: readonly SkippedFile[]): Partial<Record<SkipReason, number>> {
  const counts: Partial<Record<SkipReason, number>> = {};
  for (const reason of SKIP_ORDER) {
    const n = skipped.filter((file) => file.reason === reason).length;
    if (n > 0) counts[reason] = n;
  }
  return counts;
}

/** One line counting the skipped files by reason; empty when none was skipped. */
export function skipFooter(counts: Partial<Record<SkipReason, number>>): string {
  const parts = SKIP_ORDER.filter((reason) => counts[reason]).map((reason) => `${counts[reason]} ${reason}`);
  if (parts.length === 0) return '';
  const total = SKIP_ORDER.reduce((sum, reason) => sum + (counts[reason] ?? 0), 0);
  return `(${total} ${total === 1 ? 'file' : 'files'} not mapped: ${parts.join(', ')}; --verbose lists them)`;
}
