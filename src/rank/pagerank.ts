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
}

/**
 * Weighted personalized PageRank by power iteration, with networkx's conventions (uniform
 * start vector, tolerance scaled by the node count). Returns one score per node, summing to 1.
 */
export function pagerank(graph: CsrGraph, options: PageRankOptions = {}): Float64Array {
  const { nodeCount: n, offsets, targets, weights } = graph;
  const damping = options.damping ?? 0.85;
  const tolerance = options.tolerance ?? 1e-6;
  const maxIterations = options.maxIterations ?? 100;
  if (n === 0) return new Float64Array(0);

  const teleport = normalisedTeleport(n, options.personalization);
  const outWeight = new Float64Array(n);
  for (let u = 0; u < n; u++) {
    let sum = 0;
    for (let e = offsets[u]; e < offsets[u + 1]; e++) sum += weights[e];
    outWeight[u] = sum;
  }

  let rank = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    let danglingMass = 0;
    next.fill(0);
    for (let u = 0; u < n; u++) {
      const total = outWeight[u];
      if (total === 0) {
        danglingMass += rank[u];
        continue;
      }
      const share = (damping * rank[u]) / total;
      for (let e = offsets[u]; e < offsets[u + 1]; e++) next[targets[e]] += share * weights[e];
    }
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

function normalisedTeleport(n: number, personalization: Float64Array | undefined): Float64Array {
  const teleport = new Float64Array(n);
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
