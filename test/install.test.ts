// The install as a user gets it: the dependency tree package.json declares, and the packed
// package installed and run from elsewhere.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { test } from 'node:test';
import { PACKED_PLATFORMS, binaryName, hostPlatform } from '../src/extract/bundled.js';
import { packageRoot } from '../src/paths.js';
import { builtFor } from '../scripts/binary-platform.js';
import { LANG_FIXTURES } from './fixture-tags.js';
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
  const tool = npm(['ls', 'npm-check-updates', '--all']);
  assert.equal(tool.code, 0, tool.stderr);
  assert.match(tool.stdout, /npm-check-updates@npm:empty-npm-package@/);
  assert.doesNotMatch(tool.stdout, /npm-check-updates@\d/);
});

// Slow (about two minutes; on a machine's first run two more, while the pack compiles tree-sitter's
// linux binary, then cached per version: see scripts/pack-grammars.ts). npm installs the package's
// dependencies from its cache when it holds them.
test('SLOW: the packed package, installed into a fresh prefix, quietly, parses every built-in language natively and maps a repository from another folder', () => {
  const work = tempDir('repomap-install-');
  // dist/ is built by the test command: the grammars are packed into it as prepack does, without
  // prepack's tsc, which would rewrite dist/ under the tests running from it.
  const grammars = npm(['run', 'pack-grammars'], { timeout: 900_000 });
  assert.equal(grammars.code, 0, grammars.stdout + grammars.stderr);
  const pack = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], { timeout: 300_000 });
  assert.equal(pack.code, 0, pack.stderr);
  const [packed] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = packed.files.map((file) => file.path);
  assert.ok(files.includes('LICENSE') && files.includes('dist/src/api/index.js') && files.includes('dist/workers/extract-worker.js'), files.join(' '));
  assert.ok(files.includes('dist/grammars/tree-sitter/index.js') && files.includes(`dist/grammars/tree-sitter-go/${binaryName(hostPlatform())}`), files.join(' '));
  // Each packed binary is built for the platform it is loaded on (some grammar packages publish an x86-64 binary as their linux-arm64 one).
  const binaries = files.filter((path) => path.startsWith('dist/grammars/') && path.endsWith('.node'));
  const platformOf = (path: string) => (basename(path) === 'tree-sitter.node' ? basename(dirname(path)) : basename(path, '.node'));
  assert.deepEqual(binaries.filter((path) => !builtFor(join(packageRoot, path), platformOf(path))), [], 'binaries not built for the platform they are packed for');
  assert.deepEqual(files.filter((path) => path.endsWith('.map') || path.startsWith('test') || path.startsWith('dist/test') || path.startsWith('dist/scripts')), [], 'no source map without its source, no tests, no build script');

  // Nothing for npm to resolve or to run for the grammars: none is an npm dependency of the package.
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  const shipped = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];
  assert.deepEqual(shipped.filter((name) => name.includes('tree-sitter') && name !== 'web-tree-sitter'), []);

  const prefix = join(work, 'prefix');
  const install = npm(['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(work, packed.filename)], { timeout: 600_000 });
  assert.equal(install.code, 0, install.stderr);
  // At most npm's five lines on the install scripts of LMDB's packages (see the README's Install).
  const warnings = (install.stdout + install.stderr).split('\n').filter((line) => /^npm warn/i.test(line));
  assert.ok(warnings.length <= 5 && warnings.every((line) => line.startsWith('npm warn install-scripts')), warnings.join('\n'));

  const elsewhere = tempDir('repomap-cwd-');
  const run = (args: string[]) => spawnSync(join(prefix, 'bin', 'repomap'), args, { cwd: elsewhere, encoding: 'utf8', timeout: 120_000 });
  const map = run(['map', copyFixture('shop'), '--cache-dir', join(work, 'cache'), '--tokens', '256']);
  assert.equal(map.status, 0, map.stderr);
  assert.match(map.stdout, /^src\/cart\.ts:$/m);
  const version = run(['--version']);
  assert.equal(version.stdout.trim(), manifest.version);

  // Every language fixture parsed, each by the installed package's native grammar on a platform it packs binaries for (no line on a fallback).
  const langs = join(work, 'langs');
  cpSync(LANG_FIXTURES, langs, { recursive: true });
  const count = readdirSync(langs, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
  const all = run(['map', langs, '--verbose', '--tokens', '65536', '--cache-dir', join(work, 'cache')]);
  assert.equal(all.status, 0, all.stderr);
  assert.ok(all.stderr.includes(`${count} files discovered; ${count} parsed,`), all.stderr);
  if ((PACKED_PLATFORMS as readonly string[]).includes(hostPlatform())) assert.doesNotMatch(all.stderr, /WebAssembly|left out|skipped/, all.stderr);
});

test("the README's install command allows the install scripts of the package's own dependency tree, no more, no fewer", () => {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const command = /^npm install -g repomap --allow-scripts=(\S+)$/m.exec(readme);
  assert.ok(command, 'the README gives the install command that allows the install scripts npm lists');
  // The packages with an install script that an install of repomap gets (the clone's devDependencies not among them).
  const lock = JSON.parse(readFileSync(join(packageRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }> };
  const scripted = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript && !entry.dev)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.deepEqual(command[1].split(',').sort(), [...new Set(scripted)].sort());
});
