// The install as a user gets it: the dependency tree package.json declares, and the packed
// package installed and run from elsewhere.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../src/paths.js';

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
