// Issue #51 item 1 (the graph's names held compactly): a file's referenced names are ids of one
// name table, stable while the names are in use, freed (and reused without aliasing) once no file
// holds them; the definitions of names nobody references leave the definer index before a cold
// index builds its related graph, no name read; the name rows after a seeded run of adds, edits
// and removals are those of a graph built anew, the table holding no name more; a saved related
// graph read back answers as the one written; the definers cache holds no entry for a name of one
// definer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReferenceGraph } from '../src/graph/graph.js';
import { NameIndex } from '../src/graph/name-index.js';
import type { FileNode } from '../src/graph/nodes.js';
import { readSavedGraph, restoreRelatedGraph, saveRelatedGraph } from '../src/graph/graph-file.js';
import type { FileNames } from '../src/records.js';
import { seededRandom } from '../src/random.js';
import { tempDir } from './helpers.js';

const none = { chatFiles: new Set<string>(), mentionedIdents: new Set<string>() };

/** A file's names: `defined` and `referenced` sorted and each once, every reference counted `count`. */
function names(defined: string[], referenced: string[], count = 1): FileNames {
  const refs = [...new Set(referenced)].sort();
  return { defined: [...new Set(defined)].sort(), referenced: refs, counts: refs.map(() => count), imports: [], modules: [] };
}

/** A seeded tree: per file, a few of 60 names and some register masks of its own that nothing references. */
function randomTree(seed: number): { random: () => number; tree: Map<string, FileNames>; randomFile: () => FileNames; randomPath: () => string } {
  const random = seededRandom(seed);
  const pick = (k: number) => Array.from({ length: k }, () => `name${Math.floor(random() * 60)}`);
  let masks = 0;
  const randomFile = () => names([...pick(Math.floor(random() * 5)), ...Array.from({ length: Math.floor(random() * 6) }, () => `mask${masks++ % 97}`)], pick(Math.floor(random() * 8)), 1 + Math.floor(random() * 3));
  const randomPath = () => `d${Math.floor(random() * 4)}/f${Math.floor(random() * 25)}.c`;
  const tree = new Map<string, FileNames>();
  for (let i = 0; i < 80; i++) tree.set(randomPath(), randomFile());
  return { random, tree, randomFile, randomPath };
}

/** A graph as a cold index builds it: every file parsed, none linked while the pass runs; `stored` is the tag store. */
function parsedGraph(tree: ReadonlyMap<string, FileNames>, stored: Map<string, FileNames>, counter = { reads: 0 }): ReferenceGraph {
  const graph = new ReferenceGraph((path) => (counter.reads++, stored.get(path)));
  for (const [path, fileNames] of tree) {
    stored.set(path, fileNames);
    graph.takeRecord({ path, mtimeMs: 1, size: 1, hash: 'h', skip: null, names: structuredClone(fileNames) });
  }
  return graph;
}

/** A graph built anew from the tree, every name in memory. */
function freshGraph(tree: ReadonlyMap<string, FileNames>): ReferenceGraph {
  const graph = new ReferenceGraph();
  for (const path of [...tree.keys()].sort()) graph.setFile(path, structuredClone(tree.get(path)!));
  return graph;
}

/** Every name's definers and referencers (with counts), sorted: what the name rows hold. */
function rows(graph: ReferenceGraph): string[] {
  const all = new Set([...graph.definedNames(), ...graph.referencedNames()]);
  return [...graph.namesOfAll([...all].sort())].map(([name, { definers, referencers }]) => {
    const refs = [...(referencers ?? [])].map(([path, count]) => `${path}x${count}`).sort();
    return `${name}: ${[...(definers ?? [])].sort().join(' ')} | ${refs.join(' ')}`;
  });
}

/** The related graph's edges as lines. */
function relatedEdges(graph: ReferenceGraph): string[] {
  const g = graph.compileRelated(none);
  const out: string[] = [];
  for (let u = 0; u < g.csr.nodeCount; u++) {
    for (let e = g.csr.offsets[u]; e < g.csr.offsets[u + 1]; e++) out.push(`${g.paths[u]} ${g.paths[g.csr.targets[e]]} ${g.idents[g.edgeIdent[e]]} ${g.csr.weights[e]}`);
  }
  return out;
}

/** A node's names as the name index takes them. */
function nodeNames(fileNames: FileNames) {
  const { defined, referenced: refNames, counts, imports, modules } = structuredClone(fileNames);
  return { defined, refNames, refCounts: Uint32Array.from(counts), imports, modules };
}

/** Adds a file to `index`, its names in memory. */
function addTo(index: NameIndex, path: string, fileNames: FileNames): FileNode {
  return index.add(path, nodeNames(fileNames), fileNames.defined.length + fileNames.referenced.length);
}

test('item 1: a name keeps its id across batches of files, each name held once whichever file read it', () => {
  const index = new NameIndex();
  const first = [addTo(index, 'a.c', names(['f'], ['g', 'h', 'printk'])), addTo(index, 'b.c', names(['g'], ['f', 'printk']))];
  index.linkPending();
  const ids = first.map((node) => [...node.refIds]);
  const printk = index.names.idOf('printk')!;
  assert.ok(printk !== undefined && ids[0].includes(printk) && ids[1].includes(printk), 'one id for a name both files reference');
  // A second batch, linked later: the first batch's ids stand, and a name it shares takes the same id.
  const second = [addTo(index, 'c.c', names(['h'], ['printk', 'kmalloc'])), addTo(index, 'd.c', names([], ['g', 'kmalloc']))];
  index.linkPending();
  assert.deepEqual(first.map((node) => [...node.refIds]), ids, 'ids unchanged by a later batch');
  assert.equal(index.names.idOf('printk'), printk);
  assert.ok(second[0].refIds.includes(printk));
  assert.equal(index.names.size, 5, 'f g h printk kmalloc, each once');
  assert.deepEqual(index.refNamesOf(second[1]), ['g', 'kmalloc']);
  // A node's names are the table's strings: the same string whichever file read it.
  const [a, c] = [index.refNamesOf(first[0]), index.refNamesOf(second[0])];
  assert.equal(a[a.indexOf('printk')], index.names.nameOf(printk));
  assert.deepEqual(c, ['kmalloc', 'printk']);
});

test('item 1: a name no file references any longer leaves the table and its row, and its id, reused, stands for the new name only', () => {
  const index = new NameIndex();
  const gone = addTo(index, 'gone.c', names([], ['old_name', 'shared']));
  const kept = addTo(index, 'kept.c', names(['old_name'], ['shared']));
  index.linkPending();
  const oldId = index.names.idOf('old_name')!;
  assert.equal(index.referencersOf('old_name')?.length, 2);
  index.remove(gone);
  assert.equal(index.names.idOf('old_name'), undefined, 'the name left the table');
  assert.equal(index.referencersOf('old_name'), undefined, 'and its row');
  assert.equal(index.names.size, 1);
  const fresh = addTo(index, 'fresh.c', names([], ['new_name', 'shared'], 3));
  index.linkPending();
  assert.equal(index.names.idOf('new_name'), oldId, 'the freed id is reused');
  assert.equal(index.referencersOf('old_name'), undefined, 'the old name has no referencer through the reused id');
  assert.deepEqual(index.referencersOf('new_name'), [fresh, 0]);
  assert.equal(index.referencersOf('shared')?.length, 4, 'kept.c and fresh.c reference shared');
  assert.ok(index.definers.has('old_name') && !index.definers.has('new_name'), 'definitions are not references');
  // An edit that drops a name frees it too; a name kept keeps its id.
  const sharedId = index.names.idOf('shared');
  index.replaceNames(fresh, nodeNames(names([], ['shared'])));
  assert.equal(index.names.idOf('new_name'), undefined);
  assert.equal(index.names.idOf('shared'), sharedId);
  assert.deepEqual(index.refNamesOf(kept), ['shared']);
});

test('item 1: a parsed file waiting to be linked holds its definitions packed, and answers as one linked, a name holding the separator included', () => {
  const tree = new Map<string, FileNames>([
    ['a.c', names(['alpha', 'odd\0name', 'beta'], ['gamma'])],
    ['b.c', names(['gamma'], ['alpha', 'odd\0name'])],
    ['c.c', names(['delta', 'epsilon'], ['beta'])],
  ]);
  const stored = new Map<string, FileNames>();
  const graph = parsedGraph(tree, stored);
  assert.equal(graph.pendingCount, 3);
  assert.deepEqual(graph.fileNames('c.c').defined, ['delta', 'epsilon'], 'unpacked for the question');
  assert.deepEqual(rows(graph), rows(freshGraph(tree)), 'a scan of the waiting files answers as a graph built anew');
  graph.linkForRelated();
  assert.deepEqual(rows(graph), rows(freshGraph(tree)));
  assert.deepEqual(relatedEdges(graph), relatedEdges(freshGraph(tree)));
});

test('item 1: a cold index moves the definitions of names nobody references out of the definer index before it builds the related graph, reading no name', () => {
  const { tree } = randomTree(11);
  const counter = { reads: 0 };
  const graph = parsedGraph(tree, new Map(), counter);
  assert.equal(graph.linkForRelated(), false, 'names from a parse: nothing read from the store');
  assert.equal(counter.reads, 0, 'no name read to move them');
  const unreferenced = [...graph.definedNames((name) => name.startsWith('mask'))].sort();
  assert.ok(unreferenced.length > 50);
  assert.ok(counter.reads > 0, "a name nobody references is confirmed from the store's names: it left the definer index");
  assert.deepEqual(rows(graph), rows(freshGraph(tree)), 'every name answers as in a graph built anew');
  assert.deepEqual(relatedEdges(graph), relatedEdges(freshGraph(tree)));
});

test('item 1: the definers cache keeps no entry for a name of one definer, most names, yet the graphs read it as before', () => {
  const tree = new Map<string, FileNames>([
    ['a.c', names(['only_here'], ['twice'])],
    ['b.c', names(['twice'], ['only_here'])],
    ['c.c', names(['twice'], [])],
    ['d.c', names([], ['only_here', 'twice', 'nowhere'])],
  ]);
  const graph = freshGraph(tree);
  const aider = graph.compile(none);
  // 'twice' (two definers) only: 'only_here' is looked up in the definer index again at each ask.
  assert.equal(graph.definerCacheSize, 1);
  assert.deepEqual(aider.idents.slice().sort(), ['only_here', 'twice']);
  assert.deepEqual(relatedEdges(graph), relatedEdges(freshGraph(tree)));
  assert.ok(relatedEdges(graph).some((line) => line.startsWith('d.c a.c only_here')), 'a reference to the one definer links it');
});

test('item 1: the name rows after a seeded run of adds, edits and removals are those of a graph built anew', () => {
  for (const seed of [3, 5, 8]) {
    const { random, tree, randomFile, randomPath } = randomTree(seed);
    const stored = new Map<string, FileNames>();
    const graph = parsedGraph(tree, stored);
    graph.linkForRelated();
    graph.prepareRelated();
    for (let step = 0; step < 60; step++) {
      const path = randomPath();
      if (random() < 0.25) {
        graph.removeFile(path);
        tree.delete(path);
        stored.delete(path);
      } else {
        // A file gains a reference to a name nobody referenced, or keeps its names, or changes them.
        const fileNames = random() < 0.3 ? names([...(tree.get(path)?.defined ?? [])], [`mask${Math.floor(random() * 97)}`, ...(tree.get(path)?.referenced ?? [])]) : randomFile();
        tree.set(path, fileNames);
        stored.set(path, fileNames); // the store has a save's names before the graph
        graph.setFile(path, structuredClone(fileNames));
      }
      if (step % 15 === 14) {
        assert.deepEqual(rows(graph), rows(freshGraph(tree)), `seed ${seed}, step ${step}`);
        assert.deepEqual(relatedEdges(graph), relatedEdges(freshGraph(tree)), `seed ${seed}, step ${step}: edges`);
      }
    }
    assert.equal(graph.linkCount, freshGraph(tree).linkCount, `seed ${seed}: links`);
    const referenced = new Set([...tree.values()].flatMap((fileNames) => [...fileNames.referenced, ...fileNames.imports]));
    assert.equal(graph.nameTableSize, referenced.size, `seed ${seed}: the name table holds the names referenced, no name more`);
  }
});

test('item 1: the saved related graph read back answers as the one written, its definitions of names nobody references included', async () => {
  const { tree } = randomTree(21);
  const stored = new Map<string, FileNames>();
  const written = parsedGraph(tree, stored);
  written.linkForRelated();
  written.prepareRelated({ room: false });
  const dir = tempDir('name-ids');
  const hashOf = (path: string) => (tree.has(path) ? `h-${path}` : undefined);
  assert.ok(saveRelatedGraph(written, dir, hashOf, 'key'));
  const counter = { reads: 0 };
  const read = new ReferenceGraph((path) => (counter.reads++, stored.get(path)));
  for (const [path, fileNames] of tree) read.takeRecord({ path, mtimeMs: 1, size: 1, hash: 'h', skip: null, links: fileNames.defined.length + fileNames.referenced.length });
  assert.equal(restoreRelatedGraph(read, await readSavedGraph(dir), hashOf, 'key'), 'restored');
  assert.deepEqual(relatedEdges(read), relatedEdges(written));
  const masks = [...written.definedNames((name) => name.startsWith('mask'))].sort();
  counter.reads = 0;
  const definers = (graph: ReferenceGraph) => [...graph.definersOfAll(masks)].map(([name, files]) => `${name}: ${[...(files ?? [])].sort().join(' ')}`);
  assert.deepEqual(definers(read), definers(written));
  assert.ok(counter.reads < tree.size, `the saved definition hashes name the files to read (${counter.reads} of ${tree.size})`);
  assert.deepEqual(rows(read), rows(written));
});
