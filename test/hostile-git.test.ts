// The hostile repository, through git and through globs: an ignore file git matches in exponential
// time or cannot read (a FIFO) bounds git's listing, which is then replaced by a walk of the tree;
// no git outlives the map or the daemon that started it; an exclude or ignore-file glob is matched
// in linear time. Each run is a child process under a kill timer (test/bounded.ts), so a
// regression ends the test instead of hanging it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type BoundedResult, runCliBounded } from './bounded.js';
import { git, runCli, tempDir, writeTree } from './helpers.js';
import { sleep } from './daemon-helpers.js';

/** Bounds of every run here: a hang ends the run, and the assertion says so. */
const BOUNDS = { killAfterMs: 40_000, maxRssMib: 600 };
/** git's bound in these tests (REPOMAP_TEST_GIT_BOUND_MS), instead of a minute. */
const GIT_BOUND_MS = 3_000;
/** A file name git's wildmatch, and a backtracking regular expression, take exponential time on with SLOW_PATTERN. */
const LONG_NAME = `${'a'.repeat(200)}1.py`;
const SLOW_PATTERN = `*${'a*'.repeat(8)}b`;

/** A private runtime folder (the daemon's socket), an empty user config home, and git's bound. */
function testEnv(gitBoundMs: number | undefined = GIT_BOUND_MS): NodeJS.ProcessEnv {
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  return {
    XDG_RUNTIME_DIR: runtime,
    XDG_CONFIG_HOME: tempDir('repomap-xdg-config-'),
    ...(gitBoundMs !== undefined ? { REPOMAP_TEST_GIT_BOUND_MS: String(gitBoundMs) } : {}),
  };
}

/** A repository (in git when `inGit`) with ok.py, and a long-named file in d/ that a slow pattern is matched against. */
function repoWithLongName(inGit = true): string {
  const root = tempDir('repomap-hostile-git-');
  if (inGit) git(root, 'init', '-q');
  writeTree(root, { 'ok.py': 'def ok():\n    pass\n', [`d/${LONG_NAME}`]: 'x = 1\n' });
  return root;
}

/** The pids of the git processes working in `root` (their cwd), as /proc says. */
function gitsIn(root: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'git' && readlinkSync(`/proc/${entry}/cwd`) === root) pids.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}

/** Kills what a failing run left behind, so that one failure does not burn the machine's cores. */
function killGitsIn(root: string): void {
  for (const pid of gitsIn(root)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** Asserts a map ran to its end and mapped ok.py, with git's bound said in one notice. */
function assertMapped(run: BoundedResult, what: string, notice: RegExp | undefined): void {
  assert.equal(run.killedFor, undefined, `${what}: killed for ${run.killedFor}\n${run.stderr.slice(0, 2000)}`);
  assert.equal(run.code, 0, `${what}: exit ${run.code} ${run.signal ?? ''}\n${run.stderr.slice(0, 2000)}`);
  assert.match(run.stdout, /ok\.py/, what);
  assert.match(run.stdout, /def ok/, what);
  if (notice) assert.equal(run.stderr.split('\n').filter((line) => notice.test(line)).length, 1, `${what}: one notice\n${run.stderr}`);
}

const GIT_LATE = /^repomap: git ls-files did not finish within 3 s \(a \.gitignore pattern it matches slowly, or an ignore file that is a FIFO\); the tree is walked instead$/;

test('F1: a .gitignore pattern git matches in exponential time, a FIFO .gitignore or info/exclude: map ends, walks the tree, leaves no git running', async (t) => {
  const cases: Array<[string, (root: string) => void]> = [
    ['a slow .gitignore pattern', (root) => writeFileSync(join(root, '.gitignore'), `${SLOW_PATTERN}\n`)],
    ['a FIFO .gitignore', (root) => execFileSync('mkfifo', [join(root, '.gitignore')])],
    ['a FIFO .git/info/exclude', (root) => (rmSync(join(root, '.git', 'info', 'exclude'), { force: true }), execFileSync('mkfifo', [join(root, '.git', 'info', 'exclude')]))],
  ];
  for (const [what, make] of cases) {
    const root = repoWithLongName();
    make(root);
    t.after(() => killGitsIn(root));
    const run = await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env: testEnv() });
    assertMapped(run, what, GIT_LATE);
    assert.deepEqual(gitsIn(root), [], `${what}: a git left running after the map`);
  }
});

test('F1: the daemon answers past a git that hangs, and stop leaves no git behind', async (t) => {
  const root = repoWithLongName();
  execFileSync('mkfifo', [join(root, '.gitignore')]);
  t.after(() => killGitsIn(root));
  const env = testEnv();
  t.after(() => runCli(['stop', root], { env }));
  const query = await runCliBounded(['query', root, '--cache-dir', tempDir()], { ...BOUNDS, env });
  assertMapped(query, 'query', undefined);
  assert.equal(runCli(['stop', root], { env }).code, 0);
  await sleep(500);
  assert.deepEqual(gitsIn(root), [], 'a git left running after stop');

  // With the production bound (a minute), a git blocked on the FIFO is under way when stop comes: it goes with the daemon.
  const blocked = repoWithLongName();
  execFileSync('mkfifo', [join(blocked, '.gitignore')]);
  t.after(() => killGitsIn(blocked));
  const slowEnv = testEnv(undefined);
  t.after(() => runCli(['stop', blocked], { env: slowEnv }));
  const cacheDir = tempDir();
  assert.equal(runCli(['start', blocked, '--cache-dir', cacheDir], { env: slowEnv }).code, 0);
  for (let waited = 0; gitsIn(blocked).length === 0 && waited < 20_000; waited += 100) await sleep(100);
  assert.notDeepEqual(gitsIn(blocked), [], 'the daemon runs git on the tree');
  // A bounded request is answered while the tree is still being listed (git's minute): a partial map of nothing yet.
  const early = await runCliBounded(['query', blocked, '--cache-dir', cacheDir, '--chat', 'ok.py', '--wait', '1'], { ...BOUNDS, killAfterMs: 20_000, env: slowEnv });
  assert.equal(early.killedFor, undefined, `query --wait 1 waited for the listing\n${early.stderr}`);
  assert.equal(early.code, 0, early.stderr);
  assert.match(early.stdout, /^\(partial map: the index is still being built, its files are still being listed;/);
  assert.match(early.stderr, /nothing indexed yet in /);
  const stopped = runCli(['stop', blocked], { env: slowEnv, timeout: 30_000 });
  assert.equal(stopped.code, 0, stopped.stderr);
  for (let waited = 0; gitsIn(blocked).length > 0 && waited < 10_000; waited += 100) await sleep(100);
  assert.deepEqual(gitsIn(blocked), [], 'a git left running after stop (re-parented to pid 1)');
});

/** An exclude glob picomatch's regular expression backtracks on exponentially (`*a*a*a*a*a*b`: minutes against LONG_NAME). */
const SLOW_GLOB = `*${'a*'.repeat(5)}b`;

test('F2: an exclude glob that backtracks exponentially in picomatch, in repomap.config.json: map and the daemon answer', async (t) => {
  const root = repoWithLongName();
  writeTree(root, { '.gitignore': '', 'repomap.config.json': JSON.stringify({ exclude: [SLOW_GLOB] }) });
  const env = testEnv();
  const map = await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env });
  assertMapped(map, 'map', undefined);
  assert.match(map.stdout, new RegExp(`${LONG_NAME}`), 'the glob leaves out no file it does not match');
  t.after(() => runCli(['stop', root], { env }));
  const query = await runCliBounded(['query', root, '--cache-dir', tempDir()], { ...BOUNDS, env });
  assertMapped(query, 'query', undefined);
  assert.equal(runCli(['stop', root], { env }).code, 0);
});

test('F2: the same pattern in .repomapignore (in git and outside), and in .gitignore outside git (a walked tree), and a glob only a backtracking engine runs is refused in one line', async () => {
  const cases: Array<[string, boolean, string]> = [
    ['.repomapignore in git', true, '.repomapignore'],
    ['.repomapignore outside git', false, '.repomapignore'],
    ['.gitignore outside git', false, '.gitignore'],
  ];
  for (const [what, inGit, file] of cases) {
    const root = repoWithLongName(inGit);
    writeTree(root, { [file]: `${SLOW_GLOB}\n${SLOW_PATTERN}\n` });
    const run = await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env: testEnv() });
    assertMapped(run, what, undefined);
  }
  const root = repoWithLongName();
  writeTree(root, { 'repomap.config.json': JSON.stringify({ exclude: ['*.!(js)'] }) });
  const refused = await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env: testEnv() });
  assert.equal(refused.killedFor, undefined);
  assert.equal(refused.code, 2, refused.stderr);
  assert.equal(refused.stderr.trimEnd().split('\n').length, 1, refused.stderr);
  assert.match(refused.stderr, /exclude glob \*\.!\(js\): an extglob negation such as !\(\.\.\.\) cannot be matched in linear time/);
});

test('F1: any other git command past its bound is one line naming it (eval), never a hang or a stack trace', async () => {
  const root = repoWithLongName();
  git(root, 'add', '.');
  git(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init');
  // A git that never answers, as one held by a hostile repository would not within a minute (a bound
  // of 1 ms raced with a git that finished first on a loaded machine).
  const bin = tempDir('repomap-stuck-git-');
  writeFileSync(join(bin, 'git'), '#!/bin/sh\nexec sleep 60\n');
  chmodSync(join(bin, 'git'), 0o755);
  const run = await runCliBounded(['eval', root, '--cache-dir', tempDir()], { ...BOUNDS, env: { ...testEnv(500), PATH: `${bin}:${process.env.PATH}` } });
  assert.equal(run.killedFor, undefined);
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stderr.trimEnd().split('\n').length, 1, run.stderr);
  assert.match(run.stderr, /^repomap: git rev-parse did not finish within 0\.5 s$/m);
});
