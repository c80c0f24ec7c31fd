import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type FactoredGraph, expandFactored, factoredOutWeights, pagerank, pagerankFactored } from '../src/rank/pagerank.js';
import { seededRandom } from '../src/random.js';


/** A random factored graph: some files reference nothing (dangling), some identifiers have many definers. */
function randomFactored(seed: number, nodes: number, idents: number): FactoredGraph {
  const rand = seededRandom(seed);
  const pick = (n: number) => Math.floor(rand() * n);
  const definers: number[][] = Array.from({ length: idents }, () => {
    const count = rand() < 0.2 ? 1 + pick(12) : 1 + pick(2);
    return [...new Set(Array.from({ length: count }, () => pick(nodes)))].sort((a, b) => a - b);
  });
  const refs: Array<Array<[number, number]>> = Array.from({ length: nodes }, () =>
    rand() < 0.15 ? [] : Array.from({ length: pick(6) }, () => [pick(idents), 0.01 + rand() * 50] as [number, number]),
  );
  const selfs: Array<Array<[number, number]>> = Array.from({ length: nodes }, () => (rand() < 0.3 ? [[pick(idents), 0.1]] : []));
  const offsets = (lists: unknown[][]) => {
    const out = new Uint32Array(lists.length + 1);
    lists.forEach((list, i) => (out[i + 1] = out[i] + list.length));
    return out;
  };
  return {
    nodeCount: nodes,
    identCount: idents,
    refOffsets: offsets(refs),
    refIdent: Uint32Array.from(refs.flat().map(([i]) => i)),
    refWeight: Float64Array.from(refs.flat().map(([, w]) => w)),
    defOffsets: offsets(definers),
    defNode: Uint32Array.from(definers.flat()),
    selfOffsets: offsets(selfs),
    selfIdent: Uint32Array.from(selfs.flat().map(([i]) => i)),
    selfWeight: Float64Array.from(selfs.flat().map(([, w]) => w)),
  };
}

test('PageRank on the factored graph equals PageRank on the expanded graph', () => {
  for (const [seed, nodes, idents] of [[1, 8, 5], [2, 60, 40], [3, 400, 300], [4, 1000, 200]] as const) {
    const graph = randomFactored(seed, nodes, idents);
    const expanded = expandFactored(graph);
    const rand = seededRandom(seed * 7);
    const personalizations = [
      undefined,
      Float64Array.from({ length: nodes }, (_, i) => (i === 0 ? 1 : 0)),
      Float64Array.from({ length: nodes }, () => (rand() < 0.1 ? rand() * 3 : 0)),
    ];
    for (const personalization of personalizations) {
      for (const damping of [0.85, 0.5]) {
        const options = { personalization, damping, tolerance: 1e-12, maxIterations: 500 };
        const want = pagerank(expanded, options);
        const got = pagerankFactored(graph, options);
        for (let v = 0; v < nodes; v++) assert.ok(Math.abs(want[v] - got[v]) < 1e-12, `seed ${seed} node ${v}: ${got[v]} vs ${want[v]}`);
      }
    }
  }
});

test('out-weights count each definer of a referenced identifier', () => {
  const graph = randomFactored(9, 50, 30);
  const expanded = expandFactored(graph);
  const out = factoredOutWeights(graph);
  for (let u = 0; u < graph.nodeCount; u++) {
    let sum = 0;
    for (let e = expanded.offsets[u]; e < expanded.offsets[u + 1]; e++) sum += expanded.weights[e];
    assert.ok(Math.abs(sum - out[u]) < 1e-9 * Math.max(1, sum));
  }
});
