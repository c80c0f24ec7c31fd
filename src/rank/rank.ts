import { comparePaths } from '../discover/discover.js';
import type { CompiledGraph, RelatedGraph } from '../graph/graph.js';
import type { FileTags } from '../types.js';
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

/** The parameters of this project's model, the 'repomap' ranking, chosen with `repomap eval` on a dev set. */
export const RELATED_MODEL = {
  damping: 0.85,
  /** Reciprocal rank fusion of the graph order and the lexical order: score = sum of weight / (k + position). */
  fusionK: 5,
  graphWeight: 1,
  lexicalWeight: 1,
} as const;

export interface RelatedRanking extends Ranking {
  /** Files (not chat files) in map order: the graph's order and the lexical order, fused. */
  files: string[];
}

/**
 * This project's ranking. Personalized PageRank (Aider's personalization) over the related graph,
 * where links run both ways and a reference resolves to its nearest definers; then, fused with it by
 * reciprocal rank, a lexical order: files by how many of the request's names they define or
 * reference (the mentioned identifiers, and the names the chat files define or import).
 * Definitions are ranked as in Aider's model, over the forward edges only.
 */
export function rankRelated(
  graph: RelatedGraph,
  request: RankRequest,
  tagsOf: (path: string) => FileTags | undefined,
): RelatedRanking {
  const { paths, csr, edgeIdent, idents, forward } = graph;
  const ranks = pagerank(csr, { personalization: personalizationVector(paths, request), damping: RELATED_MODEL.damping });

  const { offsets, targets, weights } = csr;
  const byDefinition = new Map<string, number>();
  for (let u = 0; u < csr.nodeCount; u++) {
    let total = 0;
    for (let e = offsets[u]; e < offsets[u + 1]; e++) if (forward[e]) total += weights[e];
    if (total === 0) continue;
    for (let e = offsets[u]; e < offsets[u + 1]; e++) {
      if (!forward[e]) continue;
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
  definitions.sort((a, b) => b.rank - a.rank || comparePaths(a.path, b.path) || comparePaths(a.ident, b.ident));

  const candidates = paths.map((_, i) => i).filter((i) => !request.chatFiles.has(paths[i]));
  const graphOrder = [...candidates].sort((a, b) => ranks[b] - ranks[a] || comparePaths(paths[a], paths[b]));
  const lexical = lexicalScores(paths, request, tagsOf);
  const lexicalOrder = candidates
    .filter((i) => lexical.distinct[i] > 0)
    .sort((a, b) => lexical.distinct[b] - lexical.distinct[a] || lexical.occurrences[b] - lexical.occurrences[a] || comparePaths(paths[a], paths[b]));
  const fused = new Float64Array(paths.length);
  const { fusionK, graphWeight, lexicalWeight } = RELATED_MODEL;
  graphOrder.forEach((i, position) => (fused[i] += graphWeight / (fusionK + position + 1)));
  lexicalOrder.forEach((i, position) => (fused[i] += lexicalWeight / (fusionK + position + 1)));
  const files = [...candidates]
    .sort((a, b) => fused[b] - fused[a] || ranks[b] - ranks[a] || comparePaths(paths[a], paths[b]))
    .map((i) => paths[i]);
  return { definitions, fileRank: new Map(paths.map((path, i) => [path, ranks[i]])), files };
}

/**
 * Per file: how many distinct request names it defines or references, and how often. The names
 * are the mentioned identifiers and what the chat files define or import.
 */
function lexicalScores(paths: readonly string[], request: RankRequest, tagsOf: (path: string) => FileTags | undefined) {
  const query = new Set(request.mentionedIdents);
  for (const chat of request.chatFiles) {
    const tags = tagsOf(chat);
    for (const def of tags?.defs ?? []) query.add(def.name);
    for (const ref of tags?.refs ?? []) if (ref.subkind === 'import') query.add(ref.name);
  }
  const distinct = new Uint32Array(paths.length);
  const occurrences = new Uint32Array(paths.length);
  if (query.size === 0) return { distinct, occurrences };
  for (let i = 0; i < paths.length; i++) {
    const tags = tagsOf(paths[i]);
    if (!tags) continue;
    const found = new Set<string>();
    for (const tag of tags.defs) if (query.has(tag.name)) (found.add(tag.name), occurrences[i]++);
    for (const tag of tags.refs) if (query.has(tag.name)) (found.add(tag.name), occurrences[i]++);
    distinct[i] = found.size;
  }
  return { distinct, occurrences };
}
