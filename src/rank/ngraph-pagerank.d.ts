// Minimal types for ngraph.pagerank 2.x (CommonJS, ships no declarations), used by the tests as an oracle.
declare module 'ngraph.pagerank' {
  import type { Graph } from 'ngraph.graph';

  /**
   * Unweighted, unpersonalized PageRank by power iteration from the uniform vector.
   * internalJumpProbability is the damping factor (default 0.85). The loop stops when the L1 change
   * of an iteration is below epsilon (default 0.005, absolute, not scaled by the node count) and has
   * no iteration cap. Returns node id -> rank.
   */
  function pageRank(graph: Graph, internalJumpProbability?: number, epsilon?: number): Record<string, number>;
  export = pageRank;
}
