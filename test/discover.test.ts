import assert from 'node:assert/strict';
import { readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { discoverFiles, discoverableFilter } from '../src/discover/discover.js';
import { git, tempDir, writeTree } from './helpers.js';

/** Every file below `root` (relative paths), .git included: what a watcher may report. */
function allFiles(root: string, dir = ''): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    return entry.isDirectory() ? allFiles(root, path) : [path];
  });
}

function write(root: string, files: Record<string, string>): void {
  writeTree(root, files);
}

/** A tree that exercises each rule: nested .gitignore files, negation, info/exclude, a tracked ignored file, a nested repository. */
function buildTree(root: string, withGit: boolean): void {
  write(root, {
    '.gitignore': '*.log\nbuild/\n/top-only.py\n',
    'src/app.py': 'x = 1\n',
    'src/debug.log': 'noise\n',
    'src/top-only.py': 'kept: the rule is anchored at the root\n',
    'top-only.py': 'ignored\n',
    'build/out.js': 'ignored folder\n',
    'lib/.gitignore': '*.gen.ts\n!keep.gen.ts\n',
    'lib/a.gen.ts': 'ignored by the nested rule\n',
    'lib/keep.gen.ts': 're-included\n',
    'lib/deep/b.gen.ts': 'ignored from above\n',
    'lib/deep/c.ts': 'kept\n',
    'secret/local.py': 'ignored by info/exclude (git only)\n',
  });
  // A nested repository: git lists none of its files; a walk (outside git) lists them.
  write(root, { 'vendor/inner/mod.py': 'y = 2\n', 'vendor/inner/.git/HEAD': 'ref: refs/heads/main\n' });
  if (!withGit) return;
  git(root, 'init', '-q');
  write(root, { '.git/info/exclude': 'secret/\n', 'tracked.log': 'tracked although *.log is ignored\n' });
  git(root, 'add', '.gitignore', 'src/app.py', 'lib');
  git(root, 'add', '-f', 'tracked.log');
  git(root, 'commit', '-qm', 'init');
  git(join(root, 'vendor', 'inner'), 'init', '-q');
}

for (const withGit of [true, false]) {
  test(`the filter for watched paths agrees with a full discovery on every file (${withGit ? 'git' : 'walk'})`, async () => {
    const root = tempDir();
    buildTree(root, withGit);
    const exclude = ['lib/deep/c.ts'];
    const discovery = await discoverFiles(root, { exclude });
    assert.equal(discovery.source, withGit ? 'git' : 'walk');
    const filter = await discoverableFilter(root, discovery.source, { exclude });
    const everything = allFiles(root);
    const listed = await filter(everything);
    assert.deepEqual([...listed].sort(), [...discovery.paths].sort());
    // The cases that matter, named, so a failure says which rule broke.
    for (const path of ['src/app.py', 'src/top-only.py', 'lib/keep.gen.ts']) assert.ok(listed.has(path), path);
    for (const path of ['src/debug.log', 'top-only.py', 'build/out.js', 'lib/a.gen.ts', 'lib/deep/b.gen.ts', 'lib/deep/c.ts']) {
      assert.ok(!listed.has(path), path);
    }
    if (withGit) {
      assert.ok(listed.has('tracked.log'), 'a tracked file is listed although a rule ignores it');
      assert.ok(!listed.has('secret/local.py'), 'info/exclude applies');
      assert.ok(!listed.has('vendor/inner/mod.py'), 'nothing inside a nested repository');
    } else {
      assert.ok(listed.has('vendor/inner/mod.py'), 'a walk lists a nested repository\'s files');
    }
    // Paths that are not there (deleted ones) are judged by the rules alone.
    const gone = await filter(['src/deleted.py', 'src/deleted.log']);
    assert.deepEqual([...gone], ['src/deleted.py']);
  });
}

for (const withGit of [true, false]) {
  test(`a folder the rules ignore or an exclude names is skipped whole, unless git tracks a file in it (${withGit ? 'git' : 'walk'})`, async () => {
    const root = tempDir();
    buildTree(root, withGit);
    write(root, { 'build/forced/kept.js': 'tracked although build/ is ignored\n', 'build/other/x.js': 'ignored\n' });
    if (withGit) {
      git(root, 'add', '-f', 'build/forced/kept.js');
      git(root, 'commit', '-qm', 'forced');
    }
    const exclude = ['lib/deep'];
    const discovery = await discoverFiles(root, { exclude });
    const filter = await discoverableFilter(root, discovery.source, { exclude });
    const expected: Record<string, boolean> = {
      build: !withGit,
      'build/forced': !withGit,
      'build/other': true,
      'lib/deep': true,
      secret: withGit, // info/exclude: git only
      src: false,
      lib: false,
    };
    for (const [folder, skipped] of Object.entries(expected)) {
      assert.equal(await filter.skips(folder), skipped, folder);
      // A folder skipped is one discovery lists nothing in.
      if (skipped) assert.ok(!discovery.paths.some((path) => path.startsWith(`${folder}/`)), folder);
    }
  });
}

test('the filter of a root below the git top level reads the rules from the top level down', async () => {
  const top = tempDir();
  buildTree(top, true);
  const root = join(top, 'lib');
  const discovery = await discoverFiles(root);
  const filter = await discoverableFilter(root, discovery.source);
  const listed = await filter(allFiles(root));
  assert.deepEqual([...listed].sort(), [...discovery.paths].sort());
  assert.ok(listed.has('keep.gen.ts') && !listed.has('a.gen.ts') && !listed.has('deep/b.gen.ts'));
});

for (const withGit of [true, false]) {
  test(`.repomapignore and .aiderignore in any folder leave files out, as .gitignore does (${withGit ? 'inside git, tracked files too' : 'outside git'}); the filter agrees`, async () => {
    const root = tempDir();
    write(root, {
      '.repomapignore': 'fixtures/\n*.snap\n',
      '.aiderignore': 'docs/\n',
      'src/app.py': 'x = 1\n',
      'src/app.snap': 'snapshot\n',
      'fixtures/big.py': 'data = 1\n',
      'docs/guide.py': 'print(1)\n',
      'lib/.repomapignore': '*.gen.ts\n!keep.gen.ts\n',
      'lib/a.gen.ts': 'ignored by the nested rule\n',
      'lib/keep.gen.ts': 're-included\n',
      'lib/c.ts': 'kept\n',
    });
    if (withGit) {
      git(root, 'init', '-q');
      git(root, 'add', '.');
      git(root, 'commit', '-qm', 'init'); // tracked: git lists them, the ignore files still leave them out
    }
    const expected = ['.aiderignore', '.repomapignore', 'lib/.repomapignore', 'lib/c.ts', 'lib/keep.gen.ts', 'src/app.py'];
    const discovery = await discoverFiles(root);
    assert.equal(discovery.source, withGit ? 'git' : 'walk');
    assert.deepEqual(discovery.paths, expected);
    const filter = await discoverableFilter(root, discovery.source);
    assert.deepEqual([...(await filter(allFiles(root).filter((path) => !path.startsWith('.git/'))))].sort(), expected);
    assert.equal(await filter.skips('fixtures'), true);
    assert.equal(await filter.skips('docs'), true);
    assert.equal(await filter.skips('lib'), false);
  });
}

test('inside git, a tracked file deleted from the work tree (before git rm) is not listed, nor the files of a tracked folder moved away', async () => {
  const root = tempDir();
  write(root, { 'NOTES.txt': 'n\n', 'src/app/main.py': 'x = 1\n', 'src/app/py.typed': '', 'src/keep.py': 'y = 2\n' });
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'files');
  assert.equal((await discoverFiles(root)).paths.length, 4);
  git(root, 'mv', 'src/keep.py', 'src/kept.py'); // git's own move: listed under the new name only
  rmSync(join(root, 'NOTES.txt'));
  renameSync(join(root, 'src', 'app'), join(root, 'moved'));
  assert.deepEqual((await discoverFiles(root)).paths, ['moved/main.py', 'moved/py.typed', 'src/kept.py']);
});
