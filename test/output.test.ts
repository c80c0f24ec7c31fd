// What the CLI prints for odd trees and odd paths: control characters in names and in source lines,
// an empty root, a cache folder that is a file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { get_encoding } from 'tiktoken';
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

/** A control character, a tab and newline aside; or a byte order mark. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\ufeff]/;

test('control characters in source lines are escaped in every output, tabs kept and a leading BOM dropped; the token count is of what is shown', () => {
  const root = tempDir();
  writeFileSync(
    join(root, 'esc.py'),
    'x = "\x1b[31mred\x1b[0m"\nESC_CONST = 1  # \x1b[2J\nBEL_CONST = "\x07"\nC1_CONST = "\u009b31m"\n' +
      Array.from({ length: 40 }, (_, i) => `COLOUR_${i} = "\x1b[${i}m\x1b[0m"\n`).join(''),
  );
  writeFileSync(join(root, 'bom.py'), '\ufeffdef bom_fn():\n    return 1\n');
  writeFileSync(join(root, 'tabs.py'), 'class Tabbed:\n\tdef tab_method(self):\n\t\treturn bom_fn()\t# \x1b[1m\n');
  const cache = tempDir();
  const shown = ['│x = "\\x1b[31mred\\x1b[0m"', '│ESC_CONST = 1  # \\x1b[2J', '│BEL_CONST = "\\x07"', '│C1_CONST = "\\x9b31m"', '│def bom_fn():', '│\tdef tab_method(self):'];
  const noRawControl = (text: string, what: string) => assert.ok(!RAW_CONTROL.test(text), `${what}: ${JSON.stringify(text)}`);

  for (const format of ['text', 'markdown']) {
    const result = runCli(['map', root, '--cache-dir', cache, '--format', format]);
    assert.equal(result.code, 0, result.stderr);
    noRawControl(result.stdout, format);
    const lines = result.stdout.split('\n');
    for (const line of shown) assert.ok(lines.includes(line), `${format} shows ${line}: ${result.stdout}`);
    assert.equal(runCli(['map', root, '--cache-dir', cache, '--format', format]).stdout, result.stdout, `${format}: the same map again`);
  }

  const encoder = get_encoding('cl100k_base');
  try {
    // Budgets that cut the map (escapes cost tokens): the count is of the escaped text, within the budget.
    for (const tokens of [60, 150, 8192]) {
      const json = runCli(['map', root, '--cache-dir', cache, '--format', 'json', '--tokens', String(tokens)]);
      assert.equal(json.code, 0, json.stderr);
      noRawControl(json.stdout, `JSON at ${tokens} tokens`); // JSON.stringify escapes C0 itself, not DEL or C1
      const map = JSON.parse(json.stdout) as { text: string; tokens: number; files: Array<{ lines: Array<{ text: string }> }> };
      noRawControl(map.text, `JSON text at ${tokens} tokens`);
      for (const file of map.files) for (const { text } of file.lines) noRawControl(text, `JSON line at ${tokens} tokens`);
      assert.equal(map.tokens, encoder.encode(map.text, [], []).length, `the reported tokens are the count of the text, at ${tokens} tokens`);
      assert.ok(map.tokens <= tokens, `${map.tokens} tokens within ${tokens}`);
      if (tokens === 8192) {
        const texts = map.files.flatMap((file) => file.lines.map((line) => '│' + line.text));
        for (const line of shown) assert.ok(texts.includes(line), `JSON's lines hold ${line}`);
      }
    }
  } finally {
    encoder.free();
  }

  const symbols = runCli(['symbols', 'ESC_CONST', root, '--cache-dir', cache]);
  assert.equal(symbols.code, 0, symbols.stderr);
  noRawControl(symbols.stdout, 'symbols');
  assert.ok(symbols.stdout.includes('  2│ESC_CONST = 1  # \\x1b[2J\n'), symbols.stdout);
  const called = runCli(['symbols', 'bom_fn', root, '--cache-dir', cache]);
  noRawControl(called.stdout, 'symbols of bom_fn');
  assert.ok(called.stdout.includes('  1│def bom_fn():\n'), called.stdout);
  assert.ok(called.stdout.includes('tabs.py:3 call in tab_method: return bom_fn()\t# \\x1b[1m\n'), called.stdout);
  const answers: Array<[string, string, string | undefined]> = [
    ['ESC_CONST', 'ESC_CONST = 1  # \\x1b[2J', undefined],
    ['bom_fn', 'def bom_fn():', 'return bom_fn()\t# \\x1b[1m'],
  ];
  for (const [name, signature, reference] of answers) {
    const json = runCli(['symbols', name, root, '--cache-dir', cache, '--format', 'json']);
    noRawControl(json.stdout, `symbols ${name} JSON`);
    const answer = JSON.parse(json.stdout) as { definitions: Array<{ signature: string }>; references: Array<{ text: string }> };
    assert.equal(answer.definitions[0].signature, signature);
    assert.equal(answer.references[0]?.text, reference);
  }
});

test('an empty root prints one line saying there is nothing to map, one whose files are all chat files too; a budget too small for a line, and a --cache-dir that is a file, are one line, exit 2', () => {
  const empty = tempDir();
  const result = runCli(['map', empty, '--cache-dir', tempDir()]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr, `repomap: nothing to map in ${empty}: it has no files to index\n`);
  mkdirSync(join(empty, 'sub'));
  assert.match(runCli(['map', join(empty, 'sub'), '--cache-dir', tempDir()]).stderr, /^repomap: nothing to map in .*sub: it has no files to index\n$/);
  // Files, none indexed, and too few tokens for the line that counts them: not "no files".
  const notes = tempDir();
  writeFileSync(join(notes, 'notes.txt'), 'a note\n');
  const unindexed = runCli(['map', notes, '--cache-dir', tempDir(), '--tokens', '2']);
  assert.equal(unindexed.code, 0, unindexed.stderr);
  assert.match(unindexed.stderr, /^repomap: nothing to map in \S+: none of its 1 files is indexed \(no grammar, too large, binary: the line counting them does not fit the budget\)\n$/);
  // Files, every one left out by the exclude or include globs: said, not "no files" (exit 0, as for an empty root).
  const shop = copyFixture('shop');
  for (const globs of [['--exclude', '*'], ['--exclude', '**/*']]) {
    const excluded = runCli(['map', shop, '--cache-dir', tempDir(), ...globs]);
    assert.equal(excluded.code, 0, excluded.stderr);
    assert.match(excluded.stderr, /^repomap: nothing to map in \S+: the exclude or include globs leave out every one of its \d+ files\n$/);
  }
  // The project config's include, and the daemon's map (query) too.
  writeFileSync(join(shop, 'repomap.config.json'), JSON.stringify({ include: ['nothing/**'] }));
  const env = { XDG_RUNTIME_DIR: tempDir() };
  try {
    for (const command of ['map', 'query']) {
      const included = runCli([command, shop, '--cache-dir', tempDir()], { env });
      assert.equal(included.code, 0, included.stderr);
      assert.match(included.stderr, /^repomap: nothing to map in \S+: the exclude or include globs leave out every one of its \d+ files\n$/);
    }
  } finally {
    runCli(['stop', shop], { env });
  }
  rmSync(join(shop, 'repomap.config.json'));
  // A root with files and a budget too small for the map's first line: a mistake, said with the
  // budget that shows one; with the preamble, which counts, also in JSON (no map of no file).
  writeFileSync(join(shop, 'notes.txt'), 'no grammar: a footer that does not fit\n');
  const tight = runCli(['map', shop, '--cache-dir', tempDir(), '--tokens', '1']);
  assert.equal(tight.code, 2, tight.stderr);
  assert.equal(tight.stdout, '');
  assert.match(tight.stderr, /^repomap: no line of the map of .*shop\S* fits in 1 token: ask for at least 3 tokens\n$/);
  for (const format of ['text', 'json']) {
    const framed = runCli(['map', shop, '--cache-dir', tempDir(), '--tokens', '40', '--preamble', '--format', format]);
    assert.equal(framed.code, 2, framed.stderr);
    assert.equal(framed.stdout, '');
    assert.match(framed.stderr, /^repomap: no line of the map of .*shop\S* fits in 40 tokens with the preamble: ask for at least 53 tokens\n$/);
  }
  const framed = runCli(['map', shop, '--cache-dir', tempDir(), '--tokens', '60', '--preamble']);
  assert.equal(framed.code, 0, framed.stderr);
  assert.match(framed.stdout, /^Here are summaries.*\n(.*\n)*README\.md\n(.*\n)*\(1 file not mapped\)\n$/);
  // Its only file a chat file: more tokens would show nothing, and it says so.
  writeFileSync(join(empty, 'sub', 'only.py'), 'def only():\n    return 1\n');
  const alone = runCli(['map', join(empty, 'sub'), '--cache-dir', tempDir(), '--chat', join(empty, 'sub', 'only.py'), '--tokens', '60000']);
  assert.equal(alone.code, 0, alone.stderr);
  assert.equal(alone.stdout, '');
  assert.match(alone.stderr, /^repomap: nothing else to map in .*sub: every file it indexes is a chat file\n$/);

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
    // Counted in the last line, which does not point to --verbose when it was given.
    assert.match(result.stdout, /\(\d+ files not mapped: .*2 not a regular file\)\n$/, `in git: ${inGit}`);
  }
});
