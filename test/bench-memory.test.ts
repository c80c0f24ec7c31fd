// The benches' memory per file: the division, its formatting, and the peak read from /proc.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesPerFile, formatPerFile, formatRss, processMemory } from '../bench/per-file.js';

test('memory per file: peak RSS over the indexed files, in KiB per file, none without files', () => {
  // The kernel's cold map as issue 51 measured it: 1,355 MiB over 56,410 source files.
  assert.equal(bytesPerFile(1355 * 2 ** 20, 56_410), 25_187);
  assert.equal(formatPerFile(25_187), '24.6 KiB/file');
  assert.equal(formatPerFile(200 * 1024 + 300), '200 KiB/file');
  assert.equal(bytesPerFile(2 ** 30, 0), undefined);
  assert.equal(formatPerFile(undefined), '-');
  assert.equal(formatRss(1355 * 2 ** 20, 56_410), '1,355 MiB (24.6 KiB/file)');
  assert.equal(formatRss(2 ** 30, 0), '1,024 MiB (-)');
});

test('memory per file: a live process peak and current RSS from /proc, none for a process that is gone', () => {
  const memory = processMemory(process.pid);
  assert.ok(memory, 'this process has a /proc entry');
  assert.ok(memory.rssBytes > 1 << 20 && memory.peakBytes >= memory.rssBytes, JSON.stringify(memory));
  assert.equal(processMemory(2 ** 22 + 1), undefined);
});
