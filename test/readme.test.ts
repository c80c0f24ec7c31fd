import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../src/paths.js';
import { runCli, tempDir } from './helpers.js';

/** The code blocks of README.md marked `<!-- example: NAME -->`, by name. */
function readmeExamples(): Map<string, string> {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const examples = new Map<string, string>();
  for (const match of readme.matchAll(/<!-- example: ([\w-]+) -->\n```js\n([\s\S]*?)```/g)) examples.set(match[1], match[2]);
  return examples;
}

/**
 * Runs an example as a user would: an ES module importing 'repomap' (it lives inside this
 * package, so the import resolves to the package itself), in a folder holding a copy of the
 * fixtures, with private cache and runtime folders.
 */
function runExample(name: string): { stdout: string; stderr: string; status: number | null; cwd: string; env: NodeJS.ProcessEnv } {
  const code = readmeExamples().get(name);
  assert.ok(code, `README has the example '${name}'`);
  const dir = join(packageRoot, 'dist', 'readme-examples');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, code);
  const cwd = tempDir();
  cpSync(join(packageRoot, 'fixtures', 'repos', 'shop'), join(cwd, 'fixtures', 'repos', 'shop'), { recursive: true });
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  const env = { ...process.env, XDG_CACHE_HOME: tempDir(), XDG_RUNTIME_DIR: runtime };
  const result = spawnSync(process.execPath, [file], { cwd, env, encoding: 'utf8' });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status, cwd, env };
}

test('README example: the in-process library API', () => {
  const run = runExample('in-process');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^src\/cart\.ts:$/m);
  assert.match(run.stdout, /^\d+ of 512 tokens; first file: README\.md$/m);
  assert.match(run.stdout, /^src\/pricing\.ts 5$/m);
});

test('README example: the daemon API', () => {
  const run = runExample('daemon');
  try {
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /│export class CheckoutService \{/);
    assert.match(run.stdout, /^ready 11$/m);
  } finally {
    runCli(['stop', join(run.cwd, 'fixtures', 'repos', 'shop')], { env: run.env });
  }
});
