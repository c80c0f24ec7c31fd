import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { statAll } from '../src/indexer/stat.js';
import { tempDir } from './helpers.js';

test('statAll: files, links inside and outside the root, broken links, links to folders, folders and missing paths, the same in memory and from disk', async () => {
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
  const paths = ['src', 'missing.ts', 'inside.ts', 'outside.ts', 'dangling.ts', 'loop-a.ts', 'folder.ts', ...files];
  const head = paths.length - files.length;

  const inMemory = await statAll(root, paths, { slowStatUs: Infinity });
  assert.deepEqual(
    inMemory.slice(0, head).map((r) => (typeof r === 'string' ? r : r.size)),
    ['missing', 'missing', 3, 'outside', 'broken', 'broken', 'special'],
  );
  assert.deepEqual(files.map((_, i) => (inMemory[head + i] as { size: number }).size), files.map((_, i) => i % 7));
  // Past the first chunks, a slow disk is stat'ed concurrently: the same answers.
  assert.deepEqual(await statAll(root, paths, { slowStatUs: 0 }), inMemory);
});
