// How the 'repomap' ranking spends a budget: breadth first, then depth. A bare path costs a few
// tokens and a signature line many more, and a change usually needs files more than it needs
// every signature of one file: so the map first names the best-ranked files (with all of the
// budget but what the definitions get: a quarter of it, at most 768 tokens), then shows their best
// definitions round by round (each file's first, then each file's second, ...), then names
// further files while tokens remain.
import { FILL_SCAN, type PackEntry } from '../pack/pack.js';
import type { TokenCounter } from '../pack/tokens.js';
import type { DefTag, FileOutline } from '../types.js';
import type { RelatedRanking } from './rank.js';

/** Definitions get this share of the budget, up to DEFINITIONS_MAX_TOKENS; the rest names files first. */
export const DEFINITIONS_SHARE = 0.25;
export const DEFINITIONS_MAX_TOKENS = 768;

/** Tokens of a budget spent naming files before any definition is shown. */
export function namingTokens(budget: number): number {
  return budget - Math.min(budget * DEFINITIONS_SHARE, DEFINITIONS_MAX_TOKENS);
}

export interface LayoutInput {
  /** Files in rank order (chat files left out). */
  files: readonly string[];
  /** Rank of each file, for the map's `rank` field. */
  rankOf: (path: string) => number;
  /** Each of the given files' definitions, best first (asked once, for the files named). */
  definitionsOf: (paths: readonly string[]) => ReadonlyArray<readonly DefTag[]>;
  budget: number;
  countTokens: TokenCounter;
}

/** The candidates of a 'repomap' map in order (after the important files): the packer takes the longest prefix that fits. */
export function layoutEntries({ files, rankOf, definitionsOf, budget, countTokens }: LayoutInput): PackEntry[] {
  // How many files the naming part of the budget can list as bare paths (one line each).
  const naming = namingTokens(budget);
  let named = 0;
  for (let used = 0; named < files.length; named++) {
    used += countTokens(files[named] + '\n');
    if (used > naming) break;
  }
  const entries: PackEntry[] = files.slice(0, named).map((path) => ({ path, rank: rankOf(path) }));
  const defs = definitionsOf(files.slice(0, named));
  const rounds = Math.max(0, ...defs.map((list) => list.length));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < named; i++) {
      const def = defs[i][round];
      if (def) entries.push({ path: files[i], rank: rankOf(files[i]), def });
    }
  }
  for (const path of files.slice(named)) entries.push({ path, rank: rankOf(path) });
  return entries;
}

/** A file's definitions, best first: by rank (highest first), then outermost, then by line. */
export function definitionsByRank(tags: FileOutline | undefined, rankOfIdent: (ident: string) => number): DefTag[] {
  const defs = tags?.defs ?? [];
  // Each rank looked up once, not twice per comparison.
  const rank = defs.map((def) => rankOfIdent(def.name));
  const order = defs.map((_, i) => i);
  order.sort((a, b) => rank[b] - rank[a] || defs[a].scopes.length - defs[b].scopes.length || defs[a].line - defs[b].line);
  return order.map((i) => defs[i]);
}

/**
 * The entries of a 'repomap' map: the fused file order (then the files outside the graph, by
 * path, while fewer than `limit` are placed), laid out by layoutEntries with each file's
 * definitions ranked by the forward edges.
 */
export function relatedEntries(
  ranking: RelatedRanking,
  others: Iterable<string>,
  outlineOf: (path: string) => FileOutline | undefined,
  budget: number,
  countTokens: TokenCounter,
  limit: number,
): PackEntry[] {
  const files = [...ranking.files];
  if (files.length < limit) {
    const placed = new Set(files);
    for (const path of others) {
      if (files.length >= limit) break;
      if (!placed.has(path)) files.push(path);
    }
  }
  return layoutEntries({
    files,
    rankOf: ranking.rankOf,
    definitionsOf: (named) => {
      const ranks = ranking.definitionRanks(named);
      return named.map((path) => definitionsByRank(outlineOf(path), (ident) => ranks.get(path)?.get(ident) ?? 0));
    },
    budget,
    countTokens,
  });
}

/**
 * How many files a map of `budget` tokens can reach: each named file costs a token at least, and
 * the packer looks at most FILL_SCAN entries past the prefix that fits.
 */
export function fileLimit(budget: number): number {
  return budget + FILL_SCAN;
}
