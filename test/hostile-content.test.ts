// The hostile repository, through what it holds rather than how it is configured (issue 48, items
// found by a user trial): a commit message of 14 MB that `repomap eval` mines, and source
// lines with bidi controls and other invisible formatting characters (Trojan Source) that a map
// quotes. Each run is a child process under a kill timer and a memory ceiling (test/bounded.ts).
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_MESSAGE_CHARS } from '../src/api/request.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildMap } from '../src/api/index.js';
import { packageRoot } from '../src/paths.js';
import { type BoundedResult, runCliBounded } from './bounded.js';
import { git, runCli, tempDir, writeTree } from './helpers.js';

/** A private cache, no shared one. */
function isolatedEnv(): NodeJS.ProcessEnv {
  return { XDG_CACHE_HOME: tempDir('repomap-cache-'), REPOMAP_SHARED_CACHE: '' };
}

/** The end of a bounded run, for assertion messages. */
function ending(run: BoundedResult): string {
  return `code ${run.code}, signal ${run.signal}, killed for ${run.killedFor ?? 'nothing'}; stderr:\n${run.stderr.slice(-2000)}`;
}

/** A message of about `chars` characters, of distinct words and multi-word identifiers (each a mention). */
function hugeMessage(chars: number): string {
  const parts = ['Change alpha and beta\n\n'];
  let length = parts[0].length;
  for (let i = 0; length < chars; i++) {
    const part = `word${i} alphaBeta${i}${i % 10 === 9 ? '\n' : ' '}`;
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}

test('item 3: repomap eval of a repository whose commit message is 14 MB ends, the task taking a bounded part of the message', async () => {
  const root = tempDir('repomap-hostile-');
  writeTree(root, { 'a.py': 'def alpha():\n    return beta()\n', 'b.py': 'def beta():\n    return 1\n', 'c.py': 'def gamma():\n    return 1\n' });
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'init');
  writeTree(root, { 'a.py': 'def alpha():\n    return beta() + 2\n', 'b.py': 'def beta():\n    return 2\n' });
  const messageFile = join(tempDir(), 'message');
  writeFileSync(messageFile, hugeMessage(14_000_000));
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-F', messageFile);
  // Before the bound, the one task's maps took 18 s each (22 s for one ranking at one budget; the
  // default 3 budgets x 6 rankings ran past 120 s).
  const run = await runCliBounded(['eval', root, '--format', 'json'], { killAfterMs: 90_000, maxRssMib: 1500, env: isolatedEnv() });
  assert.equal(run.code, 0, ending(run));
  const report = JSON.parse(run.stdout) as { tasks: Array<{ mentions: string[] }> };
  assert.equal(report.tasks.length, 1);
  const { mentions } = report.tasks[0];
  // The message is cut to MAX_MESSAGE_CHARS: its mentions are those of that much text (two a word pair of ~20 characters).
  assert.ok(mentions.length > 1000 && mentions.length <= MAX_MESSAGE_CHARS / 8, `${mentions.length} mentions`);
  assert.ok(mentions.includes('alphaBeta0'));
  assert.ok(!mentions.includes('alphaBeta100000'), 'a word past the bound is not taken');
});

test('item 3: a map request whose message is over the bound is refused in one line naming the bound and the length (CLI exit 2; the library)', async () => {
  const root = tempDir('repomap-hostile-');
  writeTree(root, { 'a.py': 'def alpha():\n    return 1\n' });
  const long = hugeMessage(MAX_MESSAGE_CHARS + 10);
  const run = await runCliBounded(['map', root, '--message', long], { killAfterMs: 30_000, env: isolatedEnv() });
  assert.equal(run.code, 2, ending(run));
  assert.equal(run.stderr, `repomap: --message must be at most ${MAX_MESSAGE_CHARS} characters, not ${long.length}\n`);
  await assert.rejects(buildMap({ root, message: hugeMessage(14_000_000), cacheDir: tempDir('repomap-cache-') }), {
    code: 'bad-request',
    message: new RegExp(`^message must be at most ${MAX_MESSAGE_CHARS} characters, not \\d+$`),
  });
  // At the bound it is taken.
  const atBound = await runCliBounded(['map', root, '--message', long.slice(0, MAX_MESSAGE_CHARS)], { killAfterMs: 30_000, env: isolatedEnv() });
  assert.equal(atBound.code, 0, ending(atBound));
});

/** Bidi controls and invisible formatting characters, each as the map writes it. */
const INVISIBLE: ReadonlyArray<[string, string]> = [
  ['\u202e', '\\u202e'],
  ['\u2066', '\\u2066'],
  ['\u2069', '\\u2069'],
  ['\u200f', '\\u200f'],
  ['\u061c', '\\u061c'],
  ['\u200b', '\\u200b'],
  ['\u2028', '\\u2028'],
  ['\u{e0041}', '\\u{e0041}'],
];

test('Trojan Source: bidi controls and invisible formatting characters in a signature or a file name are escaped in map lines, symbols text and MCP answers (text and structured content)', async () => {
  const root = tempDir('repomap-hostile-');
  const hidden = INVISIBLE.map(([char]) => char).join('');
  const shown = INVISIBLE.map(([, escape]) => escape).join('');
  writeTree(root, {
    'auth.py': `def is_admin(user, role="user${hidden}"):\n    return role == "admin"\n`,
    'app.py': `from auth import is_admin\n\ndef serve(user):\n    return is_admin(user)  # ${hidden}\n`,
    [`tricky${hidden}.py`]: 'def tricky_one():\n    pass\n',
  });
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  const env = { ...isolatedEnv(), XDG_RUNTIME_DIR: runtime };
  const map = await runCliBounded(['map', root, '--chat', join(root, 'app.py')], { killAfterMs: 30_000, env });
  assert.equal(map.code, 0, ending(map));
  assert.ok(map.stdout.includes(`│def is_admin(user, role="user${shown}"):`), map.stdout);
  const symbols = await runCliBounded(['symbols', 'is_admin', root], { killAfterMs: 30_000, env });
  assert.equal(symbols.code, 0, ending(symbols));
  assert.ok(symbols.stdout.includes(`│def is_admin(user, role="user${shown}"):`), symbols.stdout);
  assert.ok(symbols.stdout.includes(`return is_admin(user)  # ${shown}`), symbols.stdout);

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(packageRoot, 'bin', 'repomap.js'), 'mcp', root],
    env: { ...(process.env as Record<string, string>), ...(env as Record<string, string>) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'repomap-test', version: '1.0.0' });
  // Everything a model may be handed: the text and the structured content.
  const textOf = (answer: Awaited<ReturnType<Client['callTool']>>) => (answer.content as Array<{ type: string; text: string }>).map((part) => part.text).join('') + JSON.stringify(answer.structuredContent);
  let mcpMap: string;
  let mcpSymbols: string;
  await client.connect(transport);
  try {
    mcpMap = textOf(await client.callTool({ name: 'repo_map', arguments: { chat_files: ['app.py'] } }));
    mcpSymbols = textOf(await client.callTool({ name: 'find_symbol', arguments: { name: 'is_admin' } })) + textOf(await client.callTool({ name: 'find_symbol', arguments: { name: 'tricky_one' } }));
  } finally {
    await client.close();
    runCli(['stop', root], { env });
  }
  assert.ok(mcpMap.includes(`│def is_admin(user, role="user${shown}"):`), mcpMap);
  assert.ok(mcpSymbols.includes(`return is_admin(user)  # ${shown}`), mcpSymbols);
  const escapedName = `tricky${shown.replaceAll('\\', '\\\\')}.py`; // as JSON writes the escape's backslash
  assert.ok(mcpMap.includes(escapedName), mcpMap);
  assert.ok(mcpSymbols.includes(escapedName), mcpSymbols);

  for (const [char] of INVISIBLE) {
    for (const [what, text] of Object.entries({ map: map.stdout, symbols: symbols.stdout, 'MCP repo_map': mcpMap, 'MCP find_symbol': mcpSymbols })) {
      assert.ok(!text.includes(char), `${what}: U+${char.codePointAt(0)!.toString(16)} written raw`);
    }
  }
});

test("a grammar name a config gives is escaped and cut in --verbose's skipped-file line, as in the notice", async () => {
  const root = tempDir('repomap-hostile-');
  const grammar = `tree-sitter-x\u202e\n\u001b[2J\u001b[31mFAKE: all good\u001b[0m${'y'.repeat(400)}`;
  writeTree(root, {
    'repomap.config.json': JSON.stringify({ languages: { foo: { extensions: ['.foo'], grammar, query: 'q/foo.scm', family: 'python' } } }),
    'q/foo.scm': '(identifier) @name.definition.function\n',
    'a.foo': 'hi\n',
  });
  const run = await runCliBounded(['map', root, '--verbose'], { killAfterMs: 30_000, env: isolatedEnv() });
  assert.equal(run.code, 0, ending(run));
  for (const raw of ['\u202e', '\u001b', 'FAKE: all good\u001b']) assert.ok(!run.stderr.includes(raw), `${JSON.stringify(raw)} written raw:\n${run.stderr}`);
  const skipped = run.stderr.split('\n').filter((line) => line.startsWith('skipped a.foo: grammar not allowed ('));
  assert.equal(skipped.length, 1, run.stderr);
  assert.match(skipped[0], /tree-sitter-x\\u202e\\n\\x1b\[2J/);
  assert.match(skipped[0], /… \(\d+ characters\)/, 'the name is cut');
});
