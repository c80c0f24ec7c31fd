// The files a request names (chat and mentioned files) are checked by one function everywhere:
// the CLI, the engine (and so the daemon and MCP, tested in daemon.test.ts and mcp.test.ts).
import assert from 'node:assert/strict';
import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildMap } from '../src/map.js';
import { copyFixture, git, loopInPlaceOf, makeUnreadable, runCli, tempDir } from './helpers.js';

function oneLineError(result: { code: number; stderr: string }, pattern: RegExp): void {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
  assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /);
}

test('a file whose name starts with .. is inside the root: indexed, and accepted as a chat file', () => {
  const root = copyFixture('shop');
  mkdirSync(join(root, 'bad'));
  writeFileSync(join(root, 'bad', '..foo.py'), 'def dotted_name():\n    return 1\n');
  writeFileSync(join(root, '..top.py'), 'def top_name():\n    return 1\n');
  const cache = tempDir();
  for (const [cwd, chat, rel] of [[root, 'bad/..foo.py', 'bad/..foo.py'], [root, '..top.py', '..top.py'], [join(root, 'bad'), '..foo.py', 'bad/..foo.py']]) {
    const result = runCli(['map', root, '--cache-dir', cache, '--chat', chat, '--format', 'json'], { cwd });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout).request.chatFiles, [rel]);
  }
  oneLineError(runCli(['map', root, '--cache-dir', tempDir(), '--chat', '../../x.py'], { cwd: join(root, 'src') }), /outside the repository root/);
});

test('a chat file named through a symlink to the root (ROOT given that way, or not) is the root\'s file', () => {
  const root = copyFixture('shop');
  const link = join(tempDir(), 'shop-link');
  symlinkSync(root, link);
  const cache = tempDir();
  const cwd = join(link, '..');
  for (const [given, chat] of [['shop-link', 'shop-link/src/cart.ts'], ['shop-link', join(link, 'src', 'cart.ts')], [root, join(link, 'src', 'cart.ts')]]) {
    const result = runCli(['map', given, '--cache-dir', cache, '--chat', chat, '--format', 'json'], { cwd });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout).request.chatFiles, ['src/cart.ts']);
  }
  oneLineError(runCli(['map', 'shop-link', '--cache-dir', cache, '--chat', 'shop-link'], { cwd }), /chat file shop-link is the repository root itself, not a file in it/);
  oneLineError(runCli(['map', 'shop-link', '--cache-dir', cache, '--chat', '../x.ts'], { cwd }), /chat file \.\.\/x\.ts is outside the repository root/);
});

test('--chat refuses a folder, a path with a NUL or a newline, and a symlink to a file outside the root', () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const outside = join(tempDir(), 'secret.py');
  writeFileSync(outside, 'def secret():\n    pass\n');
  symlinkSync(outside, join(root, 'src', 'link.py'));
  oneLineError(runCli(['map', root, '--cache-dir', cache, '--chat', 'src'], { cwd: root }), /chat file src is a folder, not a file/);
  oneLineError(runCli(['map', root, '--cache-dir', cache, '--chat', 'src/link.py'], { cwd: root }), /chat file src\/link\.py leads outside the repository root/);
  oneLineError(runCli(['map', root, '--cache-dir', cache, '--chat', 'README.md\n../x'], { cwd: root }), /chat file README\.md\\n\.\.\/x: a path may not contain a control character/);
});

test('--chat refuses a file git ignores, --exclude leaves out or --max-file-bytes does not read, saying it is not indexed', () => {
  const root = copyFixture('shop');
  git(root, 'init', '-q');
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  mkdirSync(join(root, 'build'));
  writeFileSync(join(root, 'build', 'gen.ts'), 'export const generated = 1;\n');
  const cache = tempDir();
  oneLineError(runCli(['map', root, '--cache-dir', cache, '--chat', 'build/gen.ts'], { cwd: root }), /chat file build\/gen\.ts is not indexed \(ignored by git or an ignore file: \.gitignore, \.repomapignore, \.aiderignore\)/);
  // Not ignored: git's own folder, and a file reached through a folder symlink (named by its real path).
  oneLineError(runCli(['map', root, '--cache-dir', cache, '--chat', '.git/config'], { cwd: root }), /chat file \.git\/config is not indexed \(inside git's own folder \.git, which is never indexed\)/);
  symlinkSync('src', join(root, 'linked'));
  oneLineError(
    runCli(['map', root, '--cache-dir', cache, '--chat', 'linked/cart.ts'], { cwd: root }),
    /chat file linked\/cart\.ts is not indexed \(reached through the folder symlink linked, which discovery does not follow: name it src\/cart\.ts\)/,
  );
  oneLineError(
    runCli(['map', root, '--cache-dir', cache, '--exclude', 'api', '--chat', 'api/server.py'], { cwd: root }),
    /chat file api\/server\.py is not indexed \(excluded by --exclude or the project config\)/,
  );
  const size = statSync(join(root, 'src', 'cart.ts')).size;
  oneLineError(
    runCli(['map', root, '--cache-dir', cache, '--max-file-bytes', String(size - 1), '--chat', 'src/cart.ts'], { cwd: root }),
    new RegExp(`chat file src/cart\\.ts is not indexed \\(${size} bytes: over the --max-file-bytes limit; raise it to map the file\\)`),
  );
  assert.equal(runCli(['map', root, '--cache-dir', cache, '--max-file-bytes', String(size), '--chat', 'src/cart.ts'], { cwd: root }).code, 0);
});

test('a chat file past a loop of symlinks cannot be reached: one line naming it and why, from map, query and the library', async () => {
  const root = copyFixture('shop');
  mkdirSync(join(root, 'locked'));
  writeFileSync(join(root, 'locked', 'h.py'), 'def hidden():\n    return 1\n');
  loopInPlaceOf(join(root, 'locked'));
  const cache = tempDir();
  const env = { XDG_RUNTIME_DIR: tempDir() };
  // From the root and from outside it: the root's file is the one named either way.
  for (const command of ['map', 'query']) {
    for (const cwd of [root, tempDir()]) {
      const run = runCli([command, root, '--cache-dir', cache, '--chat', 'locked/h.py'], { cwd, env });
      oneLineError(run, /^repomap: chat file locked\/h\.py cannot be read \(ELOOP: too many symbolic links encountered\)$/m);
    }
  }
  assert.equal(runCli(['status', root], { env }).code, 1, 'refused before any daemon was started');
  await assert.rejects(buildMap({ root, cacheDir: cache, mentionedFiles: ['locked/h.py'] }), {
    code: 'bad-request',
    message: 'mentioned file locked/h.py cannot be read (ELOOP: too many symbolic links encountered)',
  });
});

test('a chat file that is a symlink leading nowhere (a loop, a missing target) is said to be the broken symlink the index skips, from anywhere, map, query and the library alike', async () => {
  const root = copyFixture('shop');
  symlinkSync('loop.py', join(root, 'src', 'loop.py'));
  symlinkSync('gone.py', join(root, 'src', 'dangling.py'));
  const cache = tempDir();
  const env = { XDG_RUNTIME_DIR: tempDir() };
  const said = { 'loop.py': 'a loop', 'dangling.py': 'its target does not exist' };
  for (const [name, why] of Object.entries(said)) {
    const message = `chat file src/${name} is a broken symlink: it leads nowhere (${why})`;
    // From the root, from a folder in it (where the name, taken from the root, is not missing) and from outside it.
    for (const command of ['map', 'query']) {
      for (const cwd of [root, join(root, 'api'), tempDir()]) {
        oneLineError(runCli([command, root, '--cache-dir', cache, '--chat', `src/${name}`], { cwd, env }), new RegExp(`^repomap: ${message.replace(/[.()]/g, '\\$&')}$`, 'm'));
      }
    }
    oneLineError(runCli(['map', root, '--cache-dir', cache, '--chat', name], { cwd: join(root, 'src'), env }), new RegExp(`chat file ${name.replace('.', '\\.')} is a broken symlink`));
    await assert.rejects(buildMap({ root, cacheDir: cache, chatFiles: [`src/${name}`] }), { code: 'bad-request', message });
  }
  assert.equal(runCli(['status', root], { env }).code, 1, 'refused before any daemon was started');
  // The index's words for them: the same.
  const verbose = runCli(['map', root, '--cache-dir', cache, '--verbose']);
  assert.match(verbose.stderr, /^skipped src\/loop\.py: broken symlink$/m);
  assert.match(verbose.stderr, /^skipped src\/dangling\.py: broken symlink$/m);
});

test('a chat file this user may not read, or in a folder it may not search, is one line naming it and why, from map and query', (t) => {
  const root = copyFixture('shop');
  mkdirSync(join(root, 'locked'));
  writeFileSync(join(root, 'locked', 'h.py'), 'def hidden():\n    return 1\n');
  if (!makeUnreadable(join(root, 'locked')) || !makeUnreadable(join(root, 'src', 'cart.ts'))) {
    t.skip('permission bits do not bind this process (root)');
    return;
  }
  const cache = tempDir();
  const env = { XDG_RUNTIME_DIR: tempDir() };
  try {
    for (const command of ['map', 'query']) {
      // The folder's file is refused by the request's checks; the file itself by the index, which could not read it.
      oneLineError(runCli([command, root, '--cache-dir', cache, '--chat', 'locked/h.py'], { cwd: root, env }), /^repomap: chat file locked\/h\.py cannot be read \(EACCES: permission denied\)$/m);
      oneLineError(runCli([command, root, '--cache-dir', cache, '--chat', 'src/cart.ts'], { cwd: root, env }), /^repomap: chat file src\/cart\.ts cannot be read \(EACCES: permission denied\)$/m);
    }
  } finally {
    runCli(['stop', root], { env });
  }
});

test('the library checks a request\'s files as the CLI does: a NUL cannot smuggle a path out', async () => {
  const root = copyFixture('shop');
  const cacheDir = tempDir();
  await assert.rejects(buildMap({ root, cacheDir, chatFiles: ['README.md\u0000../../etc/passwd'] }), /control character/);
  await assert.rejects(buildMap({ root, cacheDir, mentionedFiles: ['src/nope.ts'] }), /mentioned file src\/nope\.ts does not exist/);
  await assert.rejects(buildMap({ root, cacheDir, mentionedFiles: ['src'] }), /mentioned file src is a folder/);
  const map = await buildMap({ root, cacheDir, chatFiles: ['src/checkout.ts'], mentionedFiles: [join(root, 'src/cart.ts')] });
  assert.deepEqual(map.request.mentionedFiles, ['src/cart.ts']);
});
