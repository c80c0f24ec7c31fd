// Languages a project adds or overrides (the config's `languages`, .repomap/queries/<id>.scm):
// an added extension parsed with a grammar installed in the repository and the project's query,
// in the pool's workers; a built-in query overridden for one repository only, with the tag cache
// following the query; a broken query as one notice naming its file and line, the built-in query
// used in its place (an added language's files left out).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseProjectConfig } from '../src/config.js';
import { indexRepository } from '../src/indexer/indexer.js';
import { buildMap } from '../src/map.js';
import { packageRoot } from '../src/paths.js';
import { TagStore } from '../src/store/store.js';
import { RepomapError } from '../src/errors.js';
import { resolveLanguages } from '../src/extract/user-languages.js';
import { manyPythonModules, tempDir } from './helpers.js';

/** A repository whose node_modules holds the tree-sitter-python package (linked to repomap's own). */
function repository(files: Record<string, string>): string {
  const root = tempDir('repomap-user-lang-');
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(join(packageRoot, 'node_modules', 'tree-sitter-python'), join(root, 'node_modules', 'tree-sitter-python'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** Indexes the repository with its config; reports each file's stored skip and definitions ("subkind name"). */
async function indexed(root: string, cache: string, workers: number) {
  const config = parseProjectConfig(JSON.parse(readFileSync(join(root, 'repomap.config.json'), 'utf8')), 'config');
  const notices: string[] = [];
  const store = TagStore.open(cache);
  try {
    // The user allows the native grammar the configs here name (a repository cannot: see hostile-config.test.ts).
    const index = await indexRepository({ root, store, workers, ...config, allowGrammars: ['tree-sitter-python'], onNotice: (message) => notices.push(message) });
    const files = new Map(
      index.paths.map((path) => [path, { skip: store.get(path)?.skip, defs: store.outline(path)?.defs().map((def) => `${def.subkind} ${def.name}`) ?? null }]),
    );
    return { index, notices, defs: (path: string) => files.get(path)?.defs, record: (path: string) => files.get(path) };
  } finally {
    await store.close();
  }
}

const PYTHONISH = `class Ledger:
    def post(self, entry):
        return record(entry)

def record(entry):
    return entry
`;

test('an added extension is parsed with an installed grammar and the project query, in workers and in this thread', async () => {
  const root = repository({
    'repomap.config.json': JSON.stringify({ languages: { ledger: { extensions: ['.ldg'], grammar: 'tree-sitter-python', query: 'queries/ledger.scm', family: 'python' } } }),
    'queries/ledger.scm': '(function_definition name: (identifier) @name.definition.function)\n(call function: (identifier) @name.reference.call)\n',
    'books/main.ldg': PYTHONISH,
    'books/plain.py': PYTHONISH,
  });
  for (const workers of [1, 2]) {
    const run = await indexed(root, tempDir(), workers);
    assert.equal(run.record('books/main.ldg')?.skip, null);
    // Only what the project's query captures: functions, not the class.
    assert.deepEqual(run.defs('books/main.ldg'), ['function post', 'function record']);
    // .py keeps the built-in Python query.
    assert.deepEqual(run.defs('books/plain.py'), ['class Ledger', 'method post', 'function record']);
    assert.deepEqual(run.notices, []);
  }
});

test('a .wasm grammar file in the repository, run by web-tree-sitter in the workers', async () => {
  const root = repository({
    'repomap.config.json': JSON.stringify({ languages: { settings: { extensions: ['.settings'], grammar: 'grammars/json.wasm', query: 'queries/settings.scm' } } }),
    'queries/settings.scm': '(pair key: (string (string_content) @name.definition.field))\n',
    'app.settings': '{\n  "port": 8080,\n  "cache": { "ttl": 60 }\n}\n',
  });
  mkdirSync(join(root, 'grammars'));
  copyFileSync(join(packageRoot, 'node_modules', 'tree-sitter-wasms', 'out', 'tree-sitter-json.wasm'), join(root, 'grammars', 'json.wasm'));
  for (const workers of [1, 2]) {
    const run = await indexed(root, tempDir(), workers);
    assert.deepEqual(run.defs('app.settings'), ['field port', 'field cache', 'field ttl']);
  }
});

test("an override of a built-in query applies to its repository only, and the cache follows the query", async () => {
  const root = repository({
    'repomap.config.json': '{}',
    '.repomap/queries/python.scm': '(class_definition name: (identifier) @name.definition.class)\n',
    'app.py': PYTHONISH,
  });
  const other = repository({ 'repomap.config.json': '{}', 'app.py': PYTHONISH });
  const cache = tempDir();
  let run = await indexed(root, cache, 2);
  assert.deepEqual(run.defs('app.py'), ['class Ledger']);
  assert.deepEqual((await indexed(other, tempDir(), 2)).defs('app.py'), ['class Ledger', 'method post', 'function record']);
  // A changed query re-parses the files it applies to, though they did not change.
  writeFileSync(join(root, '.repomap/queries/python.scm'), '(function_definition name: (identifier) @name.definition.function)\n');
  run = await indexed(root, cache, 2);
  assert.deepEqual(run.defs('app.py'), ['function post', 'function record']);
  assert.equal(run.index.stats.parsed, 1);
  // Unchanged, the stored tags stand.
  run = await indexed(root, cache, 2);
  assert.equal(run.index.stats.parsed, 0);
  assert.deepEqual(run.defs('app.py'), ['function post', 'function record']);
});

test('a changed tag query is not answered from the related graph saved before it: the map is the one a fresh cache gives', async () => {
  const root = repository({
    'repomap.config.json': '{}',
    'app.py': 'from ledger import post\n\ndef run(entry):\n    return post(entry)\n',
    'ledger.py': 'def post(entry):\n    return entry\n\ndef balance(book):\n    return book\n',
    'audit.py': 'def check(book):\n    return book\n\ndef close(book):\n    return check(book)\n',
  });
  const cache = tempDir();
  const request = { root, cacheDir: cache, chatFiles: ['app.py'], tokens: 1024, workers: 1 };
  assert.equal((await buildMap(request)).stats.restoredGraphs, 0);
  assert.equal((await buildMap(request)).stats.restoredGraphs, 1, 'saved, and read back while nothing changed');
  // Definitions only: no file references another, so no file is related to the chat file.
  mkdirSync(join(root, '.repomap', 'queries'), { recursive: true });
  writeFileSync(join(root, '.repomap', 'queries', 'python.scm'), '(function_definition name: (identifier) @name.definition.function)\n');
  const changed = await buildMap(request);
  const fresh = await buildMap({ ...request, cacheDir: tempDir() });
  assert.equal(changed.stats.restoredGraphs, 0);
  assert.equal(changed.text, fresh.text);
});

test("a changed query's files are parsed again on the pool, though dropping their records left the open store's file shorter than its meta pages say", async () => {
  // Dropping many records at once frees pages its own transaction dirtied (LMDB writes none of
  // them), so the store's file may end before the last page its meta pages name until it closes:
  // the parse threads attach to the store meanwhile, and must not take that for a truncated file.
  const files: Record<string, string> = { 'repomap.config.json': '{}', ...manyPythonModules(20, 4) };
  files['.repomap/queries/python.scm'] = '(function_definition name: (identifier) @name.definition.function)\n(class_definition name: (identifier) @name.definition.class)\n(call function: (identifier) @name.reference.call)\n';
  const root = repository(files);
  const request = { root, cacheDir: tempDir(), tokens: 256, workers: 2 };
  assert.equal((await buildMap(request)).stats.parsed, 20);
  writeFileSync(join(root, '.repomap', 'queries', 'python.scm'), '(function_definition name: (identifier) @name.definition.function)\n');
  const changed = await buildMap(request);
  assert.deepEqual(changed.skippedFiles.filter((file) => file.reason === 'parse failed'), []);
  assert.equal(changed.stats.parsed, 20);
  assert.equal(changed.text, (await buildMap({ ...request, cacheDir: tempDir() })).text);
});

test('a broken query is one notice naming its file, line and column, on every run; the built-in query is used, or an added language\'s files are left out as "no grammar"', async () => {
  const root = repository({
    'repomap.config.json': JSON.stringify({ languages: { ledger: { extensions: ['.ldg'], grammar: 'tree-sitter-python', query: 'queries/ledger.scm' } } }),
    'queries/ledger.scm': '(function_definition nme: (identifier) @name.definition.function)\n',
    'books/main.ldg': PYTHONISH,
    '.repomap/queries/python.scm': '; functions\n(function_definition name: (identifier) @name.definition.function)\n(class_definition nme: (identifier) @name.definition.class)\n',
    // A WebAssembly grammar's error, after a line of non-ASCII text: columns count characters, offsets bytes.
    '.repomap/queries/swift.scm': '; les déclarations — naïves\n(function_definition name: (simple_identifier) @name.definition.function)\n',
    'a.py': PYTHONISH,
    'b.py': PYTHONISH,
    'app.swift': 'func run() {}\n',
    'main.go': 'package main\nfunc main() {}\n',
  });
  const queries = join(root, '.repomap', 'queries');
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const cache = tempDir();
  // A fresh cache with each worker count, then a run over the stored records (nothing parsed): the same notices.
  for (const [workers, cacheDir, reused] of [[1, tempDir(), false], [2, cache, false], [2, cache, true]] as const) {
    const run = await indexed(root, cacheDir, workers);
    assert.equal(run.index.stats.parsed === 0, reused);
    assert.equal(run.notices.length, 3, run.notices.join('\n'));
    const notice = (lang: string) => run.notices.find((line) => line.includes(`tag query for ${lang} `)) ?? '';
    assert.match(notice('python'), new RegExp(`^repomap: ${escape(join(queries, 'python.scm'))}:3:19: tag query for python is invalid \\(.+\\); the built-in query is used$`));
    assert.match(notice('swift'), new RegExp(`^repomap: ${escape(join(queries, 'swift.scm'))}:2:2: tag query for swift is invalid \\(.+\\); the built-in query is used$`));
    assert.match(notice('ledger'), new RegExp(`^repomap: ${escape(join(root, 'queries', 'ledger.scm'))}:1:22: tag query for ledger is invalid \\(.+\\); its files are left out as 'no grammar'$`));
    assert.deepEqual(run.defs('a.py'), ['class Ledger', 'method post', 'function record'], 'the built-in query tags them');
    assert.deepEqual(run.defs('app.swift'), ['function run']);
    assert.equal(run.record('books/main.ldg')?.skip, 'no grammar');
    assert.ok(run.index.skipped.some((skip) => skip.path === 'books/main.ldg' && skip.reason === 'no grammar'));
    assert.equal(run.record('main.go')?.skip, null, 'other languages are parsed as usual');
  }
});

test('a grammar that does not load (not WebAssembly) is one notice naming it; its files are left out as "no grammar"', async () => {
  const root = repository({
    'repomap.config.json': JSON.stringify({ languages: { notes: { extensions: ['.note'], grammar: 'grammars/broken.wasm', query: 'notes.scm' } } }),
    'grammars/broken.wasm': 'not a WebAssembly module\n',
    'notes.scm': '(document) @scope\n',
    'a.note': 'one\n',
    'b.note': 'two\n',
  });
  for (const workers of [1, 2]) {
    const run = await indexed(root, tempDir(), workers);
    assert.equal(run.notices.length, 1, run.notices.join('\n'));
    assert.match(run.notices[0], /^repomap: notes: grammar grammars\/broken\.wasm failed to load \(.+\); its files are left out as 'no grammar'$/);
    for (const path of ['a.note', 'b.note']) assert.equal(run.record(path)?.skip, 'no grammar', path);
  }
});

test('a config naming a grammar that is not installed, or a query file that does not exist, is a clear error', () => {
  const root = repository({ 'q.scm': '' });
  assert.throws(() => resolveLanguages(root, { zz: { extensions: ['.zz'], grammar: 'tree-sitter-zz', query: 'q.scm' } }, ['tree-sitter-zz']), (err: unknown) => err instanceof RepomapError && err.code === 'bad-request' && /'tree-sitter-zz' is not installed/.test(err.message));
  assert.throws(() => resolveLanguages(root, { zz: { extensions: ['.zz'], grammar: 'tree-sitter-python', query: 'missing.scm' } }), /cannot read its tag query .*missing\.scm/);
  assert.throws(() => parseProjectConfig({ languages: { zz: { extensions: ['zz'] } } }, 'cfg'), /'zz.extensions' must be a list of extensions/);
  assert.throws(() => parseProjectConfig({ languages: { zz: { extensions: ['.zz'] } } }, 'cfg'), /needs extensions and a grammar/);
});
