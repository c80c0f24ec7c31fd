// The project config (repomap.config.json, or the `repomap` key of package.json), as the commands
// and the library read it. The daemon's reading (and reloading) is tested in daemon.test.ts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildMap } from '../src/api/index.js';
import { copyFixture, runCli, tempDir } from './helpers.js';

interface MapJson {
  budget: number;
  files: Array<{ path: string }>;
  stats: { discovered: number };
}

function mapJson(args: string[]): MapJson {
  const result = runCli(['map', ...args, '--format', 'json']);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as MapJson;
}

const paths = (map: { files: Array<{ path: string }> }) => map.files.map((file) => file.path);

test('repomap.config.json sets the defaults of map; a flag given wins over it', () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  writeFileSync(join(root, 'repomap.config.json'), JSON.stringify({ exclude: ['api'], tokens: 300, maxFileBytes: 100000, workers: 1 }));
  const configured = mapJson([root, '--cache-dir', cache]);
  assert.equal(configured.budget, 300);
  assert.ok(!paths(configured).some((path) => path.startsWith('api/')), paths(configured).join(' '));

  const flagged = mapJson([root, '--cache-dir', cache, '--tokens', '500', '--exclude', 'lib']);
  assert.equal(flagged.budget, 500);
  assert.ok(paths(flagged).some((path) => path.startsWith('api/')), '--exclude replaces the config\'s exclude');
  assert.ok(!paths(flagged).some((path) => path.startsWith('lib/')));
});

test("the 'repomap' key of package.json is read when there is no repomap.config.json; include keeps only what it matches", async () => {
  const root = copyFixture('shop');
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'shop', repomap: { include: ['src', 'README.md'] } }));
  const map = mapJson([root, '--cache-dir', tempDir()]);
  assert.equal(map.stats.discovered, 6, paths(map).join(' ')); // src/*.ts and README.md
  assert.ok(paths(map).every((path) => path.startsWith('src/') || path === 'README.md'), paths(map).join(' '));

  // The library reads it too, unless told not to.
  const library = await buildMap({ root, cacheDir: tempDir() });
  assert.equal(library.stats.discovered, 6);
  const unconfigured = await buildMap({ root, cacheDir: tempDir(), projectConfig: false });
  assert.equal(unconfigured.stats.discovered, 11);

  // A chat file the include leaves out is refused, saying why.
  const refused = runCli(['map', root, '--cache-dir', tempDir(), '--chat', 'api/server.py'], { cwd: root });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /chat file api\/server\.py is not indexed \(not matched by the project config's include\)/);
});

test('a wrong config is one line naming the key and the file, exit 2, for every command that reads it', () => {
  const root = copyFixture('shop');
  const file = join(root, 'repomap.config.json');
  const cases: Array<[unknown, RegExp]> = [
    [{ exlude: ['api'] }, /repomap\.config\.json: unknown key 'exlude' \(known: exclude, include, tokens, maxTokens, encoding, workers, maxFileBytes, idleTimeout, languages\)$/],
    [{ tokens: '300' }, /repomap\.config\.json: 'tokens' must be a positive whole number of at most 65536, not "300"$/],
    [{ exclude: 'api' }, /repomap\.config\.json: 'exclude' must be a list of glob strings, not "api"$/],
    [{ encoding: 'klingon' }, /repomap\.config\.json: 'encoding' must be one of cl100k_base, .*, not "klingon"$/],
    [{ idleTimeout: -1 }, /repomap\.config\.json: 'idleTimeout' must be a whole number of seconds, 0 or more, not -1$/],
    [[], /repomap\.config\.json: the config must be a JSON object$/],
    [{ languages: { zz: { extensions: ['.zz'] } } }, /repomap\.config\.json: 'languages' must be .*; 'zz' is not a built-in language, so it needs extensions and a grammar$/],
    // A glob outside the root would match nothing: said naming the file, before any daemon is started.
    [{ exclude: ['/elsewhere/vendor'] }, /repomap\.config\.json: exclude glob \/elsewhere\/vendor lies outside the repository root \/\S+ \(globs are matched against paths from the root\)$/],
    [{ include: ['src', '../other'] }, /repomap\.config\.json: include glob \.\.\/other lies outside the repository root \/\S+ \(globs are matched against paths from the root\)$/],
    // So is a glob picomatch cannot compile, which it would read as a literal or as matching nothing.
    [{ include: ['src/['] }, /repomap\.config\.json: include glob src\/\[: its '\[' has no closing '\]' \(write \\\[ to match a literal '\['\)$/],
    [{ exclude: ['*.{ts'] }, /repomap\.config\.json: exclude glob \*\.\{ts: its '\{' has no closing '\}' \(write \\\{ to match a literal '\{'\)$/],
  ];
  for (const [config, pattern] of cases) {
    writeFileSync(file, JSON.stringify(config));
    for (const args of [['map', root], ['symbols', 'Cart', root], ['start', root, '--cache-dir', tempDir()]]) {
      const result = runCli(args, { env: { XDG_RUNTIME_DIR: privateRuntime() } });
      assert.equal(result.code, 2, `${args[0]} ${JSON.stringify(config)}: ${result.stderr}`);
      const lines = result.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0], pattern);
    }
  }
  writeFileSync(file, '{"tokens": 3,');
  assert.match(runCli(['map', root]).stderr, /^repomap: .*repomap\.config\.json: not valid JSON/);
});

/** A private runtime folder, as XDG_RUNTIME_DIR would give (mkdtemp makes it 0700). */
function privateRuntime(): string {
  return tempDir('repomap-run-');
}

test("the README's example config is a valid config", async () => {
  const { readFileSync } = await import('node:fs');
  const { packageRoot } = await import('../src/paths.js');
  const { parseProjectConfig } = await import('../src/config.js');
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const example = /### The project config[^\n]*\n[\s\S]*?```json\n([\s\S]*?)```/.exec(readme);
  assert.ok(example, 'the README shows a config');
  const config = parseProjectConfig(JSON.parse(example[1]), 'README.md');
  assert.deepEqual(Object.keys(config).sort(), ['encoding', 'exclude', 'idleTimeoutSeconds', 'include', 'maxFileBytes', 'maxTokens', 'tokens', 'workers']);
});

test("the README's example of a project's languages is a valid config", async () => {
  const { readFileSync } = await import('node:fs');
  const { packageRoot } = await import('../src/paths.js');
  const { parseProjectConfig } = await import('../src/config.js');
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const example = /### Languages a project adds or changes[^\n]*\n[\s\S]*?```json\n([\s\S]*?)```/.exec(readme);
  assert.ok(example, 'the README shows one');
  const config = parseProjectConfig(JSON.parse(example[1]), 'README.md');
  assert.deepEqual(Object.keys(config.languages ?? {}).sort(), ['ledger', 'tsx']);
});

test('a changed maxFileBytes applies to files the cache holds: skipped as too large before, read now, and back', () => {
  const root = copyFixture('shop');
  const cache = tempDir();
  const skippedLarge = (args: string[]) => {
    const result = runCli(['map', root, '--cache-dir', cache, '--format', 'json', ...args]);
    assert.equal(result.code, 0, result.stderr);
    return (JSON.parse(result.stdout) as { skipped: Record<string, number> }).skipped['too large'] ?? 0;
  };
  assert.equal(skippedLarge(['--max-file-bytes', '10']), 9);
  assert.equal(skippedLarge([]), 0);
  assert.equal(skippedLarge(['--max-file-bytes', '10']), 9);
});
