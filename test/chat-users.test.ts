// Issue 49, items 1 and 4: the map shows where a change to the chat file lands (the definitions in
// other files that use its API, each with the line that uses it), and a message's plain words
// weigh by how specific they are. Fixtures are written at test time; maps come from the real CLI.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CliResult, git, runCli, tempDir, writeTree } from './helpers.js';

/** Many unrelated modules, so that the map has more to show than its budget holds. */
function filler(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`other/module_${i}.ts`] = `export function unrelatedHelper${i}(value: number): number {\n  return value + ${i};\n}\n`;
  return files;
}

function repo(files: Record<string, string>): string {
  const root = tempDir('repomap-users-');
  writeTree(root, files);
  return root;
}

/** `repomap map ROOT --chat CHAT ...` as a user runs it; fails the test on a non-zero exit. */
function map(root: string, chat: string, ...args: string[]): CliResult {
  const result = runCli(['map', root, '--chat', chat, '--cache-dir', tempDir(), ...args]);
  assert.equal(result.code, 0, result.stderr);
  return result;
}

/** A map's JSON file entries. */
function mapFiles(result: CliResult): Array<{ path: string; lines: Array<{ line: number; text: string; role: string }> }> {
  return (JSON.parse(result.stdout) as { files: Array<{ path: string; lines: Array<{ line: number; text: string; role: string }> }> }).files;
}

const PRICING = [
  'export interface LineItem {',
  '  cents: number;',
  '}',
  '',
  'export function sumLineItems(items: readonly LineItem[]): number {',
  '  return items.reduce((total, item) => total + item.cents, 0);',
  '}',
  '',
].join('\n');

test('item 1: a function of the chat file called from two other files, one through an import alias, is shown under each with its enclosing signature and the call line', () => {
  const root = repo({
    'src/pricing.ts': PRICING,
    'src/checkout/invoice.ts': [
      "import { sumLineItems as sumOf } from '../pricing';",
      '',
      'export function issueInvoice(customer: string, lines: number[]): string {',
      '  const header = `invoice for ${customer}`;',
      '  const total = sumOf(lines.map((cents) => ({ cents })));',
      '  return `${header}: ${total}`;',
      '}',
      '',
    ].join('\n'),
    'src/cart/basket.ts': [
      "import { sumLineItems } from '../pricing';",
      '',
      'export class Basket {',
      '  private items: { cents: number }[] = [];',
      '  subtotal(): number {',
      '    const kept = this.items.filter((item) => item.cents > 0);',
      '    return sumLineItems(kept);',
      '  }',
      '}',
      '',
    ].join('\n'),
    ...filler(80),
  });
  // The best user (Basket, the wider type) with its call line; the other by its signature.
  const text = map(root, 'src/pricing.ts', '--tokens', '1024').stdout;
  assert.match(text, /src\/cart\/basket\.ts:\n…\n│export class Basket \{\n…\n│  subtotal\(\): number \{\n…\n│    return sumLineItems\(kept\);\n…\n/, text);
  assert.match(text, /src\/checkout\/invoice\.ts:\n…\n│export function issueInvoice\(customer: string, lines: number\[\]\): string \{\n…\n/, text);
  // Named by the request, the caller through the alias comes first, with its call line.
  const named = map(root, 'src/pricing.ts', '--tokens', '1024', '--mention', 'issueInvoice').stdout;
  assert.match(named, /src\/checkout\/invoice\.ts:\n…\n│export function issueInvoice\(customer: string, lines: number\[\]\): string \{\n…\n│  const total = sumOf\(lines\.map\(\(cents\) => \(\{ cents \}\)\)\);\n…\n/, named);
  // The JSON says which line is a use.
  const files = mapFiles(map(root, 'src/pricing.ts', '--tokens', '1024', '--mention', 'issueInvoice', '--format', 'json'));
  const invoice = files.find((file) => file.path === 'src/checkout/invoice.ts')!;
  assert.deepEqual(
    invoice.lines.map((line) => [line.line, line.role]),
    [
      [3, 'definition'],
      [5, 'use'],
    ],
  );
  // The same request, the same bytes.
  assert.equal(map(root, 'src/pricing.ts', '--tokens', '1024').stdout, text);
});

test('item 1: a method of the chat file called through an interface it implements is shown under its caller', () => {
  const root = repo({
    'src/store/types.ts': 'export interface RecordStore {\n  saveRecord(key: string, value: string): void;\n}\n',
    'src/store/disk.ts': [
      "import type { RecordStore } from './types';",
      '',
      'export class DiskStore implements RecordStore {',
      '  saveRecord(key: string, value: string): void {',
      '    console.log(key, value);',
      '  }',
      '}',
      '',
    ].join('\n'),
    'src/jobs/nightly.ts': [
      "import type { RecordStore } from '../store/types';",
      '',
      'export function runNightly(store: RecordStore, when: Date): void {',
      '  const key = when.toISOString();',
      "  store.saveRecord(key, 'done');",
      '}',
      '',
    ].join('\n'),
    ...filler(80),
  });
  const text = map(root, 'src/store/disk.ts', '--tokens', '1024').stdout;
  assert.match(text, /src\/jobs\/nightly\.ts:\n…\n│export function runNightly\(store: RecordStore, when: Date\): void \{\n…\n│  store\.saveRecord\(key, 'done'\);\n…\n/, text);
});

test('item 4: a word of the message that 50 definitions hold does not come before the names the chat file calls', () => {
  const inputs = Array.from({ length: 50 }, (_, i) => `export function readInputField${i}(form: string): string {\n  return form + ${i};\n}\n`).join('');
  const root = repo({
    'src/forms.ts': inputs,
    'src/totals.ts': 'export function total(values: number[]): number {\n  return values.length;\n}\n',
    'src/submit.ts': "import { readInputField0 } from './forms';\nimport { total } from './totals';\nexport function submit(form: string): number {\n  return total([readInputField0(form).length]);\n}\n",
    ...filler(40),
  });
  // Room for the two names the chat file calls, and little more.
  const text = map(root, 'src/submit.ts', '--tokens', '72', '--message', 'check the input before sending').stdout;
  assert.match(text, /│export function readInputField0\(/, text);
  assert.match(text, /│export function total\(/, text);
});

test('item 4: a plain word of the message that names a test fixture\'s file does not list it', () => {
  const root = repo({
    'src/cart.ts': "import { unrelatedHelper1 } from '../other/module_1';\nexport function keep(cents: number): number {\n  return unrelatedHelper1(cents);\n}\n",
    'test/fixtures/deep/state.ts': 'export const fixture = 1;\n',
    ...filler(300),
  });
  const text = map(root, 'src/cart.ts', '--tokens', '512', '--message', 'keep the state of the cart').stdout;
  assert.doesNotMatch(text, /state\.ts/, text);
  // Named as code, the word is what the user asks for: the file named after it is listed.
  const named = map(root, 'src/cart.ts', '--tokens', '512', '--message', 'keep the `state` of the cart').stdout;
  assert.match(named, /test\/fixtures\/deep\/state\.ts/, named);
});

test('item 1: eval\'s edit-site recall counts the callers a change to the chat file touches', () => {
  // The chat file calls eighty helpers: the code it uses fills the depth section.
  const helpers = Array.from({ length: 80 }, (_, i) => `unrelatedHelper${i}`);
  const pricing = `import { ${helpers.join(', ')} } from '../other/helpers';\n${PRICING}export const warmed = [${helpers.map((name) => `${name}(1)`).join(', ')}];\n`;
  const helperModule = helpers.map((name, i) => `export function ${name}(value: number): number {\n  return value + ${i};\n}\n`).join('');
  const root = repo({
    'src/pricing.ts': pricing,
    'other/helpers.ts': helperModule,
    'src/checkout/invoice.ts': "import { sumLineItems } from '../pricing';\n\nexport function issueInvoice(customer: string, cents: number[]): string {\n  const total = sumLineItems(cents.map((c) => ({ cents: c })));\n  return `${customer}: ${total}`;\n}\n",
    'src/cart/basket.ts': "import { sumLineItems } from '../pricing';\n\nexport function basketTotal(cents: number[]): number {\n  return sumLineItems(cents.map((c) => ({ cents: c })));\n}\n",
    ...filler(300),
  });
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'initial tree');
  // The change: sumLineItems takes a currency; its callers pass one.
  writeTree(root, {
    'src/pricing.ts': pricing.replace('sumLineItems(items: readonly LineItem[]): number {', 'sumLineItems(items: readonly LineItem[], currency: string): number {\n  void currency;'),
    'src/checkout/invoice.ts': "import { sumLineItems } from '../pricing';\n\nexport function issueInvoice(customer: string, cents: number[]): string {\n  const total = sumLineItems(cents.map((c) => ({ cents: c })), 'EUR');\n  return `${customer}: ${total}`;\n}\n",
    'src/cart/basket.ts': "import { sumLineItems } from '../pricing';\n\nexport function basketTotal(cents: number[]): number {\n  return sumLineItems(cents.map((c) => ({ cents: c })), 'EUR');\n}\n",
  });
  git(root, 'commit', '-qam', 'Pass a currency to the line items sum');
  const result = runCli(['eval', root, '--budgets', '1536', '--ranking', 'repomap', '--format', 'json', '--workers', '1']);
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout) as { tasks: Array<{ chatFile: string; scores: Record<string, Record<string, { editRecall: number | null; shownSites: string[] }>> }> };
  assert.equal(report.tasks.length, 1);
  assert.equal(report.tasks[0].chatFile, 'src/pricing.ts');
  assert.deepEqual(report.tasks[0].scores['1536'].repomap.shownSites, ['src/cart/basket.ts:3 basketTotal', 'src/checkout/invoice.ts:3 issueInvoice']);
});

test('item 1: a user in a file over the 1 MiB a map reads for lines is shown by its signature, without the use line', () => {
  const padding = `// ${'x'.repeat(100)}\n`.repeat(11_000);
  const root = repo({
    'src/pricing.ts': PRICING,
    'src/cart/basket.ts': `import { sumLineItems } from '../pricing';\n\nexport function basketTotal(cents: number[]): number {\n  return sumLineItems(cents.map((c) => ({ cents: c })));\n}\n${padding}`,
    ...filler(40),
  });
  const text = map(root, 'src/pricing.ts', '--tokens', '1024', '--max-file-bytes', '2000000').stdout;
  assert.match(text, /src\/cart\/basket\.ts:\n…\n│export function basketTotal\(cents: number\[\]\): number \{\n…\n/, text);
  assert.doesNotMatch(text, /│  return sumLineItems/, text);
});

test('item 1: past the best user, users are shown by the first lines of their signatures alone, and take at least 160 tokens of a 1024-token map, so the map names more of the definitions a change lands in', () => {
  // The chat file calls eighty helpers: the code it uses fills the rest of the depth section.
  const helpers = Array.from({ length: 80 }, (_, i) => `unrelatedHelper${i}`);
  const callers: Record<string, string> = {};
  for (let i = 0; i < 12; i++) {
    callers[`src/callers/caller_${i}.ts`] = [
      "import { sumLineItems } from '../pricing';",
      '',
      `export function chargeCustomer${i}(`,
      '  cents: number[],',
      '): number {',
      `  const kept = cents.filter((c) => c > ${i});`,
      '  return sumLineItems(kept.map((c) => ({ cents: c })));',
      '}',
      '',
    ].join('\n');
  }
  const root = repo({
    'src/pricing.ts': `import { ${helpers.join(', ')} } from '../other/helpers';\n${PRICING}export const warmed = [${helpers.map((name) => `${name}(1)`).join(', ')}];\n`,
    'other/helpers.ts': helpers.map((name, i) => `export function ${name}(value: number): number {\n  return value + ${i};\n}\n`).join(''),
    ...callers,
    ...filler(300),
  });
  const text = map(root, 'src/pricing.ts', '--tokens', '1024').stdout;
  const shown = text.match(/│export function chargeCustomer\d+\(/g) ?? [];
  // With every user's use line, the share held one; at 1024 tokens the users take at least 160 (USERS_MODEL.leastTokens), from breadth.
  assert.ok(shown.length >= 5, text);
  assert.equal((text.match(/│ {2}return sumLineItems\(kept/g) ?? []).length, 1, text);
  // The best user's whole signature and its use line are under it; the others' first lines alone.
  assert.match(text, /│export function chargeCustomer\d+\(\n│ {2}cents: number\[\],\n│\): number \{\n…\n│ {2}return sumLineItems\(kept\.map/, text);
  assert.equal((text.match(/│ {2}cents: number\[\],/g) ?? []).length, 1, text);
});

test("item 1: with a test as the chat file, a change lands in its subject: the subject's methods the test does not call are shown by their first lines", () => {
  const helpers = Array.from({ length: 80 }, (_, i) => `unrelatedHelper${i}`);
  const root = repo({
    'src/price-book.ts': [
      'export class PriceBook {',
      '  private prices = new Map<string, number>();',
      '  addPrice(sku: string, cents: number): void {',
      '    this.prices.set(sku, cents);',
      '  }',
      '  removePrice(sku: string): void {',
      '    this.prices.delete(sku);',
      '  }',
      '  total(): number {',
      '    return [...this.prices.values()].reduce((sum, cents) => sum + cents, 0);',
      '  }',
      '}',
      '',
    ].join('\n'),
    // The test calls eighty helpers of as many files too: the code it uses fills the rest of the
    // depth section, and the file it uses most is its subject.
    'test/price-book.test.ts': [
      "import { PriceBook } from '../src/price-book';",
      ...helpers.map((name, i) => `import { ${name} } from '../other/module_${i}';`),
      '',
      'export function testTotals(): void {',
      '  if (new PriceBook().total() !== 0) throw new Error("empty");',
      '  if (new PriceBook().total() + new PriceBook().total() !== 0) throw new Error("two");',
      '}',
      `export const warmed = [${helpers.map((name) => `${name}(1)`).join(', ')}];`,
      '',
    ].join('\n'),
    ...filler(300),
  });
  const text = map(root, 'test/price-book.test.ts', '--tokens', '1024').stdout;
  const subject = text.split('\n\n').find((block) => block.startsWith('src/price-book.ts:\n')) ?? '';
  assert.match(subject, /\n│  addPrice\(sku: string, cents: number\): void \{\n/, text);
  assert.match(subject, /\n│  removePrice\(sku: string\): void \{\n/, text);
});
