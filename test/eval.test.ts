import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { directoryOrder, lexicalOrder, packFileList } from '../src/eval/baselines.js';
import { rankerByName, runEval, score } from '../src/eval/eval.js';
import { isChore, isTestPath, isVendoredOrGenerated, mineTasks, openRepo, sampleSpread, taskOf } from '../src/eval/git.js';
import { tokenCounter } from '../src/pack/tokens.js';
import { fileNames, packRefs } from '../src/extract/refs.js';
import { Outline } from '../src/store/outline.js';
import type { FileNames, FileTags } from '../src/types.js';
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
function scriptedRepo(): string {
  const root = tempDir('repomap-eval-repo-');
  git(root, 'init', '-q');
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
  assert.equal(taskOf(info, { excludeTests: true, exclude: ['b.ts'] }), null, 'one file left: no task');
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

test('eval works on a bare repository; the CLI prints a table or JSON, and rejects mistakes', () => {
  const source = scriptedRepo();
  const bare = join(tempDir('repomap-eval-bare-'), 'repo.git');
  git(tempDir(), 'clone', '-q', '--bare', source, bare);
  const text = runCli(['eval', bare, '--budgets', '512', '--ranking', 'repomap,aider,lexical', '--tasks', '3', '--workers', '1']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /3 tasks \(of 4 candidate commits in the last 8/);
  assert.match(text.stdout, /^budget\s+ranking\s+recall\s+hit\s+MRR\s+files\s+tokens\s+ms$/m);
  assert.match(text.stdout, /^\s+512\s+repomap\s+[01]\.\d{3}/m);
  assert.match(text.stdout, /^\s+512\s+lexical\s+/m);
  const json = runCli(['eval', bare, '--budgets', '512,1024', '--format', 'json', '--exclude-tests']);
  assert.equal(json.code, 0, json.stderr);
  const data = JSON.parse(json.stdout) as { summary: Array<{ budget: number; ranker: string }>; tasks: Array<{ chatFile: string; targets: string[]; scores: Record<string, Record<string, { recall: number }>> }> };
  assert.equal(data.tasks.length, 4);
  assert.ok(data.summary.some((row) => row.budget === 1024 && row.ranker === 'aider'));
  assert.ok(typeof data.tasks[0].scores['512'].repomap.recall === 'number');

  for (const [args, pattern] of [
    [['eval', tempDir()], /is not a git repository/],
    [['eval', bare, '--ranking', 'pagerank'], /unknown ranking 'pagerank'/],
    [['eval', bare, '--budgets', '1024,,2048'], /comma-separated list/],
    [['eval', bare, '--budgets', 'lots'], /--budgets takes a positive whole number/],
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
