// Issue #50, item 2: a language whose native runtime or grammar does not load runs on its
// WebAssembly build, with the same tags, and `--verbose` and `status` say which languages fell back
// and why. The fallback is forced with REPOMAP_TEST_NATIVE_FAILS (see test-hooks.ts).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { extractTags, prepareLanguage } from '../src/extract/extract.js';
import { LANGUAGES, type LanguageSpec, type WasmBuild, languageForPath } from '../src/extract/languages.js';
import { fallbackBuild } from '../src/extract/native.js';
import { runCliBounded } from './bounded.js';
import { runtimeEnv, startDaemon } from './daemon-helpers.js';
import { LANG_FIXTURES } from './fixture-tags.js';
import { runCli, tempDir, writeTree } from './helpers.js';

/** A small repository of Python, TypeScript and Common Lisp (which has no WebAssembly build). */
function mixedRepo(): string {
  const root = tempDir('repomap-runtimes-');
  writeTree(root, {
    'app/main.py': 'from app.util import helper\n\ndef hello(x):\n    return helper(x)\n',
    'app/util.py': 'def helper(y):\n    return y\n',
    'web/greet.ts': 'export function greet(name: string): string {\n  return name;\n}\nexport class Greeter {\n  hello(): string { return greet("x"); }\n}\n',
    'lisp/inventory.lisp': '(defun restock (item) item)\n',
  });
  return root;
}

const RUNTIME_FAILS = 'native tree-sitter failed to load (tree-sitter made to fail by REPOMAP_TEST_NATIVE_FAILS)';

describe('item 2: WebAssembly when native will not load', () => {
  test('with the native runtime failing to load, `repomap map` makes the same map on WebAssembly; --verbose says which languages fell back and why', async () => {
    const root = mixedRepo();
    const native = await runCliBounded(['map', root, '--cache-dir', tempDir('repomap-cache-')]);
    const fallback = await runCliBounded(['map', root, '--verbose', '--cache-dir', tempDir('repomap-cache-')], { env: { REPOMAP_TEST_NATIVE_FAILS: 'tree-sitter' } });
    assert.equal(native.code, 0, native.stderr);
    assert.equal(fallback.code, 0, fallback.stderr);
    assert.match(native.stdout, /def hello\(x\):/);
    assert.match(native.stdout, /export class Greeter/);
    assert.match(native.stdout, /\(defun restock/);
    // Common Lisp has no WebAssembly build: its file is left out, saying why; the others map as natively.
    const blocks = (map: string) => map.trim().split('\n\n');
    assert.deepEqual(blocks(fallback.stdout), [...blocks(native.stdout).filter((block) => !block.startsWith('lisp/')), '(1 file not mapped: 1 no grammar)']);
    const lines = fallback.stderr.split('\n');
    assert.deepEqual(lines.filter((line) => line.includes('on WebAssembly')), [`repomap: ${RUNTIME_FAILS}: python, typescript on WebAssembly, commonlisp left out (no WebAssembly build)`]);
    assert.ok(lines.includes(`skipped lisp/inventory.lisp: no grammar (commonlisp: ${RUNTIME_FAILS}; no WebAssembly build)`), fallback.stderr);
  });

  test('a language whose native grammar alone fails falls back alone, and `repomap status` says so', async () => {
    const root = mixedRepo();
    const env = { ...runtimeEnv(), REPOMAP_TEST_NATIVE_FAILS: 'python' };
    const daemon = await startDaemon(root, env);
    try {
      const map = runCli(['query', root, '--verbose'], { env });
      assert.equal(map.code, 0, map.stderr);
      assert.match(map.stdout, /def hello\(x\):/);
      const said = 'repomap: native grammar tree-sitter-python failed to load (python made to fail by REPOMAP_TEST_NATIVE_FAILS): python on WebAssembly';
      assert.ok(map.stderr.split('\n').includes(said), map.stderr);
      const status = runCli(['status', root], { env });
      assert.equal(status.code, 0, status.stderr);
      assert.ok(status.stdout.split('\n').includes(`grammars:        ${said.slice('repomap: '.length)}`), status.stdout);
    } finally {
      runCli(['stop', root], { env });
      await daemon.exited;
    }
  });

  test('every language runs natively here: neither --verbose nor status has a line for it', async () => {
    const root = mixedRepo();
    const result = await runCliBounded(['map', root, '--verbose', '--cache-dir', tempDir('repomap-cache-')]);
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stderr, /WebAssembly|failed to load/);
  });
});

/** The language as a WebAssembly build runs it, beside the native one in the same thread (its own signature keeps the two apart). */
function onWasm(lang: LanguageSpec, build: WasmBuild, index: number): LanguageSpec {
  return { ...lang, grammar: { runtime: 'wasm', package: build.package, file: build.file }, signature: `wasm ${index}` };
}

/** A language's WebAssembly fallbacks, in order of preference. */
const buildsOf = (lang: LanguageSpec): readonly WasmBuild[] => (lang.grammar.runtime === 'native' ? (lang.grammar.wasm ?? []) : []);

/** Every fixture file (fixtures/lang/<dir>/<file>) whose language is `lang`. */
function fixturesOf(lang: LanguageSpec): string[] {
  return readdirSync(LANG_FIXTURES).flatMap((dir) =>
    readdirSync(join(LANG_FIXTURES, dir))
      .map((file) => join(dir, file))
      .filter((path) => languageForPath(path)?.id === lang.id),
  );
}

describe('item 2: the same tags from the native and the WebAssembly runtime', () => {
  const withBuild = LANGUAGES.filter((lang) => buildsOf(lang).length > 0);

  test('every language with a WebAssembly fallback has a fixture to compare on, and its builds are installed here', () => {
    assert.deepEqual(withBuild.filter((lang) => fixturesOf(lang).length === 0).map((lang) => lang.id), []);
    assert.deepEqual(withBuild.filter((lang) => fallbackBuild(lang) === undefined).map((lang) => lang.id), []);
    assert.ok(withBuild.length > 0);
  });

  for (const lang of withBuild) {
    for (const [index, build] of buildsOf(lang).entries()) {
      test(`${lang.id}: every fixture's tags are the same on ${build.package}'s WebAssembly build as natively`, async () => {
        const wasm = onWasm(lang, build, index);
        await prepareLanguage(lang);
        await prepareLanguage(wasm);
        for (const path of fixturesOf(lang)) {
          const source = readFileSync(join(LANG_FIXTURES, path), 'utf8');
          const native = extractTags(lang, source);
          const web = extractTags(wasm, source);
          assert.ok(native.ok, `${path} natively: ${native.ok ? '' : native.detail}`);
          assert.ok(web.ok, `${path} on WebAssembly: ${web.ok ? '' : web.detail}`);
          assert.deepEqual(web.tags, native.tags, path);
        }
      });
    }
  }
});
