import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OutlineCache } from '../src/index/indexer.js';
import type { FileOutline } from '../src/types.js';

test('the outline cache reads each outline once, and past its limit drops the least recently used', () => {
  const reads: string[] = [];
  const cache = new OutlineCache((path): FileOutline => {
    reads.push(path);
    return { lang: 'python', lineCount: path.length, defs: [], lines: [] };
  }, 3);
  for (const path of ['a', 'b', 'c', 'a']) cache.get(path);
  assert.deepEqual(reads, ['a', 'b', 'c'], 'a hit reads nothing');
  cache.get('d'); // the fourth: b, used longest ago, goes (a was used again after it)
  assert.equal(cache.size, 3);
  for (const path of ['a', 'c', 'd']) cache.get(path);
  assert.deepEqual(reads, ['a', 'b', 'c', 'd'], 'a, c and d were kept');
  cache.get('b');
  assert.deepEqual(reads, ['a', 'b', 'c', 'd', 'b'], 'b was read again');
  cache.forget('c');
  cache.get('c');
  assert.equal(reads.at(-1), 'c', 'a forgotten outline is read again');
});
