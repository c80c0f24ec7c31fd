// The map shows the code the chat file uses: whole signatures, the members it uses, the mentioned
// definitions, never a definition of another language family, tests after code.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { buildMap, mapToJson } from '../src/map.js';
import { renderText } from '../src/render/render.js';
import { tempDir } from './helpers.js';

/** A repository of the given files (path -> text) in a new folder. */
function repo(files: Record<string, string>): string {
  const root = tempDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
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
  const pricing = mapToJson(map).files.find((file) => file.path === 'src/pricing.ts')!;
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
  const json = mapToJson(map);
  for (const path of ['service/decoder.go', 'service/use.go']) assert.equal(json.files.find((file) => file.path === path)?.rank ?? 0, 0);
  // ... and where only a few lines fit, they are the Python definer's, not the Go one's.
  const small = await buildMap({ root, cacheDir: tempDir(), tokens: 40, chatFiles });
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
  const map = await buildMap({ root, cacheDir: tempDir(), tokens: 48, chatFiles: [join(root, 'src/parser.ts')] });
  assert.ok(linesOf(map, 'src/lexer.ts') > 0, map.text);
  assert.equal(linesOf(map, 'src/parser.test.ts'), 0, map.text);
  // With the test in the chat, what it tests is needed, and shown.
  const forTest = await buildMap({ root, cacheDir: tempDir(), tokens: 48, chatFiles: [join(root, 'src/parser.test.ts')] });
  assert.ok(linesOf(forTest, 'src/parser.ts') > 0, forTest.text);
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
