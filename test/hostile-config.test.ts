// The hostile repository, through its project config and query files: a grammar package it commits
// runs none of its code unless the user allowed it outside the repository; a config or query that
// is a device, a FIFO or huge, or a path that leads out of the root, is one line and never read;
// `workers` is bounded by the machine; deep or long values are one short line. Each run is a child
// process under a kill timer and a memory ceiling (test/bounded.ts), so a regression ends the test.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildMap } from '../src/api/index.js';
import { packageRoot } from '../src/paths.js';
import { type BoundedResult, runCliBounded } from './bounded.js';
import { git, runCli, tempDir, writeTree } from './helpers.js';

const PYTHON = join(packageRoot, 'node_modules', 'tree-sitter-python');
const QUERY = '(function_definition name: (identifier) @name.definition.function)\n';
/** Bounds of every run here: a hang or a memory blow-up ends the run, and the assertion says which. */
const BOUNDS = { killAfterMs: 30_000, maxRssMib: 400 };

/**
 * A repository whose config names a grammar whose code it ships: `tree-sitter-foo` in its own
 * node_modules (or a path, `./g/x.js`), whose code writes `marker` when loaded, then exports the
 * real Python grammar (so that, allowed, it parses).
 */
function hostileGrammarRepo(grammar = 'tree-sitter-foo'): { root: string; marker: string } {
  const root = tempDir('repomap-hostile-');
  const marker = join(tempDir('repomap-marker-'), 'ran');
  const code = `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\nmodule.exports = require(${JSON.stringify(PYTHON)});\n`;
  writeTree(root, {
    'repomap.config.json': JSON.stringify({ languages: { foo: { extensions: ['.foo'], grammar, query: 'foo.scm', family: 'python' } } }),
    'foo.scm': QUERY,
    'a.foo': 'def hostile():\n    return 1\n',
    'b.py': 'def plain():\n    return 2\n',
    'node_modules/tree-sitter-foo/package.json': JSON.stringify({ name: 'tree-sitter-foo', version: '1.0.0', main: 'index.js' }),
    'node_modules/tree-sitter-foo/index.js': code,
    'g/package.json': JSON.stringify({ name: './g/x.js', version: '1.0.0', main: 'x.js' }),
    'g/x.js': code,
  });
  return { root, marker };
}

/** A private runtime folder (the daemon's socket) and an empty user config home. */
function privateEnv(): NodeJS.ProcessEnv {
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  return { XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: tempDir('repomap-xdg-config-') };
}

/** Asserts a run ended by itself, with exit status 2 and one line on stderr matching `line`. */
function assertOneLine(run: BoundedResult, line: RegExp, what: string): void {
  assert.equal(run.killedFor, undefined, `${what}: killed for ${run.killedFor} (peak ${run.peakRssMib.toFixed(0)} MiB)`);
  assert.equal(run.code, 2, `${what}: exit ${run.code} ${run.signal ?? ''}\n${run.stderr}`);
  assert.equal(run.stderr.trimEnd().split('\n').length, 1, `${what}: one line\n${run.stderr.slice(0, 2000)}`);
  assert.match(run.stderr, line, what);
  assert.ok(run.stderr.length < 600, `${what}: a short line (${run.stderr.length} characters)`);
}

const NOT_ALLOWED = /^repomap: foo: grammar .* is not allowed: .*--allow-grammar .*allowGrammars.*$/m;

test('item 1: a config naming a grammar package committed in the repository runs none of its code: map, query (the daemon), MCP, the library', async () => {
  const { root, marker } = hostileGrammarRepo();
  const env = privateEnv();

  const map = await runCliBounded(['map', root, '--cache-dir', tempDir(), '--verbose'], { ...BOUNDS, env });
  assert.equal(map.code, 0, map.stderr);
  assert.equal(existsSync(marker), false, 'map loaded the grammar');
  assert.equal(map.stderr.match(new RegExp(NOT_ALLOWED.source, 'gm'))?.length, 1, `one notice\n${map.stderr}`);
  assert.match(map.stderr, /^skipped a\.foo: grammar not allowed/m);
  assert.match(map.stdout, /1 grammar not allowed/);
  assert.match(map.stdout, /def plain/);

  const query = await runCliBounded(['query', root, '--cache-dir', tempDir(), '--verbose'], { ...BOUNDS, env });
  try {
    assert.equal(query.code, 0, query.stderr);
    assert.equal(existsSync(marker), false, 'the daemon loaded the grammar');
    assert.match(query.stderr, /^skipped a\.foo: grammar not allowed/m);
  } finally {
    runCli(['stop', root], { env });
  }

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(packageRoot, 'bin', 'repomap.js'), 'mcp', root, '--cache-dir', tempDir()],
    env: { ...(process.env as Record<string, string>), ...(env as Record<string, string>) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'repomap-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const answer = await client.callTool({ name: 'repo_map', arguments: {} });
    const text = (answer.content as Array<{ type: string; text: string }>).map((part) => part.text).join('');
    assert.match(text, /grammar not allowed/);
    assert.equal(existsSync(marker), false, 'the MCP server (its daemon) loaded the grammar');
  } finally {
    await client.close();
    runCli(['stop', root], { env });
  }

  const notices: string[] = [];
  const library = await buildMap({ root, cacheDir: tempDir(), workers: 1, onNotice: (message) => notices.push(message) });
  assert.equal(existsSync(marker), false, 'buildMap loaded the grammar');
  assert.equal(library.skipped['grammar not allowed'], 1);
  assert.equal(notices.filter((notice) => NOT_ALLOWED.test(notice)).length, 1, notices.join('\n'));
});

test('item 1: a grammar given as a path in the repository ("./g/x.js") runs none of its code either', async () => {
  const { root, marker } = hostileGrammarRepo('./g/x.js');
  const map = await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env: privateEnv() });
  assert.equal(map.code, 0, map.stderr);
  assert.equal(existsSync(marker), false, 'map loaded the grammar');
  assert.match(map.stderr, /grammar \.\/g\/x\.js is not allowed/);
  assert.match(map.stdout, /1 grammar not allowed/);
});

test('item 1: a grammar the user allows (--allow-grammar, the user config, allowGrammars) is loaded, and a daemon keeps the permission across restart', async () => {
  const { root, marker } = hostileGrammarRepo();
  const env = privateEnv();
  const flag = await runCliBounded(['map', root, '--cache-dir', tempDir(), '--allow-grammar', 'tree-sitter-foo'], { ...BOUNDS, env });
  assert.equal(flag.code, 0, flag.stderr);
  assert.ok(existsSync(marker), 'allowed by --allow-grammar, the grammar is loaded');
  assert.match(flag.stdout, /def hostile/);
  assert.doesNotMatch(flag.stderr, /not allowed/);

  execFileSync('rm', ['-f', marker]);
  const userConfig = join(env.XDG_CONFIG_HOME!, 'repomap');
  mkdirSync(userConfig, { recursive: true });
  writeFileSync(join(userConfig, 'config.json'), JSON.stringify({ allowGrammars: ['tree-sitter-foo'] }));
  const viaUserConfig = await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env });
  assert.equal(viaUserConfig.code, 0, viaUserConfig.stderr);
  assert.ok(existsSync(marker), 'allowed by the user config, the grammar is loaded');
  assert.match(viaUserConfig.stdout, /def hostile/);

  // A wrong user config is one line naming it.
  writeFileSync(join(userConfig, 'config.json'), JSON.stringify({ allowGrammars: 'tree-sitter-foo' }));
  assertOneLine(await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env }), /config\.json: 'allowGrammars' must be a list of at most \d+ grammar names/, 'a wrong user config');
  writeFileSync(join(userConfig, 'config.json'), '{}');

  execFileSync('rm', ['-f', marker]);
  const library = await buildMap({ root, cacheDir: tempDir(), workers: 1, allowGrammars: ['tree-sitter-foo'] });
  assert.ok(existsSync(marker), 'allowed by allowGrammars, the library loads it');
  assert.equal(library.skipped['grammar not allowed'], undefined);

  // The daemon gets the permission from start, keeps it across restart, and says it in its status.
  execFileSync('rm', ['-f', marker]);
  try {
    const start = await runCliBounded(['start', root, '--cache-dir', tempDir(), '--allow-grammar', 'tree-sitter-foo'], { ...BOUNDS, env });
    assert.equal(start.code, 0, start.stderr);
    const restart = await runCliBounded(['restart', root], { ...BOUNDS, env });
    assert.equal(restart.code, 0, restart.stderr);
    const status = JSON.parse((await runCliBounded(['status', root, '--format', 'json'], { ...BOUNDS, env })).stdout) as { startedWith: { allowGrammars?: string[] } };
    assert.deepEqual(status.startedWith.allowGrammars, ['tree-sitter-foo']);
    const query = await runCliBounded(['query', root], { ...BOUNDS, env });
    assert.match(query.stdout, /def hostile/);
    assert.ok(existsSync(marker), 'the restarted daemon loads the allowed grammar');
  } finally {
    runCli(['stop', root], { env });
  }
});

test('item 4: a config or query that is /dev/zero, /dev/stdin, a FIFO or 2 MiB ends at once with one line, never read whole', async () => {
  const env = privateEnv();
  const cases: Array<[string, (root: string) => void, RegExp]> = [
    ['config -> /dev/zero', (root) => symlinkSync('/dev/zero', join(root, 'repomap.config.json')), /repomap\.config\.json: .*outside the repository root/],
    ['config -> /dev/stdin', (root) => symlinkSync('/dev/stdin', join(root, 'repomap.config.json')), /repomap\.config\.json: .*(outside the repository root|not a regular file)/],
    ['config a FIFO', (root) => execFileSync('mkfifo', [join(root, 'repomap.config.json')]), /repomap\.config\.json: not a regular file/],
    ['config of 2 MiB', (root) => writeFileSync(join(root, 'repomap.config.json'), JSON.stringify({ exclude: ['x'.repeat(2 * 1024 * 1024)] })), /repomap\.config\.json: larger than 1 MiB/],
    ['package.json a FIFO', (root) => execFileSync('mkfifo', [join(root, 'package.json')]), /package\.json: not a regular file/],
    [
      'query file -> /dev/zero',
      (root) => {
        mkdirSync(join(root, '.repomap', 'queries'), { recursive: true });
        symlinkSync('/dev/zero', join(root, '.repomap', 'queries', 'python.scm'));
      },
      /python\.scm: .*outside the repository root/,
    ],
    [
      'query file a FIFO',
      (root) => {
        mkdirSync(join(root, '.repomap', 'queries'), { recursive: true });
        execFileSync('mkfifo', [join(root, '.repomap', 'queries', 'python.scm')]);
      },
      /python\.scm: not a regular file/,
    ],
    ['"query": "/dev/zero"', (root) => writeFileSync(join(root, 'repomap.config.json'), JSON.stringify({ languages: { python: { query: '/dev/zero' } } })), /'\/dev\/zero'.*outside the repository root/],
  ];
  for (const [what, make, line] of cases) {
    const root = tempDir('repomap-hostile-');
    writeFileSync(join(root, 'a.py'), 'def a():\n    return 1\n');
    make(root);
    assertOneLine(await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env }), line, `map: ${what}`);
  }
  // `repomap mcp` says it on stderr before answering anything, instead of growing to GBs, and
  // serves all the same (each tool call answers it: see mcp.test.ts), ending when its input does.
  const root = tempDir('repomap-hostile-');
  symlinkSync('/dev/zero', join(root, 'repomap.config.json'));
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  const mcp = await runCliBounded(['mcp', root], { ...BOUNDS, env, input: initialize + '\n' });
  assert.equal(mcp.killedFor, undefined, `mcp: killed for ${mcp.killedFor}`);
  assert.equal(mcp.code, 0, mcp.stderr);
  assert.match(mcp.stderr, /^repomap: \S*repomap\.config\.json: .*outside the repository root.*\n$/);
  assert.ok(mcp.stderr.length < 600, `mcp: a short line (${mcp.stderr.length} characters)`);
  assert.equal((JSON.parse(mcp.stdout) as { id: number; result?: unknown }).result !== undefined, true, mcp.stdout);
});

test('item 4: "workers": 1000000 starts no more threads than the machine has cores, and says so', async () => {
  const root = tempDir('repomap-hostile-');
  writeTree(root, { 'repomap.config.json': JSON.stringify({ workers: 1_000_000 }), 'a.py': 'def a():\n    return 1\n' });
  const cores = availableParallelism();
  for (const args of [[], ['--workers', '1000000']]) {
    const run = await runCliBounded(['map', root, '--cache-dir', tempDir(), ...args], { ...BOUNDS, env: privateEnv() });
    assert.equal(run.killedFor, undefined, `killed for ${run.killedFor}`);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, new RegExp(`^repomap: workers: 1000000 is more than the ${cores} cores available; using ${cores}$`, 'm'));
    assert.match(run.stdout, /def a/);
  }
});

test('item 5: paths a config names outside the root (a query, a symlinked config, a .wasm grammar) are refused in one line and never echoed', async () => {
  const parent = tempDir('repomap-hostile-');
  const outside = join(parent, 'outside');
  mkdirSync(outside);
  const SECRET = 'root:x:0:0:SECRET-TEXT-never-shown';
  writeFileSync(join(outside, 'secret.scm'), `${SECRET}\n`);
  writeFileSync(join(outside, 'grammar.wasm'), `${SECRET}\n`);
  const env = privateEnv();
  const cases: Array<[string, (root: string) => void, RegExp]> = [
    ['"query": "../secret.scm"', (root) => writeFileSync(join(root, 'repomap.config.json'), JSON.stringify({ languages: { python: { query: '../outside/secret.scm' } } })), /outside the repository root/],
    ['an absolute query path', (root) => writeFileSync(join(root, 'repomap.config.json'), JSON.stringify({ languages: { python: { query: join(outside, 'secret.scm') } } })), /outside the repository root/],
    ['a query inside that links outside', (root) => {
      symlinkSync(join(outside, 'secret.scm'), join(root, 'q.scm'));
      writeFileSync(join(root, 'repomap.config.json'), JSON.stringify({ languages: { python: { query: 'q.scm' } } }));
    }, /q\.scm.*outside the repository root/],
    ['a config symlinked outside', (root) => symlinkSync(join(outside, 'secret.scm'), join(root, 'repomap.config.json')), /repomap\.config\.json: .*outside the repository root/],
    ['an absolute .wasm grammar', (root) => writeFileSync(join(root, 'repomap.config.json'), JSON.stringify({ languages: { zz: { extensions: ['.zz'], grammar: join(outside, 'grammar.wasm'), query: 'q.scm' } } })), /grammar .* is an absolute path; a WebAssembly grammar is a file inside the repository/],
    ['a .wasm grammar linked outside', (root) => {
      symlinkSync(join(outside, 'grammar.wasm'), join(root, 'g.wasm'));
      writeFileSync(join(root, 'repomap.config.json'), JSON.stringify({ languages: { zz: { extensions: ['.zz'], grammar: 'g.wasm', query: 'q.scm' } } }));
    }, /g\.wasm.*outside the repository root/],
  ];
  for (const [what, make, line] of cases) {
    // The root sits beside the outside folder, so that "../outside/secret.scm" leads there.
    const root = join(parent, `repo-${cases.findIndex((entry) => entry[0] === what)}`);
    mkdirSync(root);
    writeTree(root, { 'a.py': 'def a():\n    return 1\n', 'a.zz': 'x\n' });
    make(root);
    if (!existsSync(join(root, 'q.scm'))) writeFileSync(join(root, 'q.scm'), QUERY);
    for (const args of [[], ['--verbose'], ['--format', 'json', '--verbose']]) {
      const run = await runCliBounded(['map', root, '--cache-dir', tempDir(), ...args], { ...BOUNDS, env });
      assertOneLine(run, line, `${what} ${args.join(' ')}`);
      assert.ok(!(run.stdout + run.stderr).includes('SECRET-TEXT'), `${what}: the secret is echoed\n${run.stderr}`);
    }
  }
});

test('item 13: a config nested 200,000 deep is one line, exit 2', async () => {
  const root = tempDir('repomap-hostile-');
  const depth = 200_000;
  writeTree(root, { 'a.py': 'def a():\n    return 1\n' });
  writeFileSync(join(root, 'repomap.config.json'), `{"languages":${'['.repeat(depth)}${']'.repeat(depth)}}`);
  assertOneLine(await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env: privateEnv() }), /repomap\.config\.json: /, 'nested arrays');
  // 150,000 objects: the file stays under the size cap.
  writeFileSync(join(root, 'repomap.config.json'), `{"exclude":${'{"a":'.repeat(150_000)}1${'}'.repeat(150_000)}}`);
  assertOneLine(await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env: privateEnv() }), /repomap\.config\.json: /, 'nested objects');
});

test('item 15: a wrong config value of 900 KB is quoted cut short, naming its length; a config of 5 MB is refused unread', async () => {
  const root = tempDir('repomap-hostile-');
  const long = 'y'.repeat(900_000);
  writeTree(root, { 'a.py': 'def a():\n    return 1\n' });
  for (const config of [{ encoding: long }, { languages: { [long]: {} } }, { languages: { python: { [long]: 1 } } }, { [long]: 1 }]) {
    writeFileSync(join(root, 'repomap.config.json'), JSON.stringify(config));
    const run = await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env: privateEnv() });
    assertOneLine(run, /\(9000\d\d characters\)/, Object.keys(config).join());
    assert.ok(run.stderr.length < 400 + root.length, `one short line, not ${run.stderr.length} characters`);
  }
  writeFileSync(join(root, 'repomap.config.json'), JSON.stringify({ encoding: 'y'.repeat(5_000_000) }));
  assertOneLine(await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env: privateEnv() }), /repomap\.config\.json: larger than 1 MiB/, 'a config of 5 MB');
});

test("item 1: a repository's own .git/config naming a program for git to run (core.fsmonitor) runs none of it: map, symbols, query (the daemon)", async () => {
  const root = tempDir('repomap-hostile-git-');
  const marker = join(tempDir('repomap-marker-'), 'ran');
  writeTree(root, { 'a.py': 'def plain():\n    return 2\n', 'hook.sh': `#!/bin/sh\necho ran >> ${JSON.stringify(marker)}\n` });
  chmodSync(join(root, 'hook.sh'), 0o755);
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'one');
  // What a repository handed over as a folder or an archive may carry: git runs the hook on a read.
  git(root, 'config', 'core.fsmonitor', join(root, 'hook.sh'));
  git(root, 'config', 'log.showSignature', 'true');
  const env = privateEnv();

  const map = await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env });
  assert.equal(map.code, 0, map.stderr);
  assert.match(map.stdout, /def plain/);
  assert.equal(existsSync(marker), false, 'map ran the fsmonitor hook');
  const symbols = await runCliBounded(['symbols', 'plain', root, '--cache-dir', tempDir()], { ...BOUNDS, env });
  assert.equal(symbols.code, 0, symbols.stderr);
  assert.equal(existsSync(marker), false, 'symbols ran the fsmonitor hook');
  const query = await runCliBounded(['query', root, '--cache-dir', tempDir()], { ...BOUNDS, env });
  try {
    assert.equal(query.code, 0, query.stderr);
    assert.match(query.stdout, /def plain/);
    assert.equal(existsSync(marker), false, 'the daemon ran the fsmonitor hook');
  } finally {
    runCli(['stop', root], { env });
  }
});

test('item 15: a glob too long for picomatch is named cut short, from the config and from --exclude', async () => {
  const root = tempDir('repomap-hostile-glob-');
  writeTree(root, { 'a.py': 'def plain():\n    return 2\n', 'repomap.config.json': JSON.stringify({ exclude: ['x'.repeat(100_000)] }) });
  const fromConfig = await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env: privateEnv() });
  assertOneLine(fromConfig, /exclude glob x+… \(100000 characters\): picomatch cannot compile it/, 'config glob');
  const fromFlag = await runCliBounded(['map', root, '--cache-dir', tempDir(), '--exclude', 'y'.repeat(70_000)], { ...BOUNDS, env: privateEnv() });
  assert.ok(fromFlag.stderr.length < 600, `--exclude: a short line (${fromFlag.stderr.length} characters)`);
});

test('item 4: ignore files that are symlinks to /dev/zero or out of the root, or FIFOs, are read as no rules, unread', async () => {
  const root = tempDir('repomap-hostile-ignore-');
  const outside = join(tempDir('repomap-outside-'), 'ignore');
  writeFileSync(outside, 'b.py\n');
  writeTree(root, { 'a.py': 'def plain():\n    return 2\n', 'b.py': 'def other():\n    return 3\n', 'd/c.py': 'def third():\n    return 4\n' });
  symlinkSync('/dev/zero', join(root, '.repomapignore'));
  symlinkSync(outside, join(root, '.aiderignore'));
  execFileSync('mkfifo', [join(root, 'd', '.repomapignore')]);
  for (const [what, prepare] of [['a walk', () => {}], ['git', () => (git(root, 'init', '-q'), git(root, 'add', 'a.py', 'b.py', 'd/c.py'))]] as const) {
    prepare();
    const run = await runCliBounded(['map', root, '--cache-dir', tempDir()], { ...BOUNDS, env: privateEnv() });
    assert.equal(run.killedFor, undefined, `${what}: killed for ${run.killedFor} (peak ${run.peakRssMib.toFixed(0)} MiB)`);
    assert.equal(run.code, 0, `${what}: ${run.stderr}`);
    for (const name of ['plain', 'other', 'third']) assert.match(run.stdout, new RegExp(`def ${name}`), `${what}: ${name} mapped (the outside file's rule not read)`);
  }
});
