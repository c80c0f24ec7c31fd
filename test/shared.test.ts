import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, readdirSync, realpathSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildMap } from '../src/map.js';
import { GitBlobs, blobId } from '../src/indexer/git-index.js';
import { statOf } from '../src/records.js';
import { Reconciler, emptyStats, indexRepository, sharedKey } from '../src/indexer/indexer.js';
import { BUILTIN_LANGUAGES } from '../src/extract/languages.js';
import { type ParseRunner, createRunner } from '../src/indexer/pool.js';
import { SharedTags } from '../src/store/shared.js';
import { TagStore } from '../src/store/store.js';
import { copyFixture, editKeepingStat, git, tempDir } from './helpers.js';
import { packageRoot } from '../src/paths.js';

/** A clone of a one-commit repository made from the shop fixture. */
function cloneOf(origin: string): string {
  const dir = join(tempDir('repomap-clone-'), 'shop');
  git(origin, 'clone', '-q', origin, dir);
  return realpathSync(dir);
}

/** The shop fixture with a binary file (skipped for its content, and shared), committed. */
function committedShop(): string {
  const origin = copyFixture('shop');
  writeFileSync(join(origin, 'src', 'blob.ts'), Buffer.from([0x65, 0, 1, 2, 3]));
  git(origin, 'init', '-q');
  git(origin, 'add', '.');
  git(origin, 'commit', '-qm', 'init');
  return origin;
}

/** The shared cache's key of a TypeScript file's content. */
const tsKey = (content: Buffer) => sharedKey(blobId(content), BUILTIN_LANGUAGES.forPath('x.ts')!);

const LEAK = '\nexport function leakedFromB(): number {\n  return 1;\n}\n';

test('a second clone parses nothing another clone parsed; a file modified in one clone does not leak into the other\'s map', async () => {
  // A file skipped for its content is not read again either.
  const origin = committedShop();
  const shared = tempDir('repomap-shared-');
  const request = { chatFiles: ['src/checkout.ts'], tokens: 1024, workers: 1, sharedCacheDir: shared };
  const [a, b, c] = [cloneOf(origin), cloneOf(origin), cloneOf(origin)];
  appendFileSync(join(b, 'src', 'cart.ts'), LEAK);

  const first = await buildMap({ root: a, cacheDir: tempDir(), ...request });
  assert.equal(first.stats.reusedShared, 0);
  assert.deepEqual(first.skippedFiles.filter((file) => file.path === 'src/blob.ts').map((file) => file.reason), ['binary']);
  const sources = first.stats.parsed + 1; // and src/blob.ts, read but not parsed
  assert.ok(sources >= 9, `the first clone parses every source file (${sources})`);

  const modified = await buildMap({ root: b, cacheDir: tempDir(), ...request });
  assert.equal(modified.stats.parsed, 1, 'only the file modified in this clone');
  assert.equal(modified.stats.reusedShared, sources - 1);
  assert.match(modified.text, /leakedFromB/);

  const sameCache = tempDir();
  const same = await buildMap({ root: c, cacheDir: sameCache, ...request });
  assert.equal(same.stats.parsed, 0, 'a clone like the first parses nothing');
  assert.deepEqual([first.stats.restoredGraphs, modified.stats.restoredGraphs], [0, 0], 'no graph of these files was published before');
  assert.equal(same.stats.restoredGraphs, 1, 'and builds no graph: it reads the one the first clone published');
  assert.equal(same.stats.restoredSharedGraphs, 1);
  assert.equal(readdirSync(join(shared, 'graphs')).length, 2, "the first clone's graph and the modified one's");
  assert.equal(same.stats.reusedShared, sources);
  assert.doesNotMatch(same.text, /leakedFromB/, "the other clone's edit is not in this clone's map");
  assert.equal(same.text, first.text, 'the same map as the clone that parsed');
  assert.deepEqual(same.skippedFiles, first.skippedFiles);
  // The shared graph is placed in the clone's cache as a hard link, not a copy; a later save there
  // replaces the clone's file and leaves the shared one as it was.
  const placed = statSync(join(sameCache, 'related-graph.bin')).ino;
  const twin = readdirSync(join(shared, 'graphs')).map((name) => join(shared, 'graphs', name)).find((file) => statSync(file).ino === placed);
  assert.ok(twin, "the clone's graph file is a shared one");
  const twinBytes = readFileSync(twin);
  appendFileSync(join(c, 'src', 'cart.ts'), '\nexport const addedLater = 1;\n');
  assert.equal((await buildMap({ root: c, cacheDir: sameCache, ...request })).stats.parsed, 1);
  assert.notEqual(statSync(join(sameCache, 'related-graph.bin')).ino, placed, 'saved anew');
  assert.ok(readFileSync(twin).equals(twinBytes), 'the shared graph is untouched');

  const again = await buildMap({ root: a, cacheDir: tempDir(), ...request });
  assert.equal(again.stats.parsed, 0);
  assert.equal(again.stats.restoredGraphs, 1);
  assert.equal(again.stats.restoredSharedGraphs, 1, 'an empty cache of its own: the shared one');
  assert.doesNotMatch(again.text, /leakedFromB/);
});

test("a second clone's cache holds paths and stats: its records read their names and tags from the shared cache in place; with another shared cache, or none, those files are indexed again", async () => {
  const origin = committedShop();
  const shared = tempDir('repomap-shared-');
  const request = { chatFiles: ['src/checkout.ts'], tokens: 1024, workers: 1 };
  const firstCache = tempDir();
  const first = await buildMap({ root: cloneOf(origin), cacheDir: firstCache, ...request, sharedCacheDir: shared });
  const sources = first.stats.parsed + 1; // and src/blob.ts, read but not parsed

  const clone = cloneOf(origin);
  const cacheDir = tempDir();
  const second = await buildMap({ root: clone, cacheDir, ...request, sharedCacheDir: shared });
  assert.deepEqual([second.stats.parsed, second.stats.reusedShared], [0, sources]);
  assert.equal(second.text, first.text);
  // The pages a daemon lets go of (see TagStore.releasePages) are the shared store's too when its records point there.
  const dataFile = (dir: string) => statSync(join(dir, 'tags.lmdb', 'data.mdb')).size;
  const parsing = TagStore.open(firstCache, { sharedCacheDir: shared });
  assert.equal(parsing.dataBytes(), dataFile(firstCache), 'no record of the clone that parsed points there');
  await parsing.close();
  const store = TagStore.open(cacheDir, { sharedCacheDir: shared });
  try {
    assert.equal(store.dataBytes(), dataFile(cacheDir) + statSync(join(shared, 'shared.lmdb', 'data.mdb')).size);
    const paths = store.paths();
    assert.equal(paths.length, sources);
    for (const path of paths) assert.ok(store.get(path)?.shared, `${path} points into the shared cache`);
    assert.ok(store.outline('src/checkout.ts')!.defCount > 0, 'an outline read through its record');
    assert.ok(store.names('src/checkout.ts')!.defined.length > 0, 'and its names');
    assert.ok(store.referenceSites('src/checkout.ts')!.sites.length > 0, 'and its reference sites');
  } finally {
    await store.close();
  }

  // A file touched but not changed keeps its content's tags: it points into the shared cache still.
  const cart = join(clone, 'src', 'cart.ts');
  utimesSync(cart, new Date(), new Date(Date.now() + 5000));
  const touched = await buildMap({ root: clone, cacheDir, ...request, sharedCacheDir: shared });
  assert.deepEqual([touched.stats.parsed, touched.stats.reusedByHash], [0, 1]);
  assert.equal(touched.text, first.text);

  // Another shared cache (an empty one): the records that point into the first are dropped, and their files parsed.
  const notices: string[] = [];
  const other = await buildMap({ root: clone, cacheDir, ...request, sharedCacheDir: tempDir('repomap-shared-'), onNotice: (line) => notices.push(line) });
  assert.deepEqual([other.stats.parsed, other.stats.reusedShared], [first.stats.parsed, 0]);
  assert.equal(other.text, first.text);
  assert.ok(notices.some((line) => line.includes(`${sources} files of the tag cache at ${cacheDir} read their tags from a shared tag cache`)), notices.join('\n'));

  // None at all: a clone's cache whose records point into a shared cache indexes those files again.
  const third = cloneOf(origin);
  const thirdCache = tempDir();
  assert.equal((await buildMap({ root: third, cacheDir: thirdCache, ...request, sharedCacheDir: shared })).stats.reusedShared, sources);
  const saved = process.env.REPOMAP_SHARED_CACHE;
  delete process.env.REPOMAP_SHARED_CACHE;
  try {
    const alone = await buildMap({ root: third, cacheDir: thirdCache, ...request });
    assert.deepEqual([alone.stats.parsed, alone.stats.reusedShared], [first.stats.parsed, 0]);
    assert.equal(alone.text, first.text);
  } finally {
    if (saved !== undefined) process.env.REPOMAP_SHARED_CACHE = saved;
  }
});

/** A pool that counts the warm-ups asked of it and the files handed to it to parse. */
function countingRunner(): ParseRunner & { warmUps: number; jobs: number } {
  const runner = createRunner(2);
  return {
    warmUps: 0,
    jobs: 0,
    warmUp(paths, tagsTo) {
      this.warmUps++;
      return runner.warmUp(paths, tagsTo);
    },
    stream(root, chunks, options, onResults, tagsTo) {
      const counted = async function* (this: { jobs: number }) {
        for await (const chunk of chunks) {
          this.jobs += chunk.length;
          yield chunk;
        }
      }.call(this);
      return runner.stream(root, counted, options, onResults, tagsTo);
    },
    close: () => runner.close(),
  };
}

test('a second clone that finds every file in the shared cache starts no parse thread: a file too large to read is skipped without one; a file it must parse warms them up', async () => {
  const origin = committedShop();
  const maxFileBytes = 4096;
  writeFileSync(join(origin, 'src', 'huge.ts'), `export const huge = '${'x'.repeat(maxFileBytes)}';\n`);
  git(origin, 'add', '.');
  git(origin, 'commit', '-qm', 'huge');
  const shared = tempDir('repomap-shared-');
  const indexClone = async (root: string) => {
    const runner = countingRunner();
    const store = TagStore.open(tempDir(), { sharedCacheDir: shared });
    try {
      const index = await indexRepository({ root, store, runner, maxFileBytes });
      return { index, runner };
    } finally {
      await runner.close();
      await store.close();
    }
  };
  const first = await indexClone(cloneOf(origin));
  assert.ok(first.runner.warmUps > 0 && first.runner.jobs > 0, 'the first clone parses on the pool');
  assert.deepEqual(first.index.skipped.filter((file) => file.path === 'src/huge.ts').map((file) => file.reason), ['too large']);

  const second = await indexClone(cloneOf(origin));
  assert.deepEqual([second.runner.warmUps, second.runner.jobs], [0, 0], 'no thread warmed up, no file handed over');
  assert.equal(second.index.stats.reusedShared, first.index.stats.parsed + 1); // and src/blob.ts, read but not parsed
  assert.deepEqual(second.index.skipped, first.index.skipped, 'the large file skipped all the same');

  const modified = cloneOf(origin);
  appendFileSync(join(modified, 'src', 'cart.ts'), LEAK);
  const third = await indexClone(modified);
  assert.deepEqual([third.runner.warmUps, third.runner.jobs, third.index.stats.parsed], [1, 1, 1], 'warmed up at the file it parses');
});

test('a file this clone skipped as too large is looked up in the shared cache once the limit lets it in, not parsed', async () => {
  const origin = committedShop();
  const shared = tempDir('repomap-shared-');
  const first = await buildMap({ root: cloneOf(origin), cacheDir: tempDir(), tokens: 1024, workers: 1, sharedCacheDir: shared });
  const clone = cloneOf(origin);
  const cacheDir = tempDir();
  const small = await buildMap({ root: clone, cacheDir, tokens: 1024, workers: 1, sharedCacheDir: shared, maxFileBytes: 500 });
  const tooLarge = small.skippedFiles.filter((file) => file.reason === 'too large').length;
  assert.ok(tooLarge >= 2, `some files over 500 bytes (${tooLarge})`);
  const again = await buildMap({ root: clone, cacheDir, tokens: 1024, workers: 1, sharedCacheDir: shared });
  assert.deepEqual([again.stats.parsed, again.stats.reusedShared], [0, tooLarge]);
  assert.equal(again.text, first.text);
});

test('the shared cache keeps the related graphs of the last four trees mapped; one that a clone reads back counts as recent; a damaged one is not read', async () => {
  const origin = committedShop();
  const shared = tempDir('repomap-shared-');
  const request = { chatFiles: ['src/checkout.ts'], tokens: 1024, workers: 1, sharedCacheDir: shared };
  const graphs = () => readdirSync(join(shared, 'graphs')).sort();
  // Five trees, each a clone with a file of its own: five graphs published in turn.
  const published: string[][] = [];
  const clones: string[] = [];
  for (let k = 0; k < 5; k++) {
    const clone = cloneOf(origin);
    writeFileSync(join(clone, 'src', `own${k}.ts`), `export function ownFunction${k}(): number {\n  return ${k};\n}\n`);
    clones.push(clone);
    const before = new Set(k === 0 ? [] : graphs());
    const map = await buildMap({ root: clone, cacheDir: tempDir(), ...request });
    assert.equal(map.stats.restoredGraphs, 0);
    published.push(graphs().filter((name) => !before.has(name)));
    assert.equal(published[k].length, 1, `tree ${k} published one graph`);
    if (k === 2) {
      // Tree 0's graph read back by another clone of that tree: it becomes the most recent.
      const again = await buildMap({ root: clones[0], cacheDir: tempDir(), ...request });
      assert.equal(again.stats.restoredGraphs, 1);
    }
  }
  assert.deepEqual(graphs(), [published[0], published[2], published[3], published[4]].flat().sort(), 'tree 1, the least recently used, is gone');

  // A damaged graph file is not used: the graph is built, and published again whole.
  const file = join(shared, 'graphs', published[4][0]);
  const bytes = readFileSync(file);
  bytes[bytes.length - 1] ^= 0xff;
  writeFileSync(file, bytes);
  const rebuilt = await buildMap({ root: clones[4], cacheDir: tempDir(), ...request });
  assert.equal(rebuilt.stats.restoredGraphs, 0);
  const read = await buildMap({ root: clones[4], cacheDir: tempDir(), ...request });
  assert.equal(read.stats.restoredGraphs, 1);
  assert.equal(read.text, rebuilt.text);
});

test("a tree mapped under another tag query publishes a graph of its own beside the tree's: neither replaces the other", async () => {
  const origin = committedShop();
  const shared = tempDir('repomap-shared-');
  const request = { chatFiles: ['src/checkout.ts'], tokens: 1024, workers: 1, sharedCacheDir: shared };
  const graphs = () => readdirSync(join(shared, 'graphs')).sort();
  const plain = await buildMap({ root: cloneOf(origin), cacheDir: tempDir(), ...request });
  // The same files and contents under an untracked override of the TypeScript query: the built-in
  // query with a comment, so the same tags and graph, under another query signature.
  const builtin = ['ecma.scm', 'typescript.scm'].map((file) => readFileSync(join(packageRoot, 'queries', file), 'utf8')).join('\n');
  const withOverride = () => {
    const clone = cloneOf(origin);
    mkdirSync(join(clone, '.repomap', 'queries'), { recursive: true });
    writeFileSync(join(clone, '.repomap', 'queries', 'typescript.scm'), `${builtin}\n; the built-in query, as this project's own\n`);
    appendFileSync(join(clone, '.git', 'info', 'exclude'), '.repomap/\n'); // not a file of the map
    return clone;
  };
  const other = await buildMap({ root: withOverride(), cacheDir: tempDir(), ...request });
  assert.equal(other.stats.restoredGraphs, 0, "a graph saved under another query is not this tree's");
  assert.equal(other.text, plain.text);
  assert.equal(graphs().length, 2);
  // Another plain clone reads the plain tree's graph, and another with the override the other one.
  assert.equal((await buildMap({ root: cloneOf(origin), cacheDir: tempDir(), ...request })).stats.restoredGraphs, 1);
  assert.equal((await buildMap({ root: withOverride(), cacheDir: tempDir(), ...request })).stats.restoredGraphs, 1);
});

test('the same content in files of two languages keeps its own tags in each: a .ts file and a .js file with the same bytes', async () => {
  const origin = copyFixture('shop');
  // TypeScript to the TypeScript grammar; syntax errors to JavaScript's (a file skipped for its content).
  const twin = 'export interface TwinShape {\n  area(): number;\n}\nexport type TwinAlias = TwinShape;\n';
  writeFileSync(join(origin, 'src', 'twin.ts'), twin);
  writeFileSync(join(origin, 'src', 'twin.js'), twin);
  git(origin, 'init', '-q');
  git(origin, 'add', '.');
  git(origin, 'commit', '-qm', 'init');
  const request = { mentionedFiles: ['src/twin.ts', 'src/twin.js'], tokens: 4096, workers: 1, sharedCacheDir: tempDir('repomap-shared-') };
  const first = await buildMap({ root: cloneOf(origin), cacheDir: tempDir(), ...request });
  assert.deepEqual(first.skippedFiles.filter((file) => file.path.startsWith('src/twin')).map((file) => [file.path, file.reason]), [['src/twin.js', 'syntax errors']]);
  assert.deepEqual(first.files.filter((file) => file.path.startsWith('src/twin')).map((file) => file.path), ['src/twin.ts']);
  const second = await buildMap({ root: cloneOf(origin), cacheDir: tempDir(), ...request });
  assert.deepEqual([second.stats.parsed, second.stats.reusedShared], [0, first.stats.parsed], 'every file copied, the twins each under its own key');
  assert.deepEqual(second.skippedFiles, first.skippedFiles);
  assert.equal(second.text, first.text);
});

test("a pass publishes what it parsed once its pool is closed, its store letting go of its map every few copies read; with the caller's pool it publishes all the same", async () => {
  const origin = committedShop();
  const shared = tempDir('repomap-shared-');
  const every = 3;
  const store = TagStore.open(tempDir(), { sharedCacheDir: shared });
  const first = await indexRepository({ root: cloneOf(origin), store, workers: 1, publishReleaseEvery: every }).finally(() => store.close());
  const sources = first.stats.parsed + 1; // and src/blob.ts, read but not parsed
  assert.ok(sources >= 9, `every source file parsed (${sources})`);
  assert.equal(first.stats.published, sources);
  assert.equal(store.releases, Math.ceil(sources / every), 'before the first copy read, and before each further 3');

  // A runner of the caller's keeps the store open (its threads would), and its map with it.
  const edited = cloneOf(origin);
  appendFileSync(join(edited, 'src', 'cart.ts'), LEAK);
  const runner = createRunner(2);
  const own = TagStore.open(tempDir(), { sharedCacheDir: shared });
  try {
    const index = await indexRepository({ root: edited, store: own, runner, publishReleaseEvery: 1 });
    assert.deepEqual([index.stats.parsed, index.stats.reusedShared, index.stats.published], [1, sources - 1, 1]);
    assert.equal(own.releases, 0);
  } finally {
    await runner.close();
    await own.close();
  }

  // What both published, a clone of either kind parses none of.
  const request = { tokens: 1024, workers: 1, sharedCacheDir: shared };
  const same = await buildMap({ root: cloneOf(origin), cacheDir: tempDir(), ...request });
  assert.deepEqual([same.stats.parsed, same.stats.reusedShared, same.stats.published], [0, sources, 0]);
  const alike = cloneOf(origin);
  appendFileSync(join(alike, 'src', 'cart.ts'), LEAK);
  const alikeMap = await buildMap({ root: alike, cacheDir: tempDir(), ...request });
  assert.deepEqual([alikeMap.stats.parsed, alikeMap.stats.reusedShared], [0, sources]);
  assert.match(alikeMap.text, /leakedFromB/);
});

test('a file changed between its stat and the publish is not published: its tags are not those of the content it was keyed by', async () => {
  const root = cloneOf(committedShop());
  const shared = tempDir('repomap-shared-');
  const store = TagStore.open(tempDir(), { sharedCacheDir: shared });
  const runner = createRunner(1);
  try {
    const reconciler = new Reconciler(root, store, runner);
    const stats = emptyStats();
    const paths = git(root, 'ls-files').trim().split('\n');
    await reconciler.update(paths, stats);
    const cart = join(root, 'src', 'cart.ts');
    const keyed = tsKey(readFileSync(cart));
    appendFileSync(cart, LEAK);
    const sources = stats.parsed + 1; // and src/blob.ts, read but not parsed
    assert.deepEqual(await reconciler.publishShared(stats, false), { files: sources - 1, releases: 0 }, 'every file read but the changed one');
    assert.equal(stats.published, sources - 1);
    assert.deepEqual(await reconciler.publishShared(stats, false), { files: 0, releases: 0 }, 'published once');
    const cache = SharedTags.open(shared)!;
    assert.equal(cache.record(keyed), undefined);
    assert.equal(cache.record(tsKey(readFileSync(cart))), undefined);
    assert.ok(cache.record(tsKey(readFileSync(join(root, 'src', 'checkout.ts')))));
  } finally {
    await runner.close();
    await store.close();
  }
});

test('the shared store opens again after letting go of its map: what it holds is read back, and it takes more', async () => {
  const dir = tempDir('repomap-shared-');
  const shared = SharedTags.open(dir)!;
  assert.equal(SharedTags.open(dir), shared, 'one per folder in a process');
  const copy = (n: number) => ({ record: { hash: `h${n}`, skip: null, links: 2 }, names: { defined: [`f${n}`], referenced: ['g'], counts: [1], imports: [], modules: [] } });
  const read = (key: string) => {
    const record = shared.record(key);
    return record && { record, names: shared.names(key) };
  };
  await shared.putAll([['k1', copy(1)]]);
  await shared.releasePages();
  await shared.releasePages(); // nothing open: nothing to do
  assert.deepEqual(read('k1'), copy(1));
  await shared.releasePages();
  await shared.putAll([['k2', copy(2)]]);
  assert.deepEqual([read('k1'), read('k2'), read('k3')], [copy(1), copy(2), undefined]);
  // A key already there keeps what it holds: the same content has the same tags.
  await shared.putAll([['k1', copy(3)]]);
  assert.deepEqual(read('k1'), copy(1));
});

test('without a shared cache (none given, or --cache-dir given without REPOMAP_SHARED_CACHE) every clone parses its files', async () => {
  const origin = copyFixture('shop');
  git(origin, 'init', '-q');
  git(origin, 'add', '.');
  git(origin, 'commit', '-qm', 'init');
  const request = { chatFiles: ['src/checkout.ts'], tokens: 1024, workers: 1 };
  const saved = process.env.REPOMAP_SHARED_CACHE;
  delete process.env.REPOMAP_SHARED_CACHE;
  try {
    const first = await buildMap({ root: cloneOf(origin), cacheDir: tempDir(), ...request });
    const second = await buildMap({ root: cloneOf(origin), cacheDir: tempDir(), ...request });
    assert.equal(second.stats.parsed, first.stats.parsed);
    assert.equal(second.stats.reusedShared, 0);
  } finally {
    if (saved !== undefined) process.env.REPOMAP_SHARED_CACHE = saved;
  }
});

test("content keys: git's index gives the blob id of each file it takes as unmodified, and blobId computes the same from the content", () => {
  const origin = copyFixture('shop');
  git(origin, 'init', '-q');
  git(origin, 'add', '.');
  git(origin, 'commit', '-qm', 'init');
  const clone = cloneOf(origin);
  const blobs = GitBlobs.read(clone);
  assert.ok(blobs, 'a version 2 index is read');
  let fromIndex = 0;
  let known: string | undefined;
  for (const line of git(clone, 'ls-files', '-s').trim().split('\n')) {
    const [meta, path] = line.split('\t');
    const blob = meta.split(' ')[1];
    const abs = join(clone, path);
    assert.equal(blobId(readFileSync(abs)), blob, path);
    const info = statSync(abs);
    const id = blobs.unmodified(path, statOf(info));
    if (id === undefined) continue;
    fromIndex++;
    assert.equal(id, blob, path);
    if (path !== 'src/cart.ts') known ??= path;
  }
  assert.ok(fromIndex > 0, 'files git takes as unmodified are keyed from the index');
  appendFileSync(join(clone, 'src', 'cart.ts'), '\n');
  const info = statSync(join(clone, 'src', 'cart.ts'));
  assert.equal(blobs.unmodified('src/cart.ts', statOf(info)), undefined, 'a modified file is not');
  // Nor one edited in place with its size and mtime put back: its change time tells, as git's own check does.
  assert.ok(known, 'a file other than cart.ts is taken as unmodified');
  const edited = join(clone, known);
  const before = statSync(edited);
  editKeepingStat(edited);
  assert.deepEqual([statSync(edited).size, statSync(edited).mtimeMs], [before.size, before.mtimeMs]);
  assert.equal(blobs.unmodified(known, statOf(statSync(edited))), undefined, 'an edit that keeps size and mtime is not');
  assert.equal(GitBlobs.read(tempDir()), undefined, 'outside git there is no index');
});
