// The map shows the code the chat file uses: whole signatures, the members it uses, the mentioned
// definitions, never a definition of another language family, tests after code.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildMap, publicMap } from '../src/map.js';
import { barePathLines, renderText } from '../src/render/render.js';
import { tokenCounter } from '../src/pack/tokens.js';
import { BREADTH_MAX_TOKENS, NEEDED_SHARE } from '../src/model.js';
import { depthTokens } from '../src/rank/layout.js';
import { tempDir, writeTree } from './helpers.js';

/** A repository of the given files (path -> text) in a new folder. */
function repo(files: Record<string, string>): string {
  const root = tempDir();
  writeTree(root, files);
  return root;
}

/** Many unrelated files, so that the map has more to show than the budget holds. */
function filler(count: number, ext = 'ts'): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    files[`other/module_${i}.${ext}`] = ext === 'ts' ? `export function unrelatedHelper${i}(value: number): number {\n  return value + ${i};\n}\n` : `def unrelated_helper_${i}(value):\n    return value + ${i}\n`;
  }
  return files;
}

test('a multi-line signature the chat file calls is shown whole, with its return type', async () => {
  const root = repo({
    'src/pricing.ts': [
      'export function computeInvoiceTotal(',
      '  lineItems: readonly number[],',
      '  discountPercent: number,',
      '): InvoiceTotal {',
      '  return { total: lineItems.reduce((a, b) => a + b, 0) * (1 - discountPercent / 100) };',
      '}',
      'export interface InvoiceTotal { total: number }',
      '',
    ].join('\n'),
    'src/checkout.ts': "import { computeInvoiceTotal } from './pricing.js';\nexport const totalOf = (items: number[]) => computeInvoiceTotal(items, 5);\n",
    ...filler(60),
  });
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 512, chatFiles: [join(root, 'src/checkout.ts')] });
  assert.match(
    map.text,
    /src\/pricing\.ts:\n│export function computeInvoiceTotal\(\n│  lineItems: readonly number\[\],\n│  discountPercent: number,\n│\): InvoiceTotal \{\n/,
  );
  // The JSON says which line is the definition and which continue its signature.
  const pricing = publicMap(map, { listSkipped: true }).files.find((file) => file.path === 'src/pricing.ts')!;
  assert.deepEqual(
    pricing.lines.slice(0, 4).map((line) => [line.line, line.role]),
    [
      [1, 'definition'],
      [2, 'signature'],
      [3, 'signature'],
      [4, 'signature'],
    ],
  );
  assert.equal(pricing.lines[0].role === 'definition' && pricing.lines[0].name, 'computeInvoiceTotal');
});

test('the members of an interface that the chat file uses are shown under its header, before breadth', async () => {
  const root = repo({
    'src/store.ts': [
      'export interface SessionStore {',
      '  loadSession(id: string): Session;',
      '  saveSession(session: Session): void;',
      '  purgeExpired(now: number): number;',
      '  describeBackend(): string;',
      '}',
      'export interface Session { id: string }',
      '',
    ].join('\n'),
    'src/handler.ts': [
      "import type { SessionStore } from './store.js';",
      'export function touchSession(store: SessionStore, id: string): void {',
      '  const session = store.loadSession(id);',
      '  store.saveSession(session);',
      '}',
      '',
    ].join('\n'),
    ...filler(80),
  });
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 256, chatFiles: [join(root, 'src/handler.ts')] });
  const block = map.files.find((file) => file.path === 'src/store.ts');
  assert.ok(block, map.text);
  const shown = block.lines.map((line) => line.text.trim());
  assert.ok(shown.includes('export interface SessionStore {'), map.text);
  assert.ok(shown.includes('loadSession(id: string): Session;'), map.text);
  assert.ok(shown.includes('saveSession(session: Session): void;'), map.text);
  // The store's block comes before any of the unrelated helpers' definitions.
  const helpers = map.files.findIndex((file) => file.path.startsWith('other/') && file.lines.length > 0);
  assert.ok(helpers === -1 || helpers > map.files.indexOf(block));
});

test('a mentioned definition is shown in its file ahead of the file\'s other definitions', async () => {
  const body = ['class _Feature:', ...Array.from({ length: 30 }, (_, i) => `    def method_number_${i}(self):\n        return ${i}`)].join('\n');
  const root = repo({
    'pkg/features.py': `${body}\n\ndef bars_probe_function_xyzzy(count):\n    return count\n`,
    'pkg/app.py': 'from pkg.features import _Feature\n\ndef run():\n    return _Feature()\n',
    ...filler(40, 'py'),
  });
  for (const request of [{ mentionedIdents: ['bars_probe_function_xyzzy'] }, { message: 'fix bars_probe_function_xyzzy for empty input' }]) {
    const map = await buildMap({ root, cacheDir: tempDir(), tokens: 256, chatFiles: [join(root, 'pkg/app.py')], ...request });
    const block = map.files.find((file) => file.path === 'pkg/features.py');
    assert.ok(block, map.text);
    assert.ok(block.lines.some((line) => line.text === 'def bars_probe_function_xyzzy(count):'), map.text);
  }
});

test('a name never links files of two language families: a Go file and a Python file that share it', async () => {
  const root = repo({
    'service/decoder.py': 'class StreamDecoder:\n    def decode_chunk(self, data):\n        return data\n',
    'service/reader.py': 'from service.decoder import StreamDecoder\n\ndef read_all(data):\n    return StreamDecoder().decode_chunk(data)\n',
    'service/decoder.go': 'package service\n\ntype StreamDecoder struct{}\n\nfunc (d StreamDecoder) Decode() {}\n',
    'service/use.go': 'package service\n\nfunc Use() { var d StreamDecoder; d.Decode() }\n',
  });
  const chatFiles = [join(root, 'service/reader.py')];
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 1024, chatFiles });
  const python = map.files.find((file) => file.path === 'service/decoder.py');
  assert.ok(python?.lines.some((line) => line.text.startsWith('class StreamDecoder')), map.text);
  // The walk never reaches the Go files ...
  const json = publicMap(map, { listSkipped: true });
  for (const path of ['service/decoder.go', 'service/use.go']) assert.equal(json.files.find((file) => file.path === path)?.rank ?? 0, 0);
  // ... and where only a few lines fit, they are the Python definer's, not the Go one's.
  const small = await buildMap({ root, cacheDir: tempDir(), tokens: 32, chatFiles });
  assert.ok(small.files.find((file) => file.path === 'service/decoder.py')?.lines.length, small.text);
  assert.equal(small.files.find((file) => file.path === 'service/decoder.go')?.lines.length ?? 0, 0, small.text);
});

test('a test file\'s definitions come after code\'s unless the chat file is a test', async () => {
  const root = repo({
    'src/parser.ts': "import { tokenizeSource } from './lexer.js';\nexport function parseSource(text: string) {\n  return tokenizeSource(text);\n}\n",
    'src/lexer.ts': 'export function tokenizeSource(text: string): string[] {\n  return text.split(" ");\n}\nexport function lexerInternals(): void {}\n',
    'src/parser.test.ts': "import { parseSource } from './parser.js';\nexport function checkParseSource(): void {\n  parseSource('a b');\n}\nexport function parseSourceFixture(): string {\n  return 'a b';\n}\n",
  });
  const linesOf = (map: { files: Array<{ path: string; lines: unknown[] }> }, path: string) => map.files.find((file) => file.path === path)?.lines.length ?? 0;
  // Where a few lines fit, they are code's: the lexer the parser uses, not the parser's test.
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 36, chatFiles: [join(root, 'src/parser.ts')] });
  assert.ok(linesOf(map, 'src/lexer.ts') > 0, map.text);
  assert.equal(linesOf(map, 'src/parser.test.ts'), 0, map.text);
  // With the test in the chat, what it tests is needed, and shown.
  const forTest = await buildMap({ root, cacheDir: tempDir(), tokens: 36, chatFiles: [join(root, 'src/parser.test.ts')] });
  assert.ok(linesOf(forTest, 'src/parser.ts') > 0, forTest.text);
});

test('the request\'s words pick, in an imported module, a definition the chat file does not use yet', async () => {
  const helpers = Array.from({ length: 40 }, (_, i) => `export function formatColumnValue${i}(value: string): string {\n  return value;\n}`);
  const root = repo({
    'src/columns.ts': [...helpers, 'export function createStreamReader(source: string): AsyncIterable<string> {', '  throw new Error(source);', '}', ''].join('\n'),
    'src/report.ts': "import { formatColumnValue0 } from './columns.js';\nexport const render = (cell: string) => formatColumnValue0(cell);\n",
    ...filler(40),
  });
  const chatFiles = [join(root, 'src/report.ts')];
  const shows = (text: string) => /src\/columns\.ts:[^]*│export function createStreamReader\(/.test(text);
  const plain = await buildMap({ root, cacheDir: tempDir(), tokens: 256, chatFiles });
  assert.ok(!shows(plain.text), plain.text);
  const asked = await buildMap({ root, cacheDir: tempDir(), tokens: 256, chatFiles, message: 'render the report from a stream reader' });
  assert.ok(shows(asked.text), asked.text);
});

/** A validator in its own folder and two handlers beside the chat file's place that call it. */
function validatingHandlers(): Record<string, string> {
  const handler = (name: string) =>
    `import { validateRequestBody } from '../validation/body.js';\nexport function handle${name}(body: unknown) {\n  return validateRequestBody(body, '${name}');\n}\n`;
  return {
    'src/validation/body.ts': 'export function validateRequestBody(body: unknown, schemaName: string): boolean {\n  return body !== undefined && schemaName.length > 0;\n}\n',
    'src/handlers/users.ts': handler('Users'),
    'src/handlers/carts.ts': handler('Carts'),
  };
}

test('the names the files beside the chat file use, and it does not yet, are shown', async () => {
  const root = repo({
    ...validatingHandlers(),
    'src/handlers/orders.ts': 'export function handleOrders(body: unknown) {\n  return body;\n}\n',
    ...filler(60),
  });
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 256, chatFiles: [join(root, 'src/handlers/orders.ts')] });
  assert.match(map.text, /src\/validation\/body\.ts:\n(?:.*\n)*?│export function validateRequestBody\(body: unknown, schemaName: string\): boolean \{/, map.text);
});

test('the names the files best ranked for the chat file use, and it does not yet, are shown', async () => {
  // Two callers of the chat file's function, in other folders, both record an audit event.
  const caller = (name: string) =>
    `import { createOrder } from '../orders/create.js';\nimport { recordAuditEvent } from '../audit/log.js';\nexport function ${name}(id: string) {\n  recordAuditEvent('order', id);\n  return createOrder(id);\n}\n`;
  const root = repo({
    'src/audit/log.ts': 'export function recordAuditEvent(kind: string, subjectId: string): void {\n  void kind;\n  void subjectId;\n}\n',
    'src/orders/ids.ts': 'export function newOrderId(): string {\n  return String(Date.now());\n}\n',
    'src/orders/create.ts': "import { newOrderId } from './ids.js';\nexport function createOrder(id: string = newOrderId()) {\n  return { id };\n}\n",
    'src/api/routes.ts': caller('postOrder'),
    'src/jobs/replay.ts': caller('replayOrder'),
    ...filler(60),
  });
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 256, chatFiles: [join(root, 'src/orders/create.ts')] });
  assert.match(map.text, /src\/audit\/log\.ts:\n(?:.*\n)*?│export function recordAuditEvent\(kind: string, subjectId: string\): void \{/, map.text);
});

test('a short name of two words that the chat file imports comes before a longer one only its peers use', async () => {
  // `isOpen` is too short for Aider's compound weight; in the chat file's own imports it still
  // says which definition is meant, more surely than what two other handlers call.
  const root = repo({
    ...validatingHandlers(),
    'src/state/flags.ts': 'export function isOpen(store: string): boolean {\n  return store.length > 0;\n}\n',
    'src/handlers/orders.ts': "import { isOpen } from '../state/flags.js';\nexport function handleOrders(body: unknown) {\n  return isOpen('main') ? body : undefined;\n}\n",
    ...filler(60),
  });
  // Room for one signature: the first one the chat file needs.
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 48, chatFiles: [join(root, 'src/handlers/orders.ts')] });
  assert.match(map.text, /│export function isOpen\(store: string\): boolean \{/, map.text);
  assert.doesNotMatch(map.text, /│export function validateRequestBody\(/, map.text);
});

test('the other members of a class the chat file uses come before the API of the modules it imports', async () => {
  // A change that calls one method of a class often starts to call another of it.
  const helpers = Array.from({ length: 12 }, (_, i) => `export function formatHelper${i}(text: string): string {\n  return text;\n}\n`);
  const root = repo({
    'src/store.ts': [
      'export class SessionStore {',
      '  loadSession(id: string): string {',
      '    return id;',
      '  }',
      '  purgeExpired(now: number): number {',
      '    return now;',
      '  }',
      '  describeBackend(): string {',
      "    return 'memory';",
      '  }',
      '}',
      '',
    ].join('\n'),
    'src/format.ts': helpers.join(''),
    'src/handler.ts': [
      "import { SessionStore } from './store.js';",
      "import { formatHelper0 } from './format.js';",
      'export function touchSession(store: SessionStore, id: string): string {',
      '  return formatHelper0(store.loadSession(id));',
      '}',
      '',
    ].join('\n'),
    ...filler(80),
  });
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 256, chatFiles: [join(root, 'src/handler.ts')] });
  const shown = (path: string) => map.files.find((file) => file.path === path)?.lines.map((line) => line.text.trim()) ?? [];
  assert.ok(shown('src/store.ts').includes('purgeExpired(now: number): number {'), map.text);
  assert.ok(shown('src/store.ts').includes('describeBackend(): string {'), map.text);
  // The imported module's API follows: the depth section ends before all of it is listed.
  assert.ok(shown('src/format.ts').includes('export function formatHelper0(text: string): string {'), map.text);
  assert.ok(!shown('src/format.ts').includes('export function formatHelper11(text: string): string {'), map.text);
});

test('the top-level API of the files best ranked for the chat file is listed, not only their paths', async () => {
  // The chat file's callers rank first for it; what they define is what a change to it often
  // starts to use, though it imports none of them.
  const helpers = Array.from({ length: 12 }, (_, i) => `export function labelHelper${i}(label: string): string {\n  return label;\n}\n`);
  const root = repo({
    // An imported module with a long API, which would fill the list without the callers'.
    'src/orders/labels.ts': helpers.join('') + 'export function formatOrderLabel(id: string): string {\n  return id;\n}\n',
    'src/orders/create.ts': "import { formatOrderLabel } from './labels.js';\nexport function createOrder(id: string) {\n  return { id, label: formatOrderLabel(id) };\n}\n",
    'src/api/routes.ts':
      "import { createOrder } from '../orders/create.js';\nexport function routeOrderRequest(path: string, orderId: string): string {\n  return path + createOrder(orderId).id;\n}\n",
    ...filler(60),
  });
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 256, chatFiles: [join(root, 'src/orders/create.ts')] });
  assert.match(map.text, /src\/api\/routes\.ts:\n(?:.*\n)*?│export function routeOrderRequest\(path: string, orderId: string\): string \{/, map.text);
});

test('at a large budget the code the chat file uses takes all but BREADTH_MAX_TOKENS: bare paths are not given 3/8 of it', async () => {
  // The chat file calls more functions than the budget holds; hundreds of other files could be named.
  const modules: Record<string, string> = {};
  const calls: string[] = [];
  for (let i = 0; i < 300; i++) {
    modules[`src/lib/part_${i}.ts`] = `export function computePart${i}(value: number, scale: number): number {\n  return value * scale + ${i};\n}\n`;
    calls.push(`import { computePart${i} } from '../lib/part_${i}.js';`);
  }
  const body = Array.from({ length: 300 }, (_, i) => `  total += computePart${i}(total, 2);`).join('\n');
  const root = repo({ ...modules, 'src/app/main.ts': `${calls.join('\n')}\nexport function runAll(total: number): number {\n${body}\n  return total;\n}\n`, ...filler(600) });
  const budget = 4096;
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: budget, chatFiles: [join(root, 'src/app/main.ts')] });
  const shown = map.files.filter((file) => file.lines.length > 0);
  assert.ok(map.files.length > shown.length, 'breadth names files');
  assert.ok(shown.every((file) => file.path.startsWith('src/lib/')), 'the definitions shown are the callees');
  // The callees get about depthTokens(budget) (3,072 here), not 5/8 of it (2,560): more than halfway.
  const shownTokens = shown.reduce((sum, file) => sum + file.tokens, 0);
  assert.ok(depthTokens(budget) === budget - BREADTH_MAX_TOKENS);
  assert.ok(shownTokens > (depthTokens(budget) + budget * NEEDED_SHARE) / 2, `the callees took ${shownTokens} tokens`);
  assert.equal(depthTokens(1024), 1024 * NEEDED_SHARE, 'a small budget keeps the share');
});

test('of two files that define a name the chat file uses, the one ranked first for it is shown first', async () => {
  // `item.format_price()` names no module: both definers are guesses. The chat file also calls
  // what only shop/money.py defines, so that one ranks above the other (first by path).
  const root = repo({
    'legacy/old_money.py': 'class OldMoney:\n    def format_price(self, cents):\n        return str(cents)\n',
    'shop/money.py': 'class Money:\n    def format_price(self, cents):\n        return f"{cents / 100:.2f}"\n\n    def rounded_cents(self):\n        return 0\n',
    'shop/cart/checkout.py': 'def total_line(item):\n    return item.format_price(item.rounded_cents())\n',
    ...filler(60, 'py'),
  });
  // Room for two signatures: `rounded_cents`, said more surely, and one `format_price`.
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 64, chatFiles: [join(root, 'shop/cart/checkout.py')] });
  assert.match(map.text, /shop\/money\.py:\n(?:.*\n)*?│    def format_price\(self, cents\):/, map.text);
  assert.doesNotMatch(map.text, /legacy\/old_money\.py:/, map.text);
});

test('a plain word of a message weighs as a mention but does not come before the names the chat file uses; a --mention does', async () => {
  const root = repo({
    'src/pricing.ts': 'export function computeInvoiceTotal(items: number[]): number {\n  return items.length;\n}\n',
    'src/summary.ts': 'export function total(values: number[]): number {\n  return values.length;\n}\n',
    'src/checkout.ts': "import { computeInvoiceTotal } from './pricing.js';\nexport const totalOf = (items: number[]) => computeInvoiceTotal(items);\n",
    ...filler(40),
  });
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 40, chatFiles: [join(root, 'src/checkout.ts')], message: 'round the total' });
  assert.match(map.text, /│export function computeInvoiceTotal\(/);
  assert.doesNotMatch(map.text, /│export function total\(/);
  // Named with --mention, the same word is what the user asks for: its definition comes first.
  const named = await buildMap({ root, cacheDir: tempDir(), tokens: 40, chatFiles: [join(root, 'src/checkout.ts')], mentionedIdents: ['total'] });
  assert.match(named.text, /│export function total\(/);
});

test('a definition inside a code file\'s test module is not shown for code that uses the name', async () => {
  const root = repo({
    'src/main.rs': 'mod value;\nuse crate::value::Value;\n\nfn main() {\n    let v = Value::test_int(3);\n}\n',
    'src/value.rs': [
      'pub struct Value(i64);',
      '',
      'impl Value {',
      '    pub fn test_int(n: i64) -> Value {',
      '        Value(n)',
      '    }',
      '}',
      '',
      '#[cfg(test)]',
      'mod tests {',
      '    #[test]',
      '    fn test_int() {',
      '        assert_eq!(super::Value::test_int(1).0, 1);',
      '    }',
      '}',
      '',
    ].join('\n'),
    ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`src/other_${i}.rs`, `pub fn unrelated_helper_${i}(n: i64) -> i64 {\n    n + ${i}\n}\n`])),
  });
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 160, chatFiles: [join(root, 'src/main.rs')] });
  assert.match(map.text, /│    pub fn test_int\(n: i64\) -> Value \{/);
  assert.doesNotMatch(map.text, /fn test_int\(\)/);
});

test('a name is resolved through a chain of package indexes to the module that defines it', async () => {
  const root = repo({
    'src/app/run.ts': "import { runEngineJob } from '../lib/index.js';\nexport const go = () => runEngineJob('nightly');\n",
    'src/lib/index.ts': "export * from './core/index.js';\n",
    'src/lib/core/index.ts': "export * from './engine.js';\n",
    'src/lib/core/engine.ts': 'export function runEngineJob(name: string, retries = 3): Promise<void> {\n  return Promise.resolve();\n}\n',
    // Other definers of the name, none imported: by name alone, four files say too little.
    ...Object.fromEntries(['alpha', 'beta', 'gamma'].map((name) => [`src/${name}/engine.ts`, `export function runEngineJob(${name}Option: number): number {\n  return ${name}Option;\n}\n`])),
    ...filler(40),
  });
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 256, chatFiles: [join(root, 'src/app/run.ts')] });
  assert.match(map.text, /src\/lib\/core\/engine\.ts:\n│export function runEngineJob\(name: string, retries = 3\)/);
  assert.doesNotMatch(map.text, /Option: number/);
});

test('a name the chat file writes but its tags do not reference (a constant read, a struct literal key) is shown', async () => {
  const root = repo({
    'go.mod': 'module example.com/shop\n\ngo 1.21\n',
    'views/messages.go': [
      'package views',
      '',
      'const InitializingProvidersMessage = "Initializing provider plugins..."',
      '',
      'type InstallerEvents struct {',
      '\tFetchPackageBegin func(name string)',
      '}',
      '',
    ].join('\n'),
    'cmd/init.go': [
      'package cmd',
      '',
      'import (',
      '\t"fmt"',
      '\t"example.com/shop/views"',
      ')',
      '',
      'func Init() {',
      '\tfmt.Println(views.InitializingProvidersMessage)',
      '\t_ = views.InstallerEvents{FetchPackageBegin: func(name string) {}}',
      '}',
      '',
    ].join('\n'),
    ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`other/file_${i}.go`, `package other\n\nfunc UnrelatedHelper${i}(value int) int { return value + ${i} }\n`])),
  });
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 256, chatFiles: [join(root, 'cmd/init.go')] });
  const views = map.files.find((file) => file.path === 'views/messages.go');
  // The struct is a tagged type reference; the constant and the field only appear in the text.
  assert.ok(views?.lines.some((line) => line.text.includes('InitializingProvidersMessage')), map.text);
  assert.ok(views?.lines.some((line) => line.text.includes('FetchPackageBegin')), map.text);
});

test('of a field and a method of one name, the method the chat file calls is shown, not the field', async () => {
  const root = repo({
    'Cargo.toml': '[package]\nname = "probe"\nversion = "0.1.0"\n',
    'src/lib.rs': 'mod get;\nmod shutdown;\npub trait Probe {}\n',
    'src/shutdown.rs': [
      'pub(crate) struct Shutdown {',
      '    is_shutdown: bool,',
      '}',
      '',
      'impl Shutdown {',
      '    pub(crate) fn is_shutdown(&self) -> bool {',
      '        self.is_shutdown',
      '    }',
      '}',
      '',
    ].join('\n'),
    'src/get.rs': 'pub(crate) fn uses_shutdown<T: crate::Probe>(s: &mut T) -> bool {\n    s.is_shutdown()\n}\n',
  });
  // Room for one definition: a header and a line.
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 32, chatFiles: [join(root, 'src/get.rs')] });
  assert.match(map.text, /│    pub\(crate\) fn is_shutdown\(&self\) -> bool \{/, map.text);
  assert.doesNotMatch(map.text, /│    is_shutdown: bool,/, map.text);
  // Only mentioned (no call says which), the name's definitions come in the file's order: a
  // config option's field is as likely meant as a method of that name.
  const mentioned = await buildMap({ root, cacheDir: tempDir(), tokens: 32, chatFiles: [join(root, 'src/lib.rs')], mentionedIdents: ['is_shutdown'] });
  assert.match(mentioned.text, /│    is_shutdown: bool,/, mentioned.text);
});

test('bare paths are written a line per folder, the folders in rank order, in fewer tokens', async () => {
  const paths = ['internal/command/views/init.go', 'internal/command/meta.go', 'internal/command/views/hook.go', 'README.md', 'internal/command/views/odd,name.go', 'go.mod', 'odd{dir}/a.go', 'internal/command/meta_config.go', 'odd{dir}/b.go'];
  const lines = barePathLines(paths);
  assert.deepEqual(lines, ['internal/command/views/{init.go,hook.go}', 'internal/command/{meta.go,meta_config.go}', 'README.md', 'internal/command/views/odd,name.go', 'go.mod', 'odd{dir}/a.go', 'odd{dir}/b.go']);
  const blocks = paths.map((path, rank) => ({ path, rank, lang: '', lines: [], lineCount: 1 }));
  const text = renderText(blocks);
  assert.equal(text, lines.join('\n') + '\n');
  const countTokens = tokenCounter('cl100k_base');
  assert.ok(countTokens(text) < countTokens(paths.join('\n') + '\n'));
  // Between files with lines, a bare path is a block of its own.
  const mixed = renderText([blocks[0], { ...blocks[1], lines: [{ line: 0, text: 'package command', role: 'scope' as const }] }, blocks[2]]);
  assert.equal(mixed, 'internal/command/views/init.go\n\ninternal/command/meta.go:\n│package command\n\ninternal/command/views/hook.go\n');
});

test('markdown fences name the language; each file reports the tokens it takes', async () => {
  const root = repo({ 'a.py': 'def alpha_function():\n    pass\n', 'b.ts': 'export function betaFunction(): void {}\n' });
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 1024, markdown: true });
  assert.match(map.text, /a\.py:\n```python\n│def alpha_function\(\):/);
  assert.match(map.text, /b\.ts:\n```typescript\n│export function betaFunction/);
  for (const file of map.files) assert.equal(file.tokens > 0, true);
  const b = map.files.find((file) => file.path === 'b.ts')!;
  assert.equal(renderText([b], '', { markdown: true }), 'b.ts:\n```typescript\n│export function betaFunction(): void {}\n```\n');
});

/**
 * Per language: two files in other folders define the same name; the chat file imports one. The
 * map shows the imported one's signature, and not the other's, where a few lines fit.
 */
const RESOLUTION_CASES: Array<{ language: string; files: Record<string, string>; chat: string; imported: RegExp; other: RegExp; tokens?: number }> = [
  {
    language: 'TypeScript, a relative specifier written .js for a .ts file',
    files: {
      'src/app/main.ts': "import { makeWidgetThing } from '../widgets/make.js';\nexport const w = makeWidgetThing(1);\n",
      'src/widgets/make.ts': 'export function makeWidgetThing(size: number): number {\n  return size;\n}\n',
      'src/legacy/make.ts': 'export function makeWidgetThing(name: string): string {\n  return name;\n}\n',
    },
    chat: 'src/app/main.ts',
    imported: /src\/widgets\/make\.ts:\n│export function makeWidgetThing\(size: number\)/,
    other: /makeWidgetThing\(name: string\)/,
  },
  {
    language: 'TypeScript, tsconfig paths',
    files: {
      'tsconfig.json': '{ "compilerOptions": { "baseUrl": ".", "paths": { "@core/*": ["src/core/*"] } } }\n',
      'src/app/main.ts': "import { makeWidgetThing } from '@core/make';\nexport const w = makeWidgetThing(1);\n",
      'src/core/make.ts': 'export function makeWidgetThing(size: number): number {\n  return size;\n}\n',
      'src/at-first/make.ts': 'export function makeWidgetThing(name: string): string {\n  return name;\n}\n',
    },
    chat: 'src/app/main.ts',
    imported: /src\/core\/make\.ts:\n│export function makeWidgetThing\(size: number\)/,
    other: /makeWidgetThing\(name: string\)/,
  },
  {
    language: 'TypeScript, a workspace package by its name',
    files: {
      'package.json': '{ "name": "root", "private": true, "workspaces": ["packages/*"] }\n',
      'packages/widgets/package.json': '{ "name": "@acme/widgets", "main": "dist/index.js", "types": "dist/index.d.ts" }\n',
      'packages/widgets/src/index.ts': 'export function makeWidgetThing(size: number): number {\n  return size;\n}\n',
      'packages/legacy/src/index.ts': 'export function makeWidgetThing(nameOfTheWidgetInTheLegacyCatalogue: string, anotherLongParameter: number): string {\n  return name;\n}\n',
      'packages/app/src/main.ts': "import { makeWidgetThing } from '@acme/widgets';\nexport const w = makeWidgetThing(1);\n",
    },
    chat: 'packages/app/src/main.ts',
    imported: /packages\/widgets\/src\/index\.ts:\n│export function makeWidgetThing\(size: number\)/,
    other: /makeWidgetThing\(nameOfTheWidget/,
    tokens: 64,
  },
  {
    language: 'Python, a relative import',
    files: {
      'pkg/__init__.py': '',
      'pkg/app/__init__.py': '',
      'pkg/app/main.py': 'from ..widgets.make import make_widget_thing\n\nvalue = make_widget_thing(1)\n',
      'pkg/widgets/__init__.py': '',
      'pkg/widgets/make.py': 'def make_widget_thing(size):\n    return size\n',
      'pkg/legacy/make.py': 'def make_widget_thing(name_of_the_widget_in_the_legacy_catalogue, another_long_parameter):\n    return name\n',
    },
    chat: 'pkg/app/main.py',
    imported: /pkg\/widgets\/make\.py:\n│def make_widget_thing\(size\):/,
    other: /make_widget_thing\(name_of_the_widget/,
  },
  {
    language: 'Go, a package of several files by its module path',
    files: {
      'go.mod': 'module example.com/shop\n\ngo 1.22\n',
      'cmd/main.go': 'package main\n\nimport "example.com/shop/widgets"\n\nfunc main() { widgets.MakeWidgetThing(1) }\n',
      'widgets/types.go': 'package widgets\n\ntype Size int\n',
      'widgets/make.go': 'package widgets\n\nfunc MakeWidgetThing(size Size) Size { return size }\n',
      'legacy/make.go': 'package legacy\n\nfunc MakeWidgetThing(name string) string { return name }\n',
    },
    chat: 'cmd/main.go',
    imported: /widgets\/make\.go:\n…\n│func MakeWidgetThing\(size Size\) Size/,
    other: /MakeWidgetThing\(name string\)/,
  },
  {
    language: 'Rust, the module tree and a crate path',
    files: {
      'Cargo.toml': '[package]\nname = "shop"\nversion = "0.1.0"\n',
      'src/lib.rs': 'pub mod widgets;\npub mod legacy;\npub mod app;\n',
      'src/widgets/mod.rs': 'pub mod make;\n',
      'src/widgets/make.rs': 'pub fn make_widget_thing(size: u32) -> u32 {\n    size\n}\n',
      'src/legacy.rs': 'pub fn make_widget_thing(name: &str) -> &str {\n    name\n}\n',
      'src/app.rs': 'use crate::widgets::make::make_widget_thing;\n\npub fn run() -> u32 {\n    make_widget_thing(1)\n}\n',
    },
    chat: 'src/app.rs',
    imported: /src\/widgets\/make\.rs:\n│pub fn make_widget_thing\(size: u32\) -> u32 \{/,
    other: /make_widget_thing\(name: &str\)/,
  },
  {
    language: 'Java, an import by package',
    files: {
      'src/main/java/com/acme/app/Main.java': 'package com.acme.app;\n\nimport com.acme.widgets.WidgetMaker;\n\npublic class Main {\n  int run() { return WidgetMaker.makeWidgetThing(1); }\n}\n',
      'src/main/java/com/acme/widgets/WidgetMaker.java': 'package com.acme.widgets;\n\npublic class WidgetMaker {\n  public static int makeWidgetThing(int size) { return size; }\n}\n',
      'src/main/java/com/acme/legacy/WidgetMaker.java': 'package com.acme.legacy;\n\npublic class WidgetMaker {\n  public static String makeWidgetThing(String name) { return name; }\n}\n',
    },
    chat: 'src/main/java/com/acme/app/Main.java',
    imported: /com\/acme\/widgets\/WidgetMaker\.java:\n…\n│public class WidgetMaker \{/,
    other: /makeWidgetThing\(String name\)/,
  },
  {
    language: 'C, a quoted include',
    files: {
      'src/app/main.c': '#include "../widgets/make.h"\n\nint main(void) { return make_widget_thing(1); }\n',
      'src/widgets/make.h': 'int make_widget_thing(int size);\n',
      'src/legacy/make.h': 'const char *make_widget_thing(const char *name_of_the_widget_in_the_legacy_catalogue, int another_long_parameter);\n',
    },
    chat: 'src/app/main.c',
    imported: /src\/widgets\/make\.h:\n│int make_widget_thing\(int size\);/,
    other: /make_widget_thing\(const char \*name_of/,
  },
];

for (const { language, files, chat, imported, other, tokens = 32 } of RESOLUTION_CASES) {
  test(`resolution decides which definer is shown: ${language}`, async () => {
    const root = repo(files);
    const map = await buildMap({ root, cacheDir: tempDir(), tokens, chatFiles: [join(root, chat)] });
    assert.match(map.text, imported);
    assert.doesNotMatch(map.text, other);
  });
}
