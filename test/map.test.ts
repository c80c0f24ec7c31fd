import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { get_encoding } from 'tiktoken';
import { ReferenceGraph } from '../src/graph/graph.js';
import { buildMap, mapFromIndex } from '../src/map.js';
import { MAX_TOKENS } from '../src/api/request.js';
import { rankDefinitions } from '../src/rank/rank.js';
import { MAX_STORED_LINE } from '../src/extract/extract.js';
import { PREAMBLE } from '../src/render/render.js';
import { copyFixture, git, indexOnce, loopInPlaceOf, tempDir } from './helpers.js';

const encoder = get_encoding('cl100k_base');
const countTokens = (text: string) => encoder.encode(text, [], []).length;

/** A generated repository much larger than any budget used here: modules that call each other. */
function writeLargeRepo(root: string, modules = 120): void {
  mkdirSync(join(root, 'src'), { recursive: true });
  for (let m = 0; m < modules; m++) {
    const lines = [`import { helperNumber${(m + 1) % modules}A } from './module${(m + 1) % modules}';`, ''];
    lines.push(`export class WidgetController${m} {`);
    for (let f = 0; f < 4; f++) {
      lines.push(`  handleRequestNumber${f}(input: string): string {`, `    return helperNumber${(m + 1) % modules}A(input);`, '  }');
    }
    lines.push('}', '');
    for (const suffix of ['A', 'B', 'C']) {
      lines.push(`export function helperNumber${m}${suffix}(value: string): string {`);
      lines.push(`  return new WidgetController${(m * 7) % modules}().handleRequestNumber${m % 4}(value);`, '}', '');
    }
    writeFileSync(join(root, 'src', `module${m}.ts`), lines.join('\n'));
  }
}

test('the map never exceeds the budget and fills at least 90% of it on a larger repository', async () => {
  const root = tempDir();
  writeLargeRepo(root);
  const cacheDir = tempDir();
  for (const tokens of [256, 1024, 2048]) {
    const map = await buildMap({ root, cacheDir, tokens, chatFiles: ['src/module0.ts'] });
    assert.equal(map.budget, tokens);
    assert.equal(map.tokens, countTokens(map.text), 'reported tokens are the exact count');
    assert.ok(map.tokens <= tokens, `${map.tokens} tokens exceed the budget of ${tokens}`);
    assert.ok(map.tokens >= 0.9 * tokens, `${map.tokens} tokens fill less than 90% of ${tokens}`);
  }
});

test('with no chat files the default budget is multiplied by 8; maxTokens caps the default either way; a given budget is the cap', async () => {
  const root = tempDir();
  writeLargeRepo(root);
  const cacheDir = tempDir();
  const wide = await buildMap({ root, cacheDir, maxTokens: 4096 });
  assert.equal(wide.budget, 4096);
  assert.ok(wide.tokens <= 4096 && wide.tokens >= 0.9 * 4096);
  // A cap below the default makes a smaller map, with chat files or without.
  assert.equal((await buildMap({ root, cacheDir, maxTokens: 300 })).budget, 300);
  assert.equal((await buildMap({ root, cacheDir, maxTokens: 300, chatFiles: ['src/module1.ts'] })).budget, 300);
  assert.equal((await buildMap({ root, cacheDir, chatFiles: ['src/module1.ts'] })).budget, 1024);
  const given = await buildMap({ root, cacheDir, tokens: 512 });
  assert.equal(given.budget, 512);
  assert.ok(given.tokens <= 512);
  // A library caller is told the option it gave, by its name (the CLI's flags are cli.test.ts's).
  await assert.rejects(buildMap({ root, cacheDir, tokens: MAX_TOKENS + 1 }), { code: 'bad-request', message: `tokens must be at most ${MAX_TOKENS}, not ${MAX_TOKENS + 1}` });
  await assert.rejects(buildMap({ root, cacheDir, exclude: [''] }), { code: 'bad-request', message: 'a glob of exclude or include is an empty string' });
  const elsewhere = join(root, '..', 'elsewhere');
  await assert.rejects(buildMap({ root, cacheDir, include: [elsewhere] }), {
    code: 'bad-request',
    message: `include glob ${elsewhere} lies outside the repository root ${realpathSync(root)} (globs are matched against paths from the root)`,
  });
  await assert.rejects(buildMap({ root, cacheDir, maxTokens: MAX_TOKENS + 1 }), { code: 'bad-request', message: `maxTokens must be at most ${MAX_TOKENS}, not ${MAX_TOKENS + 1}` });
});

test('the same tree and request give byte-identical maps, with a fresh or a warm cache', async () => {
  const root = copyFixture('shop');
  const request = { tokens: 512, chatFiles: ['src/checkout.ts'], message: 'make priceOf handle bulk orders' };
  const a = await buildMap({ root, cacheDir: tempDir(), ...request });
  const b = await buildMap({ root, cacheDir: tempDir(), ...request });
  const cacheDir = tempDir();
  const warm = await buildMap({ root, cacheDir, ...request });
  const warmAgain = await buildMap({ root, cacheDir, ...request });
  assert.equal(warmAgain.stats.parsed, 0);
  assert.equal(a.text, b.text);
  assert.equal(a.text, warm.text);
  assert.equal(a.text, warmAgain.text);
  assert.deepEqual(a.files, b.files);
});

async function shopRanking(chat: string[], mentions: string[] = []) {
  const root = copyFixture('shop');
  const index = await indexOnce({ root, cacheDir: tempDir() });
  const graph = ReferenceGraph.fromRecords(index.records);
  const chatFiles = new Set(chat);
  const mentionedIdents = new Set(mentions);
  return rankDefinitions(graph.compile({ chatFiles, mentionedIdents }), { chatFiles, mentionedFiles: new Set(), mentionedIdents });
}

test('the chat file steers the ranking toward what it uses, and is not itself ranked or shown', async () => {
  const ranking = await shopRanking(['src/checkout.ts']);
  assert.ok(!ranking.definitions.some((def) => def.path === 'src/checkout.ts'));
  // checkout.ts uses cart.ts, pricing.ts and mailer.ts (and, through them, item.ts); nothing
  // reaches the Python, Go or Rust files, so every TypeScript definition outranks theirs.
  const order = ranking.definitions.map((def) => def.path);
  const lastTs = Math.max(...['src/cart.ts', 'src/pricing.ts', 'src/mailer.ts', 'src/item.ts'].map((p) => order.lastIndexOf(p)));
  const firstOther = order.findIndex((path) => !path.startsWith('src/'));
  assert.ok(lastTs < firstOther, 'definitions the chat file reaches come first');
  const unchatted = await shopRanking([]);
  assert.ok(ranking.fileRank.get('src/mailer.ts')! > unchatted.fileRank.get('src/mailer.ts')!);

  const root = copyFixture('shop');
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 1024, chatFiles: ['src/checkout.ts'] });
  assert.ok(!map.files.some((file) => file.path === 'src/checkout.ts'));
});

test('a mentioned identifier raises its definition; one naming a file personalizes that file', async () => {
  const position = async (mentions: string[]) =>
    (await shopRanking(['src/checkout.ts'], mentions)).definitions.findIndex((def) => def.ident === 'withTax');
  assert.ok((await position(['withTax'])) < (await position([])));

  const root = copyFixture('shop');
  const plain = await buildMap({ root, cacheDir: tempDir(), tokens: 1024 });
  const firstRanked = (files: typeof plain.files) => files.find((file) => file.lines.length > 0)?.path;
  assert.notEqual(firstRanked(plain.files), 'src/mailer.ts');
  const steered = await buildMap({ root, cacheDir: tempDir(), tokens: 1024, mentionedIdents: ['mailer'] });
  assert.equal(firstRanked(steered.files), 'src/mailer.ts');
});

test('a message mentions identifiers and files; a file named by path is personalized', async () => {
  const root = copyFixture('shop');
  const map = await buildMap({
    root,
    cacheDir: tempDir(),
    tokens: 1024,
    chatFiles: ['src/cart.ts'],
    message: 'Please make `mailer.ts` retry, see formatReceipt.',
  });
  assert.deepEqual(map.request.mentionedFiles, ['src/mailer.ts']);
  assert.ok(map.request.mentionedIdents.includes('formatReceipt'));
  assert.equal(map.files.find((file) => file.lines.length > 0)?.path, 'src/mailer.ts');
});

test('render: path header, │ shown lines with scope headers, … where lines are elided', async () => {
  const root = copyFixture('shop');
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 4096, chatFiles: ['src/checkout.ts'] });
  const block = map.text.split('\n\n').find((part) => part.startsWith('src/cart.ts:'));
  assert.ok(block, 'cart.ts is rendered');
  const lines = block.split('\n');
  assert.equal(lines[0], 'src/cart.ts:');
  assert.equal(lines[1], '…'); // the imports before the class are elided
  assert.equal(lines[2], '│export class Cart {');
  // The method's enclosing class header is shown above it, and the elided gap between them is marked.
  const discounted = lines.indexOf('│  discountedTotal(percent: number): number {');
  assert.ok(discounted > 2);
  assert.equal(lines[discounted - 1], '…');
  assert.equal(lines[lines.length - 1], '…');
  for (const line of lines.slice(1)) assert.ok(line === '…' || line.startsWith('│'), `unexpected line ${line}`);
});

test('render: a signature line is shown whole up to 300 characters, a longer one cut with an ellipsis; a file with nothing to show is its bare path', async () => {
  const root = tempDir();
  writeFileSync(join(root, 'long.ts'), `export function withAVeryLongSignature(${'x'.repeat(150)}: string): void {}\n`);
  writeFileSync(join(root, 'longer.ts'), `export function evenLongerSignature(${'y'.repeat(400)}: string): void {}\n`);
  writeFileSync(join(root, 'empty.ts'), '// nothing defined here\nconsole.log(1);\n');
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 1024 });
  const lines = map.text.split('\n');
  assert.ok(lines.includes(`│export function withAVeryLongSignature(${'x'.repeat(150)}: string): void {}`));
  const cut = lines.find((line) => line.startsWith('│export function evenLongerSignature'));
  assert.ok(cut);
  assert.equal(cut.length, 1 + MAX_STORED_LINE);
  assert.ok(cut.endsWith('y…'));
  assert.match(map.text, /^empty\.ts$/m);
});

test('important files come first; skipped files are counted in a footer', async () => {
  const root = copyFixture('shop');
  writeFileSync(join(root, 'blob.ts'), Buffer.from([0x65, 0x00, 0x66, 0x00]));
  writeFileSync(join(root, 'bundle.min.js'), `var a=${'1+'.repeat(1100)}1;\n`);
  writeFileSync(join(root, 'huge.py'), `x = 1\n${'# padding\n'.repeat(500)}`);
  writeFileSync(join(root, 'notes.txt'), 'not code\n');
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 2048, maxFileBytes: 4000 });
  const lines = map.text.split('\n');
  assert.deepEqual(lines.slice(0, 2), ['README.md', 'package.json']);
  assert.deepEqual(map.skipped, { 'no grammar': 1, 'too large': 1, binary: 1, minified: 1 });
  assert.equal(lines[lines.length - 2], '(4 files not mapped: 1 no grammar, 1 too large, 1 binary, 1 minified; --verbose lists them)');
  assert.deepEqual(
    map.skippedFiles.map((file) => [file.path, file.reason]),
    [['blob.ts', 'binary'], ['bundle.min.js', 'minified'], ['huge.py', 'too large'], ['notes.txt', 'no grammar']],
  );
});

test('a footer that would leave no file is shortened, then dropped; a budget too small for any line is refused with the budget that shows one', async () => {
  const root = copyFixture('shop');
  writeFileSync(join(root, 'notes.txt'), 'not code\n');
  const cacheDir = tempDir();
  const full = '(1 file not mapped: 1 no grammar; --verbose lists them)';
  const short = '(1 file not mapped)';
  assert.equal((await buildMap({ root, cacheDir, tokens: 2048 })).text.split('\n').at(-2), full, 'the full footer where it fits with files');
  // README.md comes first (an important file); the full footer and it do not fit, the short one does.
  const shortened = countTokens(`README.md\n\n${short}\n`);
  assert.ok(countTokens(`${full}\n`) > shortened, 'the full footer alone takes the budget');
  assert.equal((await buildMap({ root, cacheDir, tokens: shortened })).text, `README.md\n\n${short}\n`);
  const dropped = await buildMap({ root, cacheDir, tokens: shortened - 1 });
  assert.ok(dropped.files.length > 0 && !dropped.text.includes('not mapped'), dropped.text);
  // No line fits: refused, saying the budget that shows one (which does), the preamble counted when asked for.
  const least = countTokens('README.md\n');
  const message = (tokens: string, asked: string) => `no line of the map of ${realpathSync(root)} fits in ${tokens}: ask for at least ${asked}`;
  await assert.rejects(buildMap({ root, cacheDir, tokens: 1 }), { code: 'bad-request', message: message('1 token', `${least} tokens`) });
  await assert.rejects(buildMap({ root, cacheDir, tokens: least - 1, ranking: 'aider' }), { code: 'bad-request', message: message(`${least - 1} tokens`, `${least} tokens`) });
  assert.equal((await buildMap({ root, cacheDir, tokens: least })).text, 'README.md\n');
  const withPreamble = countTokens(`${PREAMBLE}\n\nREADME.md\n`);
  await assert.rejects(buildMap({ root, cacheDir, tokens: withPreamble - 1, preamble: true }), {
    code: 'bad-request',
    message: message(`${withPreamble - 1} tokens with the preamble`, `${withPreamble} tokens`),
  });
  assert.equal((await buildMap({ root, cacheDir, tokens: withPreamble, preamble: true })).text, `${PREAMBLE}\n\nREADME.md\n`);
});

test('inside git: tracked and untracked files, not ignored ones; --exclude leaves paths out', async () => {
  const root = copyFixture('shop');
  writeFileSync(join(root, '.gitignore'), 'api/\n');
  git(root, 'init', '-q');
  git(root, 'add', 'src', 'README.md', '.gitignore');
  git(root, 'commit', '-qm', 'init');
  writeFileSync(join(root, 'untracked.py'), 'def fresh_function():\n    pass\n');
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 4096, exclude: ['tools', '*.rs'] });
  const paths = map.files.map((file) => file.path);
  assert.ok(paths.includes('untracked.py'));
  assert.ok(paths.includes('src/cart.ts'));
  assert.ok(!paths.some((path) => path.startsWith('api/')), 'ignored folder left out');
  assert.ok(!paths.some((path) => path.startsWith('tools/') || path.endsWith('.rs')), 'excluded paths left out');
  // A folder written as a .gitignore writes it, with a trailing slash, is left out as well.
  const slashed = await buildMap({ root, cacheDir: tempDir(), tokens: 4096, exclude: ['src/'] });
  assert.ok(slashed.files.length > 0 && !slashed.files.some((file) => file.path.startsWith('src/')), slashed.files.map((file) => file.path).join(' '));
  // An absolute path inside the root is the root's (include as exclude: one matcher takes both from the root).
  const absolute = await buildMap({ root, cacheDir: tempDir(), tokens: 4096, exclude: [join(root, 'src', 'mailer.ts')], include: [join(root, 'src'), `${root}/*.py`] });
  assert.deepEqual(absolute.files.map((file) => file.path).sort(), ['src/cart.ts', 'src/checkout.ts', 'src/item.ts', 'src/pricing.ts', 'untracked.py']);
});

test('outside git: nested .gitignore files are honoured, with negation', async () => {
  const root = copyFixture('shop');
  writeFileSync(join(root, '.gitignore'), '*.py\n');
  writeFileSync(join(root, 'api', '.gitignore'), '!server.py\n');
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 4096 });
  const paths = map.files.map((file) => file.path);
  assert.ok(paths.includes('api/server.py'), 'a nested negation re-includes');
  assert.ok(!paths.includes('api/inventory.py'));
});

test('a broken symlink and a symlink to a folder are listed as skipped, in git and outside it; the link made good is mapped', async () => {
  for (const inGit of [true, false]) {
    const root = copyFixture('shop');
    symlinkSync(join(root, 'gone.ts'), join(root, 'dangling.ts'));
    symlinkSync(join(root, 'loop-b.py'), join(root, 'loop-a.py'));
    symlinkSync(join(root, 'loop-a.py'), join(root, 'loop-b.py'));
    symlinkSync(join(root, 'src'), join(root, 'sources.ts'));
    if (inGit) {
      git(root, 'init', '-q');
      git(root, 'add', '-A');
    }
    const cacheDir = tempDir();
    const unread = (map: { skippedFiles: Array<{ path: string; reason: string }> }) =>
      map.skippedFiles.filter((file) => file.reason !== 'no grammar').map((file) => [file.path, file.reason]);
    const expected = [
      ['dangling.ts', 'broken symlink'],
      ['loop-a.py', 'broken symlink'],
      ['loop-b.py', 'broken symlink'],
      ['sources.ts', 'not a regular file'],
    ];
    const first = await buildMap({ root, cacheDir, tokens: 4096, listSkipped: true });
    assert.deepEqual(unread(first), expected, inGit ? 'in git' : 'walked');
    assert.equal(first.skipped['broken symlink'], 3);
    // The link made good: the file it now leads to is mapped.
    writeFileSync(join(root, 'gone.ts'), 'export function foundAgain() {}\n');
    const second = await buildMap({ root, cacheDir, tokens: 4096, listSkipped: true });
    assert.deepEqual(unread(second), expected.slice(1));
    assert.match(second.text, /foundAgain/);
  }
});

test('a file git lists past a loop of symlinks (or a folder this user may not search) is skipped as unreadable, not dropped as deleted: its record waits for it', async () => {
  const root = copyFixture('shop');
  mkdirSync(join(root, 'locked'));
  writeFileSync(join(root, 'locked', 'h.py'), 'def hidden_helper():\n    return 1\n');
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  const cacheDir = tempDir();
  const unreadable = (map: { skippedFiles: Array<{ reason: string }> }) => map.skippedFiles.filter((file) => file.reason === 'unreadable');
  assert.match((await buildMap({ root, cacheDir, tokens: 4096 })).text, /hidden_helper/);
  const loop = loopInPlaceOf(join(root, 'locked'));
  const out = await buildMap({ root, cacheDir, tokens: 4096, listSkipped: true });
  assert.deepEqual(unreadable(out), [{ path: 'locked/h.py', reason: 'unreadable', detail: 'ELOOP' }]);
  assert.equal(out.skipped.unreadable, 1);
  assert.match(out.text, /\(\d+ files not mapped: .*1 unreadable/);
  assert.equal(out.stats.removed, 0, 'not gone: its record is kept');
  loop.restore();
  const back = await buildMap({ root, cacheDir, tokens: 4096, listSkipped: true });
  assert.match(back.text, /hidden_helper/);
  assert.deepEqual(unreadable(back), []);
  assert.equal(back.stats.parsed, 0, 'its record reused: its stat vouches for it');
});

test('a chat or mentioned file the pass could not read is refused by the check every front end shares, naming it and why', async () => {
  const root = copyFixture('shop');
  const index = await indexOnce({ root, cacheDir: tempDir() });
  const graph = ReferenceGraph.fromRecords(index.records);
  // The pass's skip of a file it could not read (a mode 000 file: as root, whom permission bits do not bind, none is).
  index.skipped.push({ path: 'src/cart.ts', reason: 'unreadable', detail: 'EACCES' });
  for (const [field, what] of [['chatFiles', 'chat file'], ['mentionedFiles', 'mentioned file']] as const) {
    assert.throws(() => mapFromIndex(index, graph, { [field]: ['src/cart.ts'] }), { code: 'bad-request', message: `${what} src/cart.ts cannot be read (EACCES: permission denied)` });
  }
});

test('a symlink out of the root is never followed; one inside is', async () => {
  const outside = tempDir();
  writeFileSync(join(outside, 'secret.ts'), 'export function secretOutside() {}\n');
  const root = copyFixture('shop');
  symlinkSync(join(outside, 'secret.ts'), join(root, 'linked-out.ts'));
  symlinkSync(join(root, 'src', 'item.ts'), join(root, 'linked-in.ts'));
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 4096 });
  assert.doesNotMatch(map.text, /secretOutside/);
  assert.deepEqual(
    map.skippedFiles.filter((file) => file.reason === 'symlink outside root').map((file) => file.path),
    ['linked-out.ts'],
  );
  assert.ok(map.files.some((file) => file.path === 'linked-in.ts'));
});

test('a chat file without a grammar is not counted among the files the map leaves out: the model has it whole', async () => {
  const root = copyFixture('shop');
  writeFileSync(join(root, 'NOTES.txt'), 'a note\n');
  writeFileSync(join(root, 'TODO.txt'), 'a list\n');
  const cacheDir = tempDir();
  const plain = await buildMap({ root, cacheDir, tokens: 1024 });
  const withChat = await buildMap({ root, cacheDir, tokens: 1024, chatFiles: [join(root, 'NOTES.txt')] });
  assert.ok(plain.skippedFiles.some((file) => file.path === 'NOTES.txt'), 'left out without a chat file');
  assert.ok(!withChat.skippedFiles.some((file) => file.path === 'NOTES.txt'), 'not left out as a chat file');
  assert.equal(withChat.skipped['no grammar'], (plain.skipped['no grammar'] ?? 0) - 1);
  // One index asked in turn (as a daemon's is, between changes): each request counts its own chat files.
  const index = await indexOnce({ root, cacheDir: tempDir() });
  const graph = ReferenceGraph.fromRecords(index.records);
  const leftOut = (chatFiles: string[]) => mapFromIndex(index, graph, { chatFiles, tokens: 1024 }).skipped['no grammar'] ?? 0;
  const before = leftOut([]);
  assert.deepEqual([leftOut(['NOTES.txt']), leftOut([]), leftOut(['TODO.txt', 'NOTES.txt'])], [before - 1, before, before - 2]);
});
