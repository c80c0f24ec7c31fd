import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findSymbolsIn } from '../src/api/index.js';
import { buildMap } from '../src/map.js';
import { copyFixture, runCli, tempDir, writeTree } from './helpers.js';

test('symbols: definitions with scopes, references with their lines, most central first', async () => {
  const root = copyFixture('shop');
  const answer = await findSymbolsIn({ root, cacheDir: tempDir(), name: 'priceOf' });
  assert.deepEqual(answer.definitions, [
    {
      name: 'priceOf',
      path: 'src/pricing.ts',
      line: 5,
      kind: 'function',
      signature: 'export function priceOf(item: Item, quantity: Quantity): number {',
      scopes: [],
    },
  ]);
  assert.deepEqual(
    answer.references.map((ref) => [ref.path, ref.line, ref.kind, ref.text]),
    [
      ['src/cart.ts', 2, 'import', "import { priceOf, applyDiscount } from './pricing';"],
      ['src/cart.ts', 16, 'call', 'return this.lines.reduce((sum, line) => sum + priceOf(line.item, line.quantity), 0);'],
    ],
  );

  const method = await findSymbolsIn({ root, cacheDir: tempDir(), name: 'discountedTotal' });
  assert.deepEqual(method.definitions[0].scopes, [{ line: 4, text: 'export class Cart {' }]);
  assert.equal(method.references[0].path, 'src/checkout.ts');
});

test('symbols: references are ordered by the PageRank of the referencing file', async () => {
  const root = copyFixture('shop');
  const answer = await findSymbolsIn({ root, cacheDir: tempDir(), name: 'Item' });
  const ranks = answer.references.map((ref) => ref.rank);
  assert.ok(answer.references.length >= 4);
  assert.deepEqual(ranks, [...ranks].sort((a, b) => b - a));
  assert.ok(ranks[0] > ranks[ranks.length - 1], 'references come from files of different centrality');
});

test('symbols: --prefix matches partial names ignoring case; --limit cuts both lists', async () => {
  const root = copyFixture('shop');
  const answer = await findSymbolsIn({ root, cacheDir: tempDir(), name: 'with', prefix: true });
  assert.deepEqual(answer.definitions.map((def) => def.name), ['withTax']);
  const limited = await findSymbolsIn({ root, cacheDir: tempDir(), name: 'd', prefix: true, limit: 2 });
  assert.equal(limited.definitions.length, 2);
  assert.ok(limited.totalDefinitions > 2);
  const refs = await findSymbolsIn({ root, cacheDir: tempDir(), name: 'Item', limit: 3 });
  assert.equal(refs.references.length, 3);
  assert.ok(refs.totalReferences > 3);
});

test('symbols: a limit keeps the definitions that matter: the name itself, code before tests, the most central file first', async () => {
  const root = tempDir();
  const files: Record<string, string> = {
    // First by path, and used by nobody: path order would show it first.
    'aaa/fake.py': 'def compute():\n    return 0\n',
    'core/engine.py': 'def load_all():\n    return []\n\n\ndef compute():\n    return 1\n',
    'main.py': 'from core.engine import compute, load_all\n\nprint(compute(), load_all())\n',
    'cli.py': 'from core.engine import compute\n\ncompute()\n',
    'tests/test_engine.py': 'def compute():\n    return 2\n\n\ndef test_compute():\n    assert compute() == 2\n',
    'zzz/extra.py': 'def load():\n    pass\n',
  };
  writeTree(root, files);
  const cacheDir = tempDir();
  const all = await findSymbolsIn({ root, cacheDir, name: 'compute' });
  assert.deepEqual(all.definitions.map((def) => def.path), ['core/engine.py', 'aaa/fake.py', 'tests/test_engine.py']);
  const one = await findSymbolsIn({ root, cacheDir, name: 'compute', limit: 1 });
  assert.deepEqual([one.definitions.map((def) => def.path), one.totalDefinitions], [['core/engine.py'], 3]);
  // With --prefix, the name itself comes before longer names, even from a less central file.
  const prefixed = await findSymbolsIn({ root, cacheDir, name: 'LOAD', prefix: true });
  assert.deepEqual(prefixed.definitions.map((def) => `${def.path}:${def.name}`), ['zzz/extra.py:load', 'core/engine.py:load_all']);
});

test('symbols --prefix: the name as written comes before the same name in another case, which comes before longer names', async () => {
  const root = tempDir();
  const files: Record<string, string> = {
    'a/options.py': 'class Holder:\n    options = 1\n',
    'b/Options.py': 'class Options:\n    pass\n',
    'c/more.py': 'def options_for():\n    pass\n',
  };
  writeTree(root, files);
  const cacheDir = tempDir();
  const named = async (name: string) => (await findSymbolsIn({ root, cacheDir, name, prefix: true })).definitions.map((def) => def.name);
  assert.deepEqual(await named('Options'), ['Options', 'options', 'options_for']);
  assert.deepEqual(await named('options'), ['options', 'Options', 'options_for']);
});

test('symbols: definers are ranked as the map ranks files (its related graph), not by the Aider model', async () => {
  // hub.py uses eight modules: central in the related graph, whose links run both ways. lib.py is
  // used by four files: ahead in Aider's model, where only being referenced counts. Both define get().
  const files: Record<string, string> = {
    'hub.py': [
      ...Array.from({ length: 8 }, (_, i) => `from mods.m${i} import helper_number_${i}`),
      '',
      '',
      'def get():',
      `    return ${Array.from({ length: 8 }, (_, i) => `helper_number_${i}()`).join(' + ')}`,
      '',
    ].join('\n'),
    'lib.py': 'def get():\n    return 0\n\n\ndef lib_thing():\n    return 1\n',
    ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`mods/m${i}.py`, `def helper_number_${i}():\n    return ${i}\n`])),
    ...Object.fromEntries(['main', 'user_a', 'user_b', 'user_c'].map((name) => [`${name}.py`, 'from lib import lib_thing\n\nprint(lib_thing())\n'])),
  };
  const root = tempDir();
  writeTree(root, files);
  const cacheDir = tempDir();
  const map = await buildMap({ root, cacheDir, tokens: 4096 });
  const mapOrder = map.files.map((file) => file.path).filter((path) => path === 'hub.py' || path === 'lib.py');
  const answer = await findSymbolsIn({ root, cacheDir, name: 'get' });
  assert.deepEqual(answer.definitions.map((def) => def.path), mapOrder);
  assert.deepEqual(mapOrder, ['hub.py', 'lib.py'], 'the fixture ranks the two as the comment says');
});

test('repomap symbols prints text and json; a missing NAME is a user error', () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const text = runCli(['symbols', 'withTax', root, '--cache-dir', cache]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^definitions of 'withTax': 1$/m);
  assert.match(text.stdout, /^src\/pricing\.ts:13 function withTax$/m);
  assert.match(text.stdout, /^src\/checkout\.ts:9 call in checkout: const total = withTax\(this\.cart\.discountedTotal\(0\)\);$/m);
  const json = runCli(['symbols', 'withTax', root, '--cache-dir', cache, '--format', 'json']);
  assert.equal(JSON.parse(json.stdout).definitions[0].path, 'src/pricing.ts');
  // A list cut short names the option that shows more (MCP names its argument: see mcp.test.ts).
  assert.match(runCli(['symbols', 'Cart', root, '--cache-dir', cache, '--limit', '1']).stdout, /^references to 'Cart': \d+ \(1 of \d+ on the line shown; --limit shows more\)/m);
  const missing = runCli(['symbols']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /symbols needs a NAME/);
  // The query's options come from its schema, checked as the daemon checks its params.
  const prefixed = runCli(['symbols', 'WITH', root, '--cache-dir', cache, '--prefix', '--limit', '1', '--format', 'json']);
  assert.equal(prefixed.code, 0, prefixed.stderr);
  const answer = JSON.parse(prefixed.stdout);
  assert.deepEqual([answer.query.prefix, answer.query.limit, answer.definitions.length], [true, 1, 1]);
  const badLimit = runCli(['symbols', 'withTax', root, '--cache-dir', cache, '--limit', '0']);
  assert.equal(badLimit.code, 2);
  assert.match(badLimit.stderr, /--limit takes a positive whole number, not '0'/);
});

test('symbols: a signature over several lines is shown whole, as a map shows it; references on one line are one counted row in text', async () => {
  const root = tempDir();
  writeFileSync(
    join(root, 'shipping.py'),
    'def ship_order(\n    order_id: int,\n    carrier: str,\n) -> bool:\n    return True\n\n\ndef resend(order_id: int) -> bool:\n    return ship_order(ship_order(order_id, "a"), "b")\n',
  );
  const cacheDir = tempDir();
  const answer = await findSymbolsIn({ root, cacheDir, name: 'ship_order' });
  assert.equal(answer.definitions[0].signature, 'def ship_order(\n    order_id: int,\n    carrier: str,\n) -> bool:');
  assert.deepEqual(answer.references.map((ref) => ref.line), [9, 9], 'each reference in JSON');
  const text = runCli(['symbols', 'ship_order', root, '--cache-dir', cacheDir]).stdout;
  assert.match(text, /^ {2}1│def ship_order\($\n^ {2}2│ {4}order_id: int,$\n^ {2}3│ {4}carrier: str,$\n^ {2}4│\) -> bool:$/m);
  assert.match(text, /^shipping\.py:9 call in resend \(2 on the line\): return ship_order\(ship_order\(order_id, "a"\), "b"\)$/m);
  assert.equal(text.match(/^shipping\.py:9 /gm)?.length, 1);
});

test('symbols: --limit counts lines of references, as the text shows them: a line comes whole, and the header counts both', async () => {
  const root = tempDir();
  writeFileSync(
    join(root, 'shipping.py'),
    'def ship_order(order_id, carrier):\n    return True\n\n\nfirst = ship_order(ship_order(1, "a"), "b")\nsecond = ship_order(2, "c")\nthird = ship_order(3, "d")\n',
  );
  const cacheDir = tempDir();
  const run = (...args: string[]) => {
    const result = runCli(['symbols', 'ship_order', root, '--cache-dir', cacheDir, ...args]);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  };
  const text = run('--limit', '2');
  assert.equal(
    text.slice(text.indexOf('references to')),
    [
      "references to 'ship_order': 4 (3 of 4 on the 2 lines shown; --limit shows more), most central first",
      'shipping.py:5 call (2 on the line): first = ship_order(ship_order(1, "a"), "b")',
      'shipping.py:6 call: second = ship_order(2, "c")',
      '',
    ].join('\n'),
  );
  // A line is never cut: its count is every reference on it.
  assert.match(run('--limit', '1'), /^references to 'ship_order': 4 \(2 of 4 on the line shown; --limit shows more\), most central first\nshipping\.py:5 call \(2 on the line\): /m);
  // JSON holds every reference of the lines shown, with the limit as asked.
  const answer = JSON.parse(run('--limit', '2', '--format', 'json')) as { query: { limit: number }; references: Array<{ line: number }>; totalReferences: number };
  assert.deepEqual([answer.query.limit, answer.references.map((ref) => ref.line), answer.totalReferences], [2, [5, 5, 6], 4]);
  // A list the limit does not cut says its total alone.
  assert.match(run('--limit', '3'), /^references to 'ship_order': 4, most central first$/m);
});
