import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AiderGraph, EDGE_WEIGHTS, ReferenceGraph, identifierMultiplier, isCompoundIdentifier } from '../src/graph/graph.js';
import type { FileTags } from '../src/types.js';

function tags(defs: string[], refs: string[]): FileTags {
  return {
    lang: 'typescript',
    lineCount: 10,
    defs: defs.map((name, line) => ({ name, subkind: 'function', line, scopes: [] })),
    refs: refs.map((name, line) => ({ name, subkind: 'call', line })),
    lines: [],
  };
}

/** The compiled graph's edges, expanded, as readable lines "from -> to ident weight". */
function edges({ paths, idents, graph }: AiderGraph): string[] {
  const out: string[] = [];
  const line = (u: number, v: number, ident: number, weight: number) =>
    `${paths[u]} -> ${paths[v]} ${idents[ident]} ${Number(weight.toPrecision(12))}`;
  for (let u = 0; u < graph.nodeCount; u++) {
    for (let e = graph.refOffsets[u]; e < graph.refOffsets[u + 1]; e++) {
      const i = graph.refIdent[e];
      for (let d = graph.defOffsets[i]; d < graph.defOffsets[i + 1]; d++) out.push(line(u, graph.defNode[d], i, graph.refWeight[e]));
    }
    for (let e = graph.selfOffsets[u]; e < graph.selfOffsets[u + 1]; e++) out.push(line(u, u, graph.selfIdent[e], graph.selfWeight[e]));
  }
  return out;
}

const none = { chatFiles: new Set<string>(), mentionedIdents: new Set<string>() };

test("edge weights follow Aider's model: sqrt of the reference count times the multipliers", () => {
  const graph = new ReferenceGraph();
  graph.setFile('a.ts', tags(['local'], ['parseConfig', 'parseConfig', 'parseConfig', 'parseConfig', 'run', '_hidden']));
  graph.setFile('b.ts', tags(['parseConfig', 'run', '_hidden'], []));
  assert.deepEqual(edges(graph.compile(none)), [
    'a.ts -> b.ts _hidden 0.1', // private: x0.1
    'a.ts -> b.ts parseConfig 20', // compound of 8+ chars: x10, times sqrt(4)
    'a.ts -> b.ts run 1',
    'a.ts -> a.ts local 0.1', // defined, referenced by nobody: a small self-edge
  ]);
  const chat = edges(graph.compile({ chatFiles: new Set(['a.ts']), mentionedIdents: new Set(['run']) }));
  assert.ok(chat.includes('a.ts -> b.ts run 500')); // mentioned x10, from a chat file x50
  assert.ok(chat.includes('a.ts -> b.ts parseConfig 1000'));
});

test('an identifier defined in more than five files is damped', () => {
  assert.equal(identifierMultiplier('render', 5, new Set()), 1);
  assert.equal(identifierMultiplier('render', 6, new Set()), EDGE_WEIGHTS.widelyDefined);
  assert.equal(identifierMultiplier('_render', 6, new Set(['_render'])), 10 * 0.1 * 0.1);
  assert.ok(isCompoundIdentifier('snake_case') && isCompoundIdentifier('kebab-case') && isCompoundIdentifier('camelCase'));
  assert.ok(!isCompoundIdentifier('lowercase') && !isCompoundIdentifier('UPPERCASE') && !isCompoundIdentifier('__'));
});

test('updating files in place gives the same graph as building it from scratch', () => {
  const incremental = new ReferenceGraph();
  incremental.setFile('c.ts', tags(['helperFunction'], ['mainEntry']));
  incremental.setFile('a.ts', tags(['mainEntry'], ['helperFunction', 'gone']));
  incremental.setFile('b.ts', tags(['gone', 'helperFunction'], []));
  incremental.setFile('b.ts', tags(['helperFunction'], ['mainEntry'])); // b changed
  incremental.setFile('d.ts', tags(['temporary'], ['helperFunction']));
  incremental.removeFile('d.ts'); // d deleted

  const scratch = new ReferenceGraph();
  scratch.setFile('a.ts', tags(['mainEntry'], ['helperFunction', 'gone']));
  scratch.setFile('b.ts', tags(['helperFunction'], ['mainEntry']));
  scratch.setFile('c.ts', tags(['helperFunction'], ['mainEntry']));
  const request = { chatFiles: new Set(['a.ts']), mentionedIdents: new Set(['gone']) };
  assert.deepEqual(edges(incremental.compile(request)), edges(scratch.compile(request)));
  assert.equal(incremental.fileCount, 3);
});

test('files with no edge are not nodes', () => {
  const graph = new ReferenceGraph();
  graph.setFile('lonely.ts', tags([], ['nothingDefinesThis']));
  graph.setFile('empty.ts', tags([], []));
  graph.setFile('def.ts', tags(['used'], []));
  graph.setFile('user.ts', tags([], ['used']));
  assert.deepEqual(graph.compile(none).paths, ['def.ts', 'user.ts']);
});

test('definition ranks through identifiers equal the edge-by-edge sharing of the expanded graph', async () => {
  const { indexRepository } = await import('../src/index/indexer.js');
  const { rankDefinitions } = await import('../src/rank/rank.js');
  const { expandFactored, pagerank } = await import('../src/rank/pagerank.js');
  const { copyFixture, tempDir } = await import('./helpers.js');
  const index = await indexRepository({ root: copyFixture('shop'), cacheDir: tempDir() });
  const graph = ReferenceGraph.fromRecords(index.records);
  const request = { chatFiles: new Set(['src/checkout.ts']), mentionedFiles: new Set<string>(), mentionedIdents: new Set(['priceOf']) };
  const compiled = graph.compile(request);
  const got = rankDefinitions(compiled, request);

  // Brute force: PageRank of the expanded graph, each edge's share credited to (target, identifier).
  const { paths, idents, graph: g } = compiled;
  const expanded = expandFactored(g);
  const personalization = Float64Array.from(paths, (path) => (path === 'src/checkout.ts' ? 1 : 0));
  const ranks = pagerank(expanded, { personalization });
  const want = new Map<string, number>();
  const credit = (u: number, v: number, ident: number, weight: number, total: number) => {
    const key = `${paths[v]} ${idents[ident]}`;
    want.set(key, (want.get(key) ?? 0) + (ranks[u] * weight) / total);
  };
  for (let u = 0; u < g.nodeCount; u++) {
    let total = 0;
    for (let e = expanded.offsets[u]; e < expanded.offsets[u + 1]; e++) total += expanded.weights[e];
    for (let e = g.refOffsets[u]; e < g.refOffsets[u + 1]; e++) {
      for (let d = g.defOffsets[g.refIdent[e]]; d < g.defOffsets[g.refIdent[e] + 1]; d++) credit(u, g.defNode[d], g.refIdent[e], g.refWeight[e], total);
    }
    for (let e = g.selfOffsets[u]; e < g.selfOffsets[u + 1]; e++) credit(u, u, g.selfIdent[e], g.selfWeight[e], total);
  }
  for (const key of [...want.keys()]) if (key.startsWith('src/checkout.ts ')) want.delete(key);
  assert.equal(got.definitions.length, want.size);
  for (const def of got.definitions) {
    const expected = want.get(`${def.path} ${def.ident}`);
    assert.ok(expected !== undefined && Math.abs(expected - def.rank) < 1e-12, `${def.path} ${def.ident}: ${def.rank} vs ${expected}`);
  }
});
