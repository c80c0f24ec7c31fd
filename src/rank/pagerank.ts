import { scratchFloat64, scratchUint32 } from './lent-arrays.js';

/**
 * A directed, weighted graph in compressed sparse row form: the out-edges of node u are
 * targets[offsets[u] .. offsets[u + 1]) with the matching weights. Parallel edges are allowed
 * and count as the sum of their weights.
 */
export interface CsrGraph {
  nodeCount: number;
  offsets: Uint32Array;
  targets: Uint32Array;
  weights: Float64Array;
}

export interface PageRankOptions {
  /** Probability of following an edge rather than teleporting (networkx's alpha). */
  damping?: number;
  /**
   * Teleport distribution, one finite non-negative entry per node (normalised here). Dangling nodes'
   * mass follows it too, as networkx does with personalization= and dangling= set alike.
   * Omitted or all zero: uniform.
   */
  personalization?: Float64Array;
  /** Stop when the L1 change of an iteration falls below nodeCount * tolerance. */
  tolerance?: number;
  maxIterations?: number;
  /**
   * Where the iteration starts, one entry per node summing to 1 (default: uniform, networkx's
   * start). Ranks near the answer (those of the same graph before a few weights changed) converge
   * in fewer iterations, to ranks within the tolerance of networkx's.
   */
  start?: Float64Array;
}

/**
 * Weighted personalized PageRank by power iteration, with networkx's conventions (uniform
 * start vector, tolerance scaled by the node count). Returns one score per node, summing to 1.
 */
export function pagerank(graph: CsrGraph, options: PageRankOptions = {}): Float64Array {
  const { nodeCount: n, offsets, targets, weights } = graph;
  const outWeight = new Float64Array(n);
  for (let u = 0; u < n; u++) {
    let sum = 0;
    for (let e = offsets[u]; e < offsets[u + 1]; e++) sum += weights[e];
    outWeight[u] = sum;
  }
  return powerIterate(n, outWeight, options, (share, next) => {
    for (let u = 0; u < n; u++) {
      const s = share[u];
      if (s === 0) continue;
      for (let e = offsets[u]; e < offsets[u + 1]; e++) next[targets[e]] += s * weights[e];
    }
  });
}

/**
 * The power iteration both graph forms share: `push` spreads each node's share (its damped rank
 * over its out-weight, 0 for dangling nodes) along its edges into `next`; dangling mass and
 * teleport follow the personalization.
 */
function powerIterate(
  n: number,
  outWeight: Float64Array,
  options: PageRankOptions,
  push: (share: Float64Array, next: Float64Array) => void,
): Float64Array {
  const damping = options.damping ?? 0.85;
  const tolerance = options.tolerance ?? 1e-6;
  const maxIterations = options.maxIterations ?? 100;
  if (n === 0) return new Float64Array(0);
  const teleport = normalisedTeleport(n, options.personalization);
  if (options.start && options.start.length !== n) throw new RangeError('start must have one entry per node');
  let rank = options.start ? options.start.slice() : new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  const share = new Float64Array(n);
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    let danglingMass = 0;
    for (let u = 0; u < n; u++) {
      const total = outWeight[u];
      if (total === 0) {
        danglingMass += rank[u];
        share[u] = 0;
      } else {
        share[u] = (damping * rank[u]) / total;
      }
    }
    next.fill(0);
    push(share, next);
    const spread = damping * danglingMass + (1 - damping);
    let change = 0;
    for (let v = 0; v < n; v++) {
      next[v] += spread * teleport[v];
      change += Math.abs(next[v] - rank[v]);
    }
    [rank, next] = [next, rank];
    if (change < n * tolerance) break;
  }
  return rank;
}

/** The teleport distribution: lent by scratch memory, for the call that asks for it. */
function normalisedTeleport(n: number, personalization: Float64Array | undefined): Float64Array {
  const teleport = scratchFloat64('teleport', n);
  let sum = 0;
  if (personalization) {
    if (personalization.length !== n) throw new RangeError('personalization must have one entry per node');
    for (let v = 0; v < n; v++) {
      const weight = personalization[v];
      // Infinity would normalise to NaN ranks (networkx then fails to converge and raises).
      if (!(weight >= 0 && weight < Infinity)) {
        throw new RangeError('personalization entries must be finite non-negative numbers');
      }
      sum += weight;
    }
  }
  if (sum === 0) return teleport.fill(1 / n);
  for (let v = 0; v < n; v++) teleport[v] = personalization![v] / sum;
  return teleport;
}

/** Builds a CSR graph from an edge list (order of edges within a node is kept). */
export function csrFromEdges(nodeCount: number, edges: ReadonlyArray<readonly [number, number, number]>): CsrGraph {
  const offsets = new Uint32Array(nodeCount + 1);
  for (const [from] of edges) offsets[from + 1]++;
  for (let u = 0; u < nodeCount; u++) offsets[u + 1] += offsets[u];
  const fill = offsets.slice(0, nodeCount);
  const targets = new Uint32Array(edges.length);
  const weights = new Float64Array(edges.length);
  for (const [from, to, weight] of edges) {
    const slot = fill[from]++;
    targets[slot] = to;
    weights[slot] = weight;
  }
  return { nodeCount, offsets, targets, weights };
}

/**
 * A file graph whose edges run through identifiers, stored without expanding them: file u's
 * reference to identifier i stands for one edge u -> v of weight `refWeight` to EACH file v
 * that defines i. Aider's model gives every definer of a name the same weight, so an identifier
 * defined in D files and referenced from R files costs R + D entries here instead of R x D edges
 * (a common name in a large repository is millions of edges otherwise). Self edges (u -> u)
 * carry an identifier too, for ranking definitions.
 */
export interface FactoredGraph {
  nodeCount: number;
  identCount: number;
  /** References of node u: refIdent/refWeight[refOffsets[u] .. refOffsets[u + 1]). */
  refOffsets: Uint32Array;
  refIdent: Uint32Array;
  refWeight: Float64Array;
  /** Definers of identifier i: defNode[defOffsets[i] .. defOffsets[i + 1]). */
  defOffsets: Uint32Array;
  defNode: Uint32Array;
  /** Self edges of node u: selfIdent/selfWeight[selfOffsets[u] .. selfOffsets[u + 1]). */
  selfOffsets: Uint32Array;
  selfIdent: Uint32Array;
  selfWeight: Float64Array;
}

/** Total out-weight of each node of a factored graph (what the expanded graph's rows sum to). */
export function factoredOutWeights(graph: FactoredGraph): Float64Array {
  const { nodeCount, refOffsets, refIdent, refWeight, defOffsets, selfOffsets, selfWeight } = graph;
  const out = new Float64Array(nodeCount);
  for (let u = 0; u < nodeCount; u++) {
    let sum = 0;
    for (let e = refOffsets[u]; e < refOffsets[u + 1]; e++) {
      const i = refIdent[e];
      sum += refWeight[e] * (defOffsets[i + 1] - defOffsets[i]);
    }
    for (let e = selfOffsets[u]; e < selfOffsets[u + 1]; e++) sum += selfWeight[e];
    out[u] = sum;
  }
  return out;
}

/**
 * Exactly `pagerank` of the expanded graph, computed on the factored one: each iteration pushes
 * rank from files to identifiers, then from identifiers to their definers. Linear in the
 * number of references and definitions.
 */
export function pagerankFactored(graph: FactoredGraph, options: PageRankOptions = {}): Float64Array {
  const { nodeCount: n, identCount, refOffsets, refIdent, refWeight, defOffsets, defNode, selfOffsets, selfWeight } = graph;
  const selfTotal = new Float64Array(n);
  for (let u = 0; u < n; u++) for (let e = selfOffsets[u]; e < selfOffsets[u + 1]; e++) selfTotal[u] += selfWeight[e];
  const identMass = new Float64Array(identCount);
  return powerIterate(n, factoredOutWeights(graph), options, (share, next) => {
    identMass.fill(0);
    for (let u = 0; u < n; u++) {
      const s = share[u];
      if (s === 0) continue;
      next[u] += s * selfTotal[u];
      for (let e = refOffsets[u]; e < refOffsets[u + 1]; e++) identMass[refIdent[e]] += s * refWeight[e];
    }
    for (let i = 0; i < identCount; i++) {
      const mass = identMass[i];
      if (mass === 0) continue;
      for (let d = defOffsets[i]; d < defOffsets[i + 1]; d++) next[defNode[d]] += mass;
    }
  });
}

/** The expanded graph of a factored one, edge by edge (for tests, and small graphs). */
export function expandFactored(graph: FactoredGraph): CsrGraph {
  const edges: Array<[number, number, number]> = [];
  for (let u = 0; u < graph.nodeCount; u++) {
    for (let e = graph.refOffsets[u]; e < graph.refOffsets[u + 1]; e++) {
      const i = graph.refIdent[e];
      for (let d = graph.defOffsets[i]; d < graph.defOffsets[i + 1]; d++) edges.push([u, graph.defNode[d], graph.refWeight[e]]);
    }
    for (let e = graph.selfOffsets[u]; e < graph.selfOffsets[u + 1]; e++) edges.push([u, u, graph.selfWeight[e]]);
  }
  return csrFromEdges(graph.nodeCount, edges);
}

export interface PushOptions {
  /** Probability of following an edge rather than teleporting. */
  damping?: number;
  /** A node is pushed while its residual exceeds epsilon times its edge count. */
  epsilon?: number;
}

/**
 * Personalized PageRank by forward push (Andersen, Chung and Lang, 2006): the teleport mass
 * starts as residual on the personalized nodes and is pushed along out-edges, a node at a time,
 * until no node holds more than `epsilon` x its edge count. Its cost is bounded by
 * 1 / (epsilon (1 - damping)) edge visits whatever the size of the graph, and it touches only
 * the neighbourhood that holds the rank: a request personalized on a few files does not pay
 * for the whole repository as a power iteration does. Each rank is below the exact one by at
 * most epsilon x the node's edge count; nodes never reached get 0. Dangling nodes' mass follows
 * the personalization, as in `pagerank`. FIFO order: deterministic.
 */
export function pagerankPush(graph: CsrGraph, personalization: Float64Array, options: PushOptions = {}): Float64Array {
  const { nodeCount: n, offsets, targets, weights } = graph;
  const damping = options.damping ?? 0.85;
  const epsilon = options.epsilon ?? 1e-7;
  const teleport = normalisedTeleport(n, personalization);
  const seeds: number[] = [];
  for (let v = 0; v < n; v++) if (teleport[v] > 0) seeds.push(v);
  const rank = new Float64Array(n);
  // Per node, side by side (an edge's target costs one cache line, not three): its residual, and
  // the residual past which it is due, epsilon x its edge count; Infinity while it is queued.
  const state = scratchFloat64('push state', 2 * n);
  const thresholdOf = (v: number) => epsilon * Math.max(1, offsets[v + 1] - offsets[v]);
  for (let v = 0; v < n; v++) state[2 * v + 1] = thresholdOf(v);
  // Out-weights are summed when a node is first pushed: most nodes never are.
  const outWeight = scratchFloat64('push out-weights', n, -1);
  const queue = scratchUint32('push queue', n + 1);
  let head = 0;
  let tail = 0;
  // The edge loop below enqueues inline (it is most of a request's time); the seeds through this.
  const add = (v: number, mass: number) => {
    if ((state[2 * v] += mass) <= state[2 * v + 1]) return;
    state[2 * v + 1] = Infinity;
    queue[tail] = v;
    tail = tail === n ? 0 : tail + 1;
  };
  for (const v of seeds) add(v, teleport[v]);
  while (head !== tail) {
    const u = queue[head];
    head = head === n ? 0 : head + 1;
    const mass = state[2 * u];
    state[2 * u] = 0;
    state[2 * u + 1] = thresholdOf(u);
    rank[u] += (1 - damping) * mass;
    const start = offsets[u];
    const end = offsets[u + 1];
    if (outWeight[u] < 0) {
      let sum = 0;
      for (let e = start; e < end; e++) sum += weights[e];
      outWeight[u] = sum;
    }
    const spread = damping * mass;
    if (outWeight[u] === 0) {
      for (const v of seeds) add(v, spread * teleport[v]);
      continue;
    }
    const share = spread / outWeight[u];
    for (let e = start; e < end; e++) {
      const i = 2 * targets[e];
      if ((state[i] += share * weights[e]) > state[i + 1]) {
        state[i + 1] = Infinity;
        queue[tail] = targets[e];
        tail = tail === n ? 0 : tail + 1;
      }
    }
  }
  return rank;
}
