// The 'repomap' ranking (the default): the related graph, the fused file order, the layout.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { get_encoding } from 'tiktoken';
import { ReferenceGraph } from '../src/graph/graph.js';
import { EDGE_WEIGHTS } from '../src/model.js';
import { buildMap } from '../src/map.js';
import { layoutEntries, namingTokens } from '../src/rank/layout.js';
import { nearestFirst, personalizationVector, rankRelated, testPartners } from '../src/rank/rank.js';
import { subjectName } from '../src/rank/path-index.js';
import { buildPathIndex, nodeOfPath, nodesNamed, nodesOfIds, nodesOfSubject, pathIndex } from '../src/rank/path-index.js';
import { seededRandom } from '../src/random.js';
import { fileNames, packRefs } from '../src/extract/refs.js';
import type { FileTags } from '../src/records.js';
import { copyFixture, tempDir } from './helpers.js';

const encoder = get_encoding('cl100k_base');
const countTokens = (text: string) => encoder.encode(text, [], []).length;

function tags(defs: string[], refs: Array<string | [string, string]>): FileTags {
  return {
    lang: 'python',
    lineCount: defs.length + 1,
    defs: defs.map((name, line) => ({ name, subkind: 'function', line, signatureEnd: line, scopes: [] })),
    refs: packRefs(refs.map((ref, line) => (typeof ref === 'string' ? { name: ref, subkind: 'call', line } : { name: ref[0], subkind: ref[1], line }))),
    modules: [],
    lines: defs.map((name, line): [number, string] => [line, `def ${name}():`]),
  };
}

/** The edges of the related graph as "from -> to ident weight forward|reverse". */
function edges(graph: ReferenceGraph, mentionedIdents: string[] = []): string[] {
  const compiled = graph.compileRelated({ chatFiles: new Set(), mentionedIdents: new Set(mentionedIdents) });
  const out: string[] = [];
  const { offsets, targets, weights } = compiled.csr;
  for (let u = 0; u < compiled.paths.length; u++) {
    for (let e = offsets[u]; e < offsets[u + 1]; e++) {
      const kind = compiled.forward[e] ? 'forward' : 'reverse';
      out.push(`${compiled.paths[u]} -> ${compiled.paths[targets[e]]} ${compiled.idents[compiled.edgeIdent[e]]} ${Number(weights[e].toPrecision(12))} ${kind}`);
    }
  }
  return out.sort();
}

test('related graph: links run both ways; a reference resolves to its own folder, else splits over the definers', () => {
  const graph = new ReferenceGraph();
  graph.setFile('a/user.py', fileNames(tags([], ['helper', 'helper', 'helper', 'helper', 'render'])));
  graph.setFile('a/helper.py', fileNames(tags(['helper'], [])));
  graph.setFile('b/helper.py', fileNames(tags(['helper'], [])));
  graph.setFile('b/one.py', fileNames(tags(['render'], [])));
  graph.setFile('c/two.py', fileNames(tags(['render'], [])));
  assert.deepEqual(edges(graph), [
    'a/helper.py -> a/user.py helper 2 reverse',
    'a/user.py -> a/helper.py helper 2 forward', // sqrt(4); b/helper.py is in another folder: not linked
    'a/user.py -> b/one.py render 0.5 forward', // no definer nearby: the weight is split over both
    'a/user.py -> c/two.py render 0.5 forward',
    'b/one.py -> a/user.py render 0.5 reverse',
    'c/two.py -> a/user.py render 0.5 reverse',
  ]);
  // A mentioned identifier weighs 10 times more, for this request only.
  assert.ok(edges(graph, ['render']).includes(`a/user.py -> b/one.py render ${0.5 * EDGE_WEIGHTS.mentionedIdent} forward`));
  assert.ok(edges(graph).includes('a/user.py -> b/one.py render 0.5 forward'));
  // The graph follows changes (the laid-out graph is rebuilt after a change).
  graph.setFile('a/helper.py', fileNames(tags(['somethingElse'], [])));
  assert.ok(edges(graph).includes('a/user.py -> b/helper.py helper 2 forward'));
  graph.removeFile('c/two.py');
  assert.ok(edges(graph).includes('a/user.py -> b/one.py render 1 forward'));
});

test('folder distance, test partners and subject names', () => {
  assert.deepEqual(nearestFirst(['a/b/chat.py'], ['top.py', 'a/x/cousin.py', 'a/b/c/below.py', 'a/side.py', 'a/b/near.py']), [
    'a/b/near.py',
    'a/b/c/below.py',
    'a/side.py',
    'a/x/cousin.py',
    'top.py',
  ]);
  assert.equal(subjectName('tests/test_app.py'), 'app');
  assert.equal(subjectName('pkg/context_test.go'), 'context');
  assert.equal(subjectName('src/__tests__/ref.spec.ts'), 'ref');
  assert.deepEqual(testPartners(['src/app.py'], ['tests/test_app.py', 'src/other.py']), ['tests/test_app.py']);
  // A name that many files share (index.ts, __init__.py) pairs nothing.
  assert.deepEqual(testPartners(['a/index.ts'], ['b/index.ts', 'c/index.ts', 'd/index.ts', 'e/index.ts']), []);
});

test('the fused order: what the chat file uses and what uses it, its test, then the lexical matches', () => {
  const graph = new ReferenceGraph();
  const files: Record<string, FileTags> = {
    'src/orders.py': tags(['place_order', 'Order'], [['Money', 'import'], 'Money', 'audit']),
    'src/money.py': tags(['Money'], []),
    'src/audit.py': tags(['audit'], []),
    'src/shipping.py': tags(['ship'], ['place_order', 'place_order']),
    'tests/test_orders.py': tags(['test_place'], []),
    'lib/unrelated.py': tags(['noise'], ['noise2']),
    'lib/noise2.py': tags(['noise2'], []),
    'docs/refund.py': tags(['refund_order'], ['Order']),
  };
  for (const [path, fileTags] of Object.entries(files)) graph.setFile(path, fileNames(fileTags));
  const request = { chatFiles: new Set(['src/orders.py']), mentionedFiles: new Set<string>(), mentionedIdents: new Set<string>() };
  const ranking = rankRelated(graph.compileRelated(request), request, graph);
  assert.ok(!ranking.files.includes('src/orders.py'), 'the chat file is not ranked');
  const position = (path: string) => ranking.files.indexOf(path);
  for (const related of ['src/money.py', 'src/audit.py', 'src/shipping.py', 'tests/test_orders.py', 'docs/refund.py']) {
    assert.ok(position(related) < position('lib/unrelated.py'), `${related} before an unrelated file: ${ranking.files.join(' ')}`);
  }
  // Definitions are ranked by what references them, as in Aider's model.
  const defRanks = ranking.definitionRanks(['src/money.py', 'src/audit.py']);
  assert.ok(defRanks.get('src/money.py')!.get('Money')! > defRanks.get('src/audit.py')!.get('audit')!);
  // A file the request names comes first.
  const ranksBefore = ranking.files.map(ranking.rankOf);
  const named = { ...request, mentionedFiles: new Set(['lib/noise2.py']) };
  assert.equal(rankRelated(graph.compileRelated(named), named, graph).files[0], 'lib/noise2.py');
  // A ranking outlives the next request's (the memory a ranking only borrows is lent again).
  assert.deepEqual(ranking.files.map(ranking.rankOf), ranksBefore);
  // The same graph, built in another order, gives the same ranking.
  const again = new ReferenceGraph();
  for (const path of Object.keys(files).reverse()) again.setFile(path, fileNames(files[path]));
  const rebuilt = rankRelated(again.compileRelated(request), request, again);
  assert.deepEqual(rebuilt.files, ranking.files);
  assert.deepEqual(rebuilt.definitionRanks(ranking.files), ranking.definitionRanks(ranking.files));
  assert.deepEqual(ranking.files.map(rebuilt.rankOf), ranking.files.map(ranking.rankOf));
});

test('a request that mentions names but has no file in the graph ranks the same whether or not the unmentioned ranks were known', () => {
  const random = seededRandom(3);
  const files: Record<string, FileTags> = {};
  for (let i = 0; i < 60; i++) {
    const refs = Array.from({ length: 4 }, () => `f${Math.floor(random() * 60)}`);
    files[`pkg${i % 5}/m${i}.py`] = tags([`f${i}`, `helper_${i % 7}`], [...refs, `helper_${(i + 1) % 7}`]);
  }
  const build = () => {
    const graph = new ReferenceGraph();
    for (const [path, fileTags] of Object.entries(files)) graph.setFile(path, fileNames(fileTags));
    return graph;
  };
  // A chat file outside the graph: no personalization, so the whole graph is walked with the mentions' weights.
  const request = { chatFiles: new Set(['README.md']), mentionedFiles: new Set<string>(), mentionedIdents: new Set(['helper_3']) };
  const plain = { ...request, mentionedIdents: new Set<string>() };
  const fresh = build();
  const view = fresh.compileRelated(request);
  const patchedWeights = [...view.walk.weights];
  const first = rankRelated(view, request, fresh);
  assert.deepEqual([...view.walk.weights], patchedWeights, "the mentions' weights are in place again after the unmentioned ranks were taken");
  const warm = build();
  const unmentioned = rankRelated(warm.compileRelated(plain), plain, warm);
  const second = rankRelated(warm.compileRelated(request), request, warm);
  const paths = Object.keys(files);
  assert.deepEqual(second.files, first.files);
  assert.deepEqual(paths.map(second.rankOf), paths.map(first.rankOf));
  assert.notDeepEqual(paths.map(second.rankOf), paths.map(unmentioned.rankOf), 'the mention moves the ranks');
  // The walk follows the mention: the files that define the mentioned name gain.
  const definers = paths.filter((path) => path.endsWith('m3.py') || path.endsWith('m10.py'));
  assert.ok(definers.length === 2 && definers.every((path) => second.rankOf(path) > unmentioned.rankOf(path)));
  // A view is good until the graph compiles the next request.
  fresh.compileRelated(plain);
  assert.throws(() => view.withoutPatch!(() => 0), /earlier request/);
});

test('layout: files are named first, then definitions round by round, then more files', () => {
  const files = Array.from({ length: 40 }, (_, i) => `pkg/module_${i}.py`);
  const defs = (path: string) => {
    const n = Number(path.match(/\d+/)![0]);
    return [0, 1, 2].map((k) => ({ name: `f${n}_${k}`, subkind: 'function', line: k, signatureEnd: k, scopes: [] }));
  };
  let made = 0;
  const ranked = (path: string) => ({ count: 3, at: (k: number) => (made++, defs(path)[k]) });
  const list = layoutEntries({ files, rankOf: () => 1, definitionsOf: (paths) => paths.map(ranked), budget: 200, countTokens });
  // Entries are made as they are read: reading into the second round made that many definitions.
  const firstNamed = list.at(0)!;
  assert.equal(made, 0, 'a named file is no definition');
  let namedCount = 0;
  while (list.at(namedCount)!.def === undefined) namedCount++;
  assert.equal(made, 1);
  assert.equal(list.length, files.length + 3 * namedCount, 'the definitions of the named files, then every file');
  list.at(namedCount * 2);
  assert.equal(made, namedCount + 1);
  assert.equal(list.at(0), firstNamed, 'an entry read again is the same');
  assert.equal(list.at(list.length), undefined);
  const entries = Array.from({ length: list.length }, (_, i) => list.at(i)!);
  assert.equal(made, namedCount * 3, 'each definition made once');
  const named = entries.findIndex((entry) => entry.def !== undefined);
  assert.ok(named > 0 && named < files.length);
  const namedTokens = files.slice(0, named).reduce((sum, path) => sum + countTokens(path + '\n'), 0);
  assert.ok(namedTokens <= namingTokens(200) + countTokens(files[named - 1] + '\n'));
  assert.equal(namingTokens(1024), 768);
  assert.equal(namingTokens(4096), 4096 - 768);
  assert.deepEqual(entries.slice(0, named).map((entry) => entry.path), files.slice(0, named));
  // Round one shows each named file's first definition, in file order; then round two.
  assert.deepEqual(entries.slice(named, named + 2).map((entry) => entry.def!.name), ['f0_0', 'f1_0']);
  assert.equal(entries[named * 2].def!.name, 'f0_1');
  // Every file appears, the unnamed ones after the definitions.
  assert.equal(new Set(entries.map((entry) => entry.path)).size, files.length);
  assert.equal(entries[entries.length - 1].path, files[files.length - 1]);
});

test("maps of both rankings stay in the budget; 'repomap' names more files than 'aider'", async () => {
  const root = copyFixture('shop');
  const cacheDir = tempDir();
  for (const tokens of [128, 256, 1024]) {
    const request = { root, cacheDir, tokens, chatFiles: ['src/checkout.ts'], message: 'retry sendReceipt' };
    const ours = await buildMap(request);
    const aider = await buildMap({ ...request, ranking: 'aider' });
    assert.ok(ours.tokens <= tokens && aider.tokens <= tokens);
    assert.equal(ours.tokens, countTokens(ours.text));
    assert.ok(!ours.files.some((file) => file.path === 'src/checkout.ts'));
    if (tokens === 128) assert.ok(ours.files.length >= aider.files.length, `${ours.files.length} < ${aider.files.length}`);
  }
  const first = await buildMap({ root, cacheDir, tokens: 256, chatFiles: ['src/checkout.ts'] });
  const second = await buildMap({ root, cacheDir: tempDir(), tokens: 256, chatFiles: ['src/checkout.ts'] });
  assert.equal(first.text, second.text);
});

test('folder order: the counting sort equals sorting by (distance, depth, path)', async () => {
  const { seededRandom } = await import('../src/random.js');
  const random = seededRandom(21);
  const part = () => ['a', 'b', 'c', 'lib', 'src'][Math.floor(random() * 5)];
  const paths = [...new Set(Array.from({ length: 300 }, () => Array.from({ length: 1 + Math.floor(random() * 5) }, part).join('/') + '.py'))];
  for (const from of [['a/b/x.py'], ['src/c.py', 'lib/a/b/c/d.py'], ['top.py'], []]) {
    const folders = from.map((path) => path.split('/').slice(0, -1));
    const distance = (path: string) => {
      const dirs = path.split('/').slice(0, -1);
      let best = Infinity;
      for (const chat of folders) {
        let common = 0;
        while (common < dirs.length && common < chat.length && dirs[common] === chat[common]) common++;
        best = Math.min(best, chat.length - common);
      }
      return best;
    };
    const want = [...paths].sort(
      (a, b) => distance(a) - distance(b) || a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0),
    );
    assert.deepEqual(nearestFirst(from, paths), want, `from ${from.join(', ')}`);
  }
});

test("personalization: with maxMatches, a mentioned name matching many paths (one per package) adds no share", () => {
  const paths = ['a/state.go', 'b/state.go', 'c/state.go', 'c/mirror.go', 'd/main.go'];
  const request = { chatFiles: new Set(['d/main.go']), mentionedFiles: new Set<string>(), mentionedIdents: new Set(['state', 'mirror']) };
  // Aider's rule (no limit): every state.go gets a share.
  assert.deepEqual([...personalizationVector(paths, request)!], [1, 1, 1, 1, 1]);
  // The 'repomap' ranking's rule: 'state' matches 3 paths, over a limit of 2, so only mirror.go and the chat file count.
  assert.deepEqual([...personalizationVector(paths, request, 2)!], [0, 0, 0, 1, 1]);
});

test('path lookups patched after files come and go equal lookups built anew', () => {
  const random = seededRandom(7);
  const folders = ['', 'src/', 'src/app/', 'lib/', 'lib/util/', 'tests/'];
  const names = ['app.py', 'test_app.py', 'index.ts', 'util.go', 'mod.rs', 'state.ts', 'app_test.go'];
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  let paths = [...new Set(Array.from({ length: 200 }, () => pick(folders) + pick(names)))].sort();
  pathIndex(paths);
  for (let round = 0; round < 60; round++) {
    const next = new Set(paths);
    // Mostly one file at a time, as a save; now and then a burst (over the patch limit: a fresh build).
    const changes = round % 15 === 14 ? 100 : 1 + Math.floor(random() * 3);
    for (let k = 0; k < changes; k++) {
      if (random() < 0.5 && next.size > 1) next.delete(pick([...next]));
      else next.add(`${pick(folders)}new${round}_${k}/${pick(names)}`);
    }
    paths = [...next].sort();
    const patched = pathIndex(paths);
    const fresh = buildPathIndex(paths);
    // Folder ids may be numbered differently; what they name may not.
    const folderNames = (index: typeof patched) => Array.from(index.folderOf, (id) => index.folders[id].join('/'));
    assert.deepEqual(folderNames(patched), folderNames(fresh), `round ${round}`);
    // Ids differ too (a path added gets a new one); the nodes they stand for may not.
    assert.deepEqual(paths.map((path) => nodeOfPath(patched, path)), paths.map((_, i) => i), `round ${round}`);
    assert.equal(patched.ids.size, paths.length, `round ${round}: the paths gone have no id`);
    const nodeLists = (lists: Map<string, number[]>, index: typeof patched) => new Map([...lists].map(([key, ids]) => [key, nodesOfIds(index, ids)]));
    assert.deepEqual(nodeLists(patched.byFileName, patched), nodeLists(fresh.byFileName, fresh), `round ${round}`);
    assert.deepEqual(nodeLists(patched.bySubject, patched), nodeLists(fresh.bySubject, fresh), `round ${round}`);
    for (const subject of fresh.bySubject.keys()) assert.deepEqual(nodesOfSubject(patched, subject), nodesOfSubject(fresh, subject));
    const named = new Set([...patched.byFileName.keys(), ...patched.foldersByName.keys(), ...fresh.foldersByName.keys()]);
    for (const name of named) {
      assert.deepEqual(nodesNamed(patched, name), nodesNamed(fresh, name), `round ${round}: ${name}`);
      assert.deepEqual(nodesNamed(patched, name, 3), nodesNamed(fresh, name, 3), `round ${round}: ${name}, at most 3`);
    }
    assert.deepEqual(patched.depth, fresh.depth, `round ${round}`);
    assert.ok(patched.maxDepth >= fresh.maxDepth);
    pathIndex(paths); // the graph's list again: the patched index, kept
  }
});
