import { comparePaths } from '../discover/discover.js';
import type { CompiledGraph } from '../graph/graph.js';
import { pagerank } from './pagerank.js';

/** The rankings a map can use: this project's (the default) and Aider's, reproduced exactly. */
export const RANKINGS = ['repomap', 'aider'] as const;
export type RankingName = (typeof RANKINGS)[number];
export const DEFAULT_RANKING: RankingName = 'repomap';

export interface RankRequest {
  chatFiles: ReadonlySet<string>;
  mentionedFiles: ReadonlySet<string>;
  mentionedIdents: ReadonlySet<string>;
}

export interface RankedDefinition {
  path: string;
  ident: string;
  rank: number;
}

export interface Ranking {
  /** (file, identifier) definitions, highest rank first; chat files left out. */
  definitions: RankedDefinition[];
  /** PageRank of each file in the graph, by path. */
  fileRank: Map<string, number>;
}

/**
 * Personalized PageRank over the compiled graph, then each file's rank shared over its out-edges
 * in proportion to weight, giving a rank per (file, identifier) definition (Aider's model).
 */
export function rankDefinitions(graph: CompiledGraph, request: RankRequest): Ranking {
  const { paths, csr, edgeIdent, idents } = graph;
  const personalization = personalizationVector(paths, request);
  const ranks = pagerank(csr, { personalization });

  const { offsets, targets, weights } = csr;
  const byDefinition = new Map<string, number>();
  for (let u = 0; u < csr.nodeCount; u++) {
    let total = 0;
    for (let e = offsets[u]; e < offsets[u + 1]; e++) total += weights[e];
    if (total === 0) continue;
    for (let e = offsets[u]; e < offsets[u + 1]; e++) {
      const key = `${targets[e]}\0${edgeIdent[e]}`;
      byDefinition.set(key, (byDefinition.get(key) ?? 0) + (ranks[u] * weights[e]) / total);
    }
  }

  const definitions: RankedDefinition[] = [];
  for (const [key, rank] of byDefinition) {
    const split = key.indexOf('\0');
    const path = paths[Number(key.slice(0, split))];
    if (request.chatFiles.has(path)) continue;
    definitions.push({ path, ident: idents[Number(key.slice(split + 1))], rank });
  }
  // Ties break by path, then identifier: the same graph and request give the same order.
  definitions.sort((a, b) => b.rank - a.rank || comparePaths(a.path, b.path) || comparePaths(a.ident, b.ident));
  const fileRank = new Map(paths.map((path, i) => [path, ranks[i]]));
  return { definitions, fileRank };
}

/**
 * Aider's personalization: chat files and mentioned files get one share, and a file whose path
 * components or basename (with or without extension) match a mentioned identifier one more.
 * Undefined when nothing is personalized (PageRank then teleports uniformly).
 */
export function personalizationVector(paths: readonly string[], request: RankRequest): Float64Array | undefined {
  const vector = new Float64Array(paths.length);
  let any = false;
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i];
    let weight = request.chatFiles.has(path) || request.mentionedFiles.has(path) ? 1 : 0;
    if (request.mentionedIdents.size > 0 && pathMatchesIdent(path, request.mentionedIdents)) weight += 1;
    if (weight > 0) {
      vector[i] = weight;
      any = true;
    }
  }
  return any ? vector : undefined;
}

function pathMatchesIdent(path: string, idents: ReadonlySet<string>): boolean {
  const parts = path.split('/');
  const basename = parts[parts.length - 1];
  const dot = basename.lastIndexOf('.');
  if (dot > 0 && idents.has(basename.slice(0, dot))) return true;
  return parts.some((part) => idents.has(part));
}
