import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { statAll } from '../src/indexer/stat.js';
import { tempDir } from './helpers.js';

test('statAll: files, links inside and outside the root, folders and missing paths, the same in memory and from disk', async () => {
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
  const paths = ['src', 'missing.ts', 'inside.ts', 'outside.ts', 'dangling.ts', ...files];

  const inMemory = await statAll(root, paths, { slowStatUs: Infinity });
  assert.deepEqual(inMemory.slice(0, 5).map((r) => (typeof r === 'string' ? r : r.size)), ['missing', 'missing', 3, 'outside', 'missing']);
  assert.deepEqual(files.map((_, i) => (inMemory[5 + i] as { size: number }).size), files.map((_, i) => i % 7));
  // Past the first chunks, a slow disk is stat'ed concurrently: the same answers.
  assert.deepEqual(await statAll(root, paths, { slowStatUs: 0 }), inMemory);
});
