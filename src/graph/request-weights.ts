// A request's weights on the related graph: the edges of the identifiers it mentions multiplied in
// place, and put back exactly before the next request. A copy of every weight per request would
// cost more than the rest of the request on a large repository.
import { comparePaths } from '../discover/discover.js';
import { EDGE_WEIGHTS } from '../model.js';
import type { EdgeBuffers } from './edge-buffers.js';
import type { EdgesByIdent, Patch, RelatedBase, RelatedGraph } from './graph-types.js';

/**
 * `base`'s graph with the edges of the `mentioned` identifiers multiplied (mentionedIdent), the
 * weights they replace kept in base.patch; the base graph itself when it has none of them. The
 * base must hold no patch (see unpatch). The patch stays until the next request; the view says
 * it is patched, and can run code without it.
 */
export function weighRelatedRequest(base: RelatedBase, mentionedIdents: Iterable<string>, buffers: EdgeBuffers): RelatedGraph {
  // In name order, not number order: identifiers are numbered in order of first use, which differs
  // between a graph built at once and one restored or patched, and the order of the additions
  // below decides the last bits of the weights they add to.
  const numbers = base.identNumbers.numbersOf(mentionedIdents);
  const mentioned = [...numbers.keys()].sort(comparePaths).map((ident) => numbers.get(ident)!);
  if (mentioned.length === 0) return base.graph;
  const { csr, walk, walkSlot, forward, forwardTotal } = base.graph;
  const { identOffsets, identEdges, edgeSource } = (base.edgesByIdent ??= edgesByIdent(base.graph, buffers));
  let size = 0;
  for (const i of mentioned) size += identOffsets[i + 1] - identOffsets[i];
  const saved: Patch = {
    size,
    edges: new Uint32Array(size),
    edgeWeights: new Float64Array(size),
    slots: new Uint32Array(size),
    slotWeights: new Float64Array(size),
    forwardCount: 0,
    sources: new Uint32Array(size),
    totals: new Float64Array(size),
  };
  let p = 0;
  for (const i of mentioned) {
    for (let k = identOffsets[i]; k < identOffsets[i + 1]; k++, p++) {
      const e = identEdges[k];
      const slot = walkSlot[e];
      const added = csr.weights[e] * (EDGE_WEIGHTS.mentionedIdent - 1);
      saved.edges[p] = e;
      saved.edgeWeights[p] = csr.weights[e];
      saved.slots[p] = slot;
      saved.slotWeights[p] = walk.weights[slot];
      if (forward[e]) {
        const u = edgeSource[k];
        saved.sources[saved.forwardCount] = u;
        saved.totals[saved.forwardCount++] = forwardTotal[u];
        forwardTotal[u] += added;
      }
      walk.weights[slot] += added;
      csr.weights[e] *= EDGE_WEIGHTS.mentionedIdent;
    }
  }
  base.patch = saved;
  const unpatched = <T>(run: () => T): T => {
    if (base.patch !== saved) throw new Error('a view of an earlier request: the graph compiled another since');
    return withoutPatch(walk.weights, saved, run);
  };
  return { ...base.graph, patched: true, withoutPatch: unpatched };
}

/** Puts back the weights a request patched (in reverse, so a slot patched twice ends at its first value). */
export function unpatch(base: RelatedBase): void {
  const { patch } = base;
  if (!patch) return;
  const { csr, walk, forwardTotal } = base.graph;
  for (let k = patch.size - 1; k >= 0; k--) csr.weights[patch.edges[k]] = patch.edgeWeights[k];
  putBackWalkWeights(walk.weights, patch);
  for (let k = patch.forwardCount - 1; k >= 0; k--) forwardTotal[patch.sources[k]] = patch.totals[k];
  base.patch = undefined;
}

/** The walk weights a patch changed, as they were (in reverse: a slot patched twice ends at its first value). */
function putBackWalkWeights(weights: Float64Array, patch: Patch): void {
  for (let k = patch.size - 1; k >= 0; k--) weights[patch.slots[k]] = patch.slotWeights[k];
}

/** Runs `run` with a patch's walk weights put back (see unpatch), then puts the patched ones again. */
function withoutPatch<T>(weights: Float64Array, patch: Patch, run: () => T): T {
  const patched = new Float64Array(patch.size);
  for (let k = 0; k < patch.size; k++) patched[k] = weights[patch.slots[k]];
  putBackWalkWeights(weights, patch);
  try {
    return run();
  } finally {
    // A slot patched twice holds its final value at each of its places in `patched`.
    for (let k = 0; k < patch.size; k++) weights[patch.slots[k]] = patched[k];
  }
}

/** The edges of `graph` grouped by identifier (a counting sort; edges in order within each), with the node each leaves. */
function edgesByIdent(graph: RelatedGraph, buffers: EdgeBuffers): EdgesByIdent {
  const { edgeIdent, idents, csr } = graph;
  const identOffsets = new Uint32Array(idents.length + 1);
  for (let e = 0; e < edgeIdent.length; e++) identOffsets[edgeIdent[e] + 1]++;
  for (let i = 0; i < idents.length; i++) identOffsets[i + 1] += identOffsets[i];
  const fill = identOffsets.slice(0, idents.length);
  const identEdges = buffers.take('identEdges', Uint32Array, edgeIdent.length);
  const edgeSource = buffers.take('edgeSource', Uint32Array, edgeIdent.length);
  for (let u = 0; u < csr.nodeCount; u++) {
    for (let e = csr.offsets[u]; e < csr.offsets[u + 1]; e++) {
      const k = fill[edgeIdent[e]]++;
      identEdges[k] = e;
      edgeSource[k] = u;
    }
  }
  return { identOffsets, identEdges, edgeSource };
}
