import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { directoryOrder, lexicalOrder, packFileList } from '../src/eval/baselines.js';
import { apiScore, formatReport, neededNames, rankerByName, runEval, score } from '../src/eval/eval.js';
import { commitChanges, isChore, mineTasks, openRepo, sampleSpread, taskOf } from '../src/eval/git.js';
import { isTestPath, isVendoredOrGenerated } from '../src/file-kinds.js';
import { leftOutMatcher } from '../src/discover/discover.js';
import { familyOfPath } from '../src/extract/languages.js';
import { isMultiWordIdentifier } from '../src/graph/identifiers.js';
import type { MapBlock } from '../src/render/render.js';
import { tokenCounter } from '../src/pack/tokens.js';
import { fileNames, packRefs } from '../src/extract/refs.js';
import { Outline } from '../src/store/outline.js';
import type { FileNames, FileTags } from '../src/records.js';
import { git, runCli, tempDir } from './helpers.js';

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** A module that defines `name` and calls each of `uses`. */
function module(name: string, uses: string[] = [], extra = ''): string {
  const lines = uses.map((use) => `import { ${use} } from './${use}';`);
  lines.push('', `export function ${name}(value: number): number {`);
  lines.push(`  return ${uses.length > 0 ? uses.map((use) => `${use}(value)`).join(' + ') : 'value'};`, '}', extra, '');
  return lines.join('\n');
}

/**
 * A scripted history: an initial tree, then commits that each modify a few files (the tasks),
 * a chore, a merge-free one-file change, and a commit adding files only.
 */
function scriptedRepo(initial: Record<string, string> = {}): string {
  const root = tempDir('repomap-eval-repo-');
  git(root, 'init', '-q');
  for (const [path, text] of Object.entries(initial)) write(root, path, text);
  const names = ['parseOrder', 'priceOrder', 'shipOrder', 'taxRate', 'formatMoney', 'auditTrail', 'sendMail', 'loadConfig'];
  write(root, 'src/parseOrder.ts', module('parseOrder', ['loadConfig']));
  write(root, 'src/priceOrder.ts', module('priceOrder', ['parseOrder', 'taxRate', 'formatMoney']));
  write(root, 'src/shipOrder.ts', module('shipOrder', ['priceOrder', 'sendMail']));
  write(root, 'src/taxRate.ts', module('taxRate', ['loadConfig']));
  write(root, 'src/formatMoney.ts', module('formatMoney'));
  write(root, 'src/auditTrail.ts', module('auditTrail', ['formatMoney']));
  write(root, 'src/sendMail.ts', module('sendMail', ['formatMoney']));
  write(root, 'src/loadConfig.ts', module('loadConfig'));
  write(root, 'README.md', '# shop\n');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'initial tree');
  // Tasks: priceOrder changes most, taxRate and formatMoney follow.
  for (let round = 0; round < 3; round++) {
    const bulk = Array.from({ length: 6 + round }, (_, i) => `// priceOrder handles bulk discount ${round}.${i}`).join('\n');
    write(root, 'src/priceOrder.ts', module('priceOrder', ['parseOrder', 'taxRate', 'formatMoney'], bulk));
    write(root, 'src/taxRate.ts', module('taxRate', ['loadConfig'], `// rate ${round}`));
    write(root, 'src/formatMoney.ts', module('formatMoney', [], `// cents ${round}`));
    git(root, 'commit', '-qam', `Make priceOrder apply taxRate in bulk, round ${round}`);
  }
  write(root, 'src/sendMail.ts', module('sendMail', ['formatMoney'], '// one file only'));
  git(root, 'commit', '-qam', 'Retry sendMail once');
  write(root, 'src/auditTrail.ts', module('auditTrail', ['formatMoney'], '// v2'));
  write(root, 'src/shipOrder.ts', module('shipOrder', ['priceOrder', 'sendMail'], '// v2'));
  git(root, 'commit', '-qam', 'Bump version to 2.0.0');
  write(root, 'src/extra.ts', module('extraThing'));
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'Add extraThing');
  // A task whose other changed file is a test: shipOrder with its test.
  write(root, 'src/shipOrder.ts', module('shipOrder', ['priceOrder', 'sendMail'], Array(8).fill('// tracking').join('\n')));
  write(root, 'test/shipOrder.test.ts', module('shipOrderTest', ['shipOrder']));
  write(root, 'src/auditTrail.ts', module('auditTrail', ['formatMoney'], '// tracked'));
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'Track shipOrder in auditTrail');
  void names;
  return root;
}

test('tasks: non-merge commits modifying 2 to 8 source files, chores left out, chat file = most changed', async () => {
  const root = scriptedRepo();
  const repo = await openRepo(root);
  const { window, candidates, tasks } = await mineTasks(repo, { tasks: 50 });
  assert.equal(window, 8);
  // 3 rounds + the last commit (test/shipOrder.test.ts was added, so it is not a modified file).
  assert.equal(candidates, 4);
  assert.deepEqual(
    tasks.map((task) => task.subject),
    [
      'Make priceOrder apply taxRate in bulk, round 0',
      'Make priceOrder apply taxRate in bulk, round 1',
      'Make priceOrder apply taxRate in bulk, round 2',
      'Track shipOrder in auditTrail',
    ],
  );
  const first = tasks[0];
  assert.equal(first.chatFile, 'src/priceOrder.ts');
  assert.deepEqual(first.targets, ['src/formatMoney.ts', 'src/taxRate.ts']);
  assert.ok(first.mentions.includes('priceOrder') && first.mentions.includes('taxRate'));
  assert.equal(first.parent, git(root, 'rev-parse', `${first.commit}^`).trim());
  assert.equal(tasks[3].chatFile, 'src/shipOrder.ts');
  assert.deepEqual(tasks[3].targets, ['src/auditTrail.ts']);

  const sampled = await mineTasks(repo, { tasks: 2, seed: 7 });
  assert.equal(sampled.tasks.length, 2);
  assert.deepEqual(sampled, await mineTasks(repo, { tasks: 2, seed: 7 }), 'the sample is deterministic');
});

test('task filters: chores, tests, vendored and generated files, sampling spread', () => {
  assert.ok(isChore('Bump version to 2.0.0') && isChore('chore: update deps') && isChore('Run black over the tree'));
  assert.ok(isChore('Revert "Add a thing"') && isChore('Fix typos in docs') && isChore('v1.2.3'));
  assert.ok(!isChore('Fix lock release in the pool') && !isChore('Add HTTP version 2 support to the client'));
  assert.ok(isTestPath('tests/test_app.py') && isTestPath('src/app_test.go') && isTestPath('src/a.spec.tsx') && isTestPath('pkg/__tests__/x.ts'));
  assert.ok(!isTestPath('src/testing_utils_impl.rs') && !isTestPath('src/contest.py'));
  assert.ok(isVendoredOrGenerated('vendor/x/y.go') && isVendoredOrGenerated('api/v1/types.pb.go') && isVendoredOrGenerated('proto/a_pb2.py'));
  assert.ok(!isVendoredOrGenerated('src/builder.go'));
  const info = {
    commit: 'c',
    parents: ['p'],
    time: 1,
    message: 'Teach shipOrder to retry\n\nSigned-off-by: Some One <one@example.com>',
    files: [
      { path: 'src/a.ts', status: 'M', changedLines: 10 },
      { path: 'tests/test_a.py', status: 'M', changedLines: 50 },
      { path: 'src/b.ts', status: 'M', changedLines: 3 },
      { path: 'docs/a.md', status: 'M', changedLines: 99 },
    ],
  };
  assert.equal(taskOf(info)?.chatFile, 'tests/test_a.py');
  const withoutTests = taskOf(info, { excludeTests: true });
  assert.equal(withoutTests?.chatFile, 'src/a.ts');
  assert.deepEqual(withoutTests?.targets, ['src/b.ts']);
  assert.ok(!withoutTests?.mentions.includes('Signed') && withoutTests?.mentions.includes('shipOrder'));
  assert.equal(taskOf(info, { excludeTests: true }, leftOutMatcher(tempDir(), { exclude: ['b.ts'] })), null, 'one file left: no task');
  assert.equal(taskOf({ ...info, parents: ['p', 'q'] }), null, 'merges are not tasks');

  const items = Array.from({ length: 100 }, (_, i) => i);
  const sample = sampleSpread(items, 10, 3);
  assert.equal(sample.length, 10);
  sample.forEach((item, i) => assert.ok(item >= i * 10 && item < (i + 1) * 10, 'one item per stratum, in order'));
  assert.deepEqual(sampleSpread(items, 10, 3), sample);
  assert.notDeepEqual(sampleSpread(items, 10, 4), sample);
});

test('baselines: folder distance, shared names, packed within the budget', () => {
  const paths = ['a/b/chat.py', 'a/b/near.py', 'a/b/c/below.py', 'a/side.py', 'a/x/cousin.py', 'top.py'];
  assert.deepEqual(directoryOrder('a/b/chat.py', paths), ['a/b/near.py', 'a/b/c/below.py', 'a/side.py', 'a/x/cousin.py', 'top.py']);
  const tags = (defs: string[], refs: Array<[string, string]>): FileTags => ({
    lang: 'python',
    lineCount: defs.length + 1,
    defs: defs.map((name, line) => ({ name, subkind: 'function', line, signatureEnd: line, scopes: [] })),
    refs: packRefs(refs.map(([name, subkind], line) => ({ name, subkind, line }))),
    modules: [],
    lines: defs.map((name, line): [number, string] => [line, `def ${name}():`]),
  });
  const tagsByPath = new Map<string, FileTags>([
    ['chat.py', tags(['handle'], [['Router', 'import'], ['helper', 'call']])],
    ['router.py', tags(['Router'], [])],
    ['both.py', tags([], [['Router', 'call'], ['handle', 'call'], ['retry', 'call']])],
    ['helper.py', tags(['helper'], [])],
    ['none.py', tags(['other'], [])],
  ]);
  const byPath = new Map([...tagsByPath].map(([path, fileTags]): [string, FileNames] => [path, fileNames(fileTags)]));
  // helper is called, not imported: it is not a query name.
  assert.deepEqual(lexicalOrder('chat.py', ['retry'], byPath), ['both.py', 'router.py', 'helper.py', 'none.py']);

  const countTokens = tokenCounter();
  const many = Array.from({ length: 300 }, (_, i) => `pkg/module_${i}.py`);
  const bare = packFileList(many, () => undefined, 200, countTokens, true);
  assert.ok(bare.tokens <= 200 && bare.tokens > 150);
  assert.ok(bare.blocks.every((block, i) => block.path === many[i] && block.lines.length === 0));
  const withDefs = packFileList(['none.py', 'router.py'], (path) => { const fileTags = tagsByPath.get(path); return fileTags && Outline.of(fileTags); }, 1000, countTokens);
  assert.match(withDefs.text, /^none\.py:\n│def other\(\):/);
});

test('score: recall, hit and reciprocal rank of the first target, in map order', () => {
  // README.md is shown but is not a source file: positions count source files only.
  const s = score(['a.py', 'b.py', 'c.py', 'd.py'], ['README.md', 'x.py', 'b.py', 'y.py', 'd.py'], 100);
  assert.equal(s.recall, 0.5);
  assert.equal(s.hit, 1);
  assert.equal(s.rr, 0.5);
  assert.equal(s.files, 5);
  assert.deepEqual(s.found, ['b.py', 'd.py']);
  assert.deepEqual(score(['a.py'], ['x.py'], 5), { recall: 0, hit: 0, rr: 0, tokens: 5, files: 1, ms: 0, found: [] });
});

test('eval scores every ranking on every task, reuses the cache, and leaves the repository alone', async () => {
  const root = scriptedRepo();
  write(root, 'src/uncommitted.ts', 'export const dirty = 1;\n');
  const before = git(root, '--no-optional-locks', 'status', '--porcelain=v1');
  const indexBefore = readFileSync(join(root, '.git', 'index'));
  const headBefore = git(root, 'rev-parse', 'HEAD');
  const scratchBase = tempDir('repomap-eval-scratch-');
  const seen: number[] = [];
  const report = await runEval({
    root,
    budgets: [256, 1024],
    rankers: ['repomap', 'aider', 'directory', 'lexical-paths'].map((name) => rankerByName(name)!),
    scratchBase,
    onTask: (done) => seen.push(done),
  });
  assert.equal(report.tasks.length, 4);
  assert.deepEqual(seen, [0, 1, 2, 3, 4]);
  assert.deepEqual(report.rankers, ['repomap', 'aider', 'directory', 'lexical-paths']);
  assert.equal(report.summary.length, 8);
  for (const result of report.tasks) {
    for (const budget of [256, 1024]) {
      for (const name of report.rankers) {
        const s = result.scores[budget][name];
        assert.ok(s.tokens <= budget, `${name} at ${budget}: ${s.tokens} tokens`);
        assert.ok(s.recall >= 0 && s.recall <= 1);
      }
    }
  }
  // Parents of nearby tasks share most files: later tasks parse only what changed.
  assert.equal(report.tasks[0].parsed, 8);
  assert.ok(report.tasks[1].parsed <= 3, `parsed ${report.tasks[1].parsed}`);
  // The parent tree is what the map sees: the task-4 parent has src/extra.ts, the first does not.
  assert.equal(report.tasks[0].indexed, 8);
  assert.equal(report.tasks[3].indexed, 9);
  // At 1024 tokens this tiny repository fits whole: every target is shown.
  assert.equal(report.summary.find((row) => row.budget === 1024 && row.ranker === 'repomap')!.recall, 1);
  // Nothing of the user's checkout moved, and the scratch folder is gone.
  assert.ok(readFileSync(join(root, '.git', 'index')).equals(indexBefore), 'the index is untouched');
  assert.equal(git(root, '--no-optional-locks', 'status', '--porcelain=v1'), before);
  assert.equal(git(root, 'rev-parse', 'HEAD'), headBefore);
  assert.equal(readFileSync(join(root, 'src/uncommitted.ts'), 'utf8'), 'export const dirty = 1;\n');
  assert.deepEqual(readdirSync(scratchBase), []);
});

test('eval refuses a tag cache another live run holds, and takes over one a dead run left', async () => {
  const root = scriptedRepo();
  const cacheDir = tempDir('repomap-eval-cache-');
  const scratchBase = tempDir('repomap-eval-scratch-');
  const rankers = [rankerByName('repomap')!];
  // A live holder: the process that runs this test file.
  writeFileSync(join(cacheDir, 'eval.lock'), `${process.ppid}\n`);
  await assert.rejects(runEval({ root, budgets: [256], rankers, scratchBase, cacheDir }), (err: Error) => {
    assert.match(err.message, new RegExp(`in use by another repomap eval \\(pid ${process.ppid}\\); give each run its own --cache-dir`));
    return true;
  });
  assert.deepEqual(readdirSync(scratchBase), []);
  // A dead holder's lock is taken, and let go at the end.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  writeFileSync(join(cacheDir, 'eval.lock'), `${dead.stdout}\n`);
  const report = await runEval({ root, budgets: [256], rankers, scratchBase, cacheDir });
  assert.equal(report.tasks.length, 4);
  assert.ok(!readdirSync(cacheDir).includes('eval.lock'));
});

test('eval works on a bare repository; the CLI prints a table or JSON, and rejects mistakes', () => {
  const source = scriptedRepo();
  const bare = join(tempDir('repomap-eval-bare-'), 'repo.git');
  git(tempDir(), 'clone', '-q', '--bare', source, bare);
  const text = runCli(['eval', bare, '--budgets', '512', '--ranking', 'repomap,aider,lexical', '--tasks', '3', '--workers', '1']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /3 tasks \(of 4 candidate commits in the last 8/);
  assert.match(text.stdout, /^budget\s+ranking\s+recall\s+API\s+edit\s+hit\s+MRR\s+files\s+tokens\s+ms$/m);
  // The scripted commits add comments and names of the chat file only: no task needs a name.
  assert.match(text.stdout, /^\s+512\s+repomap\s+[01]\.\d{3}\s+-\s+(-|[01]\.\d{3})\s+[01]\.\d{3}/m);
  assert.match(text.stdout, /^API: .* over the 0 of 3 tasks that use any \(0 names\)$/m);
  assert.match(text.stdout, /^\s+512\s+repomap\s+[01]\.\d{3}/m);
  assert.match(text.stdout, /^\s+512\s+lexical\s+/m);
  const json = runCli(['eval', bare, '--budgets', '512,1024', '--format', 'json', '--exclude-tests']);
  assert.equal(json.code, 0, json.stderr);
  const data = JSON.parse(json.stdout) as {
    summary: Array<{ budget: number; ranker: string; apiRecall: number | null; apiTasks: number }>;
    tasks: Array<{ chatFile: string; targets: string[]; needed: unknown[]; scores: Record<string, Record<string, { recall: number; apiRecall: number | null; shownNames: string[] }>> }>;
  };
  assert.equal(data.tasks.length, 4);
  assert.ok(data.summary.some((row) => row.budget === 1024 && row.ranker === 'aider'));
  assert.ok(typeof data.tasks[0].scores['512'].repomap.recall === 'number');
  assert.deepEqual(data.tasks[0].needed, []);
  assert.equal(data.tasks[0].scores['512'].repomap.apiRecall, null);
  assert.deepEqual(data.tasks[0].scores['512'].repomap.shownNames, []);
  assert.ok(data.summary.every((row) => row.apiRecall === null && row.apiTasks === 0));

  for (const [args, pattern] of [
    [['eval', tempDir()], /is not a git repository/],
    [['eval', emptyRepository()], /^repomap: \S+ has no commits yet \(eval reads its history\)$/m],
    [['eval', bare, '--ranking', 'pagerank'], /unknown ranking 'pagerank'/],
    [['eval', bare, '--budgets', '1024,,2048'], /^repomap: --budgets takes a comma-separated list of positive whole numbers, not '1024,,2048' \(an item is empty\)$/m],
    // A list, said as one, naming the item that is wrong.
    [['eval', bare, '--budgets', '1024,abc'], /^repomap: --budgets takes a comma-separated list of positive whole numbers, and 'abc' is not one$/m],
    [['eval', bare, '--budgets', 'lots'], /^repomap: --budgets takes a comma-separated list of positive whole numbers, and 'lots' is not one$/m],
    [['eval', bare, '--budgets', '512,65537'], /^repomap: --budgets must be at most 65536, not 65537$/m],
    [['eval', bare, '--rev', 'no-such-branch'], /--rev no-such-branch is not a commit/],
    // The root commit alone: no commit to mine, an error rather than a table of zeros.
    [['eval', bare, '--rev', git(bare, 'rev-list', '--max-parents=0', 'HEAD').trim()], /^repomap: no tasks in .*: none of the last 1 first-parent commits/],
  ] as const) {
    const result = runCli([...args]);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, pattern);
  }
});

/** A git repository with no commit. */
function emptyRepository(): string {
  const dir = tempDir();
  git(dir, 'init', '-q');
  return dir;
}

/** Names of a file as the index keeps them: only the defined ones matter to needed names. */
function defining(...defined: string[]): FileNames {
  return { defined: [...defined].sort(), referenced: [], counts: [], imports: [], modules: [] };
}

test('identifiers of two words or more, and language families', () => {
  for (const ident of ['parseOrder', 'PriceOrder', 'HTTPClient', 'getHTTPClient', 'load_config', 'MAX_SIZE', 'Int32Array', '_private_thing']) {
    assert.ok(isMultiWordIdentifier(ident), ident);
  }
  for (const ident of ['Router', 'HTTP', 'value', '__init__', '_private', 'x_', '123']) assert.ok(!isMultiWordIdentifier(ident), ident);
  assert.equal(familyOfPath('a.tsx'), familyOfPath('b.js'));
  assert.equal(familyOfPath('A.kt'), familyOfPath('B.java'));
  assert.equal(familyOfPath('a.cpp'), familyOfPath('b.c'));
  assert.notEqual(familyOfPath('a.py'), familyOfPath('b.ts'));
  assert.notEqual(familyOfPath('a.rb'), familyOfPath('b.php'));
});

test('needed names: compound, 5+ characters, defined by 1 to 3 other non-test files of the chat file\'s family', () => {
  const namesByPath = new Map<string, FileNames>([
    ['src/app.ts', defining('chatOwnName', 'startApp')],
    ['src/parse.ts', defining('parseOrder', 'Router', 'getX', 'chatOwnName')],
    ['src/helper.js', defining('jsHelper')],
    ['src/a.ts', defining('commonName', 'twiceDefined')],
    ['src/b.ts', defining('commonName', 'twiceDefined')],
    ['src/c.ts', defining('commonName')],
    ['src/d.ts', defining('commonName')],
    ['src/a.test.ts', defining('testHelper', 'twiceDefined')],
    ['test/fixtures.ts', defining('testHelper', 'twiceDefined')],
    ['vendor/lib.ts', defining('vendoredThing')],
    ['lib/config.py', defining('load_config')],
  ]);
  const added = ['parseOrder', 'jsHelper', 'commonName', 'twiceDefined', 'testHelper', 'vendoredThing', 'load_config', 'chatOwnName', 'Router', 'getX', 'notDefinedAnywhere', 'value'];
  assert.deepEqual(neededNames(added, 'src/app.ts', namesByPath), [
    { name: 'jsHelper', definers: ['src/helper.js'] },
    { name: 'parseOrder', definers: ['src/parse.ts'] },
    // Tests do not count towards the three definers, nor as definers.
    { name: 'twiceDefined', definers: ['src/a.ts', 'src/b.ts'] },
  ]);
  // From a Python chat file, load_config is needed and the TypeScript names are not.
  assert.deepEqual(neededNames(added, 'lib/main.py', namesByPath), [{ name: 'load_config', definers: ['lib/config.py'] }]);
});

test('API score: a needed name counts when a shown line of a file defining it has it as a whole word', () => {
  const block = (path: string, ...texts: string[]): MapBlock => ({ path, rank: 1, lang: '', lines: texts.map((text, line) => ({ line, text, role: 'scope' as const })), lineCount: texts.length });
  const needed = [
    { name: 'parseOrder', definers: ['src/parse.ts'] },
    { name: 'jsHelper', definers: ['src/helper.js'] },
    { name: 'taxRate', definers: ['src/tax.ts', 'src/rate.ts'] },
  ];
  const blocks = [
    block('src/parse.ts', 'export function parseOrder(text: string): Order {'),
    // jsHelper on a line of a file that does not define it, and as part of a longer name where it is defined.
    block('src/app.ts', 'import { jsHelper } from "./helper";'),
    block('src/helper.js', 'export function jsHelperFactory() {'),
    block('src/rate.ts', 'export const taxRate = 0.2;'),
    block('src/tax.ts'),
  ];
  assert.deepEqual(apiScore(needed, blocks), { apiRecall: 2 / 3, shownNames: ['parseOrder', 'taxRate'] });
  // A bare path shows no line: nothing is shown.
  assert.deepEqual(apiScore(needed, [block('src/parse.ts')]), { apiRecall: 0, shownNames: [] });
  assert.deepEqual(apiScore([], blocks), { apiRecall: null, shownNames: [] });
});

/**
 * A repository with two tasks: one whose chat file starts calling applyDiscount (defined in
 * src/pricing.ts), one that only adds comments.
 */
function apiRepo(): string {
  const root = tempDir('repomap-eval-api-');
  git(root, 'init', '-q');
  write(root, 'src/pricing.ts', 'export function applyDiscount(total: number): number {\n  return total * 0.9;\n}\n');
  write(root, 'src/cart.ts', 'export function cartTotal(items: number[]): number {\n  return items.length;\n}\n');
  write(root, 'src/ship.ts', 'export function shipCart(): void {\n  return;\n}\n');
  write(root, 'README.md', '# shop\n');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'initial tree');
  write(
    root,
    'src/cart.ts',
    [
      "import { applyDiscount } from './pricing';",
      'export function cartTotal(items: number[]): number {',
      '  let sum = 0;',
      '  for (const item of items) sum += item;',
      '  ++discountedCount;',
      '  return applyDiscount(sum);',
      '}',
      'let discountedCount = 0;',
      '',
    ].join('\n'),
  );
  write(root, 'src/ship.ts', 'export function shipCart(): void {\n  // ships the cart\n  return;\n}\n');
  write(root, 'README.md', '# shop\n\nTotals use shipCartLater.\n');
  git(root, 'commit', '-qam', 'Discount the cart total');
  write(root, 'src/cart.ts', 'export function cartTotal(items: number[]): number {\n  // counted later\n  return items.length;\n}\n// more\n');
  write(root, 'src/ship.ts', 'export function shipCart(): void {\n  // ships the cart, later\n  return;\n}\n');
  git(root, 'commit', '-qam', 'Count the cart later');
  return root;
}

test('added identifiers: the + lines of source files, from one diff', async () => {
  const root = apiRepo();
  const repo = await openRepo(root);
  const { added } = await commitChanges(repo, git(root, 'rev-parse', 'HEAD~2').trim(), git(root, 'rev-parse', 'HEAD~1').trim());
  assert.ok(added.has('applyDiscount') && added.has('sum'));
  // `++discountedCount;` is the diff line `+++discountedCount;`: an added line, not a file header.
  assert.ok(added.has('discountedCount'));
  assert.ok(!added.has('shipCartLater'), 'README.md is not a source file');
  // Removed and unchanged lines are not added ones.
  assert.ok(!added.has('length'));
});

test('eval scores API recall: a map showing the needed name, a list of paths that cannot', async () => {
  const root = apiRepo();
  const report = await runEval({
    root,
    budgets: [1024],
    rankers: ['repomap', 'directory-paths'].map((name) => rankerByName(name)!),
    scratchBase: tempDir('repomap-eval-scratch-'),
  });
  assert.deepEqual(report.tasks.map((result) => result.task.subject), ['Discount the cart total', 'Count the cart later']);
  const [discount, later] = report.tasks;
  assert.equal(discount.task.chatFile, 'src/cart.ts');
  assert.deepEqual(discount.needed, [{ name: 'applyDiscount', definers: ['src/pricing.ts'] }]);
  assert.deepEqual(discount.scores[1024].repomap.shownNames, ['applyDiscount']);
  assert.equal(discount.scores[1024].repomap.apiRecall, 1);
  // A list of paths shows files, not lines: API recall does not apply to it (null, not 0).
  assert.deepEqual([discount.scores[1024]['directory-paths'].apiRecall, discount.scores[1024]['directory-paths'].shownNames], [null, []]);
  assert.ok(discount.scores[1024]['directory-paths'].found.length > 0, 'the list shows files, not lines');
  assert.deepEqual(later.needed, []);
  assert.equal(later.scores[1024].repomap.apiRecall, null);
  // The task that needs no name is left out of the mean, not counted as 0 or 1.
  const row = (ranker: string) => report.summary.find((r) => r.ranker === ranker)!;
  assert.equal(row('repomap').apiRecall, 1);
  assert.equal(row('directory-paths').apiRecall, null);
  assert.deepEqual([row('repomap').apiTasks, row('directory-paths').apiTasks], [1, 1]);
  // In the table, as in the README's: a '-' where API recall does not apply.
  assert.match(formatReport(report), /^\s+1024\s+repomap\s+\d\.\d{3}\s+1\.000\s/m);
  assert.match(formatReport(report), /^\s+1024\s+directory-paths\s+\d\.\d{3}\s+-\s/m);
});

test('eval of a subfolder of a work tree reads the history as that folder\'s: the commits changing its files, by their paths from it', async () => {
  const root = scriptedRepo();
  // Two files outside src/ modified together: a task of the repository, none of src/'s.
  write(root, 'tools/lint.ts', module('lintTool'));
  write(root, 'tools/fix.ts', module('fixTool', ['lintTool']));
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'Add the tools');
  write(root, 'tools/lint.ts', module('lintTool', [], '// stricter'));
  write(root, 'tools/fix.ts', module('fixTool', ['lintTool'], '// fixes more'));
  git(root, 'commit', '-qam', 'Make lintTool stricter');
  const run = (folder: string) =>
    runEval({ root: join(root, folder), budgets: [1024], rankers: [rankerByName('repomap')!], scratchBase: tempDir('repomap-eval-scratch-') });
  const whole = await run('');
  assert.ok(whole.tasks.some((result) => result.task.chatFile.startsWith('tools/')));
  const src = await run('src');
  assert.equal(src.root, join(realpathSync(root), 'src'));
  assert.deepEqual(
    src.tasks.map((result) => [result.task.subject, result.task.chatFile, result.task.targets]),
    [
      ['Make priceOrder apply taxRate in bulk, round 0', 'priceOrder.ts', ['formatMoney.ts', 'taxRate.ts']],
      ['Make priceOrder apply taxRate in bulk, round 1', 'priceOrder.ts', ['formatMoney.ts', 'taxRate.ts']],
      ['Make priceOrder apply taxRate in bulk, round 2', 'priceOrder.ts', ['formatMoney.ts', 'taxRate.ts']],
      ['Track shipOrder in auditTrail', 'shipOrder.ts', ['auditTrail.ts']],
    ],
  );
  // The map of each parent is of the folder alone, and shows the targets by the same paths.
  assert.deepEqual(src.tasks.map((result) => result.indexed), [8, 8, 8, 9]);
  assert.equal(src.summary[0].recall, 1);
  // A folder no task's commit changes enough is said to be so.
  mkdirSync(join(root, 'empty'));
  await assert.rejects(run('empty'), /no tasks in .*empty: .* changing 2 to 8 source files under empty\/ /);
});

test('an absolute exclude inside ROOT is taken from ROOT for the tasks and for the maps of each checkout', async () => {
  const root = scriptedRepo();
  const src = join(root, 'src');
  const report = await runEval({
    root: src, // a subfolder: the checkouts' maps are of src/ elsewhere, their paths from it
    exclude: [join(src, 'taxRate.ts')],
    budgets: [1024],
    rankers: [rankerByName('repomap')!],
    scratchBase: tempDir('repomap-eval-scratch-'),
  });
  assert.deepEqual(
    report.tasks.map((result) => [result.task.chatFile, result.task.targets, result.indexed]),
    [
      ['priceOrder.ts', ['formatMoney.ts'], 7],
      ['priceOrder.ts', ['formatMoney.ts'], 7],
      ['priceOrder.ts', ['formatMoney.ts'], 7],
      ['shipOrder.ts', ['auditTrail.ts'], 8],
    ],
  );
  await assert.rejects(runEval({ root, exclude: [join(root, '..')] }), { code: 'bad-request', message: /^exclude glob \S+ lies outside the repository root / });
});

test('files the parent tree\'s .repomapignore leaves out are no part of a task: a task left without targets is dropped, and said', async () => {
  const root = scriptedRepo({ 'src/.repomapignore': 'taxRate.ts\nformatMoney.ts\n' });
  const notices: string[] = [];
  const report = await runEval({
    root,
    budgets: [1024],
    rankers: [rankerByName('repomap')!],
    scratchBase: tempDir('repomap-eval-scratch-'),
    onNotice: (message) => notices.push(message),
  });
  // The three priceOrder rounds change only ignored files besides their chat file.
  assert.equal(report.tasks.length, 1, JSON.stringify(report.tasks.map((result) => result.task.subject)));
  assert.equal(report.tasks[0].task.chatFile, 'src/shipOrder.ts');
  assert.equal(notices.filter((line) => /dropped: discovery of its parent leaves out/.test(line)).length, 3);
});
