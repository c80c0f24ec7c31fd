import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { open } from 'lmdb';
import { buildMap } from '../src/map.js';
import { STORE_FORMAT } from '../src/store/store.js';
import { copyFixture, tempDir } from './helpers.js';

const SOURCES = 9; // source files in fixtures/repos/shop

async function mapOf(root: string, cacheDir: string, notices: string[] = []) {
  return buildMap({ root, cacheDir, tokens: 4096, onNotice: (message) => notices.push(message) });
}

test('a second run with nothing changed parses no file', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const first = await mapOf(root, cache);
  assert.equal(first.stats.parsed, SOURCES);
  const second = await mapOf(root, cache);
  assert.equal(second.stats.parsed, 0);
  assert.equal(second.stats.reusedByStat, SOURCES);
  assert.equal(second.text, first.text);
});

test('a touched but unchanged file is not parsed again', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  await mapOf(root, cache);
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(root, 'src/cart.ts'), later, later);
  const run = await mapOf(root, cache);
  assert.equal(run.stats.parsed, 0);
  assert.equal(run.stats.reusedByHash, 1);
  // The new mtime was stored: the next run needs no read at all.
  const next = await mapOf(root, cache);
  assert.equal(next.stats.reusedByStat, SOURCES);
});

test('an edited file is parsed again and its new definitions show', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  await mapOf(root, cache);
  appendFileSync(join(root, 'src/pricing.ts'), '\nexport function shippingCostForOrder(weight: number): number {\n  return weight * 2;\n}\n');
  const run = await mapOf(root, cache);
  assert.equal(run.stats.parsed, 1);
  assert.match(run.text, /│export function shippingCostForOrder\(weight: number\): number \{/);
});

test('a deleted file disappears from the map and the cache', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const before = await mapOf(root, cache);
  assert.match(before.text, /^src\/mailer\.ts:$/m);
  rmSync(join(root, 'src/mailer.ts'));
  const after = await mapOf(root, cache);
  assert.equal(after.stats.removed, 1);
  assert.doesNotMatch(after.text, /mailer\.ts/);
  assert.ok(!after.files.some((file) => file.path === 'src/mailer.ts'));
});

test('a cache of an older format is rebuilt with a one-line notice', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  await mapOf(root, cache);
  const db = open({ path: join(cache, 'tags.lmdb'), noSubdir: false });
  db.putSync('format', STORE_FORMAT - 1);
  await db.close();
  const notices: string[] = [];
  const run = await mapOf(root, cache, notices);
  assert.equal(notices.length, 1);
  assert.match(notices[0], /format .* older .* rebuilding/);
  assert.equal(run.stats.parsed, SOURCES);
});

test('a corrupt cache is rebuilt with a one-line notice, never a crash', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const first = await mapOf(root, cache);
  const dir = join(cache, 'tags.lmdb');
  for (const name of readdirSync(dir)) writeFileSync(join(dir, name), Buffer.alloc(64 * 1024, 0x5a));
  const notices: string[] = [];
  const run = await mapOf(root, cache, notices);
  assert.equal(notices.length, 1);
  assert.match(notices[0], /unreadable.*rebuilding/);
  assert.equal(run.stats.parsed, SOURCES);
  assert.equal(run.text, first.text);
});
