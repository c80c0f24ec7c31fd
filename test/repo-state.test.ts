import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ReferenceGraph } from '../src/graph/graph.js';
import { RepoState } from '../src/daemon/repo-state.js';
import { comparePaths } from '../src/discover/discover.js';
import { type PathState, indexRepository } from '../src/indexer/indexer.js';
import { TagStore } from '../src/store/store.js';
import { tempDir } from './helpers.js';

test("the daemon's sorted views: rebuilt from discovery's sorted list without sorting, the same as sorted; a list that misses a path is not used", async () => {
  const store = TagStore.open(tempDir());
  try {
    const paths = Array.from({ length: 1500 }, (_, i) => `${['src/', 'lib/', '', 'docs/'][i % 4]}f${(i * 7919) % 1500}.${['ts', 'py', 'md'][i % 3]}`).sort(comparePaths);
    // As an update settles them: the paths without a grammar first, then the sources.
    const settled = new Map<string, PathState>();
    for (const path of paths) if (path.endsWith('.md')) settled.set(path, { skip: { path, reason: 'no grammar' } });
    for (const path of paths) {
      if (!path.endsWith('.md')) settled.set(path, { record: { path, mtimeMs: 1, size: 1, hash: 'h', links: 0, skip: path.startsWith('lib/') ? 'too large' : null } });
    }
    const viewsOf = (order?: readonly string[]) => {
      const state = new RepoState('/nowhere', store);
      state.apply(settled);
      if (order) state.inOrder(order);
      const { paths: sorted, records, skipped } = state.index();
      return { sorted, records: records.map((r) => r.path), skipped: skipped.map((s) => `${s.path} ${s.reason}`) };
    };
    const sorted = viewsOf();
    assert.deepEqual(sorted.sorted, paths);
    assert.ok(sorted.records.length > 0 && sorted.skipped.length > 0);
    assert.deepEqual(viewsOf(paths), sorted, 'from the sorted list');
    assert.deepEqual(viewsOf(paths.slice(1)), sorted, 'a list without one of the paths: sorted instead');
    assert.deepEqual(viewsOf([...paths, 'zz/gone.ts']), sorted, 'a path of the list that has no state is no view');
  } finally {
    await store.close();
  }
});

test("the daemon resolves the imports of a barrel file (only `export * from` lines: no node of the graph) from its stored names, as a map in-process does", async () => {
  const root = tempDir();
  mkdirSync(join(root, 'src', 'lib'), { recursive: true });
  writeFileSync(join(root, 'src', 'lib', 'index.ts'), "export * from './widgets';\nexport * from './gears';\n");
  writeFileSync(join(root, 'src', 'lib', 'widgets.ts'), 'export function makeWidget(): number {\n  return 0;\n}\n');
  writeFileSync(join(root, 'src', 'lib', 'gears.ts'), 'export interface Gear {\n  teeth: number;\n}\n');
  writeFileSync(join(root, 'src', 'app.ts'), "import { makeWidget } from './lib';\n\nexport const made = makeWidget();\n");
  const store = TagStore.open(tempDir());
  try {
    const graph = new ReferenceGraph((path) => store.names(path));
    const index = await indexRepository({ root, store, graph, workers: 1 });
    const state = new RepoState(root, store);
    // As a daemon's pass applies them: each record with the names its parse gave.
    state.apply(new Map(index.records.map((record) => [record.path, { record: { ...record, names: store.names(record.path) } }])));
    const barrel = 'src/lib/index.ts';
    assert.ok(!state.graph.hasFile(barrel), 'the barrel is no node of the graph');
    assert.deepEqual(index.lookups.importsOf(barrel), ['src/lib/gears.ts', 'src/lib/widgets.ts']);
    assert.deepEqual(state.index().lookups.importsOf(barrel), index.lookups.importsOf(barrel));
    assert.deepEqual(state.index().lookups.importsOf('src/app.ts'), index.lookups.importsOf('src/app.ts'));
  } finally {
    await store.close();
  }
});
