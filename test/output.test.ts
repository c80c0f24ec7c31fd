// What the CLI prints for odd trees and odd paths: control characters in names, an empty root, a
// cache folder that is a file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyFixture, git, runCli, tempDir } from './helpers.js';

test('a path with a newline or another control character is one escaped map line, in text and markdown', () => {
  const root = copyFixture('shop');
  writeFileSync(join(root, 'src', 'new\nline.py'), 'def odd_name():\n    return 1\n');
  writeFileSync(join(root, 'src', 'tab\there.py'), 'def other_name():\n    return 1\n');
  const cache = tempDir();
  for (const format of ['text', 'markdown']) {
    const result = runCli(['map', root, '--cache-dir', cache, '--tokens', '4096', '--format', format]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.split('\n');
    assert.ok(lines.includes('src/new\\nline.py:'), `${format}: ${result.stdout}`);
    assert.ok(lines.includes('src/tab\\there.py:'), format);
    assert.ok(!lines.some((line) => line.startsWith('line.py')), `${format}: no line starts inside the name`);
  }
  const json = runCli(['map', root, '--cache-dir', cache, '--tokens', '4096', '--format', 'json']);
  const data = JSON.parse(json.stdout) as { files: Array<{ path: string }> };
  assert.ok(data.files.some((file) => file.path === 'src/new\nline.py'), 'JSON keeps the name as it is');
});

test('an empty root prints one line saying there is nothing to map, a budget too small one saying so; a --cache-dir that is a file is one line, exit 2', () => {
  const empty = tempDir();
  const result = runCli(['map', empty, '--cache-dir', tempDir()]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr, `repomap: nothing to map in ${empty}: it has no files to index\n`);
  mkdirSync(join(empty, 'sub'));
  assert.match(runCli(['map', join(empty, 'sub'), '--cache-dir', tempDir()]).stderr, /^repomap: nothing to map in .*sub: it has no files to index\n$/);
  // A root with files and a budget too small for the map's first line says so, not that it has none.
  const tight = runCli(['map', copyFixture('shop'), '--cache-dir', tempDir(), '--tokens', '1']);
  assert.equal(tight.code, 0, tight.stderr);
  assert.equal(tight.stdout, '');
  assert.match(tight.stderr, /^repomap: no line of the map of .*shop\S* fits in 1 tokens: ask for more tokens\n$/);

  const root = copyFixture('shop');
  const file = join(tempDir(), 'not-a-folder');
  writeFileSync(file, 'x');
  const refused = runCli(['map', root, '--cache-dir', file]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.equal(refused.stderr, `repomap: cache folder ${file} is a file, not a folder\n`);
  const below = runCli(['map', root, '--cache-dir', join(file, 'below')]);
  assert.equal(below.code, 2, below.stderr);
  assert.equal(below.stderr.trimEnd().split('\n').length, 1, below.stderr);
  assert.match(below.stderr, /^repomap: cache folder .*below cannot be made: /);

  // Folders that exist but refuse a child with ENOENT, where Node's recursive mkdir never returns:
  // under /proc, and through a dangling symlink. The same for the daemon's runtime folder.
  const dangling = join(tempDir(), 'dangling');
  symlinkSync(join(tempDir(), 'gone', 'deeper'), dangling);
  const unmakeable = [join(dangling, 'cache'), ...(existsSync('/proc/self') ? ['/proc/repomap-none/cache'] : [])];
  for (const folder of unmakeable) {
    const made = runCli(['map', root, '--cache-dir', folder], { timeout: 60_000 });
    assert.equal(made.code, 2, made.stderr);
    assert.match(made.stderr, /^repomap: cache folder .* cannot be made: [^\n]*\n$/);
    const started = runCli(['query', root, '--cache-dir', tempDir()], { timeout: 60_000, env: { XDG_RUNTIME_DIR: folder } });
    assert.equal(started.code, 2, started.stderr);
    assert.match(started.stderr, /^repomap: could not start the daemon for .*: runtime folder .* cannot be made: [^\n]*\n$/);
  }
});

test('a FIFO in the tree is listed as skipped, not a regular file, in git and outside it, and never read', () => {
  for (const inGit of [false, true]) {
    const root = copyFixture('shop');
    if (inGit) git(root, 'init', '-q');
    execFileSync('mkfifo', [join(root, 'src', 'pipe.ts'), join(root, 'fifo')]);
    const result = runCli(['map', root, '--cache-dir', tempDir(), '--verbose', '--quiet'], { timeout: 60_000 });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /^skipped fifo: not a regular file$/m, `in git: ${inGit}`);
    assert.match(result.stderr, /^skipped src\/pipe\.ts: not a regular file$/m, `in git: ${inGit}`);
    assert.match(result.stdout, /\(\d+ files not mapped: .*2 not a regular file; --verbose lists them\)/, `in git: ${inGit}`);
  }
});
