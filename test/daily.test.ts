// Daily use: progress while a query waits, the status wording, the daemon's log bound, help and
// did-you-mean.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { statusReport } from '../src/cli/daemon-commands.js';
import { createLog } from '../src/daemon/log.js';
import type { DaemonStatus } from '../src/api/types.js';
import { packageRoot } from '../src/paths.js';
import { runCli, tempDir } from './helpers.js';

test('repomap query on a terminal draws the daemon\'s indexing progress while it waits, as map does', (t) => {
  if (spawnSync('script', ['--version']).status !== 0) return t.skip('no script(1) to give the command a terminal');
  const root = tempDir('repomap-many-');
  mkdirSync(join(root, 'src'));
  for (let i = 0; i < 1500; i++) writeFileSync(join(root, 'src', `m${i}.ts`), `export function handler${i}(value: number): number {\n  return value + ${i};\n}\n`);
  const runtime = tempDir('repomap-run-');
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime };
  const command = [process.execPath, join(packageRoot, 'bin', 'repomap.js'), 'query', root, '--cache-dir', tempDir(), '--workers', '1', '--tokens', '64'];
  // script(1) runs the command on a pseudo-terminal, and writes what it printed (stdout and stderr) to its stdout.
  const run = spawnSync('script', ['-qefc', command.map((arg) => `'${arg}'`).join(' '), '/dev/null'], { env, encoding: 'utf8', timeout: 120_000 });
  try {
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /indexing \d+\/1500 files, \d+ files\/s(, \d+ s left)?/);
    assert.match(run.stdout, /src\/m\d+\.ts/);
  } finally {
    runCli(['stop', root], { env: { XDG_RUNTIME_DIR: runtime } });
  }
});

test('status says what a daemon does at each step of its cold index, in the counts of its files line, never "0 of 0 files"', () => {
  // `done` counts the source files skipped by their stat too (indexed does not): as many as indexed unless given.
  const status = (counts: Pick<DaemonStatus, 'files' | 'sourceFiles' | 'indexed'> & { done?: number }, state: DaemonStatus['state'] = 'indexing'): DaemonStatus => ({
    root: '/repo', pid: 1, state, progress: { done: counts.done ?? counts.indexed, total: counts.sourceFiles }, files: counts.files, sourceFiles: counts.sourceFiles, indexed: counts.indexed, parsed: counts.indexed, skipped: state === 'ready' ? { 'no grammar': 2 } : {}, grammarFallbacks: [],
    pendingChanges: 0, watching: false, unwatchedPaths: 0, lastUpdate: null, memory: { rssBytes: 0, heapUsedBytes: 0 }, uptimeSeconds: 0, workers: 2,
    exclude: [], include: [], idleTimeoutSeconds: 1800, socket: '/run/s', cacheDir: '/cache', startedWith: {},
  });
  const listing = statusReport(status({ files: 0, sourceFiles: 0, indexed: 0 }));
  assert.match(listing, /^state: +indexing: listing the files$/m);
  assert.match(listing, /^files: +being listed$/m);
  // The whole tree is counted once listed, whatever was indexed yet; the state line's numbers are the files line's.
  const parsing = statusReport(status({ files: 5872, sourceFiles: 3056, indexed: 480 }));
  assert.match(parsing, /^state: +indexing: 480 of 3056 source files indexed or skipped \(15%\)$/m);
  assert.match(parsing, /^files: +5872: 3056 source files \(480 indexed, 480 parsed since start\), 2816 other files$/m);
  assert.match(parsing, /^skipped: +counted once the index is complete$/m);
  const graph = statusReport(status({ files: 5872, sourceFiles: 3056, indexed: 3056 }));
  assert.match(graph, /^state: +indexing: all 3056 source files indexed or skipped; reading or building the related graph$/m);
  // Three source files skipped by their stat (broken symlinks): the pass is over all the same, and they are not indexed.
  const links = statusReport(status({ files: 5872, sourceFiles: 3056, indexed: 3053, done: 3056 }));
  assert.match(links, /^state: +indexing: all 3056 source files indexed or skipped; reading or building the related graph$/m);
  assert.match(links, /^files: +5872: 3056 source files \(3053 indexed, 3053 parsed since start\), 2816 other files$/m);
  assert.match(statusReport(status({ files: 4, sourceFiles: 0, indexed: 0 })), /^state: +indexing: no source file to index; reading or building the related graph$/m);
  const ready = statusReport(status({ files: 5872, sourceFiles: 3056, indexed: 3056 }, 'ready'));
  assert.match(ready, /^state: +ready$/m);
  assert.match(ready, /^skipped: +2 no grammar$/m);
});

test('the daemon log is bounded: past its size it becomes daemon.log.1, one old file kept', () => {
  const file = join(tempDir(), 'daemon.log');
  const log = createLog(file, 1000);
  for (let i = 0; i < 100; i++) log(`line ${i} ${'x'.repeat(40)}`);
  assert.ok(statSync(file).size <= 1000, `${statSync(file).size} bytes`);
  assert.ok(statSync(`${file}.1`).size <= 1000);
  assert.ok(!existsSync(`${file}.2`));
  const lines = (readFileSync(`${file}.1`, 'utf8') + readFileSync(file, 'utf8')).trimEnd().split('\n');
  assert.match(lines[lines.length - 1], / line 99 x+$/);
  // The numbers run on from the old file into the new one.
  const numbers = lines.map((line) => Number(/ line (\d+) /.exec(line)![1]));
  assert.deepEqual(numbers, numbers.map((_, i) => numbers[0] + i));
});

test('repomap help COMMAND is COMMAND --help; a misspelt flag or command is told the one meant', () => {
  for (const command of ['map', 'query', 'mcp', 'eval', 'symbols']) {
    const help = runCli(['help', command]);
    assert.equal(help.code, 0, help.stderr);
    assert.equal(help.stdout, runCli([command, '--help']).stdout);
    assert.match(help.stdout, new RegExp(`^Usage: repomap ${command} `));
  }
  const flag = runCli(['map', '--tokns', '100']);
  assert.equal(flag.code, 2);
  assert.equal(flag.stderr, "repomap: map: unknown option '--tokns' (did you mean --tokens?) (see 'repomap map --help')\n");
  assert.match(runCli(['query', '--max-token', '5']).stderr, /unknown option '--max-token' \(did you mean --max-tokens\?\)/);
  assert.match(runCli(['map', '--chatt', 'x']).stderr, /\(did you mean --chat\?\)/);
  assert.doesNotMatch(runCli(['map', '--bogus']).stderr, /did you mean/);
  // A value that reads as an option is named, with the way to give it.
  const dashed = runCli(['map', '--tokens', '-5']);
  assert.equal(dashed.code, 2);
  assert.equal(dashed.stderr, "repomap: map: --tokens needs a value, and '-5' reads as an option (a value that starts with '-' is written --tokens=VALUE) (see 'repomap map --help')\n");
  assert.match(runCli(['map', '--chat', '--workers', '2']).stderr, /--chat needs a value, and '--workers' reads as an option/);
  assert.match(runCli(['map', '--tokens=-5']).stderr, /--tokens takes a positive whole number, not '-5'/);
  const command = runCli(['qurey']);
  assert.equal(command.code, 2);
  assert.match(command.stderr, /^repomap: unknown command 'qurey' \(did you mean 'query'\?\)/);
});
