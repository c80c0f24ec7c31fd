import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import createGraph from 'ngraph.graph';
import pagerankOracle from 'ngraph.pagerank';
import { csrFromEdges, pagerank, pagerankPush, type CsrGraph } from '../src/rank/pagerank.js';
import { packageRoot } from '../src/paths.js';
import { seededRandom } from '../src/random.js';

type Edge = [number, number, number];

interface OracleCase {
  name: string;
  note: string;
  nodeCount: number;
  edges: Edge[];
  damping: number;
  personalization: number[] | null;
  tolerance: number;
  maxIterations: number;
  /** Iterations networkx's power iteration ran before stopping (from the generator's replay of it). */
  iterations: number;
  fixedPointMaxAbsError: number;
  /** networkx.pagerank's output. */
  ranks: number[];
  /** The exact fixed point, from a direct linear solve in the generator. */
  exactRanks: number[];
}

interface OracleFile {
  generator: string;
  networkx_version: string;
  cases: OracleCase[];
}

const oracle: OracleFile = JSON.parse(
  readFileSync(join(packageRoot, 'fixtures', 'oracles', 'pagerank-networkx.json'), 'utf8'),
);

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length, 'length mismatch');
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

function sum(xs: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s;
}

function personalizationOf(c: OracleCase): Float64Array | undefined {
  return c.personalization ? Float64Array.from(c.personalization) : undefined;
}


/** Random unweighted digraph: ~danglingFraction of nodes have no out-edges, others 1..maxOut distinct targets (self-loops possible). */
function randomGraph(seed: number, n: number, danglingFraction: number, maxOut: number): Edge[] {
  const random = seededRandom(seed);
  const edges: Edge[] = [];
  for (let u = 0; u < n; u++) {
    if (random() < danglingFraction) continue;
    const k = 1 + Math.floor(random() * maxOut);
    const targets = new Set<number>();
    while (targets.size < Math.min(k, n)) targets.add(Math.floor(random() * n));
    for (const v of targets) edges.push([u, v, 1]);
  }
  return edges;
}

function danglingNodes(n: number, edges: readonly Edge[]): number[] {
  const out = new Float64Array(n);
  for (const [u, , w] of edges) out[u] += w;
  return [...out.keys()].filter((u) => out[u] === 0);
}

function reachableFrom(n: number, edges: readonly Edge[], start: number): Set<number> {
  const adjacency: number[][] = Array.from({ length: n }, () => []);
  for (const [u, v, w] of edges) if (w > 0) adjacency[u].push(v);
  const seen = new Set([start]);
  const stack = [start];
  while (stack.length > 0) {
    for (const v of adjacency[stack.pop()!]) {
      if (!seen.has(v)) {
        seen.add(v);
        stack.push(v);
      }
    }
  }
  return seen;
}

/**
 * Power iteration contracts the L1 distance to the fixed point by `damping` per step, so an iterate
 * whose last step changed by less than delta (L1) is within damping / (1 - damping) * delta of it.
 */
function fixedPointBound(damping: number, lastChange: number): number {
  return (damping / (1 - damping)) * lastChange;
}

// ---------------------------------------------------------------------------------------------
// a. networkx oracle
// ---------------------------------------------------------------------------------------------

test('oracle fixture is present and covers the intended cases', () => {
  assert.ok(oracle.cases.length >= 10, `only ${oracle.cases.length} oracle cases`);
  assert.ok(oracle.cases.some((c) => c.damping === 0.5));
  assert.ok(oracle.cases.some((c) => c.personalization === null));
  assert.ok(oracle.cases.some((c) => c.nodeCount >= 300));
  // Parallel edges (from the MultiDiGraph case) and self-loops are present.
  assert.ok(oracle.cases.some((c) => new Set(c.edges.map(([u, v]) => `${u}>${v}`)).size < c.edges.length));
  assert.ok(oracle.cases.some((c) => c.edges.some(([u, v]) => u === v)));
});

test('matches networkx.pagerank on every oracle case within 1e-9 per node', (t) => {
  let worst = 0;
  for (const c of oracle.cases) {
    const ranks = pagerank(csrFromEdges(c.nodeCount, c.edges), {
      damping: c.damping,
      personalization: personalizationOf(c),
      tolerance: c.tolerance,
      maxIterations: c.maxIterations,
    });
    assert.equal(ranks.length, c.nodeCount, c.name);
    const error = maxAbsDiff(ranks, c.ranks);
    worst = Math.max(worst, error);
    assert.ok(error <= 1e-9, `${c.name}: max abs error ${error}`);
  }
  t.diagnostic(`max abs error vs networkx ${oracle.networkx_version}: ${worst.toExponential(2)}`);
});

test('default tolerance and maxIterations are networkx defaults (tol 1e-6, max_iter 100)', () => {
  const defaults = oracle.cases.filter((c) => c.tolerance === 1e-6 && c.maxIterations === 100);
  assert.ok(defaults.length >= 1, 'no oracle case computed with networkx defaults');
  for (const c of defaults) {
    // These iterates are ~1e-5 from the fixed point, so a different default stopping rule shows up here.
    assert.ok(c.fixedPointMaxAbsError > 1e-7, `${c.name} is too converged to tell defaults apart`);
    const ranks = pagerank(csrFromEdges(c.nodeCount, c.edges), {
      damping: c.damping,
      personalization: personalizationOf(c),
    });
    const error = maxAbsDiff(ranks, c.ranks);
    assert.ok(error <= 1e-9, `${c.name}: max abs error ${error}`);
  }
});

test('default maxIterations is 100; running out returns the last iterate (networkx would raise instead)', () => {
  // 0 <-> 1 with all personalization on 0 and damping 0.99: the period-2 sloshing decays like 0.99^k,
  // far from converging within 100 iterations, so every iterate differs from the next.
  const graph = csrFromEdges(2, [[0, 1, 1], [1, 0, 1]]);
  const base = { damping: 0.99, personalization: Float64Array.from([1, 0]) };
  const byDefault = pagerank(graph, base);
  assert.deepEqual(byDefault, pagerank(graph, { ...base, maxIterations: 100 }));
  assert.notDeepEqual(byDefault, pagerank(graph, { ...base, maxIterations: 99 }));
  assert.notDeepEqual(byDefault, pagerank(graph, { ...base, maxIterations: 101 }));
  assert.ok(Math.abs(sum(byDefault) - 1) < 1e-12);
});

test('runs the same number of iterations as networkx (tolerance 0, maxIterations = networkx count)', () => {
  for (const c of oracle.cases) {
    if (c.fixedPointMaxAbsError < 1e-12) continue; // converged in a step or two: iterates are indistinguishable
    const ranks = pagerank(csrFromEdges(c.nodeCount, c.edges), {
      damping: c.damping,
      personalization: personalizationOf(c),
      tolerance: 0,
      maxIterations: c.iterations,
    });
    const error = maxAbsDiff(ranks, c.ranks);
    assert.ok(error <= 1e-9, `${c.name}: after ${c.iterations} iterations, max abs error ${error}`);
  }
});

test('converges to the exact fixed point when run to a tight tolerance', () => {
  const tolerance = 1e-14;
  for (const c of oracle.cases) {
    const ranks = pagerank(csrFromEdges(c.nodeCount, c.edges), {
      damping: c.damping,
      personalization: personalizationOf(c),
      tolerance,
      maxIterations: 10_000,
    });
    const bound = fixedPointBound(c.damping, c.nodeCount * tolerance) + 1e-12;
    const error = maxAbsDiff(ranks, c.exactRanks);
    assert.ok(error <= bound, `${c.name}: max abs error to fixed point ${error} > ${bound}`);
  }
});

// ---------------------------------------------------------------------------------------------
// b. ngraph.pagerank oracle (unweighted, unpersonalized)
//
// ngraph.pagerank(graph, internalJumpProbability = damping, epsilon) ignores link data (every link
// weighs 1), has no personalization, starts from the uniform vector and after each step spreads
// (1 - sum of propagated rank) / n over all nodes. For a vector summing to 1 that is exactly
// networkx's uniform case: teleport (1 - d) plus the dangling mass d * D, both uniform. So dangling
// nodes, isolated nodes and self-loops agree with networkx. Where they differ:
//  - weights are ignored;
//  - parallel links only count with createGraph({ multigraph: true }); the default graph keeps one
//    link per (from, to), unlike networkx's MultiDiGraph which sums them;
//  - epsilon (default 0.005!) bounds the absolute L1 change, not nodeCount * tol, and there is no
//    iteration cap, so an epsilon below the rounding floor (or damping 1 on a periodic graph) never stops.
// ---------------------------------------------------------------------------------------------

const NGRAPH_EPSILON = 1e-10;
const OUR_TOLERANCE = 1e-12;

function compareWithNgraph(name: string, n: number, edges: readonly Edge[], damping: number, multigraph: boolean): number {
  const graph = createGraph({ multigraph });
  for (let i = 0; i < n; i++) graph.addNode(i);
  for (const [u, v] of edges) graph.addLink(u, v);
  const expected = pagerankOracle(graph, damping, NGRAPH_EPSILON);

  const unweighted = edges.map(([u, v]): Edge => [u, v, 1]);
  const ranks = pagerank(csrFromEdges(n, unweighted), { damping, tolerance: OUR_TOLERANCE, maxIterations: 10_000 });

  // Both results are within fixedPointBound of the same fixed point.
  const bound = fixedPointBound(damping, NGRAPH_EPSILON) + fixedPointBound(damping, n * OUR_TOLERANCE) + 1e-12;
  let error = 0;
  for (let i = 0; i < n; i++) {
    assert.equal(typeof expected[i], 'number', `${name}: ngraph gave no rank for node ${i}`);
    error = Math.max(error, Math.abs(ranks[i] - expected[i]));
  }
  assert.ok(error <= bound, `${name}: max abs error vs ngraph.pagerank ${error} > ${bound}`);
  return error;
}

test('matches ngraph.pagerank on the oracle graphs with unit weights', (t) => {
  const seen = new Set<string>();
  let worst = 0;
  for (const c of oracle.cases) {
    const key = JSON.stringify(c.edges.map(([u, v]) => [u, v]));
    if (seen.has(key)) continue;
    seen.add(key);
    const hasParallel = new Set(c.edges.map(([u, v]) => `${u}>${v}`)).size < c.edges.length;
    worst = Math.max(worst, compareWithNgraph(c.name, c.nodeCount, c.edges, c.damping, hasParallel));
  }
  assert.ok(seen.size >= 5);
  t.diagnostic(`max abs error vs ngraph.pagerank: ${worst.toExponential(2)}`);
});

test('matches ngraph.pagerank on seeded random graphs (dangling nodes, self-loops, damping 0.85 and 0.5)', () => {
  const big = randomGraph(7, 1000, 0.1, 8);
  assert.ok(danglingNodes(1000, big).length > 0 && big.some(([u, v]) => u === v));
  compareWithNgraph('random-1000', 1000, big, 0.85, false);
  compareWithNgraph('random-1000-damping-0.5', 1000, big, 0.5, false);
  // No dangling nodes at all, dense-ish.
  const closed = randomGraph(11, 200, 0, 20);
  assert.equal(danglingNodes(200, closed).length, 0);
  compareWithNgraph('random-200-no-dangling', 200, closed, 0.85, false);
  // A directed cycle (periodic without damping): ranks are uniform.
  const cycle: Edge[] = Array.from({ length: 9 }, (_, i): Edge => [i, (i + 1) % 9, 1]);
  compareWithNgraph('cycle-9', 9, cycle, 0.85, false);
  // Parallel links, counted by ngraph only as a multigraph.
  const parallel: Edge[] = [[0, 1, 1], [0, 1, 1], [0, 1, 1], [0, 2, 1], [1, 2, 1], [2, 0, 1], [2, 3, 1], [2, 3, 1]];
  compareWithNgraph('parallel-multigraph', 4, parallel, 0.85, true);
});

// ---------------------------------------------------------------------------------------------
// c. properties
// ---------------------------------------------------------------------------------------------

test('ranks sum to 1, converged or not, with or without personalization', () => {
  for (const c of oracle.cases) {
    const graph = csrFromEdges(c.nodeCount, c.edges);
    for (const maxIterations of [1, 3, 1000]) {
      const ranks = pagerank(graph, { damping: c.damping, personalization: personalizationOf(c), maxIterations });
      assert.ok(Math.abs(sum(ranks) - 1) < 1e-12, `${c.name} (maxIterations ${maxIterations}): sum ${sum(ranks)}`);
      for (const r of ranks) assert.ok(r >= 0, `${c.name}: negative rank ${r}`);
    }
  }
});

test('every node gets at least (1 - damping) times its normalised personalization', () => {
  // Each step gives node u d * (in-flow) + (d * dangling mass + 1 - d) * p̂_u with every term >= 0.
  const n = 300;
  const edges = randomGraph(23, n, 0.2, 4);
  const random = seededRandom(29);
  const p = Float64Array.from({ length: n }, () => (random() < 0.3 ? random() * 10 : 0));
  const total = sum(p);
  for (const damping of [0.85, 0.5]) {
    const ranks = pagerank(csrFromEdges(n, edges), { damping, personalization: p });
    for (let u = 0; u < n; u++) {
      const floor = (1 - damping) * (p[u] / total);
      assert.ok(ranks[u] >= floor - 1e-15, `node ${u}: ${ranks[u]} < ${floor}`);
    }
  }
});

test('a node with all the personalization and no in-edges gets (1 - d) + d * dangling mass >= 1 - d', () => {
  // Node v has no in-edges and p̂_v = 1, so each step sets x_v = (1 - d) + d * D, where D is the
  // previous iterate's total rank on dangling nodes: x_v >= 1 - d, with equality only if D = 0.
  // Nodes v cannot reach get neither teleport nor dangling mass (both follow p), so they tend to 0.
  const n = 200;
  const v = 0;
  const cut = 1; // also has no in-edges, so it and whatever only it leads to are unreachable from v
  const edges = randomGraph(31, n, 0.15, 3).filter(([, to]) => to !== v && to !== cut);
  edges.push([v, 2, 1], [v, 3, 1]);
  const dangling = danglingNodes(n, edges);
  const reachable = reachableFrom(n, edges, v);
  assert.ok(dangling.length > 0 && !dangling.includes(v));
  assert.ok(!reachable.has(cut));

  const tolerance = 1e-12;
  for (const damping of [0.85, 0.5]) {
    const p = new Float64Array(n);
    p[v] = 7; // not normalised: pagerank normalises it
    const ranks = pagerank(csrFromEdges(n, edges), { damping, personalization: p, tolerance, maxIterations: 1000 });
    const danglingMass = dangling.reduce((s, u) => s + ranks[u], 0);
    assert.ok(danglingMass > 0.01, `dangling mass ${danglingMass} too small for the test to mean anything`);
    assert.ok(ranks[v] >= 1 - damping, `x_v = ${ranks[v]} < 1 - d`);
    // Exact at every step up to the change between the last two iterates' dangling mass.
    const slack = damping * n * tolerance + 1e-12;
    assert.ok(Math.abs(ranks[v] - (1 - damping + damping * danglingMass)) <= slack, `x_v = ${ranks[v]}, D = ${danglingMass}`);
    const leak = fixedPointBound(damping, n * tolerance) + 1e-12;
    for (let u = 0; u < n; u++) {
      if (!reachable.has(u)) assert.ok(ranks[u] <= leak, `unreachable node ${u} has rank ${ranks[u]}`);
    }
  }
});

test('an isolated node with all the personalization gets all the rank', () => {
  // Isolated v: x_v = (1 - d) + d * D and v itself is dangling, so D >= x_v, hence x_v >= 1.
  const n = 50;
  const edges = randomGraph(37, n, 0.2, 3).filter(([from, to]) => from !== n - 1 && to !== n - 1);
  const p = new Float64Array(n);
  p[n - 1] = 0.25;
  const ranks = pagerank(csrFromEdges(n, edges), { personalization: p, tolerance: 1e-12, maxIterations: 1000 });
  assert.ok(Math.abs(ranks[n - 1] - 1) <= fixedPointBound(0.85, n * 1e-12) + 1e-12, `x_v = ${ranks[n - 1]}`);
});

test('a start near the answer gets there in fewer iterations, and to the same ranks within the tolerance', () => {
  const n = 500;
  const edges = randomGraph(5, n, 0.05, 8);
  const before = pagerank(csrFromEdges(n, edges));
  // A few weights change, as a request's mentions change them.
  const changed = csrFromEdges(n, edges.map(([u, v, w], i): Edge => [u, v, i % 200 === 0 ? w * 10 : w]));
  const exact = pagerank(changed, { tolerance: 1e-15, maxIterations: 1000 });
  const fromUniform = pagerank(changed, { maxIterations: 3 });
  const fromBefore = pagerank(changed, { maxIterations: 3, start: before });
  assert.ok(maxAbsDiff(fromBefore, exact) < maxAbsDiff(fromUniform, exact) / 2, 'three iterations from the old ranks beat three from uniform');
  // Run to the default tolerance, both starts agree within what that tolerance allows.
  assert.ok(maxAbsDiff(pagerank(changed, { start: before }), exact) < fixedPointBound(0.85, n * 1e-6));
  assert.ok(Math.abs(sum(pagerank(changed, { start: before })) - 1) < 1e-9);
  assert.throws(() => pagerank(changed, { start: new Float64Array(n - 1) }), RangeError);
});

test('empty graph returns an empty array', () => {
  const ranks = pagerank(csrFromEdges(0, []));
  assert.ok(ranks instanceof Float64Array);
  assert.equal(ranks.length, 0);
});

test('personalization of the wrong length or with a negative, NaN or infinite entry throws RangeError', () => {
  const graph: CsrGraph = csrFromEdges(4, [[0, 1, 1], [1, 2, 1], [2, 0, 1], [3, 0, 2]]);
  assert.throws(() => pagerank(graph, { personalization: new Float64Array(3).fill(1) }), RangeError);
  assert.throws(() => pagerank(graph, { personalization: new Float64Array(5).fill(1) }), RangeError);
  assert.throws(() => pagerank(graph, { personalization: Float64Array.from([1, -0.5, 1, 1]) }), RangeError);
  assert.throws(() => pagerank(graph, { personalization: Float64Array.from([1, 0, NaN, 1]) }), RangeError);
  // networkx turns an infinite entry into NaN ranks and then fails to converge; here it is rejected up front.
  assert.throws(() => pagerank(graph, { personalization: Float64Array.from([1, Infinity, 0, 1]) }), RangeError);
  // A valid one does not throw, and is left untouched.
  const p = Float64Array.from([1, 0, 3, 0]);
  pagerank(graph, { personalization: p });
  assert.deepEqual([...p], [1, 0, 3, 0]);
});

test('all-zero personalization equals uniform (networkx personalization=None)', () => {
  const uniformCases = oracle.cases.filter((c) => c.personalization === null);
  assert.ok(uniformCases.length >= 3);
  for (const c of uniformCases) {
    const graph = csrFromEdges(c.nodeCount, c.edges);
    const options = { damping: c.damping, tolerance: c.tolerance, maxIterations: c.maxIterations };
    const zero = pagerank(graph, { ...options, personalization: new Float64Array(c.nodeCount) });
    const error = maxAbsDiff(zero, c.ranks);
    assert.ok(error <= 1e-9, `${c.name}: all-zero personalization differs from networkx uniform by ${error}`);
    assert.deepEqual(zero, pagerank(graph, options));
  }
});

// ---------------------------------------------------------------------------------------------
// d. forward push (the 'repomap' ranking's personalized requests)
// ---------------------------------------------------------------------------------------------

test('forward push: never above the exact ranks, within its residual bound, exact as epsilon goes to 0', () => {
  for (const [seed, n, dangling] of [[3, 400, 0.1], [5, 1000, 0], [9, 60, 0.3]] as const) {
    const graph = csrFromEdges(n, randomGraph(seed, n, dangling, 8));
    const personalization = new Float64Array(n);
    personalization[seed] = 2;
    personalization[n - 1] = 1;
    const exact = pagerank(graph, { personalization, tolerance: 1e-15, maxIterations: 1000 });
    for (const epsilon of [1e-4, 1e-6]) {
      const pushed = pagerankPush(graph, personalization, { epsilon });
      let missing = 0;
      for (let u = 0; u < n; u++) {
        assert.ok(pushed[u] <= exact[u] + 1e-12, `seed ${seed} node ${u}: pushed ${pushed[u]} > exact ${exact[u]}`);
        missing += exact[u] - pushed[u];
      }
      // What is missing is the residual left behind: under epsilon x edges per node.
      assert.ok(missing <= epsilon * (graph.targets.length + n), `seed ${seed} epsilon ${epsilon}: missing mass ${missing}`);
      assert.ok(missing > 0 || epsilon < 1e-5, 'a coarse push leaves some residual');
    }
    assert.ok(maxAbsDiff(pagerankPush(graph, personalization, { epsilon: 1e-13 }), exact) < 1e-9, `seed ${seed}: push to 1e-13`);
  }
});
