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

test('status says what a daemon does before it knows how many files to parse, never "0 of 0 files"', () => {
  const status = (progress: { done: number; total: number }): DaemonStatus => ({
    root: '/repo', pid: 1, state: 'indexing', progress, files: 0, indexed: 0, parsed: 0, skipped: {}, pendingChanges: 0, watching: false,
    unwatchedPaths: 0, lastUpdate: null, memory: { rssBytes: 0, heapUsedBytes: 0 }, uptimeSeconds: 0, workers: 2, exclude: [], include: [],
    idleTimeoutSeconds: 1800, socket: '/run/s', cacheDir: '/cache',
  });
  assert.match(statusReport(status({ done: 0, total: 0 })), /^state: +indexing: listing the files and checking them against the cache$/m);
  assert.match(statusReport(status({ done: 120, total: 480 })), /^state: +indexing: 120 of 480 files indexed \(25%\)$/m);
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
  assert.equal(flag.stderr, "repomap: map: Unknown option '--tokns' (did you mean --tokens?) (see 'repomap map --help')\n");
  assert.match(runCli(['query', '--max-token', '5']).stderr, /Unknown option '--max-token' \(did you mean --max-tokens\?\)/);
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
