// The library's entry points check their options up front, as the daemon checks its params: a
// mistake is a bad-request RepomapError naming the option, never a quiet default or an internal error.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { RepomapError, buildMap, connect, findSymbolsIn } from '../src/api/index.js';
import { INDEX_OPTIONS, START_OPTIONS } from '../src/api/options.js';
import { MAP_REQUEST, SYMBOL_QUERY } from '../src/api/request.js';
import { readFileSync } from 'node:fs';
import { packageRoot } from '../src/paths.js';
import { copyFixture, tempDir } from './helpers.js';

/** Rejects with a bad-request RepomapError whose message matches. */
function badRequest(pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof RepomapError, String(err));
    assert.equal(err.code, 'bad-request', err.message);
    assert.match(err.message, pattern);
    return true;
  };
}

// Typed as a caller without types writes them.
type Loose = Record<string, unknown>;
const buildLoose = buildMap as unknown as (options?: unknown) => Promise<unknown>;
const findLoose = findSymbolsIn as unknown as (options: Loose) => Promise<unknown>;
const connectLoose = connect as unknown as (dir: string, options: Loose) => Promise<unknown>;

test('findSymbolsIn refuses a bad query as the daemon does, before indexing', async () => {
  const root = copyFixture('shop');
  const cacheDir = tempDir();
  const cases: Array<[Loose, RegExp]> = [
    [{ name: 'priceOf', limit: -1 }, /^limit must be a positive whole number, not -1$/],
    [{ name: 'priceOf', limit: 0 }, /^limit must be a positive whole number, not 0$/],
    [{ name: 'priceOf', limit: '3' }, /^limit must be a positive whole number, not "3"$/],
    [{ name: 'priceOf', prefix: 'no' }, /^prefix must be true or false, not "no"$/],
    [{ name: '' }, /^name must be a non-empty string, not ""$/],
    [{ name: 42 }, /^name must be a non-empty string, not 42$/],
    [{}, /^name must be a non-empty string$/],
    [{ name: 'priceOf', nmae: 'x' }, /^unknown option 'nmae' of findSymbolsIn \(known: name, prefix, limit, root, /],
    [{ name: 'priceOf', workers: 0 }, /^workers must be a positive whole number, not 0$/],
    [{ name: 'priceOf', exclude: ['src/['] }, /^exclude glob src\/\[: its '\[' has no closing '\]' \(write \\\[ to match a literal '\['\)$/],
  ];
  for (const [options, pattern] of cases) await assert.rejects(findLoose({ root, cacheDir, ...options }), badRequest(pattern), JSON.stringify(options));
  // Checked before any work: no cache was made.
  assert.deepEqual(readdirSync(cacheDir), []);
  const answer = (await findLoose({ root, cacheDir, name: 'priceOf', limit: 1, prefix: false })) as { definitions: unknown[] };
  assert.equal(answer.definitions.length, 1);
});

test('buildMap refuses a bad or unknown option, naming it, before indexing', async () => {
  const root = copyFixture('shop');
  const cacheDir = tempDir();
  const cases: Array<[Loose, RegExp]> = [
    [{ workers: 0 }, /^workers must be a positive whole number, not 0$/],
    [{ workers: -1 }, /^workers must be a positive whole number, not -1$/],
    [{ workers: '2' }, /^workers must be a positive whole number, not "2"$/],
    [{ maxFileBytes: -5 }, /^maxFileBytes must be a positive whole number, not -5$/],
    [{ maxFileBytes: 'big' }, /^maxFileBytes must be a positive whole number, not "big"$/],
    [{ tokns: 256 }, /^unknown option 'tokns' of buildMap \(known: chatFiles, .*tokens, .*root, cacheDir, .*onNotice\)$/],
    [{ cacheDir: 5 }, /^cacheDir must be a folder \(a non-empty string\), not 5$/],
    [{ cacheDir: '' }, /^cacheDir must be a folder \(a non-empty string\), not ""$/],
    [{ onProgress: 5 }, /^onProgress must be a function, not 5$/],
    [{ onNotice: 'log' }, /^onNotice must be a function, not "log"$/],
    [{ exclude: 'tests' }, /^exclude must be a list of globs \(non-empty strings\), not "tests"$/],
    [{ include: [''] }, /^include must be a list of globs \(non-empty strings\), not \[""\]$/],
    [{ projectConfig: 'no' }, /^projectConfig must be true or false, not "no"$/],
    [{ tokens: 70000 }, /^tokens must be at most 65536, not 70000$/],
    [{ root: '' }, /^root must be a non-empty string, not ""$/],
    // A glob picomatch cannot compile: refused before the store is opened, as discovery would refuse it.
    [{ exclude: ['*.{ts'] }, /^exclude glob \*\.\{ts: its '\{' has no closing '\}' \(write \\\{ to match a literal '\{'\)$/],
    [{ include: ['src/[z-a].ts'] }, /^include glob src\/\[z-a\]\.ts: picomatch cannot compile it: range out of order in character class$/],
  ];
  for (const [options, pattern] of cases) await assert.rejects(buildLoose({ root, cacheDir, ...options }), badRequest(pattern), JSON.stringify(options));
  await assert.rejects(buildLoose(), badRequest(/^root must be a non-empty string$/));
  await assert.rejects(buildLoose(5), badRequest(/^the options of buildMap must be an object$/));
  assert.deepEqual(readdirSync(cacheDir), []);
  // Good options still make a map (undefined is an option not given).
  const map = (await buildLoose({ root, cacheDir, workers: 1, maxFileBytes: 100_000, exclude: ['tests'], tokens: 256, onProgress: () => {}, listSkipped: undefined })) as { budget: number };
  assert.equal(map.budget, 256);
});

test('connect refuses a bad start option before starting a daemon', async () => {
  const root = copyFixture('shop');
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  const previous = process.env.XDG_RUNTIME_DIR;
  process.env.XDG_RUNTIME_DIR = runtime;
  try {
    const cases: Array<[Loose, RegExp]> = [
      [{ idleTimeoutSeconds: -5 }, /^idleTimeoutSeconds must be a whole number of seconds, 0 or more, not -5$/],
      [{ idleTimeoutSeconds: 2.5 }, /^idleTimeoutSeconds must be a whole number of seconds, 0 or more, not 2.5$/],
      [{ workers: -3 }, /^workers must be a positive whole number, not -3$/],
      [{ workers: 0 }, /^workers must be a positive whole number, not 0$/],
      [{ exclude: 'x' }, /^exclude must be a list of globs \(non-empty strings\), not "x"$/],
      [{ exclude: ['('] }, /^exclude glob \(: its '\(' has no closing '\)' \(write \\\( to match a literal '\('\)$/],
      [{ cacheDir: '' }, /^cacheDir must be a folder \(a non-empty string\), not ""$/],
      [{ onStarting: true }, /^onStarting must be a function, not true$/],
      [{ idleTimeout: 60 }, /^unknown option 'idleTimeout' of connect \(known: cacheDir, workers, exclude, idleTimeoutSeconds, allowGrammars, onStarting\)$/],
    ];
    for (const [options, pattern] of cases) await assert.rejects(connectLoose(root, options), badRequest(pattern), JSON.stringify(options));
    // No daemon was started: nothing was made in the runtime folder.
    assert.ok(!existsSync(runtime) || readdirSync(runtime).length === 0, readdirSync(runtime).join(' '));
  } finally {
    if (previous === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = previous;
  }
});

test("repomapd's flag errors point at its own help, not at a 'repomap daemon' command", () => {
  const run = spawnSync(process.execPath, [join(packageRoot, 'bin', 'repomapd.js'), '--wrkers', '3', '--foreground', tempDir()], { encoding: 'utf8' });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /^repomapd: unknown option '--wrkers' \(did you mean --workers\?\) \(see 'repomapd --help'\)$/m);
  assert.doesNotMatch(run.stderr, /repomap daemon/);
});

/** The names a row of the README's Library API table writes as code (`cacheDir`), identifiers only. */
function readmeRowNames(fn: string): Set<string> {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const row = readme.split('\n').find((line) => line.startsWith(`| \`${fn}(`));
  assert.ok(row, `README's Library API table has ${fn}`);
  const options = row.split('Returns')[0];
  return new Set([...options.matchAll(/`([A-Za-z]+)(?:: false)?`/g)].map((match) => match[1]));
}

test("README's Library API lists every option each function accepts, and none it does not", () => {
  const cases: Array<[string, string[], string[]]> = [
    ['buildMap', [...Object.keys(MAP_REQUEST), ...Object.keys(INDEX_OPTIONS)], ['false']],
    ['findSymbolsIn', [...Object.keys(SYMBOL_QUERY), 'root'], []],
    ['connect', Object.keys(START_OPTIONS), ['root', 'notice']],
  ];
  for (const [fn, accepted, words] of cases) {
    const named = readmeRowNames(fn);
    assert.deepEqual(accepted.filter((option) => !named.has(option)), [], `${fn}: options the README leaves out`);
    // buildMap's row lists each option; the others name the index options as a group (findSymbolsIn) or also what they return (connect).
    if (fn === 'buildMap') assert.deepEqual([...named].filter((name) => !accepted.includes(name) && !words.includes(name)), [], `${fn}: names no option`);
  }
});
