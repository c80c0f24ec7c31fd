// The related graph's arrays written in full: every file's forward edges (derived already), each
// interleaved with the reverse edges of the files that reference it, in CSR form; and the merged
// walk PageRank reads. Also the same derived from a saved graph's arrays.
import { collectGarbage } from '../extract/memory.js';
import { RELATED_WEIGHTS } from '../model.js';
import type { CsrGraph } from '../rank/pagerank.js';
import type { EdgeBuffers } from './edge-buffers.js';
import type { RelatedGraph, SavedRelated } from './graph-types.js';
import type { FileNode } from './nodes.js';
import type { Numbering } from './numbering.js';

/** A related graph's arrays, without its paths and identifiers. */
export type RelatedArrays = Pick<RelatedGraph, 'csr' | 'edgeIdent' | 'forward' | 'walk' | 'walkSlot' | 'forwardTotal'>;

/**
 * The related graph in CSR form, written into `buffers` from every file's forward edges (`nodes`,
 * sorted, each with its `related` edges derived). Row u holds, in order, the reverse entries of
 * the lower sources that reference u, u's own forward entries, then those of higher sources.
 * With `release`, each file's forward edges are let go of once written, and collected before the
 * merged walk's arrays are made beside them, as ReferenceGraph.forgetFileEdges would after.
 */
export function flattenRelated(nodes: readonly FileNode[], numbering: Numbering, buffers: EdgeBuffers, release = false): RelatedArrays {
  const n = nodes.length;
  const reverse = RELATED_WEIGHTS.reverse > 0;
  const offsets = new Uint32Array(n + 1);
  for (let u = 0; u < n; u++) {
    const { toDense } = numbering.numbered(nodes[u].related!);
    offsets[u + 1] += toDense.length;
    if (reverse) for (let k = 0; k < toDense.length; k++) offsets[toDense[k] + 1]++;
  }
  for (let u = 0; u < n; u++) offsets[u + 1] += offsets[u];
  const edgeCount = offsets[n];
  const { targets, weights, edgeIdent, forward } = buffers.edgeArrays(edgeCount);
  const fill = offsets.slice(0, n);
  for (let u = 0; u < n; u++) {
    const { toDense, ident, weight } = nodes[u].related!;
    for (let k = 0; k < toDense.length; k++) {
      const v = toDense[k];
      let slot = fill[u]++;
      targets[slot] = v;
      weights[slot] = weight[k];
      edgeIdent[slot] = ident[k];
      forward[slot] = 1;
      if (!reverse) continue;
      slot = fill[v]++;
      targets[slot] = u;
      weights[slot] = weight[k] * RELATED_WEIGHTS.reverse;
      edgeIdent[slot] = ident[k];
      forward[slot] = 0;
    }
    if (release) nodes[u].related = undefined;
  }
  const csr = { nodeCount: n, offsets, targets, weights };
  // The edges let go of are garbage as large as a third of the arrays: collected before the walk's are made.
  if (release) collectGarbage();
  const { walk, walkSlot } = mergeParallelEdges(csr, buffers);
  return { csr, edgeIdent, forward, walk, walkSlot, forwardTotal: forwardTotals(csr, forward) };
}

/**
 * A saved graph's arrays, taken into `buffers` as they are (patched in place from then on), with
 * its merged walk and forward totals when it has them (see savedWalk), else derived again.
 */
export function restoredArrays(saved: SavedRelated, buffers: EdgeBuffers): RelatedArrays {
  const { offsets, targets, weights, edgeIdent, forward } = saved;
  const room = saved.room === true;
  buffers.adopt({ targets, weights, edgeIdent, forward }, room);
  const csr = { nodeCount: saved.paths.length, offsets, targets, weights };
  const taken = savedWalk(saved);
  if (!taken) return { csr, edgeIdent, forward, ...mergeParallelEdges(csr, buffers), forwardTotal: forwardTotals(csr, forward) };
  buffers.adopt({ walkTargets: taken.walk.targets, walkWeights: taken.walk.weights, walkSlot: taken.walkSlot }, room);
  return { csr, edgeIdent, forward, ...taken };
}

/**
 * A saved graph's merged walk and forward totals, when it has all of them with the lengths and
 * bounds that fit its arrays (the values are vouched for as the arrays are: see isSavedGraphShaped).
 */
function savedWalk(saved: SavedRelated): Pick<RelatedArrays, 'walk' | 'walkSlot' | 'forwardTotal'> | undefined {
  const { walkOffsets: offsets, walkTargets: targets, walkWeights: weights, walkSlot, forwardTotal } = saved;
  if (!offsets || !targets || !weights || !walkSlot || !forwardTotal) return undefined;
  const n = saved.paths.length;
  const entries = targets.length;
  if (offsets.length !== n + 1 || offsets[0] !== 0 || offsets[n] !== entries || weights.length !== entries) return undefined;
  if (walkSlot.length !== saved.targets.length || forwardTotal.length !== n) return undefined;
  for (let u = 0; u < n; u++) if (offsets[u] > offsets[u + 1]) return undefined;
  return { walk: { nodeCount: n, offsets, targets, weights }, walkSlot, forwardTotal };
}

/** Whether a saved graph's arrays have the lengths and bounds that fit together. */
export function isSavedGraphShaped(saved: SavedRelated): boolean {
  const { paths, offsets, targets, weights, edgeIdent, forward } = saved;
  const n = paths.length;
  const edges = targets.length;
  if (offsets.length !== n + 1 || offsets[0] !== 0 || offsets[n] !== edges) return false;
  if (weights.length !== edges || edgeIdent.length !== edges || forward.length !== edges) return false;
  for (let u = 0; u < n; u++) if (offsets[u] > offsets[u + 1]) return false;
  return true;
}

/**
 * Merges each node's edges to the same target into one with the summed weight. A file that uses
 * ten names of another has ten edges to it and ten back; PageRank needs one each way, and walks
 * about a third of the entries.
 */
function mergeParallelEdges(csr: CsrGraph, buffers: EdgeBuffers): { walk: CsrGraph; walkSlot: Uint32Array } {
  const n = csr.nodeCount;
  const seen = new Int32Array(n).fill(-1);
  const walkOffsets = new Uint32Array(n + 1);
  for (let u = 0; u < n; u++) walkOffsets[u + 1] = walkOffsets[u] + distinctTargets(csr, u, seen);
  seen.fill(-1);
  const slotOf = new Uint32Array(n);
  const { walkTargets, walkWeights, walkSlot } = buffers.walkArrays(walkOffsets[n], csr.targets.length);
  for (let u = 0; u < n; u++) mergeRow(csr, u, walkOffsets[u], seen, slotOf, walkTargets, walkWeights, walkSlot);
  return { walk: { nodeCount: n, offsets: walkOffsets, targets: walkTargets, weights: walkWeights }, walkSlot };
}

/** How many distinct targets row u has (`seen` holds, per node, the last row that counted it). */
export function distinctTargets(csr: CsrGraph, u: number, seen: Int32Array): number {
  let count = 0;
  for (let e = csr.offsets[u]; e < csr.offsets[u + 1]; e++) {
    if (seen[csr.targets[e]] !== u) {
      seen[csr.targets[e]] = u;
      count++;
    }
  }
  return count;
}

/** Writes row u merged (one entry per target, weights summed) from walk entry `at` on, and each edge's merged entry. */
export function mergeRow(
  csr: CsrGraph,
  u: number,
  at: number,
  seen: Int32Array,
  slotOf: Uint32Array,
  walkTargets: Uint32Array,
  walkWeights: Float64Array,
  walkSlot: Uint32Array,
): void {
  const { offsets, targets, weights } = csr;
  let next = at;
  for (let e = offsets[u]; e < offsets[u + 1]; e++) {
    const v = targets[e];
    if (seen[v] !== u) {
      seen[v] = u;
      slotOf[v] = next;
      walkTargets[next] = v;
      walkWeights[next++] = 0;
    }
    walkWeights[slotOf[v]] += weights[e];
    walkSlot[e] = slotOf[v];
  }
}

/** Per node, the summed weight of its forward edges. */
function forwardTotals(csr: CsrGraph, forward: Uint8Array): Float64Array {
  const forwardTotal = new Float64Array(csr.nodeCount);
  for (let u = 0; u < csr.nodeCount; u++) forwardTotal[u] = rowForwardTotal(csr, forward, u);
  return forwardTotal;
}

/** The summed weight of row u's forward edges. */
export function rowForwardTotal(csr: CsrGraph, forward: Uint8Array, u: number): number {
  let total = 0;
  for (let e = csr.offsets[u]; e < csr.offsets[u + 1]; e++) if (forward[e]) total += csr.weights[e];
  return total;
}
