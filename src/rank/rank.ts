import { comparePaths } from '../discover/discover.js';
import type { AiderGraph, RelatedGraph } from '../graph/graph.js';
import type { FileTags } from '../types.js';
import { factoredOutWeights, pagerank, pagerankFactored } from './pagerank.js';

export { DEFAULT_RANKING, RANKINGS, type RankingName } from '../request.js';

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
 * Personalized PageRank over Aider's graph, then each file's rank shared over its out-edges in
 * proportion to weight, giving a rank per (file, identifier) definition (Aider's model). Every
 * definer of a name receives the same share of a reference, so the sharing runs through
 * identifiers, linear in the references and definitions.
 */
export function rankDefinitions(compiled: AiderGraph, request: RankRequest, limit = Infinity): Ranking {
  const { paths, idents, graph } = compiled;
  const ranks = pagerankFactored(graph, { personalization: personalizationVector(paths, request) });
  const outWeight = factoredOutWeights(graph);
  const { nodeCount, identCount, refOffsets, refIdent, refWeight, defOffsets, defNode, selfOffsets, selfIdent, selfWeight } = graph;

  // What each identifier passes to each of its definers; what each self edge keeps.
  const identFlow = new Float64Array(identCount);
  const selfRank = new Float64Array(selfIdent.length);
  for (let u = 0; u < nodeCount; u++) {
    const total = outWeight[u];
    if (total === 0) continue;
    for (let e = refOffsets[u]; e < refOffsets[u + 1]; e++) identFlow[refIdent[e]] += (ranks[u] * refWeight[e]) / total;
    for (let e = selfOffsets[u]; e < selfOffsets[u + 1]; e++) selfRank[e] = (ranks[u] * selfWeight[e]) / total;
  }
  // Candidates: every (definer, identifier) reached through a reference, and every self edge.
  // A self edge's identifier is never referenced, so the two sets do not overlap.
  const chat = new Uint8Array(nodeCount);
  for (let u = 0; u < nodeCount; u++) if (request.chatFiles.has(paths[u])) chat[u] = 1;
  const candidateNode: number[] = [];
  const candidateIdent: number[] = [];
  const candidateRank: number[] = [];
  for (let i = 0; i < identCount; i++) {
    if (identFlow[i] === 0) continue;
    for (let d = defOffsets[i]; d < defOffsets[i + 1]; d++) {
      if (chat[defNode[d]]) continue;
      candidateNode.push(defNode[d]);
      candidateIdent.push(i);
      candidateRank.push(identFlow[i]);
    }
  }
  for (let u = 0; u < nodeCount; u++) {
    if (chat[u]) continue;
    for (let e = selfOffsets[u]; e < selfOffsets[u + 1]; e++) {
      candidateNode.push(u);
      candidateIdent.push(selfIdent[e]);
      candidateRank.push(selfRank[e]);
    }
  }
  // Only the best `limit` are ordered: a map shows a few hundred definitions of many thousands.
  const order = topIndices(candidateRank, limit);
  // Ties break by path (node order is path order), then identifier: the same graph and request give the same order.
  order.sort(
    (a, b) =>
      candidateRank[b] - candidateRank[a] ||
      candidateNode[a] - candidateNode[b] ||
      comparePaths(idents[candidateIdent[a]], idents[candidateIdent[b]]),
  );
  const definitions = order.map((c) => ({ path: paths[candidateNode[c]], ident: idents[candidateIdent[c]], rank: candidateRank[c] }));
  const fileRank = new Map(paths.map((path, i) => [path, ranks[i]]));
  return { definitions, fileRank };
}

/** Indices of the `limit` largest values (all of them, ties at the cut included), unordered. */
function topIndices(values: readonly number[], limit: number): number[] {
  const all = Array.from(values.keys());
  if (limit >= values.length) return all;
  // The cut value: the limit-th largest, by quickselect on a copy.
  const copy = Float64Array.from(values);
  let low = 0;
  let high = copy.length - 1;
  const k = limit - 1;
  while (low < high) {
    const pivot = copy[(low + high) >>> 1];
    let i = low;
    let j = high;
    while (i <= j) {
      while (copy[i] > pivot) i++;
      while (copy[j] < pivot) j--;
      if (i <= j) {
        [copy[i], copy[j]] = [copy[j], copy[i]];
        i++;
        j--;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else break;
  }
  const cut = copy[k];
  return all.filter((index) => values[index] >= cut);
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
  /** Reciprocal rank fusion of the orders below: a file scores the sum of weight / (k + its 1-based position). */
  fusionK: 5,
  graphWeight: 1,
  lexicalWeight: 1,
  /** Files by folder distance from the chat files. */
  folderWeight: 0.5,
  /** A chat file's test or subject (same name but for test_/_test/.test/.spec), when the name is rare. */
  partnerWeight: 1,
  /** A name shared by more files than this (index, __init__, mod) pairs nothing. */
  partnerMaxFiles: 3,
  /** Files whose name (as for partners) is a mentioned identifier. */
  namedWeight: 1,
} as const;

export interface RelatedRanking extends Ranking {
  /** Files (not chat files) in map order: the graph's order and the lexical order, fused. */
  files: string[];
}

/**
 * This project's ranking. Personalized PageRank (Aider's personalization) over the related graph,
 * where links run both ways and a reference resolves to its nearest definers; then, fused with it by
 * reciprocal rank: a lexical order (files by how many of the request's names they define or
 * reference: the mentioned identifiers, and the names the chat files define or import), the
 * folder order from the chat files, the chat files' tests or subjects, and the files named after
 * a mentioned identifier. Files the request names come first. Definitions are ranked as in
 * Aider's model, over the forward edges only.
 */
export function rankRelated(graph: RelatedGraph, request: RankRequest, names: RelatedNames): RelatedRanking {
  const { paths, csr, edgeIdent, idents, forward } = graph;
  const ranks = pagerank(csr, { personalization: personalizationVector(paths, request), damping: RELATED_MODEL.damping });

  const { offsets, targets, weights } = csr;
  // Keyed by file * identifier count + identifier (exact in a double for any real repository).
  const byDefinition = new Map<number, number>();
  for (let u = 0; u < csr.nodeCount; u++) {
    let total = 0;
    for (let e = offsets[u]; e < offsets[u + 1]; e++) if (forward[e]) total += weights[e];
    if (total === 0) continue;
    for (let e = offsets[u]; e < offsets[u + 1]; e++) {
      if (!forward[e]) continue;
      const key = targets[e] * idents.length + edgeIdent[e];
      byDefinition.set(key, (byDefinition.get(key) ?? 0) + (ranks[u] * weights[e]) / total);
    }
  }
  const definitions: RankedDefinition[] = [];
  for (const [key, rank] of byDefinition) {
    const path = paths[Math.floor(key / idents.length)];
    if (request.chatFiles.has(path)) continue;
    definitions.push({ path, ident: idents[key % idents.length], rank });
  }
  definitions.sort((a, b) => b.rank - a.rank || comparePaths(a.path, b.path) || comparePaths(a.ident, b.ident));

  const candidates = paths.map((_, i) => i).filter((i) => !request.chatFiles.has(paths[i]));
  const graphOrder = [...candidates].sort((a, b) => ranks[b] - ranks[a] || comparePaths(paths[a], paths[b]));
  const lexical = lexicalScores(paths, request, names);
  const lexicalOrder = candidates
    .filter((i) => lexical.distinct[i] > 0)
    .sort((a, b) => lexical.distinct[b] - lexical.distinct[a] || lexical.occurrences[b] - lexical.occurrences[a] || comparePaths(paths[a], paths[b]));
  const byPath = new Map(paths.map((path, i) => [path, i]));
  const folderOrder = nearestFirst([...request.chatFiles], candidates.map((i) => paths[i])).map((path) => byPath.get(path)!);
  const partners = testPartners([...request.chatFiles], candidates.map((i) => paths[i])).map((path) => byPath.get(path)!);
  const fused = new Float64Array(paths.length);
  const { fusionK, graphWeight, lexicalWeight, folderWeight, partnerWeight } = RELATED_MODEL;
  const fuse = (order: readonly number[], weight: number) =>
    order.forEach((i, position) => (fused[i] += weight / (fusionK + position + 1)));
  fuse(graphOrder, graphWeight);
  fuse(lexicalOrder, lexicalWeight);
  if (request.chatFiles.size > 0) fuse(folderOrder, folderWeight);
  fuse(partners, partnerWeight);
  // Files whose name is a mentioned identifier (mailer for mailer.ts) ...
  const named = candidates.filter((i) => request.mentionedIdents.has(subjectName(paths[i])));
  fuse(named, RELATED_MODEL.namedWeight);
  // ... and, before anything, the files the request names.
  for (const i of candidates) if (request.mentionedFiles.has(paths[i])) fused[i] += 1;
  const files = [...candidates]
    .sort((a, b) => fused[b] - fused[a] || ranks[b] - ranks[a] || comparePaths(paths[a], paths[b]))
    .map((i) => paths[i]);
  return { definitions, fileRank: new Map(paths.map((path, i) => [path, ranks[i]])), files };
}

/**
 * Per file: how many distinct request names it defines or references, and how often. The names
 * are the mentioned identifiers and what the chat files define or import.
 */
function lexicalScores(paths: readonly string[], request: RankRequest, names: RelatedNames) {
  const query = new Set(request.mentionedIdents);
  for (const chat of request.chatFiles) {
    const tags = names.tagsOf(chat);
    for (const def of tags?.defs ?? []) query.add(def.name);
    for (const ref of tags?.refs ?? []) if (ref.subkind === 'import') query.add(ref.name);
  }
  const distinct = new Uint32Array(paths.length);
  const occurrences = new Uint32Array(paths.length);
  const index = new Map(paths.map((path, i) => [path, i]));
  for (const name of query) {
    const { definers, referencers } = names.namesOf(name);
    const counted = new Set<number>();
    for (const path of definers ?? []) {
      const i = index.get(path);
      if (i === undefined) continue;
      counted.add(i);
      occurrences[i]++;
    }
    for (const [path, count] of referencers ?? []) {
      const i = index.get(path);
      if (i === undefined) continue;
      counted.add(i);
      occurrences[i] += count;
    }
    for (const i of counted) distinct[i]++;
  }
  return { distinct, occurrences };
}

/** What the lexical order reads: the chat files' tags, and which files define or reference a name. */
export interface RelatedNames {
  tagsOf: (path: string) => FileTags | undefined;
  namesOf: (ident: string) => { definers: ReadonlySet<string> | undefined; referencers: ReadonlyMap<string, number> | undefined };
}

/**
 * `paths` by folder distance from the nearest of `from` (how many folders up the common ancestor
 * is), then shallower first, then by path: a chat file's own folder first, then its parent's, ...
 */
export function nearestFirst(from: readonly string[], paths: readonly string[]): string[] {
  const folders = from.map((path) => path.split('/').slice(0, -1));
  const distance = (path: string): number => {
    const dirs = path.split('/').slice(0, -1);
    let best = Infinity;
    for (const chat of folders) {
      let common = 0;
      while (common < dirs.length && common < chat.length && dirs[common] === chat[common]) common++;
      best = Math.min(best, chat.length - common);
    }
    return best;
  };
  return paths
    .map((path) => ({ path, distance: distance(path), depth: path.split('/').length }))
    .sort((a, b) => a.distance - b.distance || a.depth - b.depth || comparePaths(a.path, b.path))
    .map((entry) => entry.path);
}

/** A file's name without folders, extension(s) and test markers: test_app.py, app_test.go, app.spec.ts -> app. */
export function subjectName(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.indexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  return stem.replace(/^test_/, '').replace(/_tests?$/, '');
}

/** The files that share a chat file's subject name (its tests, or the subject of a test), when few files have that name. */
export function testPartners(chatFiles: readonly string[], paths: readonly string[]): string[] {
  const names = new Set(chatFiles.map(subjectName));
  const matches = paths.filter((path) => names.has(subjectName(path)));
  return matches.length <= RELATED_MODEL.partnerMaxFiles ? matches : [];
}
