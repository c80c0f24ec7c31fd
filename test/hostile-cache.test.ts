// The hostile-repository suite, its caches' part (issue 48, items 8 to 10): a damaged shared tag
// cache, one that is not private, and a root's store cut under a running daemon. Each command runs
// as a child process under a kill timer (test/bounded.ts): the code these tests hold to died by a
// signal (SIGBUS, SIGSEGV) where they now pass.
import assert from 'node:assert/strict';
import { chmodSync, chownSync, readFileSync, readdirSync, realpathSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { open } from 'lmdb';
import { blobId } from '../src/indexer/git-index.js';
import { sharedKey } from '../src/indexer/indexer.js';
import { BUILTIN_LANGUAGES } from '../src/extract/languages.js';
import { isProcessAlive } from '../src/lock-file.js';
import { DaemonClient } from '../src/client/client.js';
import { daemonPaths } from '../src/daemon/runtime.js';
import type { DaemonStatus } from '../src/api/types.js';
import { type BoundedResult, runCliBounded } from './bounded.js';
import { git, tempDir, writeTree } from './helpers.js';

const HELLO = 'def hello(x):\n    return x\n';
const KILL_AFTER_MS = 60_000;

/**
 * The roots whose daemons a test started (through `repomap query`), with the environment they run
 * in. Each test stops its own before it ends (see stopDaemon), while its cache folder is there: a
 * daemon stopping writes in it, and the helpers remove the temporary folders in their own after
 * hook. Those a failed test left running are stopped after the file.
 */
const daemons = new Map<string, NodeJS.ProcessEnv>();
after(async () => {
  for (const root of daemons.keys()) await stopDaemon(root);
});

async function stopDaemon(root: string): Promise<void> {
  const env = daemons.get(root);
  daemons.delete(root);
  if (env) await runCliBounded(['stop', root], { env, killAfterMs: 20_000 });
}

/** What every command of a test runs with: its own cache and runtime folders, and `shared` as the shared tag cache. */
function envWith(shared: string): NodeJS.ProcessEnv {
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  return { XDG_CACHE_HOME: tempDir('repomap-xdg-'), XDG_RUNTIME_DIR: runtime, REPOMAP_SHARED_CACHE: shared };
}

/** A repository of one Python file, committed (the shared cache keeps files git takes as unmodified). */
function committedRepo(files: Record<string, string> = { 'm.py': HELLO }): string {
  const root = realpathSync(tempDir('repomap-repo-'));
  writeTree(root, files);
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'init');
  return root;
}

/** A clone of `origin`: its files are found in the shared cache by content. */
function cloneOf(origin: string): string {
  const dir = join(realpathSync(tempDir('repomap-clone-')), 'clone');
  git(origin, 'clone', '-q', origin, dir);
  return dir;
}

/** Runs `repomap ARGS` under the kill timer, and says how it ended when it did not exit 0. */
async function repomap(args: string[], env: NodeJS.ProcessEnv): Promise<BoundedResult> {
  return runCliBounded(args, { env, killAfterMs: KILL_AFTER_MS });
}

function assertExitedCleanly(result: BoundedResult, what: string): void {
  assert.equal(result.killedFor, undefined, `${what}: killed for ${result.killedFor}`);
  assert.equal(result.signal, null, `${what} died of ${result.signal}: ${result.stderr}`);
  assert.equal(result.code, 0, `${what} exited ${result.code}: ${result.stderr}`);
}

/** A shared cache filled by mapping a small committed repository. */
async function filledSharedCache(): Promise<string> {
  const shared = join(tempDir('repomap-shared-'), 'shared');
  const filled = await repomap(['map', committedRepo(), '--tokens', '512'], envWith(shared));
  assertExitedCleanly(filled, 'the map that fills the shared cache');
  assert.ok(statSync(join(shared, 'shared.lmdb', 'data.mdb')).size > 8192, 'the shared cache holds pages');
  return shared;
}

/** The ways item 8 damages a shared cache's data file. */
const DAMAGE: Record<string, (file: string) => void> = {
  truncated: (file) => truncateSync(file, 4096 * 3),
  'zeroed first pages': (file) => overwriteStart(file, Buffer.alloc(4096 * 2)),
  'random first pages': (file) => overwriteStart(file, Buffer.from(Array.from({ length: 4096 * 2 }, (_, i) => (i * 7919 + 13) % 251))),
};

function overwriteStart(file: string, bytes: Buffer): void {
  const content = readFileSync(file);
  bytes.copy(content, 0);
  writeFileSync(file, content);
}

/** A filled shared cache damaged in each of item 8's ways in turn, and the environment that uses it. */
async function* damagedSharedCaches(): AsyncGenerator<{ damage: string; shared: string; env: NodeJS.ProcessEnv }> {
  for (const [damage, apply] of Object.entries(DAMAGE)) {
    const shared = await filledSharedCache();
    apply(join(shared, 'shared.lmdb', 'data.mdb'));
    yield { damage, shared, env: envWith(shared) };
  }
}

/** The notices of a command's stderr about the shared cache. */
const sharedNotices = (stderr: string) => stderr.split('\n').filter((line) => line.includes('shared tag cache'));

test('item 8: a damaged shared tag cache (truncated, zeroed or random first pages) is moved aside with one notice, and every map works', async () => {
  for await (const { damage, shared, env } of damagedSharedCaches()) {
    // Another repository, which never used the shared cache.
    const other = committedRepo({ 'n.py': 'def other_function(y):\n    return y\n' });
    const result = await repomap(['map', other, '--tokens', '512'], env);
    assertExitedCleanly(result, `map with a shared cache ${damage}`);
    assert.match(result.stdout, /other_function/, damage);
    const notices = sharedNotices(result.stderr);
    assert.equal(notices.length, 1, `${damage}: one notice, not ${JSON.stringify(result.stderr)}`);
    assert.match(notices[0]!, /is damaged .*moved aside to .*shared\.lmdb\.damaged/, damage);
    assert.ok(readdirSync(shared).includes('shared.lmdb.damaged'), `${damage}: the damaged store is kept aside`);
    // The fresh cache it made works: a clone of that repository reads it.
    const again = await repomap(['map', cloneOf(other), '--tokens', '512', '--verbose'], env);
    assertExitedCleanly(again, `a second map after the shared cache ${damage} was moved aside`);
    assert.deepEqual(sharedNotices(again.stderr), [], `${damage}: the fresh cache is not damaged`);
    assert.match(again.stderr, / 1 from the shared cache/, damage);
    assert.match(again.stdout, /other_function/);
  }
});

test('item 8: the daemon of a fresh root starts and answers with a damaged shared tag cache, and its log says what was moved aside', async () => {
  for await (const { damage, env } of damagedSharedCaches()) {
    const root = committedRepo({ 'q.py': 'def queried_function(z):\n    return z\n' });
    daemons.set(root, env);
    const cacheDir = tempDir('repomap-cache-');
    const result = await repomap(['query', root, '--tokens', '512', '--cache-dir', cacheDir], env);
    assertExitedCleanly(result, `query with a shared cache ${damage}`);
    assert.match(result.stdout, /queried_function/, damage);
    const log = readFileSync(join(cacheDir, 'daemon.log'), 'utf8');
    assert.equal(sharedNotices(log).length, 1, `${damage}: one line in the daemon's log: ${log}`);
    assert.match(sharedNotices(log)[0]!, /moved aside/);
    await stopDaemon(root);
  }
});

/** Forges the shared cache's entry of HELLO: its outline shows `def pwned(x):` (the same length as `hello`, so the outline's offsets hold). */
async function forgeHello(shared: string): Promise<void> {
  const key = sharedKey(blobId(Buffer.from(HELLO)), BUILTIN_LANGUAGES.forPath('m.py')!);
  const root = open({ path: join(shared, 'shared.lmdb'), noSubdir: false, compression: true });
  const outlines = root.openDB<Buffer, string>({ name: 'outlines', encoding: 'binary' });
  const outline = outlines.getBinary(key);
  assert.ok(outline, 'the entry of m.py is in the shared cache');
  const forged = Buffer.from(outline.toString('latin1').replaceAll('hello', 'pwned'), 'latin1');
  assert.notDeepEqual(forged, outline);
  await outlines.put(key, forged);
  await root.close();
}

test('item 9: the shared tag cache is private (0700, its files 0600), and one open to others or another user\'s is refused with one line, its entries never read', async (t) => {
  const shared = join(tempDir('repomap-shared-'), 'new', 'shared');
  const origin = committedRepo();
  const made = await repomap(['map', origin, '--tokens', '512'], envWith(shared));
  assertExitedCleanly(made, 'the map that makes the shared cache');
  const mode = (path: string) => statSync(path).mode & 0o777;
  assert.equal(mode(shared), 0o700, 'the folder');
  assert.equal(mode(join(shared, 'shared.lmdb')), 0o700, 'its store folder');
  for (const file of ['data.mdb', 'lock.mdb']) assert.equal(mode(join(shared, 'shared.lmdb', file)), 0o600, file);

  // The entry works as forged while the folder is private and the user's: a clone shows it.
  await forgeHello(shared);
  const trusted = await repomap(['map', cloneOf(origin), '--tokens', '512'], envWith(shared));
  assertExitedCleanly(trusted, 'a map with the forged entry in a private cache');
  assert.match(trusted.stdout, /def pwned\(x\):/, 'the forged entry is what a private cache gives');

  const hostile: Array<[string, () => void, RegExp]> = [
    ['open to everyone (0777)', () => chmodSync(shared, 0o777), /shared tag cache folder .* is open to group or others \(mode 777, not 700\); refusing to use it/],
  ];
  // Only root can give a folder to another user.
  if (process.getuid!() === 0) {
    hostile.push(['another user\'s (uid 65534)', () => chownSync(shared, 65534, 65534), /shared tag cache folder .* belongs to another user \(uid 65534\); refusing to use it/]);
  } else t.diagnostic('not run as root: the case of a folder of another user is left out');
  for (const [what, make, message] of hostile) {
    chmodSync(shared, 0o700);
    chownSync(shared, process.getuid!(), process.getgid!());
    make();
    const before = statSync(join(shared, 'shared.lmdb', 'data.mdb'));
    const graphs = readdirSync(join(shared, 'graphs'));
    const result = await repomap(['map', cloneOf(origin), '--tokens', '512'], envWith(shared));
    assertExitedCleanly(result, `a map with a shared cache ${what}`);
    assert.match(result.stdout, /def hello\(x\):/, `${what}: the clone's own file`);
    assert.doesNotMatch(result.stdout, /pwned/, `${what}: the forged entry never reaches a map`);
    const notices = sharedNotices(result.stderr);
    assert.equal(notices.length, 1, `${what}: one line, not ${JSON.stringify(result.stderr)}`);
    assert.match(notices[0]!, message, what);
    const afterwards = statSync(join(shared, 'shared.lmdb', 'data.mdb'));
    assert.deepEqual([afterwards.size, afterwards.mtimeMs], [before.size, before.mtimeMs], `${what}: nothing written to it`);
    assert.deepEqual(readdirSync(join(shared, 'graphs')), graphs, `${what}: no graph published to it`);
  }

  // A cache an earlier version made readable to others (0755, files 0644) and the user's is tightened, without a word.
  chownSync(shared, process.getuid!(), process.getgid!());
  chmodSync(shared, 0o755);
  chmodSync(join(shared, 'shared.lmdb'), 0o755);
  for (const file of ['data.mdb', 'lock.mdb']) chmodSync(join(shared, 'shared.lmdb', file), 0o644);
  const tightened = await repomap(['map', committedRepo({ 't.py': 'def tightened(x):\n    return x\n' }), '--tokens', '512'], envWith(shared));
  assertExitedCleanly(tightened, 'a map with a shared cache readable to others');
  assert.deepEqual(sharedNotices(tightened.stderr), []);
  assert.equal(mode(shared), 0o700);
  assert.equal(mode(join(shared, 'shared.lmdb')), 0o700);
  for (const file of ['data.mdb', 'lock.mdb']) assert.equal(mode(join(shared, 'shared.lmdb', file)), 0o600, file);
});

test('item 10: a root\'s store truncated under a running daemon is found at the next change, moved aside and rebuilt, with a log line', async () => {
  const env = envWith('');
  const root = committedRepo({ 'a.py': 'def first_function(x):\n    return x\n', 'b.py': 'def second_function(y):\n    return y\n' });
  daemons.set(root, env);
  const cacheDir = tempDir('repomap-cache-');
  const first = await repomap(['query', root, '--tokens', '512', '--cache-dir', cacheDir], env);
  assertExitedCleanly(first, 'the first query');
  assert.match(first.stdout, /first_function/);
  const pid = Number(readFileSync(join(cacheDir, 'daemon.log'), 'utf8').match(/\(pid (\d+)\)/)![1]);
  // The daemon at rest, as the issue found it: its warm-up after the first map (which reads the store) done.
  await settled(root, env);

  truncateSync(join(cacheDir, 'tags.lmdb', 'data.mdb'), 4096 * 2);
  writeFileSync(join(root, 'b.py'), 'def renamed_function(y):\n    return y\n');
  const deadline = Date.now() + 20_000;
  let answer: BoundedResult;
  do {
    answer = await repomap(['query', root, '--tokens', '512', '--cache-dir', cacheDir], env);
  } while (!answer.stdout.includes('renamed_function') && Date.now() < deadline);
  assertExitedCleanly(answer, 'the query after the truncation');
  assert.match(answer.stdout, /renamed_function/);
  assert.match(answer.stdout, /first_function/);
  const log = readFileSync(join(cacheDir, 'daemon.log'), 'utf8');
  assert.match(log, /tag cache at .*tags\.lmdb .*truncated.*moved aside/, log);
  assert.ok(isProcessAlive(pid), 'the daemon that found it goes on serving');
  await stopDaemon(root);
});

/** Waits until a root's daemon follows the tree with no change pending, and has rehearsed a change (the end of its warm-up). */
async function settled(root: string, env: NodeJS.ProcessEnv): Promise<void> {
  const socket = daemonPaths(root, join(env.XDG_RUNTIME_DIR!, 'repomap')).socket;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const status = await DaemonClient.once<DaemonStatus>(socket, 'status');
    if (status.watching && status.pendingChanges === 0 && readFileSync(join(status.cacheDir, 'daemon.log'), 'utf8').includes('rehearsed')) return;
    assert.ok(Date.now() < deadline, 'the daemon settles');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('item 10: a daemon killed by a signal leaves a line in its log', async () => {
  const env = envWith('');
  const root = committedRepo();
  daemons.set(root, env);
  const cacheDir = tempDir('repomap-cache-');
  assertExitedCleanly(await repomap(['query', root, '--tokens', '512', '--cache-dir', cacheDir], env), 'the query that starts the daemon');
  const pid = Number(readFileSync(join(cacheDir, 'daemon.log'), 'utf8').match(/\(pid (\d+)\)/)![1]);
  process.kill(pid, 'SIGBUS');
  daemons.delete(root);
  // The shell the daemon runs under writes the line once the daemon is gone.
  const line = /^\S+Z the daemon was killed by SIGBUS \(exit status 135\): it could not log why$/m;
  const deadline = Date.now() + 10_000;
  let log = '';
  while (!line.test(log) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    log = readFileSync(join(cacheDir, 'daemon.log'), 'utf8');
  }
  assert.match(log, line, log);
  assert.ok(!isProcessAlive(pid), 'the daemon is gone');
});
