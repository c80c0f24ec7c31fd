import { comparePaths } from '../discover/discover.js';
import type { AiderGraph, RelatedGraph } from '../graph/graph-types.js';
import { RELATED_MODEL, RELATED_WEIGHTS } from '../model.js';
import { type CsrGraph, factoredOutWeights, pagerank, pagerankFactored, pagerankPush } from './pagerank.js';
import { folderOrder, nodeOfPath, nodesNamed, nodesOfSubject, pathIndex, sharedDepth, subjectName } from './path-index.js';
import { scratchFloat64, scratchUint32, scratchUint8 } from './lent-arrays.js';
import { isTestPath } from '../file-kinds.js';



export interface RankRequest {
  chatFiles: ReadonlySet<string>;
  mentionedFiles: ReadonlySet<string>;
  mentionedIdents: ReadonlySet<string>;
  /** Of the mentioned identifiers, those whose definitions the map shows first (see packedMap). */
  namedIdents?: ReadonlySet<string>;
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

function countOf(flags: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < flags.length; i++) count += flags[i];
  return count;
}

/** Indices of the `limit` largest values (all of them, ties at the cut included), unordered. */
function topIndices(values: ArrayLike<number>, limit: number): number[] {
  if (limit >= values.length) return Array.from({ length: values.length }, (_, i) => i);
  // The cut value: the limit-th largest, by quickselect on a copy.
  const copy = scratchFloat64('top indices', values.length);
  copy.set(values);
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
  const top: number[] = [];
  for (let i = 0; i < values.length; i++) if (values[i] >= cut) top.push(i);
  return top;
}

/**
 * Aider's personalization: chat files and mentioned files get one share, and a file whose path
 * components or basename (with or without extension) match a mentioned identifier one more.
 * With `maxMatches`, an identifier matching more paths than that (`state`, `utils`: one per
 * package in a large repository) matches none. Undefined when nothing is personalized (PageRank
 * then teleports uniformly). Written into `vector` (zeroed, one entry per path) when given.
 */
export function personalizationVector(
  paths: readonly string[],
  request: RankRequest,
  maxMatches = Infinity,
  vector: Float64Array = new Float64Array(paths.length),
): Float64Array | undefined {
  const index = pathIndex(paths);
  let any = false;
  for (const path of [...request.chatFiles, ...request.mentionedFiles]) {
    const i = nodeOfPath(index, path);
    if (i !== undefined) vector[i] = 1;
    any ||= i !== undefined;
  }
  const matched = new Set<number>();
  const named = namedByWord(request, paths);
  for (const ident of request.mentionedIdents) {
    for (const i of nodesNamed(index, ident, maxMatches) ?? []) if (named(ident, i)) matched.add(i);
  }
  for (const i of matched) vector[i] += 1;
  return any || matched.size > 0 ? vector : undefined;
}

export interface RelatedRanking {
  /** The best files (chat files left out) in map order, at most the limit asked for. */
  files: string[];
  /** A file's PageRank (0 outside the graph). */
  rankOf: (path: string) => number;
  /** The rank of each definition of `files`, by file then identifier: Aider's sharing, over the forward edges. */
  definitionRanks: (files: readonly string[]) => Map<string, Map<string, number>>;
  /** A file's links in the related graph, by identifier: the files it uses (forward) and those that use it, each with the link's weight. */
  linksOf: (path: string) => FileLink[];
}

/** A link of a file in the related graph: the other file, the identifier, its weight, and whether the file references (forward) or defines it. */
export interface FileLink {
  path: string;
  ident: string;
  weight: number;
  forward: boolean;
}

/** Unpersonalized ranks of a related graph, by its CSR (a graph keeps one until it changes). */
const globalRanks = new WeakMap<CsrGraph, Float64Array>();

/**
 * This project's ranking. Personalized PageRank (Aider's personalization) over the related graph,
 * where links run both ways and a reference resolves to its nearest definers; then, fused with it by
 * reciprocal rank: a lexical order (files by how many of the request's names they define or
 * reference: the mentioned identifiers, and the names the chat files define or import), the
 * folder order from the chat files, the chat files' tests or subjects, and the files named after
 * a mentioned identifier. Files the request names come first. Only the best `limit` files are
 * ordered; a map names a few hundred files of many thousands.
 */
export function rankRelated(graph: RelatedGraph, request: RankRequest, names: RelatedNames, limit = Infinity): RelatedRanking {
  const { paths, csr, edgeIdent, idents, forward, forwardTotal } = graph;
  const n = paths.length;
  const index = pathIndex(paths);
  const nodeOf = (path: string) => nodeOfPath(index, path);
  const ranks = relatedPageRank(graph, request);

  // The loops over every file live in functions of their own: inline, V8 would compile each loop
  // of this function on its own (on-stack replacement) and throw the code away at every request.
  // Scratch memory (see lent-arrays.ts): these end with this call; the ranks live on in the answer.
  const isChat = scratchUint8('chat files', n);
  for (const path of request.chatFiles) {
    const i = nodeOf(path);
    if (i !== undefined) isChat[i] = 1;
  }
  const fused = scratchFloat64('fused', n);
  const { graphWeight, lexicalWeight, folderWeight, partnerWeight, namedWeight } = RELATED_MODEL;
  const fuse = (order: ArrayLike<number>, weight: number) => fuseOrder(fused, order, weight);
  const graphOrder = rankOrder(ranks, isChat);
  fuse(graphOrder, graphWeight);
  const lexical = lexicalScores(n, request, names);
  fuse(lexicalOrder(lexical, isChat), lexicalWeight);
  if (request.chatFiles.size > 0) fuse(folderOrder([...request.chatFiles], paths, isChat), folderWeight);
  const nodesNamed = (subjects: Iterable<string>, takes: (subject: string, node: number) => boolean = () => true) => {
    const found = new Set<number>();
    for (const subject of subjects) for (const i of nodesOfSubject(index, subject)) if (!isChat[i] && takes(subject, i)) found.add(i);
    return [...found].sort((a, b) => a - b);
  };
  fuse(nearestPartners(nodesNamed([...request.chatFiles].map(subjectName)), [...request.chatFiles], paths), partnerWeight);
  // Files whose name is a mentioned identifier (mailer for mailer.ts) ...
  fuse(nodesNamed(request.mentionedIdents, namedByWord(request, paths)), namedWeight);
  // ... and, before anything, the files the request names.
  for (const path of request.mentionedFiles) {
    const i = nodeOf(path);
    if (i !== undefined && !isChat[i]) fused[i] += 1;
  }
  markLeftOut(fused, isChat);
  const best = topIndices(fused, Math.min(limit, graphOrder.length))
    .filter((i) => !isChat[i])
    .sort((a, b) => fused[b] - fused[a] || ranks[b] - ranks[a] || a - b);
  const files = best.slice(0, limit).map((i) => paths[i]);

  // A definer's row holds the reverse of every forward edge into it, in the order of their sources.
  const definitionRanks = (shown: readonly string[]) => {
    const { offsets, targets, weights } = csr;
    const byFile = new Map<string, Map<string, number>>();
    // Sums by identifier number, not in a Map per edge: a much-used file's row has thousands of entries.
    // Left zeroed by each use (every touched sum is reset below): a large repository has hundreds of
    // thousands of identifiers, too many to fill per request.
    const sums = scratchFloat64('ident sums', idents.length, null);
    for (const path of shown) {
      const v = nodeOf(path);
      if (v === undefined) continue;
      const touched: number[] = [];
      for (let e = offsets[v]; e < offsets[v + 1]; e++) {
        const u = targets[e];
        if (forward[e] || ranks[u] === 0) continue;
        const i = edgeIdent[e];
        // Every share is positive: a zero sum is one not yet touched.
        if (sums[i] === 0) touched.push(i);
        sums[i] += (ranks[u] * (weights[e] / RELATED_WEIGHTS.reverse)) / forwardTotal[u];
      }
      if (touched.length === 0) continue;
      const byIdent = new Map<string, number>();
      for (const i of touched) {
        byIdent.set(idents[i], sums[i]);
        sums[i] = 0;
      }
      byFile.set(path, byIdent);
    }
    return byFile;
  };
  const linksOf = (path: string): FileLink[] => {
    const v = nodeOf(path);
    if (v === undefined) return [];
    const { offsets, targets, weights } = csr;
    const links: FileLink[] = [];
    for (let e = offsets[v]; e < offsets[v + 1]; e++) {
      links.push({ path: paths[targets[e]], ident: idents[edgeIdent[e]], weight: forward[e] ? weights[e] : weights[e] / RELATED_WEIGHTS.reverse, forward: forward[e] === 1 });
    }
    return links;
  };
  return { files, rankOf: (path) => ranks[nodeOf(path) ?? -1] ?? 0, definitionRanks, linksOf };
}

/**
 * Whether a file named after a mentioned identifier counts as named by it: always for a --mention
 * or a name written as code; for a plain word of a message (`state`), only a file that is not a
 * test, unless the request is about tests (a fixture named state.js is not what `state` asks for).
 */
function namedByWord(request: RankRequest, paths: readonly string[]): (ident: string, node: number) => boolean {
  const { namedIdents } = request;
  if (namedIdents === undefined || [...request.chatFiles, ...request.mentionedFiles].some(isTestPath)) return () => true;
  return (ident, node) => namedIdents.has(ident) || !isTestPath(paths[node]);
}

/** Adds each file's reciprocal-rank share of `order` (files by position) to `fused`. */
function fuseOrder(fused: Float64Array, order: ArrayLike<number>, weight: number): void {
  const { fusionK } = RELATED_MODEL;
  for (let position = 0; position < order.length; position++) fused[order[position]] += weight / (fusionK + position + 1);
}

/** The graph order: ranked files first, by rank; files the walk never reached (rank 0) after them, by path. Chat files left out. */
function rankOrder(ranks: Float64Array, isChat: Uint8Array): Uint32Array {
  const n = ranks.length;
  let reachedCount = 0;
  for (let i = 0; i < n; i++) if (!isChat[i] && ranks[i] > 0) reachedCount++;
  const order = scratchUint32('rank order', n - countOf(isChat));
  for (let i = 0, r = 0, z = reachedCount; i < n; i++) if (!isChat[i]) order[ranks[i] > 0 ? r++ : z++] = i;
  order.subarray(0, reachedCount).sort((a, b) => ranks[b] - ranks[a] || a - b);
  return order;
}

/** Files with request names, by how many distinct ones, then how often, then path. Chat files left out. */
function lexicalOrder({ distinct, occurrences }: { distinct: Uint32Array; occurrences: Uint32Array }, isChat: Uint8Array): number[] {
  const order: number[] = [];
  for (let i = 0; i < distinct.length; i++) if (!isChat[i] && distinct[i] > 0) order.push(i);
  return order.sort((a, b) => distinct[b] - distinct[a] || occurrences[b] - occurrences[a] || a - b);
}

/** Scores of the files left out (`out`) set below any other. */
function markLeftOut(scores: Float64Array, out: Uint8Array): void {
  for (let i = 0; i < scores.length; i++) if (out[i]) scores[i] = -1;
}

/**
 * The PageRank of a related graph without personalization and without a request's patch: computed
 * once per graph (the same walk object: a view of the same base), unless the graph brought them
 * (walkRanks: a restored graph's, saved with it).
 */
export function unpersonalizedRanks(graph: RelatedGraph): Float64Array {
  let ranks = globalRanks.get(graph.walk);
  if (!ranks) {
    const compute = () => pagerank(graph.walk, { damping: RELATED_MODEL.damping });
    ranks = graph.walkRanks ?? graph.withoutPatch?.(compute) ?? compute();
    globalRanks.set(graph.walk, ranks);
  }
  return ranks;
}

/**
 * The related graph's PageRank for a request: by forward push when the request personalizes it
 * (the cost then follows the neighbourhood of the chat files, not the size of the repository),
 * else the unpersonalized ranks, computed once per graph.
 */
function relatedPageRank(graph: RelatedGraph, request: RankRequest): Float64Array {
  const n = graph.paths.length;
  const personalization = personalizationVector(graph.paths, request, RELATED_MODEL.pathMatchMaxFiles, scratchFloat64('personalization', n));
  const { damping, pushEpsilon } = RELATED_MODEL;
  if (personalization) return pagerankPush(graph.walk, personalization, { damping, epsilon: pushEpsilon });
  const ranks = unpersonalizedRanks(graph);
  // Mentions with no file to start from: the patched weights hold for this request only. Their
  // ranks start from the unpatched ones, which a mention moves little, so few iterations remain.
  return graph.patched ? pagerank(graph.walk, { damping, start: ranks }) : ranks;
}

/**
 * A chat file's partners (`nodes`, the files sharing its subject name) when there are at most
 * partnerMaxFiles of them; when there are more (one `state_migrate.go` per package), the ones
 * nearest a chat file by folder distance (folders up plus folders down), if at most that many.
 */
function nearestPartners(nodes: number[], chatFiles: readonly string[], paths: readonly string[]): number[] {
  const max = RELATED_MODEL.partnerMaxFiles;
  if (nodes.length <= max) return nodes;
  const { folderOf, folders } = pathIndex(paths);
  const chatFolders = chatFiles.map((path) => path.split('/').slice(0, -1));
  const distance = nodes.map((i) => {
    const dirs = folders[folderOf[i]];
    let best = Infinity;
    for (const chat of chatFolders) best = Math.min(best, chat.length + dirs.length - 2 * sharedDepth(dirs, chat));
    return best;
  });
  const nearest = Math.min(...distance);
  const near = nodes.filter((_, k) => distance[k] === nearest);
  return near.length <= max ? near : [];
}

/**
 * Per file: how many distinct request names it defines or references, and how often. The names
 * are the mentioned identifiers and what the chat files define or import.
 */
function lexicalScores(n: number, request: RankRequest, names: RelatedNames) {
  const query = new Set(request.mentionedIdents);
  for (const chat of request.chatFiles) {
    const { defined, imports } = names.fileNames(chat);
    for (const name of defined) query.add(name);
    for (const name of imports) query.add(name);
  }
  const distinct = scratchUint32('distinct names', n);
  const occurrences = scratchUint32('name occurrences', n);
  // The last name (its number in the query, from 1) that counted each file: a file defining and
  // referencing a name counts it once, without a set per name.
  const countedFor = scratchUint32('counted for', n);
  let q = 0;
  names.visitNamers(
    query,
    () => q++,
    (i, times) => {
      occurrences[i] += times;
      if (countedFor[i] === q) return;
      countedFor[i] = q;
      distinct[i]++;
    },
  );
  return { distinct, occurrences };
}

/** What the lexical order reads: the names the chat files define and import, and which files (by node number) define or reference a name. */
export interface RelatedNames {
  fileNames: (path: string) => { defined: readonly string[]; imports: readonly string[] };
  visitNamers: (idents: Iterable<string>, next: () => void, visit: (node: number, count: number) => void) => void;
}

/** `paths` in folder order from the nearest of `from` (see folderOrder). */
export function nearestFirst(from: readonly string[], paths: readonly string[]): string[] {
  const sorted = [...paths].sort(comparePaths);
  return Array.from(folderOrder(from, sorted), (i) => sorted[i]);
}

/** The files that share a chat file's subject name (its tests, or the subject of a test), when few files have that name. */
export function testPartners(chatFiles: readonly string[], paths: readonly string[]): string[] {
  const names = new Set(chatFiles.map(subjectName));
  const matches = paths.filter((path) => names.has(subjectName(path)));
  return matches.length <= RELATED_MODEL.partnerMaxFiles ? matches : [];
}
