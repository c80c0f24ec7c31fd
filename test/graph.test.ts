import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReferenceGraph } from '../src/graph/graph.js';
import { type AiderGraph, type EdgeRequest, type SavedRelated } from '../src/graph/graph-types.js';
import { EDGE_WEIGHTS } from '../src/model.js';
import { identifierMultiplier, isCompoundIdentifier } from '../src/graph/identifiers.js';
import { fileNames, packRefs, unpackRefs } from '../src/extract/refs.js';
import type { FileRecord, FileTags } from '../src/records.js';
import { seededRandom } from '../src/random.js';
import { Interner } from '../src/graph/nodes.js';
import { readSavedGraph, restoreRelatedGraph, saveRelatedGraph } from '../src/graph/graph-file.js';
import { tempDir } from './helpers.js';

function tags(defs: string[], refs: string[]): FileTags {
  return {
    lang: 'typescript',
    lineCount: 10,
    defs: defs.map((name, line) => ({ name, subkind: 'function', line, signatureEnd: line, scopes: [] })),
    refs: packRefs(refs.map((name, line) => ({ name, subkind: 'call', line }))),
    modules: [],
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
  graph.setFile('a.ts', fileNames(tags(['local'], ['parseConfig', 'parseConfig', 'parseConfig', 'parseConfig', 'run', '_hidden'])));
  graph.setFile('b.ts', fileNames(tags(['parseConfig', 'run', '_hidden'], [])));
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
  incremental.setFile('c.ts', fileNames(tags(['helperFunction'], ['mainEntry'])));
  incremental.setFile('a.ts', fileNames(tags(['mainEntry'], ['helperFunction', 'gone'])));
  incremental.setFile('b.ts', fileNames(tags(['gone', 'helperFunction'], [])));
  incremental.setFile('b.ts', fileNames(tags(['helperFunction'], ['mainEntry']))); // b changed
  incremental.setFile('d.ts', fileNames(tags(['temporary'], ['helperFunction'])));
  incremental.removeFile('d.ts'); // d deleted

  const scratch = new ReferenceGraph();
  scratch.setFile('a.ts', fileNames(tags(['mainEntry'], ['helperFunction', 'gone'])));
  scratch.setFile('b.ts', fileNames(tags(['helperFunction'], ['mainEntry'])));
  scratch.setFile('c.ts', fileNames(tags(['helperFunction'], ['mainEntry'])));
  const request = { chatFiles: new Set(['a.ts']), mentionedIdents: new Set(['gone']) };
  assert.deepEqual(edges(incremental.compile(request)), edges(scratch.compile(request)));
  assert.equal(incremental.fileCount, 3);
});

test('files with no edge are not nodes', () => {
  const graph = new ReferenceGraph();
  graph.setFile('lonely.ts', fileNames(tags([], ['nothingDefinesThis'])));
  graph.setFile('empty.ts', fileNames(tags([], [])));
  graph.setFile('def.ts', fileNames(tags(['used'], [])));
  graph.setFile('user.ts', fileNames(tags([], ['used'])));
  assert.deepEqual(graph.compile(none).paths, ['def.ts', 'user.ts']);
});

test('definition ranks through identifiers equal the edge-by-edge sharing of the expanded graph', async () => {
  const { rankDefinitions } = await import('../src/rank/rank.js');
  const { expandFactored, pagerank } = await import('../src/rank/pagerank.js');
  const { copyFixture, indexOnce, tempDir } = await import('./helpers.js');
  const index = await indexOnce({ root: copyFixture('shop'), cacheDir: tempDir() });
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

test('the compiled edges are the paths file -> name -> file of an ngraph.graph of the same records (oracle)', async () => {
  const createGraph = (await import('ngraph.graph')).default;
  const random = seededRandom(5);
  const names = Array.from({ length: 30 }, (_, i) => `name${i}`);
  const files: Record<string, FileTags> = {};
  for (let f = 0; f < 25; f++) {
    const pick = (k: number) => Array.from({ length: k }, () => names[Math.floor(random() * names.length)]);
    files[`dir${f % 4}/file${f}.ts`] = tags(pick(Math.floor(random() * 4)), pick(Math.floor(random() * 6)));
  }
  const oracle = createGraph<unknown, number>();
  const graph = new ReferenceGraph();
  for (const [path, fileTags] of Object.entries(files)) {
    graph.setFile(path, fileNames(fileTags));
    for (const def of fileTags.defs) oracle.addLink(`name:${def.name}`, path);
    for (const ref of unpackRefs(fileTags.refs)) if (!oracle.hasLink(path, `name:${ref.name}`)) oracle.addLink(path, `name:${ref.name}`);
  }
  const want = new Set<string>();
  oracle.forEachNode((node) => {
    const from = node.id as string;
    if (from.startsWith('name:')) return;
    oracle.forEachLinkedNode(from, (nameNode, link) => {
      if (link.fromId !== from) return;
      oracle.forEachLinkedNode(nameNode.id, (to, out) => {
        if (out.fromId === nameNode.id) want.add(`${from} -> ${to.id} ${(nameNode.id as string).slice(5)}`);
      });
    }, false);
  });
  // Plus Aider's self edge for each definition nobody references.
  oracle.forEachNode((node) => {
    const id = node.id as string;
    if (!id.startsWith('name:')) return;
    let referenced = false;
    oracle.forEachLinkedNode(id, (_, link) => void (referenced ||= link.toId === id), false);
    if (!referenced) oracle.forEachLinkedNode(id, (file) => void want.add(`${file.id} -> ${file.id} ${id.slice(5)}`), true);
  });
  const got = edges(graph.compile(none)).map((line) => line.split(' ').slice(0, 4).join(' '));
  assert.equal(got.length, new Set(got).size);
  assert.deepEqual(new Set(got), want);
  assert.ok(want.size > 20);
});

/** Files of random names, a few of them defined by most files (past the cap of linked definers). */
function randomFiles(random: () => number) {
  const names = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? `shared_name${i}` : `n${i}`));
  const widely = (p: number) => ['everywhere', 'common_init'].filter(() => random() < p);
  const randomTags = () => {
    const pick = (k: number) => Array.from({ length: k }, () => names[Math.floor(random() * names.length)]);
    return tags([...pick(Math.floor(random() * 4)), ...widely(0.6)], [...pick(Math.floor(random() * 8)), ...widely(0.5)]);
  };
  const randomPath = () => `d${Math.floor(random() * 5)}/f${Math.floor(random() * 30)}.ts`;
  return { randomTags, randomPath };
}

/** 120 random files (later paths may replace earlier ones), with the generator and the files' maker for edits. */
function randomRepository(seed: number) {
  const random = seededRandom(seed);
  const files = randomFiles(random);
  const current = new Map<string, FileTags>();
  for (let i = 0; i < 120; i++) current.set(files.randomPath(), files.randomTags());
  return { random, files, current };
}

/** Asserts that two related graphs are the same, edge for edge, merged walk and name indexes included. */
function assertSameRelated(incremental: ReferenceGraph, scratch: ReferenceGraph, request: EdgeRequest, label: string): number {
  const a = incremental.compileRelated(request);
  const b = scratch.compileRelated(request);
  assert.deepEqual(a.paths, b.paths, label);
  const lines = (g: typeof a) => {
    const out: string[] = [];
    for (let u = 0; u < g.csr.nodeCount; u++) {
      for (let e = g.csr.offsets[u]; e < g.csr.offsets[u + 1]; e++) {
        out.push(`${g.paths[u]} ${g.paths[g.csr.targets[e]]} ${g.idents[g.edgeIdent[e]]} ${g.csr.weights[e]} ${g.forward[e]}`);
      }
    }
    return out;
  };
  assert.deepEqual(lines(a), lines(b), label);
  assert.deepEqual([...a.walk.weights], [...b.walk.weights], `${label}: merged weights`);
  assert.deepEqual([...a.forwardTotal], [...b.forwardTotal], `${label}: forward totals`);
  assert.deepEqual([...a.walk.offsets], [...b.walk.offsets], `${label}: merged offsets`);
  assert.deepEqual([...a.walk.targets], [...b.walk.targets], `${label}: merged targets`);
  assert.deepEqual([...a.walkSlot], [...b.walkSlot], `${label}: merged slots`);
  // The name indexes, patched file by file, hold what a graph built anew holds.
  const referencers = (g: ReferenceGraph) =>
    [...g.referencedNames()].sort().map((name) => `${name}: ${[...(g.namesOf(name).referencers ?? [])].map(([p, n]) => `${p}x${n}`).sort().join(' ')}`);
  assert.deepEqual(referencers(incremental), referencers(scratch), `${label}: referencers`);
  const definers = (g: ReferenceGraph) =>
    [...g.definedNames()].sort().map((name) => `${name}: ${[...(g.namesOf(name).definers ?? [])].sort().join(' ')}`);
  assert.deepEqual(definers(incremental), definers(scratch), `${label}: definers`);
  return lines(a).length;
}

/** A graph built anew from the current files. */
function graphOf(current: ReadonlyMap<string, FileTags>): ReferenceGraph {
  const graph = new ReferenceGraph();
  for (const path of [...current.keys()].sort()) graph.setFile(path, fileNames(current.get(path)!));
  return graph;
}

/** One random edit (a new or changed file, or a removal), to `graph` and to `current` alike; `pathOf` may move the path drawn. */
function editOnce(graph: ReferenceGraph, current: Map<string, FileTags>, random: () => number, files: ReturnType<typeof randomFiles>, pathOf = (path: string) => path): void {
  const path = pathOf(files.randomPath());
  if (random() < 0.2) {
    graph.removeFile(path);
    current.delete(path);
  } else {
    const fileTags = files.randomTags();
    graph.setFile(path, fileNames(fileTags));
    current.set(path, fileTags);
  }
}

const mentioning = { chatFiles: new Set<string>(), mentionedIdents: new Set(['n1', 'shared_name3']) };

test('the related graph after edits equals the one built from scratch, edge for edge', () => {
  const random = seededRandom(11);
  const files = randomFiles(random);
  const current = new Map<string, FileTags>();
  const incremental = new ReferenceGraph();
  for (let step = 0; step < 300; step++) {
    editOnce(incremental, current, random, files);
    // Compared at every step: a stale edge left behind by one change could be hidden by the next.
    const edgeCount = assertSameRelated(incremental, graphOf(current), mentioning, `step ${step}`);
    if (step === 299) assert.ok(edgeCount > 100);
  }
});

test('the related graph after edits equals the one built from scratch when files import others: a file saved with the same definitions leaves no stale definers behind', () => {
  const random = seededRandom(12);
  const files = randomFiles(random);
  // Each file imports one or two others of its folder by a fixed rule (a path that is no file
  // imports nothing). In its folder: a change of a widely defined name's definers moves the edges
  // of the referencers there only (see RelatedState.definerChanged).
  const importsOf = (path: string): string[] => {
    const [, d, f] = /^d(\d)\/f(\d+)\.ts$/.exec(path)!.map(Number);
    return [...new Set([`d${d}/f${(f + 1) % 30}.ts`, `d${d}/f${(f * 7) % 30}.ts`])].filter((other) => other !== path).sort();
  };
  const current = new Map<string, FileTags>();
  const incremental = new ReferenceGraph();
  incremental.useImports(importsOf);
  const check = (label: string) => {
    const scratch = graphOf(current);
    scratch.useImports(importsOf);
    assertSameRelated(incremental, scratch, mentioning, label);
  };
  const save = (path: string, defined: string[], referenced: string[]) => {
    const saved = tags(defined, referenced);
    incremental.setFile(path, fileNames(saved));
    current.set(path, saved);
  };
  const randomRefs = () => unpackRefs(files.randomTags().refs).map((ref) => ref.name);
  let scenarios = 0;
  for (let step = 0; step < 150; step++) {
    editOnce(incremental, current, random, files);
    check(`step ${step}`);
    // A file that defines names, and one that imports it: the importer, saved referencing them,
    // has their definers grouped (and kept) as its edges are derived; the file saved again with
    // the same definitions and other references links each anew; the importer, saved again,
    // derives its edges from the definers as they are now.
    const imported = [...current.keys()].find((path) => current.get(path)!.defs.length > 0 && [...current.keys()].some((other) => importsOf(other).includes(path)));
    if (!imported) continue;
    const importer = [...current.keys()].find((other) => importsOf(other).includes(imported))!;
    const names = current.get(imported)!.defs.map((def) => def.name);
    const importerDefs = current.get(importer)!.defs.map((def) => def.name);
    save(importer, importerDefs, [...names, ...randomRefs()]);
    check(`step ${step}, the importer referencing the file's names`);
    save(imported, names, randomRefs());
    save(importer, importerDefs, [...names, ...randomRefs()]);
    check(`step ${step}, the file saved with the same definitions`);
    scenarios++;
  }
  assert.ok(scenarios > 100, `${scenarios} files saved with the same definitions`);
});

test("a definer change in one language family moves the edges of another family only when the name's multiplier moves", () => {
  const random = seededRandom(13);
  const files = randomFiles(random);
  // Python and TypeScript files share names: each links to its own family's definers only, with
  // the multiplier of the name's definers in both (five or fewer: x1, more: x0.1).
  const inFamily = (path: string) => (random() < 0.5 ? path : path.replace(/\.ts$/, '.py'));
  const current = new Map<string, FileTags>();
  const incremental = new ReferenceGraph();
  for (let step = 0; step < 200; step++) {
    editOnce(incremental, current, random, files, inFamily);
    assertSameRelated(incremental, graphOf(current), mentioning, `step ${step}`);
  }
  // A Python file stops defining a name TypeScript files reference, and defines it again, its
  // definers staying five or fewer (x1): no TypeScript file derives its edges again. A sixth
  // definer moves the multiplier: every referencer derives them, of either family.
  const graph = new ReferenceGraph();
  const referencers = Array.from({ length: 10 }, (_, i) => `ts/r${i}.ts`);
  for (const path of referencers) graph.setFile(path, fileNames(tags([], ['parse'])));
  for (let i = 0; i < 4; i++) graph.setFile(`ts/d${i}.ts`, fileNames(tags(['parse'], [])));
  // Unrelated files: a change's stale files stay under half of them (past that, all derive again).
  for (let i = 0; i < 20; i++) graph.setFile(`ts/x${i}.ts`, fileNames(tags([`own${i}`], [`own${(i + 1) % 20}`])));
  graph.setFile('py/a.py', fileNames(tags(['parse'], [])));
  graph.setFile('py/user.py', fileNames(tags([], ['parse'])));
  graph.compileRelated(none);
  const derivedAfter = (change: () => void) => {
    const before = graph.relatedDerivations;
    change();
    graph.compileRelated(none);
    return graph.relatedDerivations - before;
  };
  // The changed file and the Python user of the name.
  assert.equal(derivedAfter(() => graph.setFile('py/a.py', fileNames(tags(['other'], [])))), 2);
  assert.equal(derivedAfter(() => graph.setFile('py/a.py', fileNames(tags(['parse'], [])))), 2);
  // The new definer, the TypeScript referencers and the Python user.
  assert.equal(derivedAfter(() => graph.setFile('ts/d4.ts', fileNames(tags(['parse'], [])))), 1 + referencers.length + 1);
});

test('a file saved with the same names moves nothing (its related graph is kept); one whose counts alone change moves its edges', () => {
  const { current } = randomRepository(31);
  const graph = graphOf(current);
  const before = graph.compileRelated(none);
  const [path, fileTags] = [...current].find(([, t]) => t.defs.length > 0 && unpackRefs(t.refs).length > 1)!;
  graph.setFile(path, fileNames(structuredClone(fileTags)));
  assert.equal(graph.compileRelated(none), before, 'the same related graph, not one built again');
  // One reference more of a name it already references: the same names, another count.
  const refs = unpackRefs(fileTags.refs);
  current.set(path, { ...fileTags, refs: packRefs([...refs, { ...refs[0], line: refs[0].line + 1 }]) });
  graph.setFile(path, fileNames(current.get(path)!));
  assert.notEqual(graph.compileRelated(none), before);
  assertSameRelated(graph, graphOf(current), none, 'after a change of counts');
});

test("an interner of a restored graph's names numbers them by their place, and goes on numbering after them", () => {
  const names = new Interner(['b', 'a', 'c']);
  const asObject = (found: Map<string, number>) => Object.fromEntries([...found].sort());
  assert.deepEqual(asObject(names.numbersOf(['c', 'x', 'b'])), { b: 0, c: 2 });
  assert.equal(names.id('a'), 1);
  assert.equal(names.id('d'), 3);
  assert.deepEqual(asObject(names.numbersOf(['d', 'a', 'y'])), { a: 1, d: 3 });
  assert.deepEqual(names.list, ['b', 'a', 'c', 'd']);
  // Asked twice with nothing numbered since: scanned, then indexed, alike.
  const restored = new Interner(['b', 'a', 'c']);
  assert.deepEqual(asObject(restored.numbersOf(['c', 'x'])), { c: 2 });
  assert.deepEqual(asObject(restored.numbersOf(['a', 'c', 'y'])), { a: 1, c: 2 });
});

test('a related graph saved, read back into a graph of the same files and then edited equals the one built from scratch', () => {
  const { random, files, current } = randomRepository(5);
  const first = graphOf(current);
  // A graph that lived through edits numbers its identifiers in another order than a fresh one.
  for (let step = 0; step < 40; step++) {
    editOnce(first, current, random, files);
    first.compileRelated(mentioning);
  }
  const saved = first.savedRelated();
  assert.ok(saved);
  const copy = cloneSaved(saved);

  const other = graphOf(current);
  other.setFile('elsewhere.ts', fileNames(tags(['n1'], [])));
  assert.equal(other.restoreRelated(copy), false, 'a graph of other files does not take it');

  const restored = graphOf(current);
  assert.equal(restored.restoreRelated(copy), true);
  assert.equal(restored.restoreRelated(copy), false, 'only into a graph whose related graph was never built');
  assertSameRelated(restored, graphOf(current), mentioning, 'as read back');
  restored.rehearseChange();
  assertSameRelated(restored, graphOf(current), none, 'after a rehearsed change');
  for (let step = 0; step < 150; step++) {
    editOnce(restored, current, random, files);
    assertSameRelated(restored, graphOf(current), step % 2 ? mentioning : none, `step ${step}`);
  }

  assert.equal(graphOf(current).savedRelated(), undefined, 'nothing to save before a related graph is built');
  const built = graphOf(current);
  built.compileRelated(none);
  const misshapen = cloneSaved(built.savedRelated()!);
  misshapen.edgeIdent = misshapen.edgeIdent.subarray(1);
  assert.equal(graphOf(current).restoreRelated(misshapen), false, 'arrays whose lengths do not fit together are refused');
});

test("the related graph patched in place, in the one set of arrays (edits, files added and removed, a hub's row, growth past the arrays' room, a graph read from its file), equals the one built from scratch after each step", async () => {
  const random = seededRandom(51);
  const names = Array.from({ length: 40 }, (_, i) => `name${i}`);
  const pick = (k: number) => Array.from({ length: k }, () => names[Math.floor(random() * names.length)]);
  // Most files reference the hub's name: the hub's row holds hundreds of entries (runs copied as blocks).
  const fileTags = (refs = Math.floor(random() * 6)) => tags(pick(Math.floor(random() * 3)), [...pick(refs), ...(random() < 0.8 ? ['hub_name'] : [])]);
  const randomPath = () => `d${Math.floor(random() * 8)}/f${Math.floor(random() * 60)}.ts`;
  const current = new Map<string, FileTags>([['hub/hub.ts', tags(['hub_name'], [])]]);
  // Files that define nothing and stay as they are: the first rows, which a patch leaves where they are.
  const leaves = Array.from({ length: 20 }, (_, i) => `a/leaf${i}.ts`);
  for (const leaf of leaves) current.set(leaf, tags([], ['hub_name']));
  while (current.size < 420) current.set(randomPath(), fileTags());
  const graph = graphOf(current);
  const save = (path: string, saved: FileTags | undefined) => {
    if (saved) graph.setFile(path, fileNames(saved));
    else graph.removeFile(path);
    if (saved) current.set(path, saved);
    else current.delete(path);
  };
  const arraysOf = (g: ReferenceGraph) => g.compileRelated(none).csr.targets.buffer;
  let arrays = arraysOf(graph);
  const kept = { inPlace: 0, grown: 0 };
  const check = (label: string) => {
    assertSameRelated(graph, graphOf(current), label.length % 2 ? mentioning : none, label);
    const now = arraysOf(graph);
    if (now === arrays) kept.inPlace++;
    else kept.grown++;
    arrays = now;
  };
  for (let step = 0; step < 60; step++) {
    const paths = [...current.keys()].filter((path) => path.startsWith('d'));
    const path = paths[Math.floor(random() * paths.length)];
    const roll = random();
    if (step === 30) {
      // Forty files (a patch's share) reference every name defined in the last folders, their
      // definitions the same: past the arrays' room, the rows of the first folders unchanged (moved as they are).
      const late = [...current].filter(([other]) => other >= 'd6').flatMap(([, t]) => t.defs.map((def) => def.name));
      for (const rich of [...paths].sort().slice(-40)) save(rich, tags(current.get(rich)!.defs.map((def) => def.name), [...late, 'hub_name']));
      const before = arrays;
      check(`step ${step}: forty files referencing every name`);
      assert.notEqual(arrays, before, 'the arrays grew');
      continue;
    }
    if (step % 10 === 5) {
      // The hub's row trades one referencer's run (its reference taken away or given).
      const refs = unpackRefs(current.get(path)!.refs).map((ref) => ref.name);
      const defs = current.get(path)!.defs.map((def) => def.name);
      save(path, tags(defs, refs.includes('hub_name') ? refs.filter((ref) => ref !== 'hub_name') : [...refs, 'hub_name']));
    } else if (roll < 0.2) save(path, undefined);
    else if (roll < 0.4) save(randomPath(), fileTags());
    else save(path, fileTags());
    check(`step ${step}`);
  }
  assert.ok(kept.inPlace >= 50 && kept.grown >= 1, `${kept.inPlace} patches in place, ${kept.grown} into arrays with more room`);

  // Saved and read back: the arrays read from the file have room, and the next changes patch them in place.
  const dir = tempDir('inplace');
  const hashOf = (path: string) => (current.has(path) ? `h-${path}` : undefined);
  assert.ok(saveRelatedGraph(graph, dir, hashOf, 'key'));
  const restored = graphOf(current);
  assert.equal(restoreRelatedGraph(restored, await readSavedGraph(dir), hashOf, 'key'), 'restored');
  const read = restored.compileRelated(none).csr.targets;
  assert.ok(read.buffer.byteLength > read.byteLength, 'room after the entries read');
  for (let step = 0; step < 10; step++) {
    const path = [...current.keys()][Math.floor(random() * current.size)];
    if (path === 'hub/hub.ts') continue;
    const edited = fileTags();
    restored.setFile(path, fileNames(edited));
    current.set(path, edited);
    assertSameRelated(restored, graphOf(current), none, `read back, step ${step}`);
    assert.equal(arraysOf(restored), read.buffer, `read back, step ${step}: patched where they were read`);
  }

  // Built lean (a cold index's arrays, made to measure), then readied for changes: moved once into arrays with room, patched in place after.
  const lean = graphOf(current);
  lean.prepareRelated({ room: false });
  const measured = lean.compileRelated(none).csr.targets;
  assert.equal(measured.buffer.byteLength, measured.byteLength, 'made to measure');
  lean.prepareRelated();
  const roomy = lean.compileRelated(none).csr.targets;
  assert.ok(roomy.buffer.byteLength > roomy.byteLength, 'room after the entries');
  const edited = [...current.keys()].find((path) => path.startsWith('d'))!;
  current.set(edited, fileTags(8));
  lean.setFile(edited, fileNames(current.get(edited)!));
  assertSameRelated(lean, graphOf(current), mentioning, 'built lean, readied, then edited');
  assert.equal(arraysOf(lean), roomy.buffer);
});

test('files wait to be linked into the name indexes: asked about names, a graph scans them and answers as a linked one; a related graph needs the definitions only; a change links them', () => {
  const { current } = randomRepository(23);
  const linked = graphOf(current);
  assert.ok(linked.linkPending());
  assert.equal(linked.pendingCount, 0);
  const waiting = graphOf(current);
  const n = waiting.fileCount;
  assert.ok(n > 60);
  assert.equal(waiting.pendingCount, n);
  assert.equal(waiting.linkCount, linked.linkCount);

  const answers = nameAnswers;
  const expected = answers(linked);
  assert.ok(expected.some((line) => line.startsWith('no_such_name: - | -')));
  assert.deepEqual(answers(waiting), expected);
  assert.equal(waiting.pendingCount, n, 'answered without linking');
  assert.equal(waiting.linkPending(50), false);
  assert.equal(waiting.pendingCount, n, 'references come first: 50 files have theirs linked, none its definitions');
  assert.deepEqual(answers(waiting), expected, 'some references linked, the rest scanned');
  waiting.linkDefiners();
  assert.equal(waiting.pendingCount, n - 50, 'definitions linked, references still waiting');
  assert.deepEqual(answers(waiting), expected, 'definitions linked, the rest of the references scanned');

  // Deriving the related graph reads the definer index only: the references can wait.
  const definersOnly = graphOf(current);
  definersOnly.linkDefiners();
  definersOnly.compileRelated(mentioning);
  assert.equal(definersOnly.pendingCount, n, 'the related graph linked no reference');
  assertSameRelated(definersOnly, linked, mentioning, 'definitions linked only');

  // A change to a file already taken links every waiting file first.
  const [path] = [...current.keys()].sort();
  const changed = tags(['n1', 'fresh_name'], ['everywhere', 'n2']);
  waiting.setFile(path, fileNames(changed));
  current.set(path, changed);
  assert.equal(waiting.pendingCount, 0);
  assertSameRelated(waiting, graphOf(current), mentioning, 'after the change');
});

test('a graph of stored records reads their names only when it needs them: a restored related graph none, a question the files it scans, a change all', () => {
  const { random, files, current } = randomRepository(31);
  const eager = graphOf(current);
  eager.compileRelated(none);
  const saved = cloneSaved(eager.savedRelated()!);
  const stored = new Map([...current].map(([path, fileTags]) => [path, fileNames(fileTags)]));
  let reads = 0;
  const storedRecord = (path: string): FileRecord => {
    const names = stored.get(path)!;
    return { path, mtimeMs: 1, size: 1, hash: 'h', skip: null, links: names.defined.length + names.referenced.length };
  };
  const lazy = new ReferenceGraph((path) => (reads++, stored.get(path)));
  const paths = [...current.keys()].sort();
  for (const path of paths) lazy.takeRecord(storedRecord(path));
  assert.equal(reads, 0, 'taking stored records reads no names');
  assert.equal(lazy.fileCount, eager.fileCount);
  assert.equal(lazy.linkCount, eager.linkCount, 'links counted from the records');
  assert.ok(lazy.restoreRelated(saved));
  lazy.compileRelated(mentioning);
  assert.equal(reads, 0, 'a restored related graph reads no names');
  assert.deepEqual(lazy.fileNames(paths[0]), eager.fileNames(paths[0]));
  assert.equal(reads, 1, "one file's names asked for, one read");
  assert.equal(lazy.namesOfAll([]).size, 0);
  lazy.visitNamers([], () => assert.fail('no name'), () => assert.fail('no file'));
  assert.equal(reads, 1, 'a question of no names reads none');
  assert.deepEqual(nameAnswers(lazy), nameAnswers(eager));
  assert.equal(reads, paths.length, 'a question scans every file, each read once');

  lazy.takeRecord(storedRecord(paths[1])); // the same content again (a hash match): nothing moves
  const added = 'd9/added.ts';
  const addedTags = files.randomTags();
  stored.set(added, fileNames(addedTags));
  current.set(added, addedTags);
  lazy.takeRecord(storedRecord(added)); // after the first load, read at once: what it defines moves edges
  assertSameRelated(lazy, graphOf(current), mentioning, 'a stored record after the first load');
  for (let step = 0; step < 40; step++) {
    editOnce(lazy, current, random, files);
    assertSameRelated(lazy, graphOf(current), step % 2 ? mentioning : none, `step ${step}`);
  }
  assert.deepEqual(edges(lazy.compile(mentioning)), edges(graphOf(current).compile(mentioning)), "Aider's graph");
});

test('definitions of names no file references stay out of the name indexes, and every question finds them as before; a file that comes to reference one links it', () => {
  // Two names of one hash (FNV-1a): a look-up by the hash alone would take one for the other.
  const [cold, twin] = ['reg_mask_7pfs', 'reg_mask_ovja'];
  const current = new Map<string, FileTags>([
    ['hw/regs.ts', tags([cold, 'used_mask', 'spare_mask'], [])],
    ['hw/regs_b.ts', tags([cold, 'spare_mask'], ['used_mask'])],
    ['drv/a.ts', tags(['probe'], ['used_mask', 'probe_helper'])],
    ['drv/b.ts', tags(['probe_helper'], ['probe'])],
  ]);
  const stored = new Map([...current].map(([path, fileTags]) => [path, fileNames(fileTags)]));
  let reads = 0;
  const lazy = new ReferenceGraph((path) => (reads++, stored.get(path)));
  for (const path of [...current.keys()].sort()) {
    const names = stored.get(path)!;
    lazy.takeRecord({ path, mtimeMs: 1, size: 1, hash: 'h', skip: null, links: names.defined.length + names.referenced.length });
  }
  assert.ok(lazy.linkPending());
  // The same files with their names in memory, edited alike: every definition in the definer index.
  const eager = graphOf(current);
  eager.linkPending();
  const edit = (path: string, fileTags: FileTags | undefined) => {
    for (const map of [current, stored]) map.delete(path);
    if (fileTags) {
      current.set(path, fileTags);
      stored.set(path, fileNames(fileTags));
    }
    for (const g of [lazy, eager]) (fileTags ? g.setFile(path, fileNames(fileTags)) : g.removeFile(path));
  };
  const asked = [cold, twin, 'spare_mask', 'used_mask', 'probe'];
  const answers = (g: ReferenceGraph) => {
    const lines = [...g.namesOfAll(asked)].map(([name, { definers, referencers }]) => `${name}: ${[...(definers ?? [])].join(' ')} | ${[...(referencers ?? [])].map(([p, k]) => `${p}x${k}`).sort().join(' ')}`);
    for (const [name, definers] of g.definersOfAll(asked)) lines.push(`definers of ${name}: ${[...(definers ?? [])].join(' ')}`);
    const visits: string[] = [];
    const paths = g.filePaths();
    g.visitNamers(asked, () => visits.push('|'), (node, count) => visits.push(`${paths[node]}x${count}`));
    lines.push(visits.join(' '));
    for (const path of paths) lines.push(`${path} defines ${g.fileNames(path).defined.join(' ')}`);
    lines.push(`defined: ${[...g.definedNames()].sort().join(' ')}`, `links: ${g.linkCount}`);
    return lines;
  };
  // The answers, their order included, are those of the graph holding every definition; the
  // compiled graphs those of a graph built from scratch.
  const check = (label: string) => {
    const scratch = graphOf(current);
    assert.deepEqual(answers(lazy), answers(eager), label);
    assert.deepEqual(edges(lazy.compile(mentioning)), edges(scratch.compile(mentioning)), `${label}: Aider's graph, self edges included`);
    assertSameRelated(lazy, scratch, { chatFiles: new Set(['drv/a.ts']), mentionedIdents: new Set([cold]) }, label);
  };
  check('linked from the store');
  assert.match(answers(lazy)[0], new RegExp(`^${cold}: hw/regs.ts hw/regs_b.ts \\| $`), 'both definers, in the order the files were taken');

  // The cold names are read back from the store when asked about; a referenced one is in memory.
  reads = 0;
  lazy.definersOfAll(['used_mask', 'probe']);
  assert.equal(reads, 0, 'a referenced name is answered from memory');
  assert.deepEqual([...lazy.definersOfAll([twin]).values()], [undefined], 'a name of the same hash is defined nowhere');
  assert.equal(reads, 2, "the hash's two files are read to tell");
  lazy.rehearseChange();
  eager.rehearseChange();
  check('after a rehearsed change (hw/regs_b.ts, whose names are all cold, taken away and given back)');

  // A file comes to reference a cold name: its definers are linked, and edges run to them.
  edit('drv/b.ts', tags(['probe_helper'], ['probe', cold]));
  check('after drv/b.ts references it');
  assert.ok(lazy.compileRelated(none).idents.includes(cold), 'an edge of the related graph goes through it');
  reads = 0;
  lazy.definersOfAll([cold]);
  assert.equal(reads, 0, 'linked: answered from memory');

  // A definer of a cold name changes (its cold definitions go with its old names), then leaves.
  edit('hw/regs.ts', tags(['used_mask', 'spare_mask', twin], []));
  check('after hw/regs.ts changed');
  edit('drv/a.ts', tags(['probe'], ['used_mask', 'probe_helper', 'spare_mask']));
  check('after drv/a.ts references spare_mask, which hw/regs.ts defines in memory and hw/regs_b.ts cold');
  edit('hw/regs_b.ts', undefined);
  check('after hw/regs_b.ts left');
  // The last reference to a name goes: it stays linked, and the answers stay the same.
  edit('drv/b.ts', tags(['probe_helper'], ['probe']));
  check('after the reference went');
});

test('a pass over stored records that parses some files (a touch) links every reference before any definition: definitions nobody references stay out of the indexes, and the graphs are those of a graph built anew', () => {
  const { current } = randomRepository(43);
  const unreferenced = 'reg_mask_7pfs';
  current.set('hw/regs.ts', tags([unreferenced, 'n1'], ['n2']));
  const stored = new Map([...current].map(([path, fileTags]) => [path, fileNames(fileTags)]));
  const record = (path: string): FileRecord => {
    const names = stored.get(path)!;
    return { path, mtimeMs: 1, size: 1, hash: 'h', skip: null, links: names.defined.length + names.referenced.length };
  };
  let reads = 0;
  const touched = new ReferenceGraph((path) => (reads++, stored.get(path)));
  const paths = [...current.keys()].sort();
  const parsed = new Set(paths.filter((_, i) => i % 7 === 3));
  // As a pass takes them: the stored records first, then the parsed files with their names, none
  // linked while the pass runs.
  for (const path of paths) if (!parsed.has(path)) touched.takeRecord(record(path));
  for (const path of parsed) {
    touched.takeRecord({ ...record(path), names: fileNames(current.get(path)!) });
  }
  assert.equal(reads, 0, 'nothing linked while stored files wait');
  touched.compileRelated(mentioning);
  assert.equal(touched.pendingCount, 0, 'the related graph linked every reference first');
  reads = 0;
  assert.deepEqual([...(touched.definersOfAll([unreferenced]).get(unreferenced) ?? [])], ['hw/regs.ts']);
  assert.ok(reads > 0, 'a name nobody references is confirmed from the store: its definition is not in the definer index');
  assertSameRelated(touched, graphOf(current), mentioning, 'touched');
  assert.deepEqual(nameAnswers(touched), nameAnswers(graphOf(current)));
  assert.deepEqual(edges(touched.compile(mentioning)), edges(graphOf(current).compile(mentioning)), "Aider's graph");

  // A pass that parses every file (a cold index) links no definition while it runs; its related
  // graph links the definitions and leaves the references waiting.
  const cold = new ReferenceGraph((path) => stored.get(path));
  for (const path of paths) {
    cold.takeRecord({ ...record(path), names: fileNames(current.get(path)!) });
  }
  cold.compileRelated(mentioning);
  assert.equal(cold.pendingCount, cold.fileCount, 'no reference linked');
  assertSameRelated(cold, graphOf(current), mentioning, 'cold');
});

test('a graph whose every file a pass parsed moves the definitions of names nobody references out of the definer index, reading no name, and every answer stays the same', () => {
  const { current } = randomRepository(47);
  const unreferenced = 'reg_mask_7pfs';
  current.set('hw/regs.ts', tags([unreferenced, 'n1'], ['n2']));
  current.set('hw/regs_b.ts', tags([unreferenced, 'shared_name3'], []));
  const stored = new Map([...current].map(([path, fileTags]) => [path, fileNames(fileTags)]));
  let reads = 0;
  const cold = new ReferenceGraph((path) => (reads++, stored.get(path)));
  // As a cold index takes them (in no order of paths), none linked while the pass runs.
  for (const path of [...current.keys()].reverse()) {
    const names = stored.get(path)!;
    cold.takeRecord({ path, mtimeMs: 1, size: 1, hash: 'h', skip: null, links: names.defined.length + names.referenced.length, names: fileNames(current.get(path)!) });
  }
  cold.compileRelated(mentioning);
  const asked = [unreferenced, 'n1', 'shared_name3', 'everywhere', 'common_init', 'no_such_name'];
  // In the order given: the definers' order is what a ranking reads.
  const answers = (g: ReferenceGraph) => {
    const paths = g.filePaths();
    const visits: string[] = [];
    g.visitNamers(asked, () => visits.push('|'), (node, count) => visits.push(`${paths[node]}x${count}`));
    const definers = [...g.definersOfAll(asked)].map(([name, files]) => `${name}: ${[...(files ?? [])].join(' ')}`);
    return [visits.join(' '), ...definers, ...paths.map((path) => `${path} defines ${g.fileNames(path).defined.join(' ')}`), `links: ${g.linkCount}`];
  };
  const before = answers(cold);
  reads = 0;
  assert.deepEqual([...cold.definersOfAll([unreferenced]).get(unreferenced)!], ['hw/regs_b.ts', 'hw/regs.ts']);
  assert.equal(reads, 0, 'answered from the names in memory (a scan of the waiting files)');

  assert.ok(cold.coldParsedDefinitions());
  assert.equal(reads, 0, 'no name read to move them');
  assert.deepEqual([...cold.definersOfAll([unreferenced]).get(unreferenced)!], ['hw/regs_b.ts', 'hw/regs.ts'], 'in the order they were linked first');
  assert.ok(reads > 0, 'a name nobody references is confirmed from the store: its definitions left the definer index');
  assert.deepEqual(answers(cold), before, 'while the references wait');
  assert.equal(cold.pendingCount, cold.fileCount, 'no reference linked');
  assert.ok(cold.linkPending());
  assert.deepEqual(answers(cold), before, 'once the references are linked');
  assert.equal(cold.coldParsedDefinitions(), false, 'only once');
  assertSameRelated(cold, graphOf(current), mentioning, 'references linked');
  assert.deepEqual(edges(cold.compile(mentioning)), edges(graphOf(current).compile(mentioning)), "Aider's graph");
  cold.rehearseChange();
  assert.deepEqual(answers(cold), before, 'after a rehearsed change');
  assertSameRelated(cold, graphOf(current), mentioning, 'after a rehearsed change');

  // A graph over stored records, or with a file linked, is left as it is.
  const warm = new ReferenceGraph((path) => stored.get(path));
  for (const path of current.keys()) warm.takeRecord({ path, mtimeMs: 1, size: 1, hash: 'h', skip: null, links: 1 });
  assert.equal(warm.coldParsedDefinitions(), false);
});

test('a save that keeps every name of a file with cold definitions moves nothing; its cold names are compared by hash, and answers come from the stored names', () => {
  const [cold, twin] = ['reg_mask_7pfs', 'reg_mask_ovja']; // one hash (FNV-1a)
  const current = new Map<string, FileTags>([
    ['hw/regs.ts', tags([cold, 'spare_mask', 'used_mask'], [])],
    ['drv/a.ts', tags(['probe'], ['used_mask', 'probe'])],
  ]);
  const stored = new Map([...current].map(([path, fileTags]) => [path, fileNames(fileTags)]));
  const lazy = new ReferenceGraph((path) => stored.get(path));
  for (const [path, names] of stored) lazy.takeRecord({ path, mtimeMs: 1, size: 1, hash: 'h', skip: null, links: names.defined.length + names.referenced.length });
  lazy.linkPending();
  const answers = (g: ReferenceGraph) => [...g.namesOfAll([cold, twin, 'spare_mask', 'other_mask', 'used_mask'])].map(([name, { definers }]) => `${name}: ${[...(definers ?? [])].join(' ')}`).concat(g.fileNames('hw/regs.ts').defined.join(' '), `links ${g.linkCount}`);
  const save = (fileTags: FileTags) => {
    current.set('hw/regs.ts', fileTags);
    stored.set('hw/regs.ts', fileNames(fileTags)); // the store has a save's names before the graph
    lazy.setFile('hw/regs.ts', fileNames(fileTags));
  };
  const before = lazy.compileRelated(none);
  save(tags([cold, 'spare_mask', 'used_mask'], []));
  assert.equal(lazy.compileRelated(none), before, 'the same names: the same related graph, not one built again');
  assert.deepEqual(answers(lazy), answers(graphOf(current)));
  // A cold name renamed to one of the same hash is taken as the same names, and the answers, read
  // from the stored names, are the new ones.
  save(tags([twin, 'spare_mask', 'used_mask'], []));
  assert.equal(lazy.compileRelated(none), before, 'a cold name for another of its hash: nothing moves');
  assert.deepEqual(answers(lazy), answers(graphOf(current)));
  // Another name (another hash), or a count changed: the file's names are replaced.
  save(tags([twin, 'other_mask', 'used_mask'], []));
  assert.notEqual(lazy.compileRelated(none), before);
  assert.deepEqual(answers(lazy), answers(graphOf(current)));
  assertSameRelated(lazy, graphOf(current), none, 'after a cold name changed');
});

/** What namesOfAll says of a few names (common, rare, none), as sorted lines. */
function nameAnswers(g: ReferenceGraph): string[] {
  const asked = ['n1', 'shared_name3', 'everywhere', 'common_init', 'no_such_name', 'n1'];
  return [...g.namesOfAll(asked)]
    .map(([name, { definers, referencers }]) => {
      const refs = referencers && [...referencers].map(([p, k]) => `${p}x${k}`).sort();
      return `${name}: ${definers ? [...definers].sort().join(' ') : '-'} | ${refs ? refs.join(' ') : '-'}`;
    })
    .sort();
}

function cloneSaved(saved: SavedRelated): SavedRelated {
  return structuredClone({ ...saved, paths: [...saved.paths], idents: [...saved.idents] });
}
