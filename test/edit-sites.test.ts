// Issue #49, items 2 and 3: where each reference is (`symbols` names its enclosing definition, from
// the definitions' extents) and eval's edit-site recall (the definitions a commit's edits land in).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { open } from 'lmdb';
import { findSymbolsIn } from '../src/api/index.js';
import { extractTags, prepareLanguage } from '../src/extract/extract.js';
import { languageForPath } from '../src/extract/languages.js';
import { type Ranker, formatReport, rankerByName, runEval } from '../src/eval/eval.js';
import { reportToJson } from '../src/cli/eval-command.js';
import { STORE_FORMAT } from '../src/store/store.js';
import { git, runCli, tempDir, writeTree } from './helpers.js';

/** A function of one file called from two others, one of them through an import alias; a call at top level too. */
const SHOP: Record<string, string> = {
  'src/pricing.ts': ['export function priceOf(quantity: number): number {', '  return quantity * 2;', '}', ''].join('\n'),
  'src/cart.ts': [
    "import { priceOf } from './pricing';",
    '',
    'export const STARTER = priceOf(1);',
    '',
    'export class Cart {',
    '  total(quantity: number): number {',
    '    return priceOf(quantity) + STARTER;',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/checkout.ts': [
    "import { priceOf as price } from './pricing';",
    '',
    'export function checkout(quantity: number): string {',
    '  const amount = price(quantity);',
    '  return `paid ${amount}`;',
    '}',
    '',
  ].join('\n'),
};

test('item 2: symbols names the definition each reference is in (name, kind, line); a reference at top level has none', async () => {
  const root = tempDir();
  writeTree(root, SHOP);
  const cacheDir = tempDir();
  const answer = await findSymbolsIn({ root, cacheDir, name: 'priceOf' });
  const byPlace = (a: { path: string; line: number }, b: { path: string; line: number }) => a.path.localeCompare(b.path) || a.line - b.line;
  assert.deepEqual(
    [...answer.references].sort(byPlace).map((ref) => [ref.path, ref.line, ref.kind, ref.enclosing]),
    [
      ['src/cart.ts', 1, 'import', undefined],
      ['src/cart.ts', 3, 'call', undefined],
      ['src/cart.ts', 7, 'call', { name: 'total', kind: 'method', line: 6 }],
      ['src/checkout.ts', 1, 'import', undefined],
    ],
  );
  // The call through the alias is a reference to the alias, in the function that makes it.
  const alias = await findSymbolsIn({ root, cacheDir, name: 'price' });
  assert.deepEqual(
    alias.references.filter((ref) => ref.kind === 'call').map((ref) => [ref.path, ref.line, ref.enclosing]),
    [['src/checkout.ts', 4, { name: 'checkout', kind: 'function', line: 3 }]],
  );

  const text = runCli(['symbols', 'priceOf', root, '--cache-dir', cacheDir]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^src\/cart\.ts:7 call in total: return priceOf\(quantity\) \+ STARTER;$/m);
  assert.match(text.stdout, /^src\/cart\.ts:3 call: export const STARTER = priceOf\(1\);$/m);
  assert.match(text.stdout, /^src\/checkout\.ts:1 import: import \{ priceOf as price \} from '\.\/pricing';$/m);
  const json = runCli(['symbols', 'priceOf', root, '--cache-dir', cacheDir, '--format', 'json']);
  assert.equal(json.code, 0, json.stderr);
  const references = (JSON.parse(json.stdout) as { references: Array<{ line: number; path: string; enclosing?: unknown }> }).references;
  assert.deepEqual(references.find((ref) => ref.path === 'src/cart.ts' && ref.line === 7)?.enclosing, { name: 'total', kind: 'method', line: 6 });
  assert.ok(!('enclosing' in references.find((ref) => ref.path === 'src/cart.ts' && ref.line === 3)!), 'a top-level reference has no enclosing definition');
});

test('item 2: a tag cache of the format before extents is rebuilt, not read without them', async () => {
  const root = tempDir();
  writeTree(root, SHOP);
  const cacheDir = tempDir();
  assert.equal(runCli(['symbols', 'priceOf', root, '--cache-dir', cacheDir]).code, 0);
  // What the store looked like when its outlines held six numbers per definition.
  const env = open({ path: join(cacheDir, 'tags.lmdb'), noSubdir: false, compression: true });
  env.putSync('format', 8);
  await env.close();
  const notices: string[] = [];
  const again = await findSymbolsIn({ root, cacheDir, name: 'priceOf', onNotice: (message) => notices.push(message) });
  assert.deepEqual(notices.filter((message) => /tag cache format/.test(message)), [`repomap: tag cache format 8 is older than ${STORE_FORMAT}; rebuilding it`]);
  assert.deepEqual(again.references.find((ref) => ref.line === 7)?.enclosing, { name: 'total', kind: 'method', line: 6 });
});

test('item 2: a definition\'s extent is its own syntax node, across languages; a constant or a field has none', async () => {
  const extents = async (path: string, source: string) => {
    const lang = languageForPath(path)!;
    await prepareLanguage(lang);
    const result = extractTags(lang, source);
    assert.ok(result.ok);
    return Object.fromEntries(result.tags.defs.map((def) => [def.name, def.end ?? null]));
  };
  assert.deepEqual(await extents('a.py', 'class A:\n    x: int = 0\n\n    @dec\n    def m(self):\n        return 1\n\n\ndef f(a,\n      b):\n    def inner():\n        pass\n    return inner\n\nMAX = f(1, 2)\n'), {
    A: 5,
    x: null,
    m: 5,
    f: 12,
    inner: 11,
    MAX: null,
  });
  // A decorated class's scope is its body (so that its header line is the name's): the body gives
  // the extent. A method whose header is on its object's row is the method's, not the object's.
  assert.deepEqual(
    await extents('a.ts', 'export const handler = (a: number) => {\n  return a;\n};\n@Component({})\nexport class D {\n  y = 2;\n}\nfunction g() { const config = { onClick: () => 1 }; }\nexport const api = { get() {\n  return 1;\n} };\n'),
    { handler: 2, D: 6, y: null, g: 7, onClick: 7, api: null, get: 10 },
  );
  assert.deepEqual(await extents('a.go', 'package a\n\ntype T struct {\n\tA int\n}\n\nfunc (t *T) M() int {\n\treturn t.A\n}\n'), { T: 4, A: null, M: 8 });
  assert.deepEqual(await extents('A.java', 'class A {\n  @Override\n  public String toString() {\n    return "";\n  }\n}\n'), { A: 5, toString: 4 });
});

/**
 * A history whose last commit edits, besides its chat file (src/pricing.ts, the most lines): the
 * method `total` of src/cart.ts and its top-level constant (no site); the function `checkout` of
 * src/checkout.ts, and adds a function after it (an insertion outside every definition: no site);
 * and a test file (not counted).
 */
function editedRepo(): string {
  const root = tempDir('repomap-edit-sites-');
  git(root, 'init', '-q');
  writeTree(root, { ...SHOP, 'test/cart.test.ts': "import { Cart } from '../src/cart';\n\nexport function checkTotal(): boolean {\n  return new Cart().total(1) === 2;\n}\n" });
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'initial tree');
  const edit = (path: string, from: string, to: string) => writeTree(root, { [path]: readText(root, path).replace(from, to) });
  writeTree(root, {
    'src/pricing.ts': [
      'export function priceOf(quantity: number, discount = 0): number {',
      '  const base = quantity * 2;',
      '  const off = base * discount;',
      '  const rounded = Math.round(off * 100) / 100;',
      '  return base - rounded;',
      '}',
      '',
    ].join('\n'),
  });
  edit('src/cart.ts', 'priceOf(1);', 'priceOf(1, 0);');
  edit('src/cart.ts', 'return priceOf(quantity) + STARTER;', 'return priceOf(quantity, 0.1) + STARTER;');
  edit('src/checkout.ts', 'price(quantity);', 'price(quantity, 0.1);');
  writeTree(root, { 'src/checkout.ts': readText(root, 'src/checkout.ts') + '\nexport function refund(): number {\n  return 0;\n}\n' });
  edit('test/cart.test.ts', 'total(1) === 2', 'total(1) === 1.8');
  git(root, 'commit', '-qam', 'Discount the price of a cart');
  return root;
}

function readText(root: string, path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

/** A ranker that shows fixed lines: `total`'s signature under src/cart.ts, and `checkout` only inside a longer word. */
const FIXED: Ranker = {
  name: 'fixed',
  showsLines: true,
  readsHistory: false,
  run: () => ({
    blocks: [
      { path: 'src/cart.ts', rank: 1, lang: 'typescript', lineCount: 9, lines: [{ line: 6, text: '  total(quantity: number): number {', role: 'signature' }] },
      { path: 'src/checkout.ts', rank: 0.5, lang: 'typescript', lineCount: 6, lines: [{ line: 3, text: 'export function checkoutTotal(quantity: number): string {', role: 'signature' }] },
    ],
    tokens: 30,
  }),
};

test('item 3: eval\'s edit-site recall: the definitions a commit\'s hunks land in, in its other files but tests, shown by name on a line of their file', async () => {
  const root = editedRepo();
  const report = await runEval({ root, budgets: [4096], rankers: [FIXED, rankerByName('repomap')!, rankerByName('directory-paths')!], scratchBase: tempDir('repomap-eval-scratch-') });
  assert.equal(report.tasks.length, 1);
  const [result] = report.tasks;
  assert.equal(result.task.chatFile, 'src/pricing.ts');
  assert.deepEqual(result.task.targets, ['src/cart.ts', 'src/checkout.ts', 'test/cart.test.ts']);
  // The top-level constant's hunk and the function added after `checkout` have no site; the test file is not counted.
  assert.deepEqual(result.editSites, [
    { path: 'src/cart.ts', name: 'total', kind: 'method', line: 6 },
    { path: 'src/checkout.ts', name: 'checkout', kind: 'function', line: 3 },
  ]);
  const scores = result.scores[4096];
  // `checkoutTotal` does not show `checkout`: a whole word only.
  assert.deepEqual([scores.fixed.editRecall, scores.fixed.shownSites], [0.5, ['src/cart.ts:6 total']]);
  // The whole tiny tree fits in 4096 tokens: the map shows both.
  assert.deepEqual([scores.repomap.editRecall, scores.repomap.shownSites], [1, ['src/cart.ts:6 total', 'src/checkout.ts:3 checkout']]);
  // A list of paths shows no line: edit-site recall does not apply (null, not 0).
  assert.deepEqual([scores['directory-paths'].editRecall, scores['directory-paths'].shownSites], [null, []]);

  const row = (ranker: string) => report.summary.find((r) => r.ranker === ranker)!;
  assert.deepEqual([row('fixed').editRecall, row('repomap').editRecall, row('directory-paths').editRecall, row('fixed').editTasks], [0.5, 1, null, 1]);
  const table = formatReport(report);
  assert.match(table, /^budget\s+ranking\s+recall\s+API\s+edit\s+hit\s+MRR\s+files\s+tokens\s+ms$/m);
  assert.match(table, /^\s+4096\s+fixed\s+\d\.\d{3}\s+(-|\d\.\d{3})\s+0\.500\s/m);
  assert.match(table, /^\s+4096\s+directory-paths\s+\d\.\d{3}\s+-\s+-\s/m);
  assert.match(table, /^edit: .* over the 1 of 1 tasks that have any \(2 sites\)$/m);
  const json = reportToJson(report);
  assert.deepEqual(json.tasks[0].editSites, result.editSites);
  assert.equal(json.summary.find((r) => r.ranker === 'fixed')?.editRecall, 0.5);
});
