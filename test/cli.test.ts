import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, realpathSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyFixture, git, runCli, tempDir } from './helpers.js';

function assertUserError(result: { code: number; stderr: string; stdout: string }, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit code for: ${result.stderr}`);
  assert.equal(result.stdout, '');
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line, got: ${result.stderr}`);
  assert.match(lines[0], /^repomap: /);
  assert.match(lines[0], pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
}

test('map prints the map; text and json agree', () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const text = runCli(['map', root, '--cache-dir', cache, '--tokens', '512', '--chat', `${root}/src/checkout.ts`]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^src\/cart\.ts:$/m);
  const json = runCli(['map', root, '--cache-dir', cache, '--tokens', '512', '--chat', 'src/checkout.ts', '--format', 'json'], { cwd: root });
  assert.equal(json.code, 0, json.stderr);
  const data = JSON.parse(json.stdout) as { text: string; tokens: number; budget: number; files: Array<{ path: string; lines: Array<{ line: number; text: string }> }> };
  assert.equal(data.text, text.stdout);
  assert.equal(data.budget, 512);
  assert.ok(data.tokens <= 512);
  const cart = data.files.find((file) => file.path === 'src/cart.ts');
  assert.ok(cart?.lines.some((line) => line.line === 4 && line.text === 'export class Cart {'), 'json lines are 1-based');
  // Each skipped file is listed with --verbose, as 'repomap query' lists them; the counts always.
  writeFileSync(join(root, 'notes.zz'), 'no grammar\n');
  const skipsOf = (args: string[]) => JSON.parse(runCli(['map', root, '--cache-dir', cache, '--format', 'json', ...args]).stdout) as { skipped: Record<string, number>; skippedFiles: unknown[] };
  const counted = skipsOf([]);
  assert.deepEqual([counted.skipped['no grammar'] > 0, counted.skippedFiles], [true, []]);
  assert.ok(skipsOf(['--verbose']).skippedFiles.some((file) => (file as { path: string }).path === 'notes.zz'));
});

test('the same command twice prints the same bytes', () => {
  const root = copyFixture('shop');
  const args = ['map', root, '--tokens', '300', '--message', 'fix the restock bug in inventory.py'];
  const first = runCli([...args, '--cache-dir', tempDir()]);
  const second = runCli([...args, '--cache-dir', tempDir()]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, second.stdout);
  assert.match(first.stdout, /api\/inventory\.py/);
});

test('--verbose lists skipped files and work counts on stderr', () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  runCli(['map', root, '--cache-dir', cache]);
  const result = runCli(['map', root, '--cache-dir', cache, '--verbose', '--exclude', 'README.md', '--exclude', 'package.json', '--exclude', 'api']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /7 files discovered; 0 parsed, 7 unchanged/);
  assert.doesNotMatch(result.stdout, /not mapped/);
});

test('--verbose, which lists the skipped files, leaves the footer\'s hint to it out, in text and JSON', () => {
  const root = copyFixture('shop');
  writeFileSync(join(root, 'notes.zz'), 'no grammar\n');
  const cache = tempDir();
  const plain = runCli(['map', root, '--cache-dir', cache, '--tokens', '512']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^\(1 file not mapped: 1 no grammar; --verbose lists them\)$/m);
  const verbose = runCli(['map', root, '--cache-dir', cache, '--tokens', '512', '--verbose']);
  assert.equal(verbose.code, 0, verbose.stderr);
  assert.match(verbose.stderr, /^skipped notes\.zz: no grammar$/m);
  // The line is shorter: the map may fill the tokens it frees.
  assert.equal(verbose.stdout.split('\n').at(-2), '(1 file not mapped: 1 no grammar)');
  assert.doesNotMatch(verbose.stdout, /--verbose/);
  const json = JSON.parse(runCli(['map', root, '--cache-dir', cache, '--tokens', '512', '--verbose', '--format', 'json']).stdout) as { text: string };
  assert.equal(json.text, verbose.stdout);
});

test('--verbose says where the related graph was read from: the root\'s cache, or the shared one another clone filled', () => {
  const root = copyFixture('shop');
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'shop');
  const clone = join(tempDir(), 'clone');
  git(root, 'clone', '-q', root, clone);
  const env = { REPOMAP_SHARED_CACHE: tempDir() };
  const verbose = (dir: string, cache: string) => {
    const result = runCli(['map', dir, '--cache-dir', cache, '--verbose'], { env });
    assert.equal(result.code, 0, result.stderr);
    return result.stderr.split('\n')[0];
  };
  assert.doesNotMatch(verbose(root, tempDir()), /related graph read/, 'built, and published');
  const cloneCache = tempDir();
  assert.match(verbose(clone, cloneCache), /0 parsed, 0 unchanged, .* [1-9]\d* from the shared cache, .*; related graph read from the shared cache$/);
  assert.match(verbose(clone, cloneCache), /0 parsed, [1-9]\d* unchanged, .* 0 from the shared cache, .*; related graph read from the cache$/);
});

test('user mistakes are one line on stderr and exit 2, never a stack trace', () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  assertUserError(runCli(['map', `${root}/nope`]), /repository root .*nope does not exist/);
  assertUserError(runCli(['map', `${root}/README.md`]), /is not a directory/);
  // An empty ROOT is said to be empty by every command, not named as a blank.
  for (const command of [['map'], ['query'], ['symbols', 'Cart'], ['eval'], ['start'], ['status'], ['stop'], ['restart']]) {
    assertUserError(runCli([...command, '']), /^repomap: repository root is empty \(''\)$/);
  }
  // mcp says it on stderr too, and serves all the same, each call answering it (see mcp.test.ts): it ends when its input does.
  const mcp = runCli(['mcp', '']);
  assert.deepEqual([mcp.code, mcp.stdout, mcp.stderr], [0, '', "repomap: repository root is empty ('')\n"]);
  assertUserError(runCli(['map', root, '--chat', '']), /^repomap: chat file is empty \(''\)$/);
  assertUserError(runCli(['map', root, '--mention', '']), /^repomap: --mention must be a list of non-empty strings, not \[""\]$/);
  assertUserError(runCli(['status', root, '--all']), /^repomap: status takes a ROOT or --all, not both/);
  // An empty glob: picomatch throws on it, and a daemon started with it would die.
  for (const command of [['map', root], ['query', root], ['symbols', 'Cart', root], ['eval', root], ['mcp', root], ['start', root]]) {
    assertUserError(runCli([...command, '--exclude', '', '--cache-dir', cache]), /^repomap: --exclude takes a glob, not an empty string$/);
  }
  // An empty cache folder: taken as not given, it would write to the default cache without a word.
  for (const command of [['map', root], ['query', root], ['symbols', 'Cart', root], ['eval', root], ['mcp', root], ['start', root]]) {
    assertUserError(runCli([...command, '--cache-dir', '']), /^repomap: --cache-dir takes a folder, not an empty string$/);
  }
  // git's own folder is no work tree: a map of it would be one of git's objects and refs.
  const bare = tempDir();
  git(bare, 'init', '-q', '--bare');
  git(root, 'init', '-q');
  for (const [command, dir] of [['map', bare], ['map', join(root, '.git')], ['query', join(root, '.git', 'refs')], ['symbols', join(root, '.git')]] as const) {
    const args = command === 'symbols' ? [command, 'Cart', dir] : [command, dir];
    assertUserError(runCli([...args, '--cache-dir', tempDir()]), /is a git folder without a work tree \(a bare repository or a \.git folder\): give the folder of a checkout$/);
  }
  // parseArgs' own words, begun in lower case as every message is.
  assertUserError(runCli(['map', root, '--bogus']), /^repomap: map: unknown option '--bogus' \(see 'repomap map --help'\)$/);
  assertUserError(runCli(['map', root, '--tokens']), /^repomap: map: option '--tokens <value>' argument missing \(see 'repomap map --help'\)$/);
  assertUserError(runCli(['map', root, '--exclude', '!src', '--cache-dir', cache]), /^repomap: exclude glob !src: a negation \('!'\) is not supported; the globs name what to leave out$/);
  assertUserError(runCli(['map', root, '--tokens', '10', '--tokens', '-5']), /--tokens needs a value, and '-5' reads as an option/);
  assertUserError(runCli(['map', root, '--chat', '/etc/hostname', '--cache-dir', cache]), /outside the repository root/);
  assertUserError(runCli(['map', root, '--chat', 'src/missing.ts', '--cache-dir', cache], { cwd: root }), /chat file src\/missing\.ts does not exist/);
  assertUserError(runCli(['map', root, '--tokens', 'many']), /--tokens takes a positive whole number/);
  assertUserError(runCli(['map', root, '--tokens', '65537']), /--tokens must be at most 65536, not 65537/);
  assertUserError(runCli(['query', root, '--tokens', '65537']), /--tokens must be at most 65536, not 65537/);
  assertUserError(runCli(['map', root, '--max-tokens', '65537']), /--max-tokens must be at most 65536, not 65537/);
  assertUserError(runCli(['map', root, '--format', 'xml']), /--format must be one of text, markdown, json/);
  assertUserError(runCli(['map', root, '--encoding', 'klingon', '--cache-dir', cache]), /unknown token encoding 'klingon'/);
  assertUserError(runCli(['map', root, root]), /one ROOT/);
  assertUserError(runCli(['map', root, '--ranking', 'random']), /--ranking must be one of repomap, aider/);
  assertUserError(runCli(['frobnicate']), /unknown command 'frobnicate'/);
});

test('an absolute --exclude inside the root is taken from the root, anchored there; one outside it is a one-line mistake of every command', () => {
  const root = copyFixture('shop');
  mkdirSync(join(root, 'src', 'api'));
  writeFileSync(join(root, 'src', 'api', 'routes.ts'), 'export function route(): void {}\n');
  const cache = tempDir();
  const mapped = (dir: string, ...exclude: string[]) => {
    const result = runCli(['map', dir, '--cache-dir', cache, '--tokens', '8192', '--format', 'json', ...exclude.flatMap((glob) => ['--exclude', glob])]);
    assert.equal(result.code, 0, result.stderr);
    return (JSON.parse(result.stdout) as { files: Array<{ path: string }> }).files.map((file) => file.path).sort();
  };
  const absolute = mapped(root, join(root, 'api'));
  assert.ok(!absolute.some((path) => path.startsWith('api/')), absolute.join(' '));
  assert.ok(absolute.includes('src/api/routes.ts'), 'the root\'s api/ alone, not every folder named api');
  assert.deepEqual(mapped(root, './api'), absolute);
  assert.deepEqual(mapped(root, `${root}/api/`), absolute);
  const floating = mapped(root, 'api');
  assert.ok(!floating.some((path) => path.startsWith('api/') || path.startsWith('src/api/')), 'a name without a slash matches at any depth');
  // The root and the glob through a symlink (a shell's $PWD), resolved to the root.
  const link = join(tempDir(), 'shop');
  symlinkSync(root, link);
  assert.deepEqual(mapped(link, join(link, 'api')), absolute);
  assert.deepEqual(mapped(root, join(link, 'api')), absolute);
  // A glob below an absolute folder, and a glob with a slash, are matched from the root.
  const sources = mapped(root, `${root}/src/**/*.ts`);
  assert.ok(!sources.some((path) => path.startsWith('src/')) && sources.includes('api/server.py'), sources.join(' '));
  const top = mapped(root, 'src/*.ts');
  assert.ok(!top.includes('src/cart.ts') && top.includes('src/api/routes.ts'), top.join(' '));

  const runtime = tempDir('repomap-run-'); // a daemon, if one were started, is private to this test
  const outside = join(root, '..', 'elsewhere', 'vendor');
  for (const command of [['map', root], ['query', root], ['symbols', 'Cart', root], ['symbols', 'Cart', root, '--daemon'], ['eval', root], ['mcp', root], ['start', root]]) {
    const result = runCli([...command, '--exclude', outside, '--cache-dir', cache], { env: { XDG_RUNTIME_DIR: runtime } });
    assertUserError(result, /^repomap: exclude glob \/\S+\/elsewhere\/vendor lies outside the repository root \/\S+ \(globs are matched against paths from the root\)$/);
  }
  assertUserError(runCli(['map', root, '--exclude', `${root}/`, '--cache-dir', cache]), /^repomap: exclude glob \S+ is the repository root itself, not a path in it$/);
  assert.equal(runCli(['status', root], { env: { XDG_RUNTIME_DIR: runtime } }).code, 1, 'no daemon was started');
});

test('a glob picomatch cannot compile is a one-line mistake of every command that takes --exclude, naming it and why', () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const runtime = tempDir('repomap-run-'); // a daemon, if one were started, is private to this test
  for (const command of [['map', root], ['query', root], ['symbols', 'Cart', root], ['symbols', 'Cart', root, '--daemon'], ['eval', root], ['mcp', root], ['start', root], ['restart', root]]) {
    const result = runCli([...command, '--exclude', 'src/[', '--cache-dir', cache], { env: { XDG_RUNTIME_DIR: runtime } });
    assertUserError(result, /^repomap: exclude glob src\/\[: its '\[' has no closing '\]' \(write \\\[ to match a literal '\['\)$/);
  }
  assert.equal(runCli(['status', root], { env: { XDG_RUNTIME_DIR: runtime } }).code, 1, 'no daemon was started');
  // Each way picomatch would otherwise read a glob as a literal or as matching nothing.
  const refused: Array<[string, RegExp]> = [
    ['*.{ts', /exclude glob \*\.\{ts: its '\{' has no closing '\}' \(write \\\{ to match a literal '\{'\)$/],
    ['api)', /exclude glob api\): its '\)' has no opening '\(' \(write \\\) to match a literal '\)'\)$/],
    ['[z-a].ts', /exclude glob \[z-a\]\.ts: picomatch cannot compile it: range out of order in character class$/],
    ['api\\', /exclude glob api\\: it ends in a '\\' that escapes nothing \(write \\\\ to match a literal '\\'\)$/],
  ];
  for (const [glob, pattern] of refused) assertUserError(runCli(['map', root, '--exclude', glob, '--cache-dir', cache]), pattern);
  assert.deepEqual(readdirSync(cache), [], 'refused before any command made its cache');
  // The globs it compiles still match as before: a bracket class, and a bracket escaped.
  const mapped = (glob: string) => {
    const result = runCli(['map', root, '--cache-dir', cache, '--tokens', '8192', '--format', 'json', '--exclude', glob]);
    assert.equal(result.code, 0, result.stderr);
    return (JSON.parse(result.stdout) as { files: Array<{ path: string }> }).files.map((file) => file.path);
  };
  const classed = mapped('src/[c]art.ts');
  assert.ok(!classed.includes('src/cart.ts') && classed.includes('src/checkout.ts'), classed.join(' '));
  assert.ok(mapped('\\[').includes('src/cart.ts'));
});

test('a --chat path is taken from the current directory, else from the root', () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const elsewhere = tempDir();
  const fromRoot = runCli(['map', root, '--chat', 'src/cart.ts', '--cache-dir', cache, '--format', 'json'], { cwd: elsewhere });
  assert.equal(fromRoot.code, 0, fromRoot.stderr);
  assert.deepEqual((JSON.parse(fromRoot.stdout) as { request: { chatFiles: string[] } }).request.chatFiles, ['src/cart.ts']);
  assertUserError(runCli(['map', root, '--chat', 'src/missing.ts', '--cache-dir', cache], { cwd: elsewhere }), /chat file src\/missing\.ts does not exist/);
  // A file of that name in the current directory comes first: the path is what the shell completed.
  mkdirSync(join(elsewhere, 'src'));
  writeFileSync(join(elsewhere, 'src', 'cart.ts'), 'x = 1\n');
  assertUserError(
    runCli(['map', root, '--chat', 'src/cart.ts', '--cache-dir', cache], { cwd: elsewhere }),
    new RegExp(`chat file src/cart\\.ts is ${elsewhere}/src/cart\\.ts, outside the repository root ${root}; for the root's, give --chat ${root}/src/cart\\.ts$`),
  );
  // The path it suggests is quoted for a POSIX shell where it must be: pasted, it names the root's file.
  const quoted = join(tempDir(), "the shop's copy");
  renameSync(root, quoted);
  const refused = runCli(['map', quoted, '--chat', 'src/cart.ts', '--cache-dir', cache], { cwd: elsewhere });
  assert.equal(refused.code, 2, refused.stderr);
  const suggested = /; for the root's, give --chat (.*)$/.exec(refused.stderr.trimEnd())?.[1] ?? '';
  assert.ok(suggested.startsWith("'"), suggested);
  const pasted = spawnSync('sh', ['-c', `printf %s ${suggested}`], { encoding: 'utf8' });
  assert.equal(pasted.stdout, join(quoted, 'src', 'cart.ts'));
  assert.equal(runCli(['map', quoted, '--chat', pasted.stdout, '--cache-dir', cache], { cwd: elsewhere }).code, 0);
});

test('an explicit --tokens is the cap, chat file or not (the x8 applies to the default budget only)', () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const given = runCli(['map', root, '--cache-dir', cache, '--tokens', '128', '--format', 'json']);
  assert.equal(given.code, 0, given.stderr);
  const map = JSON.parse(given.stdout) as { budget: number; tokens: number };
  assert.equal(map.budget, 128);
  assert.ok(map.tokens <= 128, `${map.tokens} tokens`);
  const byDefault = runCli(['map', root, '--cache-dir', cache, '--format', 'json']);
  assert.equal((JSON.parse(byDefault.stdout) as { budget: number }).budget, 8192);
});

test('--help tells the options', () => {
  const result = runCli(['map', '--help']);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /--tokens N +token budget, at most 65536; given, it is the cap/);
  for (const flag of ['--chat', '--mention', '--message', '--tokens', '--max-tokens', '--format', '--cache-dir', '--exclude', '--verbose']) {
    assert.ok(result.stdout.includes(flag), `help mentions ${flag}`);
  }
  // The commands that may start a daemon describe its options in one text: mcp's too says what 0 means.
  const startLines = (command: string) => runCli([command, '--help']).stdout.split('\n').filter((line) => /^ {2}--(cache-dir|workers|exclude|idle-timeout) /.test(line));
  for (const command of ['query', 'start', 'restart', 'mcp']) {
    const lines = startLines(command);
    assert.equal(lines.length, 4, `${command}: ${lines.join('\n')}`);
    assert.match(lines[3], /^ {2}--idle-timeout SECS {2}the daemon exits after this long without a request \(default 1800; 0 = never\)$/);
    assert.deepEqual(lines, startLines('query'));
  }
  // Each help names the project config's keys the command reads, and none it ignores.
  const configKeys = (command: string) => /\(keys read here: ([^)]*)\)/.exec(runCli([command, '--help']).stdout)?.[1].split(', ');
  assert.deepEqual(configKeys('map'), ['exclude', 'include', 'tokens', 'maxTokens', 'encoding', 'workers', 'maxFileBytes', 'languages']);
  assert.deepEqual(configKeys('symbols'), ['exclude', 'include', 'workers', 'maxFileBytes', 'idleTimeout', 'languages']);
  assert.deepEqual(configKeys('eval'), ['exclude', 'include', 'encoding', 'workers', 'maxFileBytes', 'languages']);
  for (const command of ['query', 'mcp']) assert.ok(configKeys(command)?.includes('tokens'), `${command} reads every key`);
  // start and restart start a daemon: its keys apply, not those of a map's request.
  for (const command of ['start', 'restart']) assert.deepEqual(configKeys(command), ['exclude', 'include', 'workers', 'maxFileBytes', 'idleTimeout', 'languages'], command);
  // mcp's help shows the installed command, never `npx -y` (the package is not published; -y would install whatever is later).
  const mcpHelp = runCli(['mcp', '--help']).stdout;
  assert.doesNotMatch(mcpHelp, /npx/);
  assert.match(mcpHelp, /"command": "repomap", "args": \["mcp", "\/path\/to\/repo"\]/);
  for (const command of ['stop', 'status']) assert.equal(configKeys(command), undefined, `${command} reads no config`);
});

test('map --wait during a first index answers a partial map of what the chat file needs, marked so; the stored records are kept', () => {
  const root = copyFixture('shop');
  for (let i = 0; i < 3000; i++) writeFileSync(join(root, 'api', `gen${i}.py`), `def generated_${i}():\n    return ${i}\n`);
  const cache = tempDir();
  const args = ['map', root, '--cache-dir', cache, '--workers', '2', '--tokens', '512', '--chat', `${root}/src/checkout.ts`, '--quiet'];
  const early = runCli([...args, '--wait', '0']);
  assert.equal(early.code, 0, early.stderr);
  const header = /^\(partial map: the index is still being built, (\d+) of 3009 source files indexed; ask again for the complete map\)\n/.exec(early.stdout);
  assert.ok(header && Number(header[1]) < 3009, early.stdout.slice(0, 200));
  for (const imported of ['src/cart.ts', 'src/pricing.ts', 'src/mailer.ts']) assert.match(early.stdout, new RegExp(`^${imported.replace('.', '\\.')}`, 'm'));

  const complete = runCli([...args, '--format', 'json']);
  assert.equal(complete.code, 0, complete.stderr);
  const map = JSON.parse(complete.stdout) as { partial?: unknown; stats: { parsed: number; reusedByStat: number } };
  assert.equal(map.partial, undefined);
  assert.equal(map.stats.parsed + map.stats.reusedByStat, 3009);
  assert.ok(map.stats.reusedByStat >= 4, `what the first run parsed is reused (${map.stats.reusedByStat})`);
  const fresh = runCli(['map', root, '--cache-dir', tempDir(), '--workers', '1', '--tokens', '512', '--chat', `${root}/src/checkout.ts`]);
  assert.equal(JSON.parse(complete.stdout).text, fresh.stdout, 'the same map as an index made in one go');
});

test('--wait takes a number of seconds, 0 or more', () => {
  const root = copyFixture('shop');
  for (const bad of ['-1', 'abc', '1e3', '']) {
    assertUserError(runCli(['map', root, '--cache-dir', tempDir(), `--wait=${bad}`]), /--wait takes a number of seconds, 0 or more, not '/);
    // Refused before a daemon is started.
    assertUserError(runCli(['query', root, `--wait=${bad}`], { env: { XDG_RUNTIME_DIR: tempDir() } }), /--wait takes a number of seconds, 0 or more, not '/);
  }
});

test("status in a subfolder of a repository whose root has a daemon points at the root's daemon", () => {
  const root = copyFixture('shop');
  git(root, 'init', '-q');
  const runtime = tempDir('repomap-run-');
  const env = { XDG_RUNTIME_DIR: runtime };
  const started = runCli(['start', root, '--cache-dir', tempDir()], { env });
  assert.equal(started.code, 0, started.stderr);
  try {
    const sub = runCli(['status', join(root, 'src')], { env });
    assert.equal(sub.code, 1);
    const real = runCli(['status', root, '--format', 'json'], { env });
    const top = (JSON.parse(real.stdout) as { root: string }).root;
    assert.equal(sub.stdout, `repomap: no daemon runs for ${top}/src; ${top}'s daemon runs (repomap status ${top})\n`);
  } finally {
    runCli(['stop', root], { env });
  }
  // With no daemon above, the line is as before.
  assert.equal(runCli(['status', join(root, 'src')], { env }).stdout, `repomap: no daemon runs for ${realpathSync(root)}/src\n`);
});
