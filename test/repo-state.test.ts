import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RepoState } from '../src/daemon/repo-state.js';
import { comparePaths } from '../src/discover/discover.js';
import type { PathState } from '../src/indexer/indexer.js';
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
