import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFileStat, statAll } from '../src/indexer/stat.js';
import { makeUnreadable, tempDir } from './helpers.js';

test('statAll: files, links inside and outside the root, broken links, links to folders, folders, missing paths and paths out of reach, the same in memory and from disk', async () => {
  const root = tempDir();
  const outside = tempDir();
  writeFileSync(join(outside, 'secret.ts'), 'export const key = 1;\n');
  mkdirSync(join(root, 'src'));
  // More files than the synchronous chunks that find the disk slow, so the concurrent rest has work.
  const files = Array.from({ length: 2600 }, (_, i) => `src/f${i}.ts`);
  for (const [i, path] of files.entries()) writeFileSync(join(root, path), 'x'.repeat(i % 7));
  symlinkSync(join(root, 'src', 'f3.ts'), join(root, 'inside.ts'));
  symlinkSync(join(outside, 'secret.ts'), join(root, 'outside.ts'));
  symlinkSync(join(root, 'nowhere.ts'), join(root, 'dangling.ts'));
  symlinkSync(join(root, 'loop-b.ts'), join(root, 'loop-a.ts'));
  symlinkSync(join(root, 'loop-a.ts'), join(root, 'loop-b.ts'));
  symlinkSync(join(root, 'src'), join(root, 'folder.ts'));
  // A file where a folder was (ENOTDIR) is gone; a loop of symlinks on the way (ELOOP), or a name
  // too long (ENAMETOOLONG), is out of reach: something may be there, so it is no deletion.
  const paths = ['src', 'missing.ts', 'inside.ts', 'outside.ts', 'dangling.ts', 'loop-a.ts', 'folder.ts', 'src/f1.ts/x.ts', 'loop-a.ts/x.ts', `${'x'.repeat(300)}.ts`, ...files];
  const head = paths.length - files.length;

  const inMemory = await statAll(root, paths, { slowStatUs: Infinity });
  assert.deepEqual(
    inMemory.slice(0, head).map((r) => (typeof r === 'string' || !isFileStat(r) ? r : r.size)),
    ['missing', 'missing', 3, 'outside', 'broken', 'broken', 'special', 'missing', { unreadable: 'ELOOP' }, { unreadable: 'ENAMETOOLONG' }],
  );
  assert.deepEqual(files.map((_, i) => (inMemory[head + i] as { size: number }).size), files.map((_, i) => i % 7));
  // Past the first chunks, a slow disk is stat'ed concurrently: the same answers.
  assert.deepEqual(await statAll(root, paths, { slowStatUs: 0 }), inMemory);
});

test('statAll: a file in a folder this user may not search is out of reach (EACCES), not missing', async (t) => {
  const root = tempDir();
  mkdirSync(join(root, 'locked'));
  writeFileSync(join(root, 'locked', 'h.py'), 'def hidden():\n    return 1\n');
  if (!makeUnreadable(join(root, 'locked'))) {
    t.skip('permission bits do not bind this process (root)');
    return;
  }
  // Whether something is there cannot be told: gone.py is out of reach as h.py is.
  assert.deepEqual(await statAll(root, ['locked/h.py', 'locked/gone.py']), [{ unreadable: 'EACCES' }, { unreadable: 'EACCES' }]);
});
