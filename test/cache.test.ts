import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { open } from 'lmdb';
import { ReferenceGraph } from '../src/graph/graph.js';
import { type SavedRelated } from '../src/graph/graph-types.js';
import type { FileNames } from '../src/records.js';
import { readSavedGraph } from '../src/graph/graph-file.js';
import { indexRepository } from '../src/indexer/indexer.js';
import { createRunner } from '../src/indexer/pool.js';
import { buildMap, mapFromIndex, readSavedGraphAhead } from '../src/map.js';
import { pathIndex } from '../src/rank/path-index.js';
import { unpersonalizedRanks } from '../src/rank/rank.js';
import { STORE_FORMAT, TagStore } from '../src/store/store.js';
import { WriteThreads } from '../src/store/write-threads.js';
import { seededRandom } from '../src/random.js';
import { copyFixture, editKeepingStat, makeUnwritable, manyPythonModules, runCli, tempDir } from './helpers.js';

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

test('an edit that keeps the size and puts the mtime back (sed -i, then touch -r) is parsed again: the change time tells', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const first = await mapOf(root, cache);
  const pricing = join(root, 'src/pricing.ts');
  const before = statSync(pricing);
  // Renames the first definition shown from pricing.ts, keeping every byte count.
  const shown = /│export (?:function|const|class|interface) (\w+)/.exec(first.text.slice(first.text.indexOf('src/pricing.ts')))?.[1];
  assert.ok(shown, first.text);
  const renamed = `${shown.slice(0, -1)}${shown.endsWith('X') ? 'Y' : 'X'}`;
  editKeepingStat(pricing, (text) => text.replaceAll(shown, renamed));
  assert.deepEqual([statSync(pricing).size, statSync(pricing).mtimeMs], [before.size, before.mtimeMs]);
  const run = await mapOf(root, cache);
  assert.equal(run.stats.reusedByStat, SOURCES - 1);
  assert.equal(run.stats.parsed, 1);
  assert.match(run.text, new RegExp(`│export (?:function|const|class|interface) ${renamed}\\b`), run.text);
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

test('a run whose globs leave files out keeps their records for the next run without them; a file deleted meanwhile goes then', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  await mapOf(root, cache);
  const excluded = await buildMap({ root, cacheDir: cache, tokens: 4096, exclude: ['src/pricing.ts', 'src/mailer.ts'] });
  assert.equal(excluded.stats.removed, 0, 'left out is not gone');
  assert.doesNotMatch(excluded.text, /pricing\.ts|mailer\.ts/);
  const included = await buildMap({ root, cacheDir: cache, tokens: 4096, include: ['src/cart.ts'] });
  assert.equal(included.stats.removed, 0);
  assert.deepEqual(included.files.map((file) => file.path), ['src/cart.ts']);
  // Without the globs: every record is still there, and vouched for by its stat.
  const whole = await mapOf(root, cache);
  assert.deepEqual([whole.stats.parsed, whole.stats.reusedByStat, whole.stats.removed], [0, SOURCES, 0]);
  assert.match(whole.text, /^src\/pricing\.ts:$/m);
  // A file deleted while it was left out: its record is dropped by the first run that lists its folder again.
  rmSync(join(root, 'src/mailer.ts'));
  assert.equal((await buildMap({ root, cacheDir: cache, tokens: 4096, exclude: ['src/mailer.ts'] })).stats.removed, 0);
  const after = await mapOf(root, cache);
  assert.equal(after.stats.removed, 1);
  assert.equal(after.stats.reusedByStat, SOURCES - 1);
});

test('a file that became a link leading outside the root loses its stored record; nothing else is dropped', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  await mapOf(root, cache);
  const outside = join(tempDir(), 'mailer.ts');
  writeFileSync(outside, 'export function sendOutside(): void {}\n');
  rmSync(join(root, 'src/mailer.ts'));
  symlinkSync(outside, join(root, 'src/mailer.ts'));
  const run = await mapOf(root, cache);
  assert.ok(run.skippedFiles.some((file) => file.path === 'src/mailer.ts' && file.reason === 'symlink outside root'));
  assert.equal(run.stats.removed, 1);
  const store = TagStore.open(cache);
  try {
    assert.equal(store.get('src/mailer.ts'), undefined, 'no record left for the link');
    assert.equal(store.count(), SOURCES - 1);
  } finally {
    await store.close();
  }
  // The next run finds as many stored records as files with one: nothing to drop.
  assert.equal((await mapOf(root, cache)).stats.removed, 0);
});

test("readying the store's writes (a daemon's warm-up, here and in the pool's threads) changes nothing stored", async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const first = await mapOf(root, cache);
  const snapshot = (store: TagStore) => store.paths().map((path) => JSON.stringify([path, store.get(path), store.names(path), store.outline(path)?.defs()]));
  const store = TagStore.open(cache);
  const before = snapshot(store);
  assert.equal(before.length, SOURCES);
  const runner = createRunner(2);
  try {
    await store.warmWrites();
    await runner.warmUp(store.paths(), store);
  } finally {
    await runner.close();
  }
  assert.deepEqual(snapshot(store), before);
  assert.equal(store.count(), SOURCES);
  await store.close();
  const again = await mapOf(root, cache);
  assert.equal(again.stats.parsed, 0);
  assert.equal(again.text, first.text);
});

test('a store that let go of its pages reads and writes as before', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  await mapOf(root, cache);
  const snapshot = (store: TagStore) => store.paths().map((path) => JSON.stringify([path, store.get(path), store.names(path), store.outline(path)?.defs(), store.referenceSites(path)]));
  const store = TagStore.open(cache);
  const before = snapshot(store);
  await store.releasePages();
  assert.deepEqual(snapshot(store), before);
  const [path] = store.paths();
  store.write({ ...store.get(path)!, mtimeMs: 1 });
  await store.releasePages();
  assert.equal(store.get(path)?.mtimeMs, 1);
  assert.equal(store.count(), SOURCES);
  await store.close();
});

test('a file stored as unreadable is read again at its next pass, though its stat is the same (a chmod that makes it readable changes neither mtime nor size)', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  await mapOf(root, cache);
  const path = 'src/cart.ts';
  // As a pass that could not read it stored it (root reads a chmod 000 file: the record is written as that pass would).
  const store = TagStore.open(cache);
  const { mtimeMs, size } = store.get(path)!;
  store.write({ path, mtimeMs, size, hash: '', tags: null, skip: 'unreadable', detail: 'EACCES' });
  await store.close();
  const reopened = TagStore.open(cache);
  try {
    const index = await indexRepository({ root, store: reopened });
    assert.equal(index.stats.parsed, 1, 'read and parsed again');
    assert.deepEqual(index.skipped.filter((file) => file.path === path), []);
  } finally {
    await reopened.close();
  }
});

test("closing waits for lmdb-js's write threads, not only for the commits they made visible", async () => {
  // A close in the moment between a commit's writes settling and its thread letting go of the
  // environment aborts the process; WriteThreads is what closing waits on, so it must see the threads.
  const root = open({ path: join(tempDir(), 'tags.lmdb'), compression: true });
  const threads = WriteThreads.track(root);
  const db = root.openDB<{ value: number }, string>({ name: 'values' });
  let last: Promise<boolean> | undefined;
  for (let i = 0; i < 2000; i++) last = db.put(`key${i}`, { value: i });
  await last;
  assert.ok(threads.started > 0, 'the write threads lmdb-js starts are counted');
  await threads.idle();
  assert.equal(threads.running, 0);
  await root.close();
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
  assert.match(notices[0], /unreadable.*moved aside.*rebuilding/);
  assert.equal(run.stats.parsed, SOURCES);
  assert.equal(run.text, first.text);
});

/** Damage to a store's data file, of each kind a disk or a crash can leave. */
const DAMAGE: Record<string, (data: Buffer) => Buffer> = {
  truncated: (data) => data.subarray(0, Math.floor(data.length / 2 / 4096) * 4096 + 1000),
  empty: () => Buffer.alloc(0),
  header: (data) => {
    const damaged = Buffer.from(data);
    damaged.fill(0x5a, 0, 64);
    return damaged;
  },
  // Seeded random bytes in the pages after the two meta pages: here the first commit fails (MDB_BAD_TXN).
  // The seed is picked for that outcome on the fixture's store: another layout of the records needs another.
  'random bytes in the middle': (data) => {
    const damaged = Buffer.from(data);
    const random = seededRandom(27);
    for (let block = 0; block < 4; block++) {
      const at = 2 * 4096 + Math.floor(random() * (damaged.length - 2 * 4096 - 256));
      for (let i = 0; i < 256; i++) damaged[at + i] = Math.floor(random() * 256);
    }
    return damaged;
  },
};

test('a damaged store (truncated, empty, bad header, random bytes in the middle) is moved aside and rebuilt with a one-line notice', async () => {
  const root = copyFixture('shop');
  const pristine = tempDir();
  const fresh = runCli(['map', root, '--cache-dir', pristine, '--quiet']);
  assert.equal(fresh.code, 0, fresh.stderr);
  for (const [kind, damage] of Object.entries(DAMAGE)) {
    const cache = tempDir();
    cpSync(pristine, cache, { recursive: true });
    const file = join(cache, 'tags.lmdb', 'data.mdb');
    writeFileSync(file, damage(readFileSync(file)));
    // In a child process: a store LMDB trusts blindly can take the process down (SIGBUS).
    const run = runCli(['map', root, '--cache-dir', cache, '--quiet']);
    assert.equal(run.code, 0, `${kind}: ${run.stderr}`);
    const notices = run.stderr.split('\n').filter((line) => line.startsWith('repomap: '));
    assert.equal(notices.length, 1, `${kind}: ${run.stderr}`);
    assert.match(notices[0], /^repomap: tag cache at .*tags\.lmdb (is unreadable|failed).*moved (it )?aside to .*tags\.lmdb\.damaged, rebuilding it/, kind);
    assert.equal(run.stdout, fresh.stdout, `${kind}: the map of a rebuilt store`);
    assert.ok(existsSync(join(cache, 'tags.lmdb.damaged')), `${kind}: moved aside`);
    const again = runCli(['map', root, '--cache-dir', cache, '--quiet', '--verbose']);
    assert.match(again.stderr, /0 parsed/, `${kind}: the rebuilt store is used`);
  }
  // The file's size is checked against its meta pages at open: no read past its end.
  const cache = tempDir();
  cpSync(pristine, cache, { recursive: true });
  const file = join(cache, 'tags.lmdb', 'data.mdb');
  truncateSync(file, statSync(file).size - 4096);
  const notices: string[] = [];
  await TagStore.open(cache, { onNotice: (message) => notices.push(message) }).close();
  assert.match(notices[0] ?? '', /truncated file: \d+ bytes, its meta pages name page \d+ of 4096 bytes/);
});

test('a cache folder this process cannot write (locked, /proc) is one line naming it and the reason, exit 2; a data file it cannot open is said so, not moved aside', (t) => {
  const root = copyFixture('shop');
  const locked = tempDir();
  if (!makeUnwritable(locked)) {
    t.skip('no way to make a folder unwritable here');
    return;
  }
  // Under /proc mkdir says ENOENT though the folder is there: Node's recursive mkdir (lmdb-js's) never returned.
  for (const folder of [locked, ...(existsSync('/proc/self') ? ['/proc'] : [])]) {
    const run = runCli(['map', root, '--cache-dir', folder], { timeout: 60_000 });
    assert.equal(run.code, 2, `${folder}: ${run.stderr}`);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^repomap: cache folder (\S+) cannot be written: (E[A-Z]+: [^\n]+|its file system takes no new files)\n$/, folder);
    assert.ok(run.stderr.startsWith(`repomap: cache folder ${folder} cannot be written: `), run.stderr);
  }
  // A symlink to nothing: said so, not the EEXIST that making a folder there meets.
  const dangling = join(tempDir(), 'cache');
  symlinkSync(join(tempDir(), 'gone', 'cache'), dangling);
  const broken = runCli(['map', root, '--cache-dir', dangling]);
  assert.equal(broken.code, 2, broken.stderr);
  assert.equal(broken.stderr, `repomap: cache folder ${dangling} is a symlink to nothing\n`);

  // The folder writable, the store's data file not: no damage, so nothing is moved aside or rebuilt.
  const cache = tempDir();
  const fresh = runCli(['map', root, '--cache-dir', cache, '--quiet']);
  assert.equal(fresh.code, 0, fresh.stderr);
  const file = join(cache, 'tags.lmdb', 'data.mdb');
  assert.ok(makeUnwritable(file));
  const run = runCli(['map', root, '--cache-dir', cache]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /^repomap: tag cache file \S+tags\.lmdb\/data\.mdb cannot be written: E[A-Z]+: [^\n]+\n$/);
  assert.ok(!existsSync(join(cache, 'tags.lmdb.damaged')), 'not moved aside');
  assert.ok(existsSync(file));
  // LMDB's lock file, locked or not a file: LMDB would crash the process (SIGSEGV) or block on it.
  const lockCache = tempDir();
  cpSync(cache, lockCache, { recursive: true });
  const lock = join(lockCache, 'tags.lmdb', 'lock.mdb');
  assert.ok(existsSync(lock));
  assert.ok(makeUnwritable(lock));
  const lockRun = runCli(['map', root, '--cache-dir', lockCache], { timeout: 60_000 });
  assert.deepEqual([lockRun.code, lockRun.stderr.split('\n').length], [2, 2], lockRun.stderr);
  assert.match(lockRun.stderr, /^repomap: tag cache file \S+lock\.mdb cannot be written: /);
  const fifoCache = tempDir();
  mkdirSync(join(fifoCache, 'tags.lmdb'));
  execFileSync('mkfifo', [join(fifoCache, 'tags.lmdb', 'lock.mdb')]);
  const fifo = runCli(['map', root, '--cache-dir', fifoCache], { timeout: 60_000 });
  assert.equal(fifo.code, 2, fifo.stderr);
  assert.match(fifo.stderr, /^repomap: tag cache file \S+lock\.mdb is not a regular file\n$/);
});

test('a saved related graph that is no file is not read (a FIFO would block for ever); a save that fails leaves no temporary file', () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  assert.equal(runCli(['map', root, '--cache-dir', cache, '--quiet']).code, 0);
  const graphFile = join(cache, 'related-graph.bin');
  rmSync(graphFile);
  execFileSync('mkfifo', [graphFile]);
  appendFileSync(join(root, 'src/cart.ts'), '\n'); // the graph is built again, and its save meets the FIFO's name
  const fifo = runCli(['map', root, '--cache-dir', cache, '--quiet'], { timeout: 60_000 });
  assert.equal(fifo.code, 0, fifo.stderr);
  rmSync(graphFile);
  mkdirSync(graphFile);
  appendFileSync(join(root, 'src/cart.ts'), '\n');
  const folder = runCli(['map', root, '--cache-dir', cache, '--quiet'], { timeout: 60_000 });
  assert.equal(folder.code, 0, folder.stderr);
  assert.match(folder.stderr, /could not save the related graph/);
  assert.deepEqual(readdirSync(cache).filter((name) => name.endsWith('.tmp')), []);
});

test('a damaged store that cannot be moved aside is removed and rebuilt, and the notice says so, not that it was moved', (t) => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const fresh = runCli(['map', root, '--cache-dir', cache, '--quiet']);
  assert.equal(fresh.code, 0, fresh.stderr);
  const file = join(cache, 'tags.lmdb', 'data.mdb');
  writeFileSync(file, DAMAGE.header(readFileSync(file)));
  // A store moved aside before, which cannot be removed: the new one cannot take its place.
  const aside = join(cache, 'tags.lmdb.damaged');
  mkdirSync(aside);
  writeFileSync(join(aside, 'data.mdb'), 'x');
  if (!makeUnwritable(aside)) {
    t.skip('no way to make a folder unwritable here');
    return;
  }
  const run = runCli(['map', root, '--cache-dir', cache, '--quiet']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /^repomap: tag cache at \S+tags\.lmdb is unreadable \(bad LMDB header\); removed \(it could not be moved aside: [^\n]+\), rebuilding it\n$/);
  assert.equal(run.stdout, fresh.stdout, 'the map of the rebuilt store');
  const again = runCli(['map', root, '--cache-dir', cache, '--quiet', '--verbose']);
  assert.match(again.stderr, /0 parsed/, 'the rebuilt store is used');
});

test('a store whose meta pages name pages past the end of its file, none of them in use (LMDB leaves unwritten the pages a commit freed again), is extended at close: the next open takes it', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const fresh = runCli(['map', root, '--cache-dir', cache, '--quiet']);
  assert.equal(fresh.code, 0, fresh.stderr);
  const file = join(cache, 'tags.lmdb', 'data.mdb');
  const pageSize = 4096;
  // Both meta pages name three more pages than the file holds: what a commit whose last
  // allocated pages were loose leaves (the offsets are those checkDataFile reads).
  const nameMorePages = () => {
    const data = readFileSync(file);
    for (const at of [0, pageSize]) data.writeBigUInt64LE(data.readBigUInt64LE(at + 144) + 3n, at + 144);
    writeFileSync(file, data);
  };
  const notices: string[] = [];
  const store = TagStore.open(cache, { onNotice: (message) => notices.push(message) });
  nameMorePages();
  await store.close();
  const named = (readFileSync(file).readBigUInt64LE(144) + 1n) * BigInt(pageSize);
  assert.ok(BigInt(statSync(file).size) >= named, 'the file holds every page its meta pages name');
  await TagStore.open(cache, { onNotice: (message) => notices.push(message) }).close();
  assert.deepEqual(notices, [], 'opened as it is, not moved aside');
  const again = runCli(['map', root, '--cache-dir', cache, '--quiet', '--verbose']);
  assert.match(again.stderr, /0 parsed/, 'the store is used');
  assert.equal(again.stdout, fresh.stdout);
});

test("a store that dropped many records is opened by another process as it is, not moved aside (a map beside a daemon that dropped them)", async () => {
  // Records dropped in one transaction free pages it dirtied, which LMDB never writes: the file may
  // then end before the last page its meta pages name, and another process opening it now would
  // take it for a truncated file. The store that removes extends its file after the removal.
  const root = tempDir('repomap-many-');
  for (const [path, text] of Object.entries(manyPythonModules(60, 6))) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const cache = tempDir();
  await buildMap({ root, cacheDir: cache, tokens: 256, workers: 1 });
  const store = TagStore.open(cache);
  try {
    store.remove(store.paths());
    const other = runCli(['map', root, '--cache-dir', cache, '--tokens', '256', '--quiet', '--verbose']);
    assert.equal(other.code, 0, other.stderr);
    assert.doesNotMatch(other.stderr, /moved (it )?aside/);
    assert.match(other.stderr, /60 parsed/, 'the records this process dropped, parsed again into the same store');
  } finally {
    await store.close();
  }
  assert.ok(!existsSync(join(cache, 'tags.lmdb.damaged')));
});

const NO_REQUEST = { chatFiles: new Set<string>(), mentionedIdents: new Set<string>() };

/** A graph of the root's files as the store holds them, given a saved related graph (which it must take). */
async function restoredGraph(root: string, store: TagStore, saved: SavedRelated): Promise<ReferenceGraph> {
  const graph = new ReferenceGraph((path) => store.names(path));
  await indexRepository({ root, store, graph, workers: 1 });
  assert.ok(graph.restoreRelated(saved));
  return graph;
}

test('the saved related graph carries its unpersonalized ranks: a graph restored from it takes them, bit for bit those it would compute', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  // A personalized request does not compute them: the save does.
  await buildMap({ root, cacheDir: cache, tokens: 1024, chatFiles: ['src/checkout.ts'] });
  const file = await readSavedGraph(cache);
  assert.ok(typeof file !== 'string', file as string);
  const { walkRanks } = file.saved;
  assert.equal(walkRanks?.length, file.saved.paths.length);
  const store = TagStore.open(cache);
  try {
    const restored = async (saved: SavedRelated) => (await restoredGraph(root, store, saved)).compileRelated(NO_REQUEST);
    const withRanks = await restored(structuredClone(file.saved));
    const without = await restored({ ...structuredClone(file.saved), walkRanks: undefined });
    assert.deepEqual(withRanks.walkRanks, walkRanks);
    assert.equal(without.walkRanks, undefined);
    assert.equal(unpersonalizedRanks(withRanks), withRanks.walkRanks, 'the saved ranks are the ones used');
    assert.deepEqual(unpersonalizedRanks(without), walkRanks);
    // A restored graph keeps the saved list of paths, so the lookups built over it while the files were listed serve its first map.
    const ahead = await readSavedGraphAhead(cache);
    assert.ok(typeof ahead !== 'string');
    const lookups = pathIndex(ahead.saved.paths);
    assert.equal(pathIndex((await restored(ahead.saved)).paths), lookups);
  } finally {
    await store.close();
  }
});

test('the saved related graph carries its merged walk and forward totals: a restore takes them as saved, the same arrays it would derive again', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  await buildMap({ root, cacheDir: cache, tokens: 1024, chatFiles: ['src/checkout.ts'] });
  const file = await readSavedGraph(cache);
  assert.ok(typeof file !== 'string', file as string);
  const { walkOffsets, walkTargets, walkSlot } = file.saved;
  assert.equal(walkOffsets?.length, file.saved.paths.length + 1);
  assert.equal(walkSlot?.length, file.saved.targets.length);
  assert.ok(walkTargets && walkTargets.length > 0 && walkTargets.length < file.saved.targets.length, 'parallel edges are merged');
  const store = TagStore.open(cache);
  try {
    const restored = async (saved: SavedRelated) => (await restoredGraph(root, store, saved)).compileRelated(NO_REQUEST);
    const withWalk = structuredClone(file.saved);
    const taken = await restored(withWalk);
    const noWalk = { walkOffsets: undefined, walkTargets: undefined, walkWeights: undefined, walkSlot: undefined, forwardTotal: undefined };
    const derived = await restored({ ...structuredClone(file.saved), ...noWalk });
    assert.equal(taken.walk.targets, withWalk.walkTargets, 'the saved walk is the one used');
    assert.equal(taken.forwardTotal, withWalk.forwardTotal);
    assert.notEqual(derived.walk.targets, withWalk.walkTargets);
    for (const graph of [taken, derived]) {
      assert.deepEqual(graph.walk, derived.walk);
      assert.deepEqual(graph.walkSlot, derived.walkSlot);
      assert.deepEqual(graph.forwardTotal, derived.forwardTotal);
    }
    // A walk whose lengths do not fit the arrays is derived again, not taken.
    const torn = await restored({ ...structuredClone(file.saved), walkSlot: new Uint32Array(3) });
    assert.deepEqual(torn.walk, derived.walk);
    assert.deepEqual(torn.walkSlot, derived.walkSlot);
    // A mention patches the taken walk's weights in place, and the next request finds them as saved.
    const mentioned = [...taken.idents].find((ident) => ident.length > 3)!;
    const graph = await restoredGraph(root, store, structuredClone(file.saved));
    const before = Float64Array.from(graph.compileRelated(NO_REQUEST).walk.weights);
    assert.notDeepEqual(Float64Array.from(graph.compileRelated({ chatFiles: new Set(), mentionedIdents: new Set([mentioned]) }).walk.weights), before);
    assert.deepEqual(Float64Array.from(graph.compileRelated(NO_REQUEST).walk.weights), before);
  } finally {
    await store.close();
  }
});

test("the saved related graph carries each file's definitions as name hashes: a graph restored from it reads the names of only the files that may define a name asked, and finds the same definers in the same order", async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  await buildMap({ root, cacheDir: cache, tokens: 1024 });
  const file = await readSavedGraph(cache);
  assert.ok(typeof file !== 'string', file as string);
  assert.ok((file.saved.definitionHashes?.length ?? 0) > 0);
  const store = TagStore.open(cache);
  try {
    let extra: FileNames | undefined;
    const restored = async (saved: SavedRelated) => {
      const graph = new ReferenceGraph((path) => (path === 'src/extra.ts' ? extra : store.names(path)));
      await indexRepository({ root, store, graph, workers: 1 });
      assert.ok(graph.restoreRelated(saved));
      return graph;
    };
    const definersOf = new Map<string, string[]>();
    for (const path of store.paths()) for (const ident of store.names(path)?.defined ?? []) definersOf.set(ident, [...(definersOf.get(ident) ?? []), path]);
    const ask = (graph: ReferenceGraph, idents: string[]) => {
      const before = graph.namesRead;
      const found = [...graph.definersOfAll(idents)].map(([ident, files]) => [ident, files && [...files]]);
      return { found, reads: graph.namesRead - before };
    };
    // Every name the files define, and names none does.
    const every = [...definersOf.keys(), 'noFileDefinesThis', 'norThis'];
    const withKeys = ask(await restored(structuredClone(file.saved)), every);
    const scanned = ask(await restored({ ...structuredClone(file.saved), definitionOffsets: undefined, definitionHashes: undefined }), every);
    assert.deepEqual(withKeys.found, scanned.found);
    const [single, [definer]] = [...definersOf].find(([, files]) => files.length === 1)!;
    const graph = await restored(structuredClone(file.saved));
    assert.deepEqual(ask(graph, [single]), { found: [[single, [definer]]], reads: 1 }, 'only its definer is read');
    assert.deepEqual(ask(graph, ['noFileDefinesThis']).reads, 0);
    const files = ask(await restored({ ...structuredClone(file.saved), definitionOffsets: undefined, definitionHashes: undefined }), [single]).reads;
    assert.ok(files > 1, `without the keys every waiting file is read (${files})`);
    // A file that comes after the keys is a definer too, though they do not know it.
    extra = { defined: [single], referenced: [], counts: [], imports: [], modules: [] };
    graph.takeRecord({ path: 'src/extra.ts', mtimeMs: 1, size: 1, hash: 'extra', skip: null, links: 1 });
    assert.deepEqual(ask(graph, [single]).found, [[single, [definer, 'src/extra.ts']]]);
  } finally {
    await store.close();
  }
});

test('tags live in the store: the workers write them, records carry none, a map reads the outlines it needs', async () => {
  const root = copyFixture('shop');
  const GENERATED = 700; // more files than a small map considers (budget + 256)
  for (let i = 0; i < GENERATED; i++) writeFileSync(join(root, `src/gen${i}.ts`), `export function generated${i}(): number {\n  return ${i};\n}\n`);
  const store = TagStore.open(tempDir());
  try {
    const graph = new ReferenceGraph();
    const index = await indexRepository({ root, store, graph, workers: 2 });
    assert.equal(index.stats.parsed, SOURCES + GENERATED);
    assert.ok(index.records.every((record) => record.tags === undefined && record.names === undefined), 'the graph took the names, the store has the tags');
    for (const record of index.records) assert.ok(store.outline(record.path)?.defCount, `${record.path}: its outline is stored`);
    assert.ok(store.referenceSites('src/checkout.ts')?.sites.length, 'and its references');

    const read = new Set<string>();
    const lookups = { ...index.lookups, outlineOf: (path: string) => (read.add(path), index.lookups.outlineOf(path)) };
    const map = mapFromIndex({ ...index, lookups }, graph, { tokens: 128 });
    assert.match(map.text, /│export (function|class) /, 'definitions come back from the store');
    assert.ok(read.size < (index.records.length * 3) / 4, `outlines read: ${read.size} of ${index.records.length}`);
  } finally {
    await store.close();
  }
});

test('a file deleted or no longer parseable takes its stored tags with it', async () => {
  const root = copyFixture('shop');
  const cacheDir = tempDir();
  await mapOf(root, cacheDir);
  rmSync(join(root, 'src/mailer.ts'));
  writeFileSync(join(root, 'src/cart.ts'), Buffer.from([0x63, 0x6f, 0x6e, 0x73, 0x74, 0x00, 0x01]));
  const run = await mapOf(root, cacheDir);
  assert.equal(run.stats.removed, 1);
  assert.deepEqual(run.skippedFiles.filter((file) => file.reason === 'binary').map((file) => file.path), ['src/cart.ts']);
  const store = TagStore.open(cacheDir);
  try {
    for (const path of ['src/mailer.ts', 'src/cart.ts']) {
      assert.equal(store.outline(path), undefined, `${path}: no outline left`);
      assert.equal(store.referenceSites(path), undefined, `${path}: no references left`);
    }
    assert.ok(store.outline('src/pricing.ts'), 'the others stay');
  } finally {
    await store.close();
  }
});

test('the related graph is saved for the next run: read back while no file changes, built anew when one does or when the saved one is torn', async () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const saved = join(cache, 'related-graph.bin');
  const requests = [{}, { chatFiles: ['src/checkout.ts'] }, { mentionedIdents: ['mailer', 'Cart'] }, { message: 'the cart total is off by one' }];
  const cached = (request: object) => buildMap({ root, cacheDir: cache, tokens: 1024, ...request });
  const fresh = async (request: object) => (await buildMap({ root, cacheDir: tempDir(), tokens: 1024, ...request })).text;

  const first = await cached({});
  assert.equal(first.stats.restoredGraphs, 0);
  assert.equal(first.stats.unlinkedFiles, first.stats.nodes, 'deriving the related graph links the definitions only');
  assert.ok(existsSync(saved));
  for (const request of requests) {
    const map = await cached(request);
    assert.equal(map.stats.restoredGraphs, 1, JSON.stringify(request));
    // The saved graph and a scan of the request's own names are all a map needs: no name is linked.
    assert.equal(map.stats.unlinkedFiles, map.stats.nodes, JSON.stringify(request));
    assert.equal(map.text, await fresh(request), JSON.stringify(request));
  }

  appendFileSync(join(root, 'src/pricing.ts'), '\nexport function cartRounding(total: number): number {\n  return Math.round(total);\n}\n');
  const edited = await cached(requests[1]);
  assert.equal(edited.stats.restoredGraphs, 0, 'a changed file makes the saved graph out of date');
  assert.equal(edited.text, await fresh(requests[1]));
  assert.equal((await cached(requests[1])).stats.restoredGraphs, 1, 'and the graph built then is saved');

  truncateSync(saved, statSync(saved).size - 9);
  const torn = await cached(requests[2]);
  assert.equal(torn.stats.restoredGraphs, 0, 'a torn file is not read');
  assert.equal(torn.text, await fresh(requests[2]));
  assert.equal((await cached(requests[2])).stats.restoredGraphs, 1);

  // A byte of the arrays changed after the file was written: its checksum no longer matches.
  const bytes = readFileSync(saved);
  bytes[bytes.length - 64] ^= 1;
  writeFileSync(saved, bytes);
  const flipped = await cached(requests[3]);
  assert.equal(flipped.stats.restoredGraphs, 0, 'a file whose arrays changed is not read');
  assert.equal(flipped.text, await fresh(requests[3]));
  assert.equal((await cached(requests[3])).stats.restoredGraphs, 1);

  // Aider's ranking has no related graph: it neither reads nor writes one.
  rmSync(saved);
  const aider = await cached({ ranking: 'aider' });
  assert.equal(aider.stats.restoredGraphs, 0);
  assert.equal(aider.stats.unlinkedFiles, 0, "Aider's graph reads every reference");
  assert.ok(!existsSync(saved));
});
