// The install as a user gets it: the dependency tree package.json declares, and the packed
// package installed and run from elsewhere.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../src/paths.js';
import { copyFixture, tempDir } from './helpers.js';

function npm(args: string[], options: { cwd?: string; timeout?: number } = {}): { code: number; stdout: string; stderr: string } {
  const result = spawnSync('npm', args, { cwd: options.cwd ?? packageRoot, encoding: 'utf8', timeout: options.timeout ?? 60_000 });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

test('the installed tree is the one package.json declares: no invalid peer, no unreviewed install script, no tool at runtime', () => {
  // The resolution lives in package.json (overrides), not in a local .npmrc a user installing the package does not have.
  const npmrc = join(packageRoot, '.npmrc');
  assert.ok(!existsSync(npmrc) || !/legacy-peer-deps/.test(readFileSync(npmrc, 'utf8')), '.npmrc does not hide peer conflicts');

  // Every peer range met (the grammars' ranges of tree-sitter, overridden to the one we use).
  const tree = npm(['ls', '--all', '--json']);
  assert.equal(tree.code, 0, tree.stdout.slice(0, 2000) + tree.stderr);
  assert.equal((JSON.parse(tree.stdout) as { problems?: string[] }).problems, undefined);

  // Every install script is approved in package.json's allowScripts.
  const scripts = npm(['install-scripts', 'ls']);
  assert.equal(scripts.code, 0, scripts.stderr);
  assert.match(scripts.stdout, /No packages with unreviewed install scripts/);

  // A grammar's declared tool (tree-sitter-kotlin's npm-check-updates) is replaced by an empty package.
  const tool = npm(['ls', 'npm-check-updates', '--all', '--omit=dev']);
  assert.equal(tool.code, 0, tool.stderr);
  assert.match(tool.stdout, /npm-check-updates@npm:empty-npm-package@/);
  assert.doesNotMatch(tool.stdout, /npm-check-updates@\d/);
});

// Slow (about a minute: npm installs the package's dependencies, from npm's cache when it holds them).
test('SLOW: the packed package, installed into a fresh prefix, maps a repository from another folder', () => {
  const work = tempDir('repomap-install-');
  // dist/ is built by the test command; the pack takes what is there rather than building again.
  const pack = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work]);
  assert.equal(pack.code, 0, pack.stderr);
  const [packed] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = packed.files.map((file) => file.path);
  assert.ok(files.includes('LICENSE') && files.includes('dist/src/api/index.js') && files.includes('dist/workers/extract-worker.js'), files.join(' '));
  assert.deepEqual(files.filter((path) => path.endsWith('.map') || path.startsWith('test') || path.startsWith('dist/test')), [], 'no source map without its source, no tests');

  const prefix = join(work, 'prefix');
  const install = npm(['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(work, packed.filename)], { timeout: 600_000 });
  assert.equal(install.code, 0, install.stderr);

  const elsewhere = tempDir('repomap-cwd-');
  const run = (args: string[]) => spawnSync(join(prefix, 'bin', 'repomap'), args, { cwd: elsewhere, encoding: 'utf8', timeout: 120_000 });
  const map = run(['map', copyFixture('shop'), '--cache-dir', join(work, 'cache'), '--tokens', '256']);
  assert.equal(map.status, 0, map.stderr);
  assert.match(map.stdout, /^src\/cart\.ts:$/m);
  const version = run(['--version']);
  assert.equal(version.stdout.trim(), (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version);
});

test("the README's install command allows the install scripts package.json approves, no more, no fewer", () => {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const command = /^npm install -g repomap --allow-scripts=(\S+)$/m.exec(readme);
  assert.ok(command, 'the README gives the install command for a platform without prebuilt binaries');
  const approved = Object.keys((JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> }).allowScripts);
  assert.deepEqual(command[1].split(',').sort(), approved.sort());
});
