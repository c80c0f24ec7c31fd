import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { test } from 'node:test';
import { DaemonClient } from '../src/client/client.js';
import { connect as connectRepo } from '../src/api/index.js';
import type { DaemonStatus, SymbolAnswer } from '../src/api/types.js';
import { daemonPaths } from '../src/daemon/runtime.js';
import { statusReport } from '../src/cli/daemon-commands.js';
import { buildMap } from '../src/map.js';
import { blobId } from '../src/indexer/git-index.js';
import { sharedKey } from '../src/indexer/indexer.js';
import { BUILTIN_LANGUAGES } from '../src/extract/languages.js';
import { SharedTags } from '../src/store/shared.js';
import type { RepoMap } from '../src/api/types.js';
import { packageRoot } from '../src/paths.js';
import { copyFixture, git, loopInPlaceOf, makeUnreadable, makeUnwritable, runCli, tempDir, writeTree } from './helpers.js';
import { DAEMON, type RunningDaemon, cacheDirs, exitWithin, cacheFor, rawExchange, runtimeEnv, sleep, startDaemon } from './daemon-helpers.js';

/** The MALLOC_ARENA_MAX entries of a process's environment. */
function mallocArenas(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .filter((entry) => entry.startsWith('MALLOC_ARENA_MAX='));
}

const call = DaemonClient.once;

/** Asks for maps until one satisfies `check` (the watcher takes a moment to see a change). */
async function mapUntil(socket: string, check: (map: RepoMap) => boolean, params: object = { tokens: 4096 }): Promise<RepoMap> {
  const deadline = Date.now() + 15_000;
  let map = await call<RepoMap>(socket, 'map', params);
  while (!check(map) && Date.now() < deadline) {
    await sleep(50);
    map = await call<RepoMap>(socket, 'map', params);
  }
  return map;
}

/** The daemon's status once its watcher follows the tree and no change is pending (its catch-up done). */
async function watchingSettled(socket: string): Promise<DaemonStatus> {
  let status = await call<DaemonStatus>(socket, 'status');
  while (!status.watching || status.pendingChanges > 0) status = await call<DaemonStatus>(socket, 'status');
  return status;
}

/** The shop fixture as a git repository of one commit, with `files` (relative paths) written first: those git ignores stay out of it. */
function gitRepo(files: Record<string, string> = {}): string {
  const root = copyFixture('shop');
  writeFiles(root, files);
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'init');
  return root;
}

test('start, map, edit, delete, rename, .gitignore, stop: every change shows in the next maps', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  const first = await call<RepoMap>(daemon.socket, 'map', { tokens: 4096 });
  assert.match(first.text, /│export class Cart \{/);

  writeFileSync(join(root, 'src', 'cart.ts'), 'export class Basket {\n  total(): number {\n    return 0;\n  }\n}\n');
  const edited = await mapUntil(daemon.socket, (map) => map.text.includes('│export class Basket {'));
  assert.match(edited.text, /│export class Basket \{/);
  assert.doesNotMatch(edited.text, /class Cart/);

  rmSync(join(root, 'src', 'mailer.ts'));
  const deleted = await mapUntil(daemon.socket, (map) => !map.text.includes('mailer.ts'));
  assert.doesNotMatch(deleted.text, /mailer\.ts/);

  renameSync(join(root, 'src', 'pricing.ts'), join(root, 'src', 'prices.ts'));
  const renamed = await mapUntil(daemon.socket, (map) => map.text.includes('src/prices.ts:') && !map.text.includes('pricing.ts'));
  assert.match(renamed.text, /^src\/prices\.ts:$/m);
  assert.doesNotMatch(renamed.text, /pricing\.ts/);

  mkdirSync(join(root, 'extra'));
  writeFileSync(join(root, 'extra', 'fresh.py'), 'def brand_new_function():\n    return 1\n');
  await mapUntil(daemon.socket, (map) => map.text.includes('brand_new_function'));
  writeFileSync(join(root, '.gitignore'), 'extra/\n');
  const ignored = await mapUntil(daemon.socket, (map) => !map.text.includes('brand_new_function'));
  assert.doesNotMatch(ignored.text, /extra\/fresh\.py/);

  // After all of that, the hot graph gives what a fresh in-process index of the same tree gives.
  for (const request of [
    { tokens: 2048, chatFiles: ['src/checkout.ts'], message: 'use Basket in priceOf' },
    { tokens: 1024, mentionedIdents: ['total'] },
    { tokens: 1024, ranking: 'aider' as const, chatFiles: ['src/checkout.ts'] },
  ]) {
    const hot = await call<RepoMap>(daemon.socket, 'map', request);
    const fresh = await buildMap({ root, cacheDir: tempDir(), ...request });
    assert.equal(hot.text, fresh.text, JSON.stringify(request));
  }

  const status = await call<DaemonStatus>(daemon.socket, 'status');
  assert.equal(status.state, 'ready');
  assert.equal(status.root, root);
  assert.equal(await call(daemon.socket, 'shutdown').then(() => 'ok'), 'ok');
  assert.equal(await daemon.exited, 0);
  assert.ok(!existsSync(daemon.socket), 'socket removed on shutdown');
});

test('after its index the daemon answers the first map before it links names or starts the watcher', async () => {
  const root = gitRepo();
  // Without a map, the background work would start after ten minutes.
  const daemon = await startDaemon(root, { ...runtimeEnv(), REPOMAP_TEST_BACKGROUND_MS: '600000' });
  let status = await call<DaemonStatus>(daemon.socket, 'status');
  while (status.state !== 'ready') status = await call<DaemonStatus>(daemon.socket, 'status');
  await sleep(300);
  assert.equal((await call<DaemonStatus>(daemon.socket, 'status')).watching, false, 'no watcher before the first map');
  assert.doesNotMatch(daemon.stderr(), /names linked/);
  await call(daemon.socket, 'map', {});
  const deadline = Date.now() + 15_000;
  while (!(status = await call<DaemonStatus>(daemon.socket, 'status')).watching && Date.now() < deadline) await sleep(50);
  assert.equal(status.watching, true, 'the watcher starts once the first map is answered');
  assert.match(daemon.stderr(), /names linked in \d+ ms, after the first map/);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('changes made before the watcher starts are caught up once it has: the next map waits for that, not only a later one', async () => {
  const root = gitRepo();
  mkdirSync(join(root, 'scratch'));
  writeFileSync(join(root, 'scratch', 'notes.py'), 'def scratch_function():\n    pass\n');
  writeFileSync(join(root, '.gitignore'), '*.log\n'); // indexed without a record: only its mtime tells it changed
  // The watcher starts 2 s after the cold index: the changes below all fall in that gap.
  const env = { ...runtimeEnv(), REPOMAP_TEST_WATCH_DELAY_MS: '2000' };
  const daemon = await startDaemon(root, env);
  const first = await call<RepoMap>(daemon.socket, 'map', { tokens: 4096 });
  assert.match(first.text, /mailer\.ts/);
  assert.match(first.text, /scratch_function/);
  assert.equal((await call<DaemonStatus>(daemon.socket, 'status')).watching, false);
  writeFileSync(join(root, 'src', 'cart.ts'), 'export class Basket {}\n');
  rmSync(join(root, 'src', 'mailer.ts'));
  mkdirSync(join(root, 'extra'));
  writeFileSync(join(root, 'extra', 'fresh.py'), 'def brand_new_function():\n    return 1\n');
  writeFileSync(join(root, '.gitignore'), 'scratch/\n'); // an untracked folder becomes ignored
  // The next map, not a later one: it waits for the watcher's start and its catch-up.
  const caught = await call<RepoMap>(daemon.socket, 'map', { tokens: 4096 });
  assert.match(caught.text, /│export class Basket \{\}/);
  assert.match(caught.text, /brand_new_function/);
  assert.doesNotMatch(caught.text, /mailer\.ts|class Cart|scratch_function/);
  assert.equal((await call<DaemonStatus>(daemon.socket, 'status')).watching, true);
  // And the watcher follows changes from then on.
  writeFileSync(join(root, 'extra', 'fresh.py'), 'def renamed_function():\n    return 1\n');
  assert.match((await mapUntil(daemon.socket, (map) => map.text.includes('renamed_function'))).text, /renamed_function/);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('folders over the system\'s limit of watches are stat\'ed periodically instead: their edits still show', async () => {
  const root = gitRepo();
  // The folder api/ cannot be watched (as with ENOSPC); the sweep runs every 300 ms.
  const env = { ...runtimeEnv(), REPOMAP_TEST_UNWATCHABLE: 'api', REPOMAP_TEST_SWEEP_MS: '300' };
  const daemon = await startDaemon(root, env);
  await call(daemon.socket, 'map', {});
  let status = await call<DaemonStatus>(daemon.socket, 'status');
  while (!status.watching) status = await call<DaemonStatus>(daemon.socket, 'status');
  assert.equal(status.unwatchedPaths, 1);
  writeFileSync(join(root, 'api', 'inventory.py'), 'def restock_unwatched():\n    pass\n');
  assert.match((await mapUntil(daemon.socket, (map) => map.text.includes('restock_unwatched'))).text, /restock_unwatched/);
  rmSync(join(root, 'api', 'inventory.py'));
  assert.doesNotMatch((await mapUntil(daemon.socket, (map) => !map.text.includes('inventory.py'))).text, /inventory\.py/);
  // A new file no watch sees is found by the sweep's listing.
  writeFileSync(join(root, 'api', 'inventory_restock.py'), 'def restock_unseen():\n    pass\n');
  assert.match((await mapUntil(daemon.socket, (map) => map.text.includes('restock_unseen'))).text, /restock_unseen/);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
  assert.equal(daemon.stderr().match(/System limit/g)?.length, 1, 'the limit is logged once, with the remedy');
  assert.match(daemon.stderr(), /fs\.inotify\.max_user_watches/);
});

test('a folder moved in whole shows all its files, nested ones too; moved out, none', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  await call(daemon.socket, 'map', {});
  let status = await call<DaemonStatus>(daemon.socket, 'status');
  while (!status.watching) status = await call<DaemonStatus>(daemon.socket, 'status');
  // Made outside the root, so no watch saw its files being written (as with a git checkout or an unpacked archive).
  const outside = join(tempDir(), 'billing');
  mkdirSync(join(outside, 'tax', 'rules'), { recursive: true });
  writeFileSync(join(outside, 'invoice.py'), 'def issue_invoice_now():\n    pass\n');
  writeFileSync(join(outside, 'tax', 'rules', 'vat.py'), 'def apply_vat_rules():\n    pass\n');
  renameSync(outside, join(root, 'billing'));
  const moved = await mapUntil(daemon.socket, (map) => map.text.includes('issue_invoice_now') && map.text.includes('apply_vat_rules'));
  assert.match(moved.text, /^billing\/tax\/rules\/vat\.py:$/m);
  renameSync(join(root, 'billing'), join(tempDir(), 'billing'));
  const gone = await mapUntil(daemon.socket, (map) => !map.text.includes('billing/'));
  assert.doesNotMatch(gone.text, /issue_invoice_now|apply_vat_rules/);
  assert.equal((await call<DaemonStatus>(daemon.socket, 'status')).files, status.files);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('a new folder the rules ignore is left out whole: not listed file by file, no longer watched', async () => {
  const root = gitRepo();
  writeFileSync(join(root, '.gitignore'), 'vendor/\n');
  git(root, 'add', '.gitignore');
  git(root, 'commit', '-qm', 'ignore vendor');
  const daemon = await startDaemon(root, runtimeEnv());
  await call(daemon.socket, 'map', {});
  // Watching, and the catch-up done (it rediscovers: the .gitignore was written within the second before the start).
  const status = await watchingSettled(daemon.socket);
  mkdirSync(join(root, 'vendor', 'pkg', 'lib'), { recursive: true });
  writeFileSync(join(root, 'vendor', 'pkg', 'lib', 'dep.py'), 'def vendored_function():\n    pass\n');
  writeFileSync(join(root, 'vendor', 'top.py'), 'def vendored_top():\n    pass\n');
  const deadline = Date.now() + 10_000;
  while (!daemon.stderr().includes('left out vendor/') && Date.now() < deadline) await sleep(50);
  assert.match(daemon.stderr(), /left out vendor\/: ignored, no file of it listed/);
  writeFileSync(join(root, 'vendor', 'pkg', 'lib', 'later.py'), 'def vendored_later():\n    pass\n');
  // A file outside it, written after: once it shows, the events before it were handled.
  writeFileSync(join(root, 'src', 'after.ts'), 'export function writtenAfterVendor() {}\n');
  const map = await mapUntil(daemon.socket, (m) => m.text.includes('writtenAfterVendor'));
  assert.doesNotMatch(map.text, /vendor|vendored/);
  assert.equal((await call<DaemonStatus>(daemon.socket, 'status')).files, status.files + 1);
  assert.equal(daemon.stderr().match(/left out/g)?.length, 1, 'its subfolders are left out with it');
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('a file edit is applied without parsing anything else, also after requests made the store let go of its map', async () => {
  const root = gitRepo();
  // Once warm, the store lets go of its map after every request that read from it.
  const env = { ...runtimeEnv(), REPOMAP_TEST_REQUEST_RELEASE_READS: '1' };
  const daemon = await startDaemon(root, env);
  await call(daemon.socket, 'map', {}); // waits for the cold index
  const before = await call<DaemonStatus>(daemon.socket, 'status');
  writeFileSync(join(root, 'api', 'inventory.py'), 'def restock_everything():\n    pass\n');
  await mapUntil(daemon.socket, (map) => map.text.includes('restock_everything'));
  const after = await call<DaemonStatus>(daemon.socket, 'status');
  assert.equal(after.parsed - before.parsed, 1);
  // Requests read outlines: the store lets go of the pages they mapped, and the pool it closed for
  // that is a new one, which parses the next edit.
  const released = /requests read \d+ values from the store: its pages let go/;
  await mapUntil(daemon.socket, () => released.test(daemon.stderr()));
  assert.match(daemon.stderr(), released);
  writeFileSync(join(root, 'api', 'inventory.py'), 'def restock_nothing():\n    pass\n');
  await mapUntil(daemon.socket, (map) => map.text.includes('restock_nothing'));
  assert.equal((await call<DaemonStatus>(daemon.socket, 'status')).parsed - after.parsed, 1);
  await call(daemon.socket, 'shutdown');
  await daemon.exited;
});

test('a restart reads the related graph saved at the last stop or after a quiet spell; changes apply on top of it', async () => {
  const root = gitRepo();
  const env = { ...runtimeEnv(), REPOMAP_TEST_GRAPH_SAVE_MS: '100' };
  const request = { tokens: 4096, chatFiles: ['api/inventory.py'], mentionedIdents: ['Cart'] };
  const first = await startDaemon(root, env);
  const cold = await call<RepoMap>(first.socket, 'map', request);
  assert.equal(cold.stats.restoredGraphs, 0);
  await call(first.socket, 'shutdown');
  await first.exited;

  const second = await startDaemon(root, env);
  const warm = await call<RepoMap>(second.socket, 'map', request);
  assert.equal(warm.stats.restoredGraphs, 1, second.stderr());
  assert.equal(warm.text, cold.text);
  // The names are linked once maps are answered, without a change asking for them.
  const linkedBy = Date.now() + 15_000;
  while (!second.stderr().includes('names linked in') && Date.now() < linkedBy) await sleep(50);
  assert.match(second.stderr(), /names linked in \d+ ms, after the first map/);
  const saves = () => second.stderr().split('related graph saved').length - 1;
  writeFileSync(join(root, 'api', 'inventory.py'), 'def restock_everything():\n    pass\n');
  const edited = await mapUntil(second.socket, (map) => map.text.includes('restock_everything'), request);
  assert.equal(edited.text, (await buildMap({ root, cacheDir: tempDir(), ...request })).text);
  const deadline = Date.now() + 15_000;
  while (saves() === 0 && Date.now() < deadline) await sleep(50);
  assert.equal(saves(), 1, second.stderr());

  // Killed without a chance to save: the graph saved after the edit is the one read.
  second.child.kill('SIGKILL');
  await second.exited;
  const third = await startDaemon(root, env);
  const again = await call<RepoMap>(third.socket, 'map', request);
  assert.equal(again.stats.restoredGraphs, 1, third.stderr());
  assert.equal(again.text, edited.text);
  await call(third.socket, 'shutdown');
  await third.exited;
});

test('a cold index and a restart keep the definitions nobody references out of their name indexes and finds them when asked; an edit that references one links it', async () => {
  const root = gitRepo();
  writeFileSync(join(root, 'src', 'registers.ts'), 'export const UNUSED_REGISTER_MASK = 0x10;\nexport const SPARE_REGISTER_MASK = 0x20;\n');
  const env = runtimeEnv();
  const mention = { tokens: 1024, mentionedIdents: ['UNUSED_REGISTER_MASK'] };
  // Once every name is linked, the answers about the masks are those of a map made anew.
  const linkedAndSame = async (daemon: RunningDaemon) => {
    await call(daemon.socket, 'map', mention);
    const linkedBy = Date.now() + 15_000;
    while (!daemon.stderr().includes('names linked in') && Date.now() < linkedBy) await sleep(50);
    assert.match(daemon.stderr(), /names linked in \d+ ms/);
    for (const request of [mention, { ...mention, ranking: 'aider' as const }, { tokens: 1024, message: 'where is SPARE_REGISTER_MASK set?' }]) {
      const hot = await call<RepoMap>(daemon.socket, 'map', request);
      assert.match(hot.text, /UNUSED_REGISTER_MASK|SPARE_REGISTER_MASK/);
      assert.equal(hot.text, (await buildMap({ root, cacheDir: tempDir(), ...request })).text, JSON.stringify(request));
    }
  };
  // A cold index links every parsed definition as it comes; before it builds the related graph,
  // the masks leave the definer index, moved from the names in memory.
  const first = await startDaemon(root, env);
  await linkedAndSame(first);
  assert.match(first.stderr(), /definitions of names no file references moved out of the definer index/);
  await call(first.socket, 'shutdown');
  await first.exited;

  // Started on a complete cache, the daemon links every name after its first map: the two masks,
  // referenced by no file, go to the cold definitions.
  const second = await startDaemon(root, env);
  await linkedAndSame(second);
  assert.doesNotMatch(second.stderr(), /definitions of names no file references moved/, 'linked once, from the store');

  // The chat file comes to reference a mask: the mask's definer is linked, and ranks from it.
  const checkout = join(root, 'src', 'checkout.ts');
  writeFileSync(checkout, `import { UNUSED_REGISTER_MASK } from './registers';\n${readFileSync(checkout, 'utf8')}\nexport const mask = UNUSED_REGISTER_MASK;\n`);
  for (const request of [{ tokens: 1024, chatFiles: ['src/checkout.ts'] }, { tokens: 1024, chatFiles: ['src/checkout.ts'], ranking: 'aider' as const }]) {
    const fresh = await buildMap({ root, cacheDir: tempDir(), ...request });
    assert.match(fresh.text, /^src\/registers\.ts:$/m);
    const hot = await mapUntil(second.socket, (map) => map.text === fresh.text, request);
    assert.equal(hot.text, fresh.text, JSON.stringify(request));
  }
  await call(second.socket, 'shutdown');
  await second.exited;
});

test("the warm-up lets go of the store's map as it reads names while linking, every few files read, on a complete cache; after a cold index it reads none", async () => {
  const root = gitRepo();
  // Every file read: the map is let go of after each slice but the last.
  const env = { ...runtimeEnv(), REPOMAP_TEST_LINK_RELEASE_EVERY: '1' };
  const request = { tokens: 1024, chatFiles: ['src/checkout.ts'] };
  const fresh = await buildMap({ root, cacheDir: tempDir(), ...request });
  const linking = async (daemon: RunningDaemon): Promise<{ reads: number; releases: number }> => {
    await call(daemon.socket, 'map', { tokens: 1024 });
    const linkedBy = Date.now() + 15_000;
    const line = /names linked in \d+ ms, after the first map \((\d+) files' names read from the store, its map let go (\d+) times meanwhile\)/;
    while (!line.test(daemon.stderr()) && Date.now() < linkedBy) await sleep(50);
    const [, reads, releases] = line.exec(daemon.stderr()) ?? assert.fail(daemon.stderr());
    assert.equal((await call<RepoMap>(daemon.socket, 'map', request)).text, fresh.text, 'the same map once linked');
    await call(daemon.socket, 'shutdown');
    await daemon.exited;
    return { reads: Number(reads), releases: Number(releases) };
  };
  // After a cold index every name is in memory: the definitions of names nobody references left
  // the definer index before the related graph was built, and linking reads nothing.
  const cold = await linking(await startDaemon(root, env));
  assert.deepEqual(cold, { reads: 0, releases: 0 });
  // On a complete cache, every file's definitions are read again once the references are linked,
  // and the names of each file the first map did not read (here it reads them all: it shows every
  // file) for its references.
  const warm = await linking(await startDaemon(root, env));
  assert.ok(warm.reads > 1, String(warm.reads));
  assert.equal(warm.releases, warm.reads - 1);
});

test('a foreground daemon whose stderr closes goes on answering', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  await call(daemon.socket, 'map', {});
  daemon.child.stderr!.destroy();
  // An update is logged: the write fails (EPIPE) and must not take the daemon down or spin.
  writeFileSync(join(root, 'api', 'inventory.py'), 'def restock_after_close():\n    pass\n');
  const map = await mapUntil(daemon.socket, (m) => m.text.includes('restock_after_close'));
  assert.match(map.text, /restock_after_close/);
  writeFileSync(join(root, 'api', 'inventory.py'), 'def restock_twice():\n    pass\n');
  assert.match((await mapUntil(daemon.socket, (m) => m.text.includes('restock_twice'))).text, /restock_twice/);
  assert.equal(daemon.child.exitCode, null);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('query starts a daemon when none runs, and answers like map does', async () => {
  const root = gitRepo();
  writeFileSync(join(root, 'src', 'blob.py'), Buffer.from([0x78, 0x00, 0x01, 0x02])); // skipped: binary
  const env = runtimeEnv();
  const cache = tempDir();
  // No MALLOC_ARENA_MAX of the caller's: the daemon gets its own (see below).
  const queried = runCli(['query', root, '--tokens', '512', '--chat', 'src/checkout.ts', '--cache-dir', cache, '--idle-timeout', '60'], { cwd: root, env: { ...env, MALLOC_ARENA_MAX: undefined } });
  assert.equal(queried.code, 0, queried.stderr);
  const mapped = runCli(['map', root, '--tokens', '512', '--chat', 'src/checkout.ts', '--cache-dir', tempDir(), '--verbose'], { cwd: root });
  // --verbose: the same map on stdout, its last line without the hint to --verbose, and on stderr
  // the counts and the same skipped files as map --verbose.
  const verbose = runCli(['query', root, '--tokens', '512', '--chat', 'src/checkout.ts', '--verbose'], { cwd: root, env });
  assert.equal(verbose.code, 0, verbose.stderr);
  assert.equal(verbose.stdout, mapped.stdout);
  assert.match(queried.stdout, /^\(1 file not mapped: 1 binary; --verbose lists them\)$/m);
  assert.equal(verbose.stdout.split('\n').at(-2), '(1 file not mapped: 1 binary)');
  assert.match(verbose.stderr, /^repomap: the daemon \(since it started\): \d+ files discovered/m);
  assert.match(verbose.stderr, /^repomap: map of \d+ tokens \(budget 512\)/m);
  const skippedLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('skipped '));
  assert.ok(skippedLines(mapped.stderr).length > 0, 'the fixture has skipped files');
  assert.deepEqual(skippedLines(verbose.stderr), skippedLines(mapped.stderr));
  const status = runCli(['status', root, '--format', 'json'], { env });
  assert.equal(status.code, 0, status.stderr);
  const info = JSON.parse(status.stdout) as DaemonStatus;
  assert.equal(info.root, root);
  // Started with two malloc arenas (see DAEMON_MALLOC_ARENAS).
  assert.deepEqual(mallocArenas(info.pid), ['MALLOC_ARENA_MAX=2']);
  const all = runCli(['status', '--all'], { env });
  assert.match(all.stdout, new RegExp(`${root}\\s+pid ${info.pid}`));
  const stopped = runCli(['stop', root], { env });
  assert.equal(stopped.code, 0);
  assert.match(stopped.stdout, /stopped/);
  assert.equal(runCli(['status', root], { env }).code, 1);
  const none = runCli(['status', '--all'], { env });
  assert.deepEqual([none.code, none.stdout], [1, 'repomap: no daemon is running\n'], 'exits 1 when no daemon runs, as its help says');
  // A runtime folder open to others is refused for --all as for one ROOT.
  chmodSync(join(env.XDG_RUNTIME_DIR, 'repomap'), 0o755);
  const unsafe = runCli(['status', '--all'], { env });
  assert.equal(unsafe.code, 2, unsafe.stdout);
  assert.match(unsafe.stderr, /open to group or others/);
});

test('a cache folder inside the root that git does not ignore is never listed: the daemon does not follow its own log and store, and map counts the same files on every run', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const queried = runCli(['query', root, '--tokens', '512', '--cache-dir', join(root, 'repomap-cache'), '--idle-timeout', '60', '--verbose'], { env });
  assert.equal(queried.code, 0, queried.stderr);
  const status = () => JSON.parse(runCli(['status', root, '--format', 'json'], { env }).stdout) as DaemonStatus;
  // The daemon writes its log and store meanwhile: followed, each write would be a change, updated again and again.
  await sleep(1500);
  const settled = status();
  await sleep(1000);
  const later = status();
  assert.deepEqual([later.lastUpdate, later.pendingChanges], [settled.lastUpdate, 0], 'no update after the start');
  const mapped = runCli(['map', root, '--tokens', '512', '--cache-dir', join(root, 'map-cache'), '--verbose'], { env });
  const again = runCli(['map', root, '--tokens', '512', '--cache-dir', join(root, 'map-cache'), '--verbose'], { env });
  const skipped = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('skipped '));
  assert.doesNotMatch(queried.stderr, /^skipped repomap-cache\//m, "the daemon's cache is not listed");
  assert.doesNotMatch(mapped.stderr + again.stderr, /^skipped map-cache\//m, "nor the map's own");
  assert.deepEqual(skipped(again.stderr), skipped(mapped.stderr));
  assert.equal(again.stdout, mapped.stdout);
  assert.equal(runCli(['stop', root], { env }).code, 0);
});

test('a subfolder ROOT is the root for query and connect() (mcp takes it the same way): its daemon serves only the files under it', async () => {
  const root = gitRepo();
  const sub = realpathSync(join(root, 'src'));
  const env = runtimeEnv();
  const cache = tempDir('repomap-cache-');
  const query = runCli(['query', sub, '--format', 'json', '--cache-dir', cache, '--idle-timeout', '60'], { env });
  assert.equal(query.code, 0, query.stderr);
  const map = JSON.parse(query.stdout) as RepoMap;
  assert.equal(map.root, sub);
  assert.ok(map.files.length > 0 && map.files.every((file) => !file.path.includes('/') && !file.path.startsWith('api')), map.files.map((f) => f.path).join(' '));
  const previous = process.env.XDG_RUNTIME_DIR;
  process.env.XDG_RUNTIME_DIR = env.XDG_RUNTIME_DIR;
  try {
    const repo = await connectRepo(join(root, 'src'));
    try {
      assert.equal(repo.root, sub);
      assert.equal((await repo.status()).root, sub);
      assert.equal((await repo.status()).files, map.stats.discovered);
    } finally {
      repo.close();
    }
  } finally {
    process.env.XDG_RUNTIME_DIR = previous;
  }
  assert.equal(runCli(['stop', sub], { env }).code, 0);
});

/** Runs a command a message suggests in `sh`, in `cwd`, as a user who pastes it does (`repomap` being this checkout's CLI); it must succeed. */
function pasteIntoShell(command: string, cwd: string, env: NodeJS.ProcessEnv): void {
  const repomap = `repomap() { '${process.execPath}' '${join(packageRoot, 'bin', 'repomap.js')}' "$@"; }`;
  const pasted = spawnSync('sh', ['-c', `${repomap}; ${command}`], { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
  assert.equal(pasted.status, 0, pasted.stderr);
}

test('a running daemon started with other options says so, with the restart that applies them', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const cache = tempDir('repomap-cache-');
  const first = runCli(['query', root, '--cache-dir', cache, '--idle-timeout', '60'], { env });
  assert.equal(first.code, 0, first.stderr);
  const same = runCli(['query', root, '--cache-dir', cache], { env });
  assert.equal(same.stderr, '', 'the options it runs with: nothing to say');
  const other = runCli(['query', root, '--exclude', 'api', '--workers', '1'], { env });
  assert.equal(other.code, 0, other.stderr);
  assert.equal(other.stderr.trimEnd().split('\n').length, 1, other.stderr);
  assert.match(
    other.stderr,
    /^repomap: the daemon for .* already runs and keeps the options it was started with, not --exclude api \(it uses: none\), --workers 1 \(it uses: \d+\); to apply them: repomap restart .* --exclude api --workers 1$/m,
  );
  assert.match(other.stdout, /api\/server\.py/, 'the map is the running daemon\'s');
  const symbols = runCli(['symbols', 'Cart', root, '--daemon', '--workers', '1'], { env });
  assert.equal(symbols.code, 0, symbols.stderr);
  assert.match(symbols.stderr, /^repomap: the daemon for .* already runs and keeps the options it was started with, not --workers 1 \(it uses: \d+\)/, 'symbols --daemon says so too');
  const status = JSON.parse(runCli(['status', root, '--format', 'json'], { env }).stdout) as DaemonStatus;
  assert.deepEqual(status.exclude, []);
  assert.equal(status.idleTimeoutSeconds, 60);
  assert.equal(runCli(['restart', root, '--exclude', 'api', '--cache-dir', cache], { env }).code, 0);
  const applied = runCli(['query', root, '--exclude', 'api'], { env });
  assert.equal(applied.stderr, '');
  assert.doesNotMatch(applied.stdout, /api\/server\.py/);
  // A restart without --cache-dir keeps the folder the daemon used, not the default one; the caller's MALLOC_ARENA_MAX is kept.
  assert.equal(runCli(['restart', root], { env: { ...env, MALLOC_ARENA_MAX: '4' } }).code, 0);
  const restarted = JSON.parse(runCli(['status', root, '--format', 'json'], { env }).stdout) as DaemonStatus;
  assert.equal(restarted.cacheDir, cache);
  assert.deepEqual(mallocArenas(restarted.pid), ['MALLOC_ARENA_MAX=4']);
  // The restart it suggests is quoted for a POSIX shell: pasted where its glob would expand (src/ holds .ts files), it applies the glob.
  const globbed = runCli(['query', root, '--exclude', '*.ts'], { env });
  const suggested = /; to apply them: (repomap restart .*)$/m.exec(globbed.stderr)?.[1];
  assert.equal(suggested, `repomap restart ${root} --exclude '*.ts'`);
  pasteIntoShell(suggested!, join(root, 'src'), env);
  const quoted = runCli(['query', root, '--exclude', '*.ts'], { env });
  assert.equal(quoted.stderr, '', 'the daemon runs with the glob');
  assert.doesNotMatch(quoted.stdout, /src\/cart\.ts/);
  // A glob the new daemon would refuse is said before the running one is stopped.
  const before = (JSON.parse(runCli(['status', root, '--format', 'json'], { env }).stdout) as DaemonStatus).pid;
  const refused = runCli(['restart', root, '--exclude', 'src/['], { env });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /^repomap: exclude glob src\/\[: its '\[' has no closing '\]'/);
  assert.equal((JSON.parse(runCli(['status', root, '--format', 'json'], { env }).stdout) as DaemonStatus).pid, before, 'the daemon still runs');
  assert.equal(runCli(['stop', root], { env }).code, 0);
  // The daemons that left api/ out kept the records the first one stored of it: a map without the exclusion parses nothing.
  const whole = runCli(['map', root, '--cache-dir', cache, '--verbose'], { env });
  assert.equal(whole.code, 0, whole.stderr);
  assert.match(whole.stderr, /files discovered; 0 parsed, \d+ unchanged, 0 touched but unchanged, 0 from the shared cache, 0 removed from the cache/);
  assert.match(whole.stdout, /api\/server\.py/);
});

test("the restart a notice suggests applies the options asked for and keeps the daemon's others; the notice quotes each glob", async () => {
  const root = gitRepo({ "lib/it's here.rs": 'pub fn quoted_glob() -> u32 {\n    7\n}\n' });
  const env = { ...runtimeEnv(), XDG_CACHE_HOME: tempDir('repomap-xdg-') };
  const cache = tempDir('repomap-cache-');
  const globs = ["lib/it's *.rs", 'tools'];
  const started = runCli(['start', root, '--cache-dir', cache, '--exclude', globs[0], '--exclude', globs[1], '--workers', '1', '--idle-timeout', '120'], { env });
  assert.equal(started.code, 0, started.stderr);
  const statusOf = () => JSON.parse(runCli(['status', root, '--format', 'json'], { env }).stdout) as DaemonStatus;
  const first = statusOf();
  // Each glob as a command line takes it, its flag before it, in what is asked and in what the daemon uses alike.
  const other = runCli(['query', root, '--exclude', 'api', '--exclude', 'my src'], { env });
  assert.equal(other.code, 0, other.stderr);
  assert.equal(
    other.stderr,
    `repomap: the daemon for ${root} already runs and keeps the options it was started with, not --exclude api --exclude 'my src' (it uses: --exclude 'lib/it'\\''s *.rs' --exclude tools); to apply them: repomap restart ${root} --exclude api --exclude 'my src'\n`,
  );
  // Another idle timeout asked: the restart suggested names it alone, and pasted, changes it alone.
  const idle = runCli(['query', root, '--idle-timeout', '300'], { env });
  const suggested = /; to apply them: (repomap restart .*)$/m.exec(idle.stderr)?.[1];
  assert.equal(suggested, `repomap restart ${root} --idle-timeout 300`);
  pasteIntoShell(suggested!, root, env);
  const applied = statusOf();
  assert.notEqual(applied.pid, first.pid, 'a new daemon');
  assert.deepEqual(
    { exclude: applied.exclude, workers: applied.workers, idleTimeoutSeconds: applied.idleTimeoutSeconds, cacheDir: applied.cacheDir },
    { exclude: globs, workers: 1, idleTimeoutSeconds: 300, cacheDir: cache },
  );
  assert.deepEqual(first.startedWith, { cacheDir: cache, workers: 1, exclude: globs, idleTimeoutSeconds: 120 });
  assert.deepEqual(applied.startedWith, { ...first.startedWith, idleTimeoutSeconds: 300 });
  const map = runCli(['query', root, '--idle-timeout', '300'], { env });
  assert.equal(map.stderr, '', 'the daemon runs with what was asked');
  assert.doesNotMatch(map.stdout, /tools\/report\.go|it's here/, 'and still leaves its globs out');
  // `restart ROOT` alone is the same daemon again; --exclude replaces its globs, and keeps the rest.
  assert.equal(runCli(['restart', root], { env }).code, 0);
  assert.deepEqual(statusOf().startedWith, applied.startedWith);
  assert.equal(runCli(['restart', root, '--exclude', 'api'], { env }).code, 0);
  assert.deepEqual(statusOf().startedWith, { ...applied.startedWith, exclude: ['api'] });
  // Stopped, then started: none of its options. A daemon on its default cache folder is restarted
  // on it without --cache-dir, which would leave out the tag cache shared by every root.
  assert.equal(runCli(['stop', root], { env }).code, 0);
  assert.equal(runCli(['start', root], { env }).code, 0);
  const fresh = statusOf();
  assert.deepEqual({ startedWith: fresh.startedWith, exclude: fresh.exclude }, { startedWith: {}, exclude: [] });
  assert.equal(runCli(['restart', root], { env }).code, 0);
  assert.deepEqual({ startedWith: statusOf().startedWith, cacheDir: statusOf().cacheDir }, { startedWith: {}, cacheDir: fresh.cacheDir });
  assert.equal(runCli(['stop', root], { env }).code, 0);
  // repomapd's --max-file-bytes, which no client takes, is kept by a restart too.
  const direct = await startDaemon(root, env, '--max-file-bytes', '100000');
  assert.equal(runCli(['restart', root], { env }).code, 0);
  assert.equal(await direct.exited, 0);
  assert.deepEqual(statusOf().startedWith, { cacheDir: cacheFor(root), workers: 2, maxFileBytes: 100000 });
  assert.equal(runCli(['stop', root], { env }).code, 0);
});

test('query takes an absolute --exclude inside the root from the root, as map does; one outside it starts no daemon', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const outside = runCli(['query', root, '--exclude', join(root, '..', 'elsewhere')], { env });
  assert.equal(outside.code, 2, outside.stderr);
  assert.match(outside.stderr, /^repomap: exclude glob \S+ lies outside the repository root \S+ \(globs are matched against paths from the root\)\n$/);
  assert.equal(runCli(['status', root], { env }).code, 1, 'no daemon was started');
  const absolute = runCli(['query', root, '--exclude', join(root, 'api'), '--tokens', '4096'], { env });
  assert.equal(absolute.code, 0, absolute.stderr);
  assert.doesNotMatch(absolute.stdout, /api\//);
  assert.match(absolute.stdout, /src\/cart\.ts/);
  // The same glob written from the root is the option the daemon runs with: nothing to say.
  const relative = runCli(['query', root, '--exclude', './api'], { env });
  assert.equal(relative.stderr, '');
  assert.equal(runCli(['stop', root], { env }).code, 0);
});

test('a stale socket and lock left by kill -9 are cleaned up; nothing indexed is lost', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const first = await startDaemon(root, env);
  await call(first.socket, 'map', {});
  first.child.kill('SIGKILL');
  await first.exited;
  assert.ok(existsSync(first.socket), 'the killed daemon left its socket');
  const second = await startDaemon(root, env);
  const status = await call<DaemonStatus>(second.socket, 'status');
  assert.notEqual(status.pid, first.child.pid);
  const map = await call<RepoMap>(second.socket, 'map', { tokens: 4096 });
  assert.equal(map.stats.parsed, 0, 'the store written before the kill was reused');
  assert.match(map.text, /class Cart/);
  await call(second.socket, 'shutdown');
  await second.exited;
});

test('kill -9 during the cold index leaves a store the next start repairs', async () => {
  const root = gitRepo();
  for (let i = 0; i < 3000; i++) writeFileSync(join(root, 'api', `gen${i}.py`), `def generated_${i}():\n    return ${i}\n`);
  const env = runtimeEnv();
  const first = await startDaemon(root, env, '--workers', '1');
  await sleep(300);
  first.child.kill('SIGKILL');
  await first.exited;
  const second = await startDaemon(root, env);
  const map = await call<RepoMap>(second.socket, 'map', { tokens: 200, message: 'look at api/gen2999.py' });
  const status = await call<DaemonStatus>(second.socket, 'status');
  assert.equal(status.indexed, 3009);
  assert.match(map.text, /generated_2999/);
  await call(second.socket, 'shutdown');
  await second.exited;
});

test('a daemon whose store is damaged moves it aside, rebuilds it from the source files and serves', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const first = await startDaemon(root, env);
  const before = await call<RepoMap>(first.socket, 'map', { tokens: 4096 });
  await call(first.socket, 'shutdown');
  assert.equal(await first.exited, 0);
  for (const damage of ['truncate', 'header'] as const) {
    const file = join(cacheFor(root), 'tags.lmdb', 'data.mdb');
    const data = readFileSync(file);
    if (damage === 'truncate') writeFileSync(file, data.subarray(0, 3 * 4096 + 100));
    else writeFileSync(file, Buffer.concat([Buffer.alloc(64, 0x5a), data.subarray(64)]));
    const daemon = await startDaemon(root, env);
    const after = await call<RepoMap>(daemon.socket, 'map', { tokens: 4096 });
    assert.equal(after.text, before.text, damage);
    assert.match(daemon.stderr(), /tag cache at .* (is unreadable|failed).*moved (it )?aside to .*rebuilding it/, damage);
    await call(daemon.socket, 'shutdown');
    assert.equal(await daemon.exited, 0, damage);
  }
});

test('a daemon that cannot write its cache folder says why in one repomapd line, exit 2, and query passes that reason on', async (t) => {
  const root = gitRepo();
  const cache = tempDir('repomap-cache-');
  if (!makeUnwritable(cache)) {
    t.skip('no way to make a folder unwritable here');
    return;
  }
  const reason = `cache folder ${cache} cannot be written: `;
  const daemon = spawnSync(process.execPath, [DAEMON, root, '--cache-dir', cache], { env: { ...process.env, ...runtimeEnv() }, encoding: 'utf8', timeout: 60_000 });
  assert.equal(daemon.status, 2, daemon.stderr);
  assert.match(daemon.stderr, /^repomapd: [^\n]+\n$/, 'one line, no stack');
  assert.ok(daemon.stderr.startsWith(`repomapd: ${reason}`), daemon.stderr);
  const query = runCli(['query', root, '--cache-dir', cache], { env: runtimeEnv(), timeout: 60_000 });
  assert.equal(query.code, 2, query.stderr);
  assert.match(query.stderr, /^repomap: could not start the daemon for \S+: [^\n]+\n$/);
  assert.ok(query.stderr.endsWith(`: ${daemon.stderr.slice('repomapd: '.length)}`), query.stderr);
});

test('a daemon log it cannot write is one line from query, exit 2; a restart into a cache folder it cannot write keeps the running daemon', async (t) => {
  const root = gitRepo();
  const env = runtimeEnv();
  const cache = tempDir('repomap-cache-');
  writeFileSync(join(cache, 'daemon.log'), '');
  if (!makeUnwritable(join(cache, 'daemon.log'))) {
    t.skip('no way to make a file unwritable here');
    return;
  }
  const query = runCli(['query', root, '--cache-dir', cache], { env, timeout: 60_000 });
  assert.equal(query.code, 2, query.stderr);
  assert.match(query.stderr, /^repomap: could not start the daemon for \S+: daemon log \S+daemon\.log cannot be written: [^\n]+\n$/);

  const good = tempDir('repomap-cache-');
  assert.equal(runCli(['start', root, '--cache-dir', good], { env }).code, 0);
  const before = JSON.parse(runCli(['status', root, '--format', 'json'], { env }).stdout) as DaemonStatus;
  const locked = tempDir('repomap-cache-');
  assert.ok(makeUnwritable(locked));
  const restart = runCli(['restart', root, '--cache-dir', locked], { env });
  assert.equal(restart.code, 2, restart.stderr);
  assert.match(restart.stderr, /cannot be written/);
  const after = JSON.parse(runCli(['status', root, '--format', 'json'], { env }).stdout) as DaemonStatus;
  assert.equal(after.pid, before.pid, 'the running daemon was not stopped');
  assert.equal(runCli(['stop', root], { env }).code, 0);
});

test('symbols answers the same bytes in this process and from the daemon, in JSON and text', () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const cache = tempDir('repomap-cache-');
  for (const args of [['--format', 'json'], ['--format', 'json', '--prefix'], []]) {
    const here = runCli(['symbols', 'Cart', root, '--cache-dir', cache, ...args], { env });
    const daemon = runCli(['symbols', 'Cart', root, '--cache-dir', cache, '--daemon', ...args], { env });
    assert.equal(here.code, 0, here.stderr);
    assert.equal(daemon.code, 0, daemon.stderr);
    assert.equal(daemon.stdout, here.stdout, args.join(' '));
  }
  assert.equal(runCli(['stop', root], { env }).code, 0);
});

test('SIGTERM during the cold index stops it at its next batch; what was stored is kept', async () => {
  const root = gitRepo();
  for (let i = 0; i < 3000; i++) writeFileSync(join(root, 'api', `gen${i}.py`), `def generated_${i}():\n    return ${i}\n`);
  const env = runtimeEnv();
  const first = await startDaemon(root, env, '--workers', '1');
  let status = await call<DaemonStatus>(first.socket, 'status');
  while (status.progress.done === 0) status = await call<DaemonStatus>(first.socket, 'status');
  assert.equal(status.state, 'indexing');
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0);
  assert.match(first.stderr(), /shutting down/);
  assert.doesNotMatch(first.stderr(), /indexed \d+ files/, 'the index was stopped, not run to its end');
  const second = await startDaemon(root, env);
  status = await call<DaemonStatus>(second.socket, 'status');
  while (status.state !== 'ready') status = await call<DaemonStatus>(second.socket, 'status');
  assert.equal(status.indexed, 3009);
  assert.ok(status.parsed < 3009, `the first daemon's records were kept (${status.parsed} parsed again)`);
  await call(second.socket, 'shutdown');
  await second.exited;
});

test('two starts for one root give one daemon', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const [a, b] = await Promise.all([startDaemon(root, env), startDaemon(root, env)]);
  const codes = await Promise.race([
    Promise.all([a.exited, b.exited]),
    sleep(3000).then(() => 'both still running'),
  ]).catch(() => 'error');
  // Exactly one of them exits, with a clear message; the other serves.
  const loser = a.child.exitCode !== null ? a : b;
  const winner = loser === a ? b : a;
  assert.notEqual(codes, 'error');
  assert.equal(loser.child.exitCode, 2);
  assert.match(loser.stderr(), /already (serves|listens)/);
  assert.equal(winner.child.exitCode, null);
  await call(winner.socket, 'shutdown');
  await winner.exited;
});

test('50 concurrent clients get correct answers', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  const chats = ['src/checkout.ts', 'src/cart.ts', 'api/server.py', 'tools/report.go', 'lib/money.rs'];
  const expected = new Map<string, string>();
  for (const chat of chats) expected.set(chat, (await call<RepoMap>(daemon.socket, 'map', { chatFiles: [chat], tokens: 300 })).text);
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) => {
      const chat = chats[i % chats.length];
      return call<RepoMap>(daemon.socket, 'map', { chatFiles: [chat], tokens: 300 }).then((map) => [chat, map.text] as const);
    }),
  );
  for (const [chat, text] of answers) assert.equal(text, expected.get(chat));
  await call(daemon.socket, 'shutdown');
  await daemon.exited;
});

test('bad input gets a clear error and the daemon keeps answering', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  const answers = await rawExchange(
    daemon.socket,
    [
      '{not json',
      '[1,2]',
      '{"jsonrpc":"2.0","id":3,"method":"frobnicate"}',
      '{"jsonrpc":"2.0","id":4,"method":"map","params":{"tokens":"many"}}',
      '{"jsonrpc":"2.0","id":5,"method":"map","params":{"chatFiles":["../../etc/passwd"]}}',
      '{"jsonrpc":"2.0","id":6,"method":"map","params":{"chatFile":"typo"}}',
      '{"jsonrpc":"2.0","id":7,"method":"map","params":{"mentionedFiles":["/etc/passwd"]}}',
      '{"jsonrpc":"2.0","method":"status"}',
      '',
    ].join('\n'),
    8,
  );
  const byId = new Map(answers.map((answer) => [answer.id, answer]));
  assert.equal(answers[0].error?.code, -32700);
  assert.equal(answers.filter((answer) => answer.id === null && answer.error?.code === -32600).length, 2);
  assert.equal(byId.get(3)?.error?.code, -32601);
  assert.match(byId.get(4)?.error?.message ?? '', /tokens must be a positive whole number/);
  assert.match(byId.get(5)?.error?.message ?? '', /outside the repository root/);
  assert.doesNotMatch(JSON.stringify(byId.get(5)), /root:/, 'nothing outside the root is read');
  assert.match(byId.get(6)?.error?.message ?? '', /unknown param 'chatFile'/);
  assert.match(byId.get(7)?.error?.message ?? '', /outside the repository root/);

  const huge = `{"jsonrpc":"2.0","id":9,"method":"map","params":{"message":"${'x'.repeat(1_200_000)}"}}\n{"jsonrpc":"2.0","id":10,"method":"status"}\n`;
  const [tooLarge, next] = await rawExchange(daemon.socket, huge, 2);
  assert.equal(tooLarge.error?.code, -32600);
  assert.match(tooLarge.error?.message ?? '', /over 1048576 bytes/);
  assert.equal(next.id, 10);
  assert.equal((next.result as DaemonStatus).state, 'ready');

  // A client that sends a request and leaves before the answer.
  const rude = connect(daemon.socket);
  rude.write('{"jsonrpc":"2.0","id":1,"method":"map","params":{"tokens":8000}}\n', () => rude.destroy());
  await sleep(200);
  const status = await call<DaemonStatus>(daemon.socket, 'status');
  assert.equal(status.state, 'ready');
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('params named after Object.prototype members, lines one byte over the limit, and files the CLI refuses are refused', async () => {
  const root = gitRepo();
  mkdirSync(join(root, 'bad'));
  writeFileSync(join(root, 'bad', '..foo.py'), 'def dotted():\n    return 1\n');
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
  const requests = names.flatMap((name, i) => [
    `{"jsonrpc":"2.0","id":${100 + i},"method":"map","params":{"${name}":1}}`,
    `{"jsonrpc":"2.0","id":${200 + i},"method":"symbols","params":{"name":"Cart","${name}":1}}`,
  ]);
  const answers = await rawExchange(daemon.socket, requests.join('\n') + '\n', requests.length);
  for (const answer of answers) {
    assert.equal(answer.error?.code, -32602, JSON.stringify(answer));
    assert.match(answer.error?.message ?? '', /^unknown param '(__proto__|constructor|toString|hasOwnProperty|valueOf)'/);
  }

  const files = [
    ['README.md\u0000../../etc/passwd', /control character/],
    ['src', /chat file src is a folder, not a file/],
    ['src/nope.ts', /chat file src\/nope\.ts does not exist/],
    ['README.md\nx', /control character/],
  ] as const;
  const fileAnswers = await rawExchange(
    daemon.socket,
    files.map(([file], i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'map', params: { chatFiles: [file] } })).join('\n') + '\n',
    files.length,
  );
  for (const answer of fileAnswers) {
    const [file, pattern] = files[answer.id as number];
    assert.equal(answer.error?.code, -32602, `${JSON.stringify(file)}: ${JSON.stringify(answer)}`);
    assert.match(answer.error?.message ?? '', pattern);
    assert.doesNotMatch(answer.error?.message ?? '', /etc\/passwd$/);
  }
  const dotted = await call<RepoMap>(daemon.socket, 'map', { chatFiles: ['bad/..foo.py'], mentionedFiles: ['src/cart.ts'] });
  assert.deepEqual(dotted.request.chatFiles, ['bad/..foo.py']);
  await assert.rejects(call(daemon.socket, 'map', { mentionedFiles: ['src/gone.ts'] }), /mentioned file src\/gone\.ts does not exist/);

  // A request line of exactly the limit (the newline not counted) is served; one byte more is refused.
  const lineOf = (id: number, bytes: number) => {
    const head = `{"jsonrpc":"2.0","id":${id},"method":"status","pad":"`;
    return head + 'x'.repeat(bytes - head.length - 2) + '"}';
  };
  const [atLimit, overLimit, after] = await rawExchange(
    daemon.socket,
    `${lineOf(1, 1_048_576)}\n${lineOf(2, 1_048_577)}\n{"jsonrpc":"2.0","id":3,"method":"status"}\n`,
    3,
  );
  assert.equal(atLimit.id, 1, JSON.stringify(atLimit.error));
  assert.equal(overLimit.error?.code, -32600);
  assert.match(overLimit.error?.message ?? '', /request over 1048576 bytes/);
  assert.equal(after.id, 3);

  // A client that writes requests and reads no answer: the daemon stops reading it (its answers
  // would pile up in the daemon's memory), so the client's writes back up; read, it gets them all.
  const greedy = connect(daemon.socket);
  await new Promise((resolve) => greedy.once('connect', resolve));
  const count = 30_000;
  let payload = '';
  for (let id = 0; id < count; id++) payload += `{"jsonrpc":"2.0","id":${id},"method":"status"}\n`;
  greedy.write(payload);
  await sleep(1500);
  assert.ok(greedy.writableLength > 0, 'the daemon stopped reading a client that reads no answer');
  let received = 0;
  let tail = '';
  await new Promise<void>((resolve) => {
    greedy.setEncoding('utf8');
    greedy.on('data', (chunk: string) => {
      tail += chunk;
      const lines = tail.split('\n');
      tail = lines.pop()!;
      received += lines.length;
      if (received === count) resolve();
    });
  });
  greedy.destroy();
  assert.equal(received, count);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('the runtime folder is private (0700), the socket 0600; a group-writable folder is refused', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  assert.equal(statSync(join(env.XDG_RUNTIME_DIR, 'repomap')).mode & 0o777, 0o700);
  assert.equal(statSync(daemon.socket).mode & 0o777, 0o600);
  await call(daemon.socket, 'shutdown');
  await daemon.exited;

  const open = runtimeEnv();
  mkdirSync(join(open.XDG_RUNTIME_DIR, 'repomap'), { mode: 0o777 });
  chmodSync(join(open.XDG_RUNTIME_DIR, 'repomap'), 0o777);
  const refused = await startDaemon(root, open);
  assert.equal(await refused.exited, 2);
  assert.match(refused.stderr(), /runtime folder .* is open to group or others \(mode 777, not 700\)/);
});

function runCliAsync(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(packageRoot, 'bin', 'repomap.js'), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

test('clients refuse a runtime folder or a socket another user could have made, in one line', async () => {
  const root = gitRepo();
  // XDG_RUNTIME_DIR unset: the folder is $TMPDIR/repomap-<uid>, a name anyone can take first.
  const tmp = tempDir('repomap-tmp-');
  const env = { TMPDIR: tmp, XDG_RUNTIME_DIR: '' };
  const folder = join(tmp, `repomap-${process.getuid!()}`);
  mkdirSync(folder);
  chmodSync(folder, 0o777);
  // A stand-in listening where the root's daemon is looked for.
  const socket = daemonPaths(root, folder).socket;
  const requests: string[] = [];
  const fake = createServer((s) => s.setEncoding('utf8').on('data', (chunk: string) => { requests.push(chunk); s.destroy(); }));
  await new Promise<void>((resolve) => fake.listen(socket, resolve));
  try {
    // Run asynchronously: the stand-in answers from this process.
    const refusedOpen = async (command: string) => {
      const result = await runCliAsync([command, root], env);
      assert.equal(result.code, 2, `${command}: ${result.stderr}`);
      assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
      return result.stderr;
    };
    for (const command of ['query', 'status', 'start', 'stop']) {
      assert.match(await refusedOpen(command), new RegExp(`^repomap: runtime folder ${folder} is open to group or others \\(mode 777, not 700\\); refusing to use it$`, 'm'));
    }
    chmodSync(folder, 0o700);
    chownSync(socket, 65534, 65534);
    assert.match(await refusedOpen('query'), /^repomap: socket .* belongs to another user \(uid 65534\); refusing to use it$/m);
    chownSync(folder, 65534, 65534);
    assert.match(await refusedOpen('status'), /^repomap: runtime folder .* belongs to another user \(uid 65534\)/m);
    rmSync(folder, { recursive: true });
    const elsewhere = tempDir('repomap-elsewhere-');
    chmodSync(elsewhere, 0o700);
    symlinkSync(elsewhere, folder);
    assert.match(await refusedOpen('query'), /^repomap: runtime folder .* is a symlink; refusing to use it$/m);
    assert.deepEqual(requests, [], 'nothing was sent to the stand-in');
  } finally {
    fake.close();
  }
});

test('the daemon exits after its idle timeout, and when its socket is removed', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const idle = await startDaemon(root, env, '--idle-timeout', '1');
  assert.equal(await idle.exited, 0);
  assert.match(idle.stderr(), /shutting down: idle/);

  const orphan = await startDaemon(root, env);
  rmSync(orphan.socket);
  assert.equal(await orphan.exited, 0);
  assert.match(orphan.stderr(), /socket was removed/);
});

async function untilReady(socket: string): Promise<void> {
  while ((await call<DaemonStatus>(socket, 'status')).state !== 'ready') await sleep(25);
}

test('a daemon whose root is deleted, moved away or replaced exits as on stop, saying why; the moved folder\'s daemon reuses what it stored', async () => {
  const env = runtimeEnv();
  const lockOf = (root: string) => daemonPaths(root, join(env.XDG_RUNTIME_DIR, 'repomap')).lock;
  // Before the watcher runs (no map asked), the timer finds the root gone, or another folder at its path.
  for (const [change, reason] of [
    [(root: string) => rmSync(root, { recursive: true }), /shutting down: its root \S+ is gone \(deleted, or moved or renamed\)/],
    [(root: string) => (rmSync(root, { recursive: true }), mkdirSync(root)), /shutting down: its root \S+ is another folder now/],
  ] as const) {
    const root = gitRepo();
    const daemon = await startDaemon(root, { ...env, REPOMAP_TEST_BACKGROUND_MS: '600000' });
    await untilReady(daemon.socket);
    change(root);
    assert.equal(await exitWithin(daemon), 0, daemon.stderr());
    assert.match(daemon.stderr(), reason);
    assert.ok(!existsSync(daemon.socket) && !existsSync(lockOf(root)), 'socket and lock removed');
  }

  // The watcher names the root's own removal: with the timer an hour away, the daemon exits all the same.
  const root = gitRepo();
  const daemon = await startDaemon(root, { ...env, REPOMAP_TEST_HOLD_CHECK_MS: '3600000' });
  await call(daemon.socket, 'map', {});
  await watchingSettled(daemon.socket);
  const logged = daemon.stderr().length;
  const moved = `${root}-moved`;
  renameSync(root, moved);
  assert.equal(await exitWithin(daemon), 0, daemon.stderr());
  const afterMove = daemon.stderr().slice(logged);
  assert.match(afterMove, /shutting down: its root \S+ is gone/);
  assert.doesNotMatch(afterMove, /updated \d+ paths|update failed/, 'the events of the move are not applied');
  assert.ok(!existsSync(daemon.socket) && !existsSync(lockOf(root)), 'socket and lock removed');
  // The moved folder's daemon on the same cache finds every record there: the old one dropped none.
  cacheDirs.set(moved, cacheFor(root));
  const next = await startDaemon(moved, env);
  const map = await call<RepoMap>(next.socket, 'map', { tokens: 4096 });
  assert.equal(map.stats.parsed, 0);
  assert.match(map.text, /class Cart/);
  await call(next.socket, 'shutdown');
  assert.equal(await next.exited, 0);
  rmSync(moved, { recursive: true });
});

test('stop and status take a root deleted under its running daemon, by the path it had; a missing root without one is a one-line mistake', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  // A daemon that has not noticed yet: its check an hour away, no watcher (no map asked).
  const daemon = await startDaemon(root, { ...env, REPOMAP_TEST_HOLD_CHECK_MS: '3600000', REPOMAP_TEST_BACKGROUND_MS: '600000' });
  await untilReady(daemon.socket);
  rmSync(root, { recursive: true });
  // Relative to the current folder, and through a symlink to a folder above: the daemon's root is a real path.
  const status = runCli(['status', basename(root), '--format', 'json'], { cwd: dirname(root), env });
  assert.equal(status.code, 0, status.stderr);
  assert.deepEqual(((info: DaemonStatus) => [info.root, info.pid])(JSON.parse(status.stdout) as DaemonStatus), [root, daemon.child.pid]);
  const link = join(tempDir(), 'link');
  symlinkSync(dirname(root), link);
  const stopped = runCli(['stop', join(link, basename(root))], { env });
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.equal(stopped.stdout, `repomap: stopped the daemon for ${root} (pid ${daemon.child.pid})\n`);
  assert.equal(await exitWithin(daemon), 0);
  assert.match(daemon.stderr(), /shutting down: asked to/);
  for (const command of ['status', 'stop']) {
    const result = runCli([command, root], { env });
    assert.deepEqual([result.code, result.stdout, result.stderr], [2, '', `repomap: repository root ${root} does not exist\n`]);
  }
});

test('a renamed import target is resolved again: the chat file\'s map follows what its import now names', async () => {
  const root = tempDir('repomap-imports-');
  mkdirSync(join(root, 'src', 'lib'), { recursive: true });
  mkdirSync(join(root, 'src', 'alt'), { recursive: true });
  writeFileSync(join(root, 'src', 'main.ts'), "import { computeSharedValue } from './lib/impl.js';\nexport const answer = computeSharedValue(41);\n");
  writeFileSync(join(root, 'src', 'lib', 'impl.ts'), 'export function computeSharedValue(fromLib: number): number {\n  return fromLib + 1;\n}\n');
  writeFileSync(join(root, 'src', 'alt', 'impl.ts'), 'export function computeSharedValue(fromAlt: string): string {\n  return fromAlt;\n}\n');
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  const request = { tokens: 1024, chatFiles: ['src/main.ts'] };
  const rankOf = (map: RepoMap, path: string) => map.files.find((file) => file.path === path)?.rank ?? 0;
  const first = await call<RepoMap>(daemon.socket, 'map', request);
  assert.match(first.text, /src\/lib\/impl\.ts:\n│export function computeSharedValue\(fromLib: number\)/);
  // The graph links the reference to the imported definer only, so the walk ranks it above the other.
  assert.ok(rankOf(first, 'src/lib/impl.ts') > rankOf(first, 'src/alt/impl.ts'), first.text);

  // The import now names the other definer: the chat file did not change, what it imports did.
  renameSync(join(root, 'src', 'lib', 'impl.ts'), join(root, 'src', 'lib', 'old.ts'));
  renameSync(join(root, 'src', 'alt', 'impl.ts'), join(root, 'src', 'lib', 'impl.ts'));
  const moved = await mapUntil(daemon.socket, (map) => map.text.includes('src/lib/old.ts') && !map.text.includes('src/alt/'), request);
  assert.match(moved.text, /src\/lib\/impl\.ts:\n│export function computeSharedValue\(fromAlt: string\): string \{/);
  assert.ok(rankOf(moved, 'src/lib/impl.ts') > rankOf(moved, 'src/lib/old.ts'), moved.text);
  // The hot graph and its resolution are what a fresh index of the same tree gives.
  const fresh = await buildMap({ root, cacheDir: tempDir(), ...request });
  assert.equal(moved.text, fresh.text);
  assert.deepEqual(moved.files.map((file) => [file.path, file.rank]), fresh.files.map((file) => [file.path, file.rank]));
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('a file written a moment before a request that names it is indexed for that request, not refused', async () => {
  const root = gitRepo();
  writeFileSync(join(root, '.gitignore'), 'ignored_here.ts\n');
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  await call<RepoMap>(daemon.socket, 'map', { tokens: 256 });
  // No wait for the watcher: the request comes right after the write.
  writeFileSync(join(root, 'src', 'fresh_helper.ts'), 'export function freshlyWrittenHelper(): number {\n  return 1;\n}\n');
  const map = await call<RepoMap>(daemon.socket, 'map', { tokens: 256, mentionedFiles: ['src/fresh_helper.ts'] });
  assert.match(map.text, /│export function freshlyWrittenHelper\(\): number \{/);
  // A file the rules leave out is still refused, with the reason.
  writeFileSync(join(root, 'ignored_here.ts'), 'export const x = 1;\n');
  await assert.rejects(call(daemon.socket, 'map', { tokens: 256, chatFiles: ['ignored_here.ts'] }), /is not indexed/);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('the daemon reads the project config, under its flags, and reloads it when it changes', async () => {
  const root = gitRepo();
  const config = join(root, 'repomap.config.json');
  writeFileSync(config, JSON.stringify({ exclude: ['api'], tokens: 256, idleTimeout: 600 }));
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env, '--idle-timeout', '900');
  const first = await call<RepoMap>(daemon.socket, 'map', {});
  assert.equal(first.budget, 256, 'a request without tokens takes the config\'s');
  assert.ok(!first.files.some((file) => file.path.startsWith('api/')));
  const status = await call<DaemonStatus>(daemon.socket, 'status');
  assert.deepEqual(status.exclude, ['api']);
  assert.equal(status.idleTimeoutSeconds, 900, 'a flag wins over the config');

  writeFileSync(config, JSON.stringify({ include: ['api', 'src'], tokens: 512 }));
  const reloaded = await mapUntil(daemon.socket, (map) => map.budget === 512 && map.files.some((file) => file.path.startsWith('api/')), {});
  assert.equal(reloaded.budget, 512);
  assert.ok(reloaded.files.some((file) => file.path === 'api/server.py'), reloaded.text);
  assert.ok(reloaded.files.every((file) => /^(api|src)\//.test(file.path)), reloaded.files.map((file) => file.path).join(' '));
  assert.deepEqual((await call<DaemonStatus>(daemon.socket, 'status')).include, ['api', 'src']);

  // A config that cannot be read is logged, and the one before kept.
  writeFileSync(config, JSON.stringify({ tokens: 'many' }));
  const deadline = Date.now() + 15_000;
  while (!daemon.stderr().includes('project config not applied') && Date.now() < deadline) await sleep(50);
  assert.match(daemon.stderr(), /project config not applied: .*repomap\.config\.json: 'tokens' must be a positive whole number/);
  assert.equal((await call<RepoMap>(daemon.socket, 'map', {})).budget, 512);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('a tag query written or changed in .repomap/queries/ while the daemon runs re-parses that language\'s files with it', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  const params = { tokens: 4096, chatFiles: ['api/inventory.py'] };
  const first = await call<RepoMap>(daemon.socket, 'map', params);
  assert.match(first.text, /│class ShopServer:/);
  await assertFunctionsOnlyQueryApplied(root, daemon, params);
});

/**
 * Writes a Python query of functions only, its folders made in the same step, and checks that the
 * daemon's maps take it (the class is no longer a definition); then shuts the daemon down.
 */
async function assertFunctionsOnlyQueryApplied(root: string, daemon: RunningDaemon, params: { tokens: number; chatFiles: string[] }): Promise<void> {
  mkdirSync(join(root, '.repomap', 'queries'), { recursive: true });
  writeFileSync(join(root, '.repomap', 'queries', 'python.scm'), '(function_definition name: (identifier) @name.definition.function)\n');
  const changed = await mapUntil(daemon.socket, (map) => !/│class ShopServer:/.test(map.text), params);
  assert.doesNotMatch(changed.text, /│class ShopServer:/);
  assert.match(changed.text, /│def create_server\(\):/);
  assert.match(daemon.stderr(), /tag queries reloaded/);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
}

/**
 * The query is written with its folders in one step (as `mkdir -p` and a write, or a checkout): the
 * file is there before its folder is watched, so the watcher names the folder alone. A .repomap/ git
 * ignores holds the project's queries all the same: the watcher follows it, and the catch-up finds
 * a query written before the watcher started, as they do where discovery lists the query. Written
 * during the cold index, the query is older than the languages of the pool that index ends with
 * (a new pool after the store lets go of its map), and newer than those it parsed with.
 */
const QUERY_WRITES = [
  { when: 'with its new .repomap/queries/ folder in one go while the daemon watches', ignored: false, folderAtStart: false, moment: 'watching' },
  { when: 'with its new .repomap/ folder in one go, which git ignores, while the daemon watches', ignored: true, folderAtStart: false, moment: 'watching' },
  { when: 'into a .repomap/ folder git ignores while the daemon watches', ignored: true, folderAtStart: true, moment: 'watching' },
  { when: "into a .repomap/ folder git ignores before the daemon's watcher starts", ignored: true, folderAtStart: true, moment: 'ready' },
  { when: 'into a .repomap/ folder git ignores during the cold index', ignored: true, folderAtStart: true, moment: 'indexing' },
] as const;
for (const { when, ignored, folderAtStart, moment } of QUERY_WRITES) {
  test(`a tag query written ${when} re-parses that language's files with it`, async () => {
    const files: Record<string, string> = { ...(ignored ? { '.gitignore': '.repomap/\n' } : {}), ...(folderAtStart ? { '.repomap/notes.txt': 'kept out of git\n' } : {}) };
    // Enough files for the cold index to last while the query is written.
    if (moment === 'indexing') for (let i = 0; i < 1000; i++) files[`gen/mod${i}.py`] = `def generated_${i}():\n    return ${i}\n`;
    const root = gitRepo(files);
    const env = { ...runtimeEnv(), ...(moment === 'ready' ? { REPOMAP_TEST_WATCH_DELAY_MS: '2000' } : {}) };
    const daemon = await startDaemon(root, env);
    const params = { tokens: 4096, chatFiles: ['api/inventory.py'] };
    if (moment !== 'indexing') assert.match((await call<RepoMap>(daemon.socket, 'map', params)).text, /│class ShopServer:/);
    let status = await call<DaemonStatus>(daemon.socket, 'status');
    if (moment === 'watching') {
      // Watching, and the catch-up done: the folder's event, not the catch-up, must bring the query.
      status = await watchingSettled(daemon.socket);
    } else assert.deepEqual([status.state, status.watching], [moment, false], 'the catch-up, not an event, must bring the query');
    await assertFunctionsOnlyQueryApplied(root, daemon, params);
  });
}

test("a tag query written while the daemon runs, whose tags the shared cache holds already, gives the map a fresh cache gives", async () => {
  // A chat file that one file uses (it imports and calls target) and many do not.
  const origin = tempDir('repomap-origin-');
  const files: Record<string, string> = {
    'app/chat.py': 'def target():\n    return 1\n',
    'zzz/user.py': 'from app.chat import target\n\n\ndef use_target():\n    return target()\n',
  };
  for (let i = 0; i < 12; i++) files[`aaa/mod${i}.py`] = `def helper_${i}():\n    return ${i}\n`;
  writeTree(origin, files);
  git(origin, 'init', '-q');
  git(origin, 'add', '.');
  git(origin, 'commit', '-qm', 'init');
  const shared = tempDir('repomap-shared-');
  const cloneOfOrigin = () => {
    const dir = join(realpathSync(tempDir('repomap-clone-')), 'app');
    git(origin, 'clone', '-q', origin, dir);
    return dir;
  };
  // Python's functions only: no file references another, so zzz/user.py is no longer related.
  const withQuery = (root: string) => {
    mkdirSync(join(root, '.repomap', 'queries'), { recursive: true });
    writeFileSync(join(root, '.repomap', 'queries', 'python.scm'), '(function_definition name: (identifier) @name.definition.function)\n');
    return root;
  };
  const params = { tokens: 64, chatFiles: ['app/chat.py'] };
  // Another clone puts the query's tags in the shared cache.
  const expected = await buildMap({ root: withQuery(cloneOfOrigin()), cacheDir: tempDir(), workers: 1, sharedCacheDir: shared, ...params });
  const root = cloneOfOrigin();
  const daemon = await startDaemon(root, { ...runtimeEnv(), REPOMAP_SHARED_CACHE: shared });
  const before = await call<RepoMap>(daemon.socket, 'map', params);
  assert.notEqual(before.text, expected.text);
  withQuery(root);
  // The query's files come back from the shared cache, not parsed: the graph takes their new names all the same.
  const changed = await mapUntil(daemon.socket, (map) => map.stats.reusedShared > before.stats.reusedShared, params);
  assert.ok(changed.stats.reusedShared > before.stats.reusedShared, 'read from the shared cache');
  assert.equal(changed.stats.parsed, before.stats.parsed, 'none parsed');
  assert.equal(changed.text, expected.text);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('a .repomapignore written or changed while the daemon runs re-runs discovery, as a .gitignore does', async () => {
  const root = gitRepo();
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  const first = await call<RepoMap>(daemon.socket, 'map', { tokens: 4096 });
  assert.ok(first.files.some((file) => file.path.startsWith('api/')));
  writeFileSync(join(root, 'api', '.repomapignore'), '*.py\n');
  const left = await mapUntil(daemon.socket, (map) => !map.files.some((file) => file.path.startsWith('api/')));
  assert.ok(!left.files.some((file) => file.path.startsWith('api/')), left.text);
  assert.ok(!left.skippedFiles.some((file) => file.path.startsWith('api/')), 'ignored, not listed as skipped');
  writeFileSync(join(root, 'api', '.repomapignore'), '*.py\n!server.py\n');
  const back = await mapUntil(daemon.socket, (map) => map.files.some((file) => file.path === 'api/server.py'));
  assert.ok(back.files.some((file) => file.path === 'api/server.py'), back.text);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('a file deleted while git\'s index still lists it (a checkout writes its index last) stays out when a .gitignore change re-runs discovery, as a source file does', async () => {
  const root = gitRepo();
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'notes.txt'), 'notes\n');
  git(root, 'add', 'docs');
  git(root, 'commit', '-qm', 'notes');
  const daemon = await startDaemon(root, runtimeEnv());
  const params = { tokens: 4096, listSkipped: true };
  const first = await call<RepoMap>(daemon.socket, 'map', params);
  assert.ok(first.skippedFiles.some((file) => file.path === 'docs/notes.txt'), 'a file without a grammar is listed as skipped');
  const status = await watchingSettled(daemon.socket);
  // Deleted from the tree but not from git's index: a checkout's state until it writes its index,
  // after the watcher has told of the files it deleted (and the daemon has taken them out).
  rmSync(join(root, 'docs', 'notes.txt'));
  rmSync(join(root, 'src', 'mailer.ts'));
  const isListed = (map: RepoMap) => map.skippedFiles.some((file) => file.path === 'docs/notes.txt') || map.text.includes('mailer.ts');
  assert.ok(!isListed(await mapUntil(daemon.socket, (map) => !isListed(map), params)), 'the deletions are applied');
  // The checkout's .gitignore re-runs discovery, which lists what git's index holds.
  const rediscoveries = () => daemon.stderr().match(/rediscovered/g)?.length ?? 0;
  const before = rediscoveries();
  writeFileSync(join(root, '.gitignore'), '*.log\n');
  const deadline = Date.now() + 15_000;
  while (rediscoveries() === before && Date.now() < deadline) await sleep(50);
  assert.equal(rediscoveries(), before + 1, 'the .gitignore re-ran discovery');
  const map = await call<RepoMap>(daemon.socket, 'map', params);
  assert.ok(!isListed(map), JSON.stringify(map.skippedFiles));
  for (const file of map.skippedFiles) assert.ok(existsSync(join(root, file.path)), `${file.path} is skipped, and not in the tree`);
  assert.equal((await call<DaemonStatus>(daemon.socket, 'status')).files, status.files - 1, 'two files gone, the .gitignore new');
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('a file git lists past a loop of symlinks is skipped as unreadable by the daemon as by map, in its status too, refused as a chat file, and mapped once its folder is back', async () => {
  const root = gitRepo({ 'locked/h.py': 'def hidden_helper():\n    return 1\n' });
  const loop = loopInPlaceOf(join(root, 'locked'));
  const daemon = await startDaemon(root, runtimeEnv());
  const params = { tokens: 4096, listSkipped: true };
  const served = await call<RepoMap>(daemon.socket, 'map', params);
  const mapped = await buildMap({ root, cacheDir: tempDir(), ...params });
  assert.equal(served.skipped.unreadable, 1);
  assert.deepEqual([served.skipped, served.skippedFiles], [mapped.skipped, mapped.skippedFiles]);
  assert.deepEqual((await watchingSettled(daemon.socket)).skipped, mapped.skipped);
  await assert.rejects(call(daemon.socket, 'map', { chatFiles: ['locked/h.py'] }), /^RepomapError: chat file locked\/h\.py cannot be read \(ELOOP: too many symbolic links encountered\)$/);
  loop.restore();
  const isBack = (map: RepoMap) => map.text.includes('hidden_helper') && map.skipped.unreadable === undefined;
  assert.ok(isBack(await mapUntil(daemon.socket, isBack, params)));
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('a folder made unsearchable, then searchable again, while the daemon runs (a chmod): its files are skipped as unreadable, then mapped, and their later edits show', async (t) => {
  if (!makeUnreadable(tempDir())) {
    t.skip('permission bits do not bind this process (root)');
    return;
  }
  const root = gitRepo({ 'locked/h.py': 'def hidden_helper():\n    return 1\n' });
  const folder = join(root, 'locked');
  const daemon = await startDaemon(root, runtimeEnv());
  const params = { tokens: 4096, listSkipped: true };
  assert.match((await call<RepoMap>(daemon.socket, 'map', params)).text, /hidden_helper/);
  await watchingSettled(daemon.socket);
  // The watcher names the folder's entry alone: the daemon finds the files under it out of reach, as a map would.
  assert.ok(makeUnreadable(folder));
  const isOut = (map: RepoMap) => map.skippedFiles.some((file) => file.path === 'locked/h.py' && file.reason === 'unreadable' && file.detail === 'EACCES');
  assert.ok(isOut(await mapUntil(daemon.socket, isOut, params)));
  chmodSync(folder, 0o755);
  const isBack = (map: RepoMap) => map.text.includes('hidden_helper') && !isOut(map);
  assert.ok(isBack(await mapUntil(daemon.socket, isBack, params)));
  // Watched again: the folder could not be watched while it could not be read.
  writeFileSync(join(folder, 'h.py'), 'def edited_helper():\n    return 2\n');
  assert.match((await mapUntil(daemon.socket, (map) => map.text.includes('edited_helper'), params)).text, /edited_helper/);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

/**
 * The shop fixture as a linked worktree of a repository (see gitRepo), with `files` written into it
 * too: its git dir, and its index with it, lie elsewhere, its info/exclude in the repository's.
 */
function gitWorktree(files: Record<string, string> = {}): string {
  const root = join(tempDir('repomap-worktree-'), 'wt');
  git(gitRepo(files), 'worktree', 'add', '-q', root);
  writeFiles(root, files);
  return root;
}

function writeFiles(root: string, files: Record<string, string>): void {
  writeTree(root, files);
}

/** Waits until a daemon's log says `pattern` `count` times (or 15 s pass); how many times it did. */
async function loggedTimes(daemon: RunningDaemon, pattern: RegExp, count: number): Promise<number> {
  const times = () => daemon.stderr().match(new RegExp(pattern.source, 'g'))?.length ?? 0;
  const deadline = Date.now() + 15_000;
  while (times() < count && Date.now() < deadline) await sleep(50);
  return times();
}

for (const kind of ['a clone', 'a linked worktree']) {
  test(`git's index is followed in ${kind}: a file force-added where a rule ignores it comes into the map and its edits follow; \`git rm --cached\` takes it out`, async () => {
    const ignored = { '.gitignore': 'generated/\n', 'generated/api.py': 'def generated_handler():\n    pass\n' };
    const root = kind === 'a clone' ? gitRepo(ignored) : gitWorktree(ignored);
    const daemon = await startDaemon(root, runtimeEnv());
    assert.doesNotMatch((await call<RepoMap>(daemon.socket, 'map', { tokens: 4096 })).text, /generated/);
    const status = await watchingSettled(daemon.socket);
    git(root, 'add', '-f', 'generated/api.py');
    assert.match((await mapUntil(daemon.socket, (map) => map.text.includes('generated_handler'))).text, /generated_handler/);
    // Its folder, ignored when the watcher started, is watched now.
    writeFileSync(join(root, 'generated', 'api.py'), 'def regenerated_handler():\n    pass\n');
    assert.match((await mapUntil(daemon.socket, (map) => map.text.includes('regenerated_handler'))).text, /regenerated_handler/);
    git(root, 'rm', '-q', '--cached', '-f', 'generated/api.py');
    const removed = await mapUntil(daemon.socket, (map) => !map.text.includes('generated'));
    assert.doesNotMatch(removed.text, /generated/);
    assert.equal(removed.text, (await buildMap({ root, cacheDir: tempDir(), tokens: 4096 })).text);
    await call(daemon.socket, 'shutdown');
    assert.equal(await daemon.exited, 0);
  });
}

test("a pattern added to git's info/exclude (the repository's, for a linked worktree) takes the untracked files it matches out of the map", async () => {
  const root = gitWorktree();
  mkdirSync(join(root, 'scratch'));
  writeFileSync(join(root, 'scratch', 'notes.py'), 'def scratch_function():\n    pass\n');
  const daemon = await startDaemon(root, runtimeEnv());
  assert.match((await call<RepoMap>(daemon.socket, 'map', { tokens: 4096 })).text, /scratch_function/);
  const status = await watchingSettled(daemon.socket);
  const exclude = git(root, 'rev-parse', '--path-format=absolute', '--git-path', 'info/exclude').trim();
  assert.ok(!exclude.startsWith(root), `${exclude} lies outside the worktree`);
  writeFileSync(exclude, `${readFileSync(exclude, 'utf8')}scratch/\n`);
  const map = await mapUntil(daemon.socket, (m) => !m.text.includes('scratch'));
  assert.doesNotMatch(map.text, /scratch/);
  assert.equal((await call<DaemonStatus>(daemon.socket, 'status')).files, status.files - 1);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test("git's index rewritten with the same files (`git status` refreshing it) is listed and no more: nothing parsed, no update, the same map", async () => {
  const root = gitRepo();
  // With its entries' stat taken away, the next `git status` refreshes every entry and writes the index.
  git(root, 'read-tree', 'HEAD');
  const daemon = await startDaemon(root, runtimeEnv());
  const request = { tokens: 4096, chatFiles: ['src/checkout.ts'] };
  await call<RepoMap>(daemon.socket, 'map', request);
  const status = await watchingSettled(daemon.socket);
  const before = await call<RepoMap>(daemon.socket, 'map', request);
  const pattern = /git's index changed, not the \d+ files listed/;
  const seen = await loggedTimes(daemon, pattern, 0); // the catch-up may have listed once: the read-tree came within its second
  const log = daemon.stderr().length;
  const index = join(root, '.git', 'index');
  const inode = statSync(index).ino;
  git(root, 'status');
  assert.notEqual(statSync(index).ino, inode, 'git status wrote the index');
  assert.equal(await loggedTimes(daemon, pattern, seen + 1), seen + 1, daemon.stderr());
  const after = await call<DaemonStatus>(daemon.socket, 'status');
  assert.equal(after.parsed, status.parsed, 'nothing parsed');
  assert.equal(after.lastUpdate, status.lastUpdate, 'no update');
  assert.doesNotMatch(daemon.stderr().slice(log), /updated|rediscovered/);
  assert.equal((await call<RepoMap>(daemon.socket, 'map', request)).text, before.text);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('a map asked for with a bound during the cold index is a partial map of what the chat file needs, marked so; the next is complete', async () => {
  const root = gitRepo();
  // Many files ahead of src/ in path order: without priorities, src/ would be parsed last.
  for (let i = 0; i < 3000; i++) writeFileSync(join(root, 'api', `gen${i}.py`), `def generated_${i}():\n    return ${i}\n`);
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  const request = { chatFiles: ['src/checkout.ts'], tokens: 1024 };
  // Long enough for the listing (a bound ending in it answers a map of nothing yet), not for the 3009 files.
  const early = await call<RepoMap>(daemon.socket, 'map', { ...request, waitSeconds: 0.5 });
  assert.ok(early.partial, 'answered before the index was complete');
  assert.equal(early.partial.files, 3009);
  assert.ok(early.partial.indexedFiles < early.partial.files, JSON.stringify(early.partial));
  const shown = early.files.map((file) => file.path);
  // What src/checkout.ts imports: parsed ahead of the 3000 files before them.
  for (const imported of ['src/cart.ts', 'src/pricing.ts', 'src/mailer.ts']) assert.ok(shown.includes(imported), `${imported} in ${shown.join(' ')}`);

  const complete = await call<RepoMap>(daemon.socket, 'map', request);
  assert.equal(complete.partial, undefined);
  assert.match(daemon.stderr(), /store's pages let go in \d+ ms/, 'the cold pass let go of the store\'s map before the complete map');
  const status = await call<DaemonStatus>(daemon.socket, 'status');
  assert.equal(status.parsed, 3009, 'each file parsed once, whatever the order');
  // The same bytes as a map of the same tree made in-process, without priorities.
  const inProcess = await buildMap({ root, ...request, cacheDir: tempDir(), workers: 1 });
  assert.equal(complete.text, inProcess.text);
  const again = await call<RepoMap>(daemon.socket, 'map', { ...request, waitSeconds: 0 });
  assert.equal(again.partial, undefined, 'a bound once the index is complete changes nothing');
  assert.equal(again.text, complete.text);
  for (const bad of [-1, 'abc', Number.NaN]) {
    await assert.rejects(call(daemon.socket, 'map', { waitSeconds: bad }), /waitSeconds must be a number of seconds, 0 or more/);
  }
  await call(daemon.socket, 'shutdown');
  await daemon.exited;
});

test('status counts as indexed only the source files the map counts: symlinks that lead nowhere or outside are skipped, not indexed', async () => {
  const root = gitRepo();
  const outside = join(tempDir(), 'secret.py');
  writeFileSync(outside, 'def secret():\n    pass\n');
  symlinkSync(outside, join(root, 'src', 'outside.py'));
  symlinkSync('gone.py', join(root, 'src', 'dangling.py'));
  symlinkSync('loop.py', join(root, 'src', 'loop.py'));
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'links');
  const map = await buildMap({ root, cacheDir: tempDir() });
  const { parsed, reusedByStat, reusedByHash, reusedShared } = map.stats;
  const mapIndexed = parsed + reusedByStat + reusedByHash + reusedShared;
  assert.deepEqual([map.skipped['symlink outside root'], map.skipped['broken symlink']], [1, 2]);
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  let status = await call<DaemonStatus>(daemon.socket, 'status');
  while (status.state === 'indexing') status = await call<DaemonStatus>(daemon.socket, 'status');
  assert.equal(status.indexed, mapIndexed, JSON.stringify(status));
  assert.equal(status.sourceFiles - status.indexed, 3, 'the three symlinks are source files by their names, not indexed');
  assert.deepEqual(status.skipped, map.skipped);
  assert.deepEqual(status.progress, { done: status.sourceFiles, total: status.sourceFiles }, 'the pass went through them all');
  await call(daemon.socket, 'shutdown');
  await daemon.exited;
});

test('a symlink to a file follows its target while the daemon runs: the target edited, deleted (a broken symlink), made again; a dangling link whose target appears; a link made meanwhile', async () => {
  const root = gitRepo();
  const item = join(root, 'src', 'item.ts');
  const original = readFileSync(item, 'utf8');
  symlinkSync('item.ts', join(root, 'src', 'alias.ts'));
  symlinkSync('later.ts', join(root, 'src', 'dang.ts'));
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'links');
  const daemon = await startDaemon(root, runtimeEnv());
  await watchingSettled(daemon.socket);
  /** The files defining `name` once they are `expected` (or 15 s pass), sorted. */
  const definersUntil = async (name: string, expected: string[]): Promise<string[]> => {
    const definers = async () => (await call<SymbolAnswer>(daemon.socket, 'symbols', { name })).definitions.map((d) => d.path).sort();
    const deadline = Date.now() + 15_000;
    let found = await definers();
    while (JSON.stringify(found) !== JSON.stringify(expected) && Date.now() < deadline) {
      await sleep(50);
      found = await definers();
    }
    return found;
  };
  const both = ['src/alias.ts', 'src/item.ts'];
  assert.deepEqual(await definersUntil('describeItem', both), both);

  const restock = 'export function reshelveItem(item: Item): Item {\n  return item;\n}\n';
  writeFileSync(item, original + restock);
  assert.deepEqual(await definersUntil('reshelveItem', both), both, 'the edit of the target shows under the link');

  rmSync(item);
  assert.deepEqual(await definersUntil('describeItem', []), [], 'the deleted target takes the definitions of the link');
  const broken = await call<RepoMap>(daemon.socket, 'map', { tokens: 4096, listSkipped: true });
  assert.deepEqual(
    broken.skippedFiles.filter((skip) => skip.reason === 'broken symlink').map((skip) => skip.path),
    ['src/alias.ts', 'src/dang.ts'],
  );
  assert.equal((await call<DaemonStatus>(daemon.socket, 'status')).skipped['broken symlink'], 2);

  writeFileSync(item, original + restock);
  assert.deepEqual(await definersUntil('reshelveItem', both), both, 'the target made again comes back under the link');
  writeFileSync(join(root, 'src', 'later.ts'), 'export function laterThing(): number {\n  return 1;\n}\n');
  const later = ['src/dang.ts', 'src/later.ts'];
  assert.deepEqual(await definersUntil('laterThing', later), later, 'a dangling link whose target appears is indexed');

  symlinkSync('cart.ts', join(root, 'src', 'basket.ts'));
  const carts = ['src/basket.ts', 'src/cart.ts'];
  assert.deepEqual(await definersUntil('Cart', carts), carts);
  writeFileSync(join(root, 'src', 'cart.ts'), 'export class Trolley {}\n');
  assert.deepEqual(await definersUntil('Trolley', carts), carts, 'a link made while the daemon runs follows its target too');

  await watchingSettled(daemon.socket);
  const params = { tokens: 4096, listSkipped: true };
  const hot = await call<RepoMap>(daemon.socket, 'map', params);
  const fresh = await buildMap({ root, cacheDir: tempDir(), ...params });
  assert.deepEqual([hot.text, hot.skippedFiles], [fresh.text, fresh.skippedFiles]);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
});

test('status during the cold index counts the whole tree from its listing on: files and source files stay put, the state line and the files line agree', async () => {
  const root = gitRepo();
  for (let i = 0; i < 3000; i++) writeFileSync(join(root, 'api', `gen${i}.py`), `def generated_${i}():\n    return ${i}\n`);
  for (let i = 0; i < 300; i++) writeFileSync(join(root, 'api', `notes${i}.txt`), `note ${i}\n`);
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'many');
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env, '--workers', '1');
  const seen: DaemonStatus[] = [];
  let status = await call<DaemonStatus>(daemon.socket, 'status');
  for (; status.state === 'indexing'; status = await call<DaemonStatus>(daemon.socket, 'status')) if (status.files > 0) seen.push(status);
  const during = seen.filter((s) => s.indexed < s.sourceFiles);
  assert.ok(during.length > 0, 'a status while source files were still being indexed');
  // 3311 files: the shop's 11 (2 without a grammar), 3000 Python ones and 300 notes.
  for (const s of seen) {
    assert.deepEqual([s.files, s.sourceFiles], [3311, 3009], JSON.stringify(s));
    assert.deepEqual(s.progress, { done: s.indexed, total: s.sourceFiles }); // no source file skipped by its stat here
    assert.ok(s.indexed <= s.sourceFiles && s.parsed <= s.indexed, JSON.stringify(s));
  }
  assert.deepEqual([status.files, status.sourceFiles, status.indexed], [3311, 3009, 3009]);
  assert.deepEqual(status.progress, { done: 3009, total: 3009 });
  await call(daemon.socket, 'shutdown');
  await daemon.exited;
});

test("status counts skipped files as the map's last line does: the important files the map names are not skipped", async () => {
  const root = gitRepo({ 'notes.txt': 'a note\n' });
  const env = runtimeEnv();
  const daemon = await startDaemon(root, env);
  const map = await call<RepoMap>(daemon.socket, 'map', { tokens: 4096 });
  // README.md and package.json have no grammar, and are named first in the map.
  assert.match(map.text, /^README\.md\npackage\.json\n/);
  assert.deepEqual(map.skipped, { 'no grammar': 1 });
  const status = await call<DaemonStatus>(daemon.socket, 'status');
  assert.deepEqual(status.skipped, map.skipped);
  assert.match(statusReport(status), /^skipped: +1 no grammar$/m);
  assert.match(map.text, /\(1 file not mapped: 1 no grammar/);
  await call(daemon.socket, 'shutdown');
  await daemon.exited;
});

test('a map asked for with a bound once every file of the cold index is indexed is the complete map, not marked partial', async () => {
  const env = runtimeEnv();
  const request = { chatFiles: ['src/checkout.ts'], tokens: 1024 };
  // A small tree: the files the request needs are found once the pass has indexed them all, while
  // the daemon still reads or builds its related graph (its state is still `indexing`).
  for (let run = 0; run < 3; run++) {
    const root = gitRepo();
    const daemon = await startDaemon(root, env);
    const early = await call<RepoMap>(daemon.socket, 'map', { ...request, waitSeconds: 0.5 });
    const complete = await call<RepoMap>(daemon.socket, 'map', request);
    assert.equal(complete.partial, undefined);
    // A partial map says what it lacks: files not indexed yet, or (no file counted) the listing not done.
    if (early.partial) assert.ok(early.partial.indexedFiles < early.partial.files || (early.partial.files === 0 && early.text === ''), `a partial map says what it lacks: ${JSON.stringify(early.partial)}`);
    else assert.equal(early.text, complete.text);
    await call(daemon.socket, 'shutdown');
    await daemon.exited;
  }
});

/**
 * Starts a daemon on a clone of the shop fixture that fills a shared cache of its own, with its
 * publishing letting go of the store's map every 2 copies; returns its first map and its log
 * once a new file it saw was published, after a second clone mapped from that cache.
 */
async function fillSharedCache(env: NodeJS.ProcessEnv): Promise<{ first: RepoMap; log: string }> {
  const origin = gitRepo();
  const root = join(realpathSync(tempDir('repomap-clone-')), 'shop');
  git(origin, 'clone', '-q', origin, root);
  const shared = tempDir('repomap-shared-');
  const daemon = await startDaemon(root, { ...runtimeEnv(), REPOMAP_SHARED_CACHE: shared, REPOMAP_TEST_PUBLISH_RELEASE_EVERY: '2', ...env });
  const first = await call<RepoMap>(daemon.socket, 'map', { tokens: 4096 });
  assert.equal(first.stats.published, first.stats.parsed, 'every file the cold index parsed');

  // A file new to the root is looked up in the shared cache, parsed, and published by the update.
  const fresh = 'export function publishedBySave(): number {\n  return 7;\n}\n';
  writeFileSync(join(root, 'src', 'fresh.ts'), fresh);
  const saved = await mapUntil(daemon.socket, (map) => /publishedBySave/.test(map.text));
  assert.match(saved.text, /publishedBySave/);
  assert.equal(saved.stats.published, first.stats.published + 1);
  assert.ok(SharedTags.open(shared)!.record(sharedKey(blobId(Buffer.from(fresh)), BUILTIN_LANGUAGES.forPath('x.ts')!)), "the new file's tags are in the shared cache");

  // A second clone reads every file the daemon parsed from the shared cache, and parses none.
  const clone = join(tempDir('repomap-clone-'), 'shop');
  git(origin, 'clone', '-q', origin, clone);
  const second = await buildMap({ root: clone, cacheDir: tempDir(), tokens: 4096, workers: 1, sharedCacheDir: shared });
  assert.deepEqual([second.stats.parsed, second.stats.reusedShared], [0, first.stats.parsed]);
  assert.equal(second.text, first.text);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
  return { first, log: daemon.stderr() };
}

test("a daemon publishes what its cold index parsed while its pool is closed to let go of the store's map, letting go of it every few copies read; a new file's update publishes it", async () => {
  const { first, log } = await fillSharedCache({});
  const published = first.stats.published;
  const releases = Math.ceil(published / 2);
  assert.match(log, new RegExp(`published ${published} files to the shared cache in \\d+ ms, the store's map let go ${releases} times`), log);
  assert.match(log, /store's pages let go in \d+ ms/);
});

test("a daemon whose store is too small to let go of its map keeps its pool, and publishes what it parsed all the same", async () => {
  const { first, log } = await fillSharedCache({ REPOMAP_TEST_RELEASE_FROM_BYTES: String(2 ** 40) });
  assert.match(log, new RegExp(`published ${first.stats.published} files to the shared cache in \\d+ ms\n`), log);
  assert.doesNotMatch(log, /store's pages let go|the store's map let go/);
});

test("a daemon publishes the related graph its cold index built to the shared cache, for a clone's map; a daemon on another clone reads the one a map published", async () => {
  const origin = gitRepo();
  const shared = tempDir('repomap-shared-');
  const cloneOfOrigin = () => {
    const dir = join(realpathSync(tempDir('repomap-clone-')), 'shop');
    git(origin, 'clone', '-q', origin, dir);
    return dir;
  };
  const env = { ...runtimeEnv(), REPOMAP_SHARED_CACHE: shared };
  const daemon = await startDaemon(cloneOfOrigin(), env);
  const first = await call<RepoMap>(daemon.socket, 'map', { tokens: 4096 });
  assert.equal(first.stats.restoredGraphs, 0);
  await call(daemon.socket, 'shutdown');
  assert.equal(await daemon.exited, 0);
  assert.match(daemon.stderr(), /related graph published to the shared cache/);

  const second = await buildMap({ root: cloneOfOrigin(), cacheDir: tempDir(), tokens: 4096, workers: 1, sharedCacheDir: shared });
  assert.deepEqual([second.stats.parsed, second.stats.restoredGraphs, second.stats.restoredSharedGraphs], [0, 1, 1], "the daemon's files and graph");
  assert.equal(second.text, first.text);

  // A map's graph (published over the daemon's: the same files), read by a daemon on a third clone.
  rmSync(join(shared, 'graphs'), { recursive: true });
  const third = await buildMap({ root: cloneOfOrigin(), cacheDir: tempDir(), tokens: 4096, workers: 1, sharedCacheDir: shared });
  assert.equal(third.stats.restoredGraphs, 0);
  const reader = await startDaemon(cloneOfOrigin(), env);
  const fourth = await call<RepoMap>(reader.socket, 'map', { tokens: 4096 });
  assert.deepEqual([fourth.stats.parsed, fourth.stats.restoredGraphs, fourth.stats.restoredSharedGraphs], [0, 1, 1]);
  assert.equal(fourth.text, first.text);
  await call(reader.socket, 'shutdown');
  assert.equal(await reader.exited, 0);
  assert.match(reader.stderr(), /related graph read from the shared cache/);
  assert.doesNotMatch(reader.stderr(), /related graph published/, 'a graph read is not published again');
});
