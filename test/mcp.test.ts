import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { packageRoot } from '../src/paths.js';
import { isProcessAlive } from '../src/lock-file.js';
import { inputLines } from '../src/mcp/input-lines.js';
import { copyFixture, git, lineReader, runCli, tempDir } from './helpers.js';

type TextResult = { content: Array<{ type: string; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };

/** An MCP client of `repomap mcp ARGS...` over stdio, in a private runtime folder. */
async function mcpClient(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<{ client: Client; env: Record<string, string> }> {
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  const env = { ...(process.env as Record<string, string>), XDG_RUNTIME_DIR: runtime, ...options.env };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(packageRoot, 'bin', 'repomap.js'), 'mcp', ...args],
    env,
    stderr: 'pipe',
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const client = new Client({ name: 'repomap-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, env };
}

test('MCP over stdio, with the SDK client: list the tools, call each, errors are tool errors', async () => {
  const root = copyFixture('shop');
  writeFileSync(join(root, 'notes.txt'), 'no grammar: counted in the last line\n');
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'init');
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  const env = { ...(process.env as Record<string, string>), XDG_RUNTIME_DIR: runtime };

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(packageRoot, 'bin', 'repomap.js'), 'mcp', root, '--cache-dir', tempDir(), '--idle-timeout', '120'],
    env,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'repomap-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['find_symbol', 'repo_map', 'repo_status']);
    const repoMap = tools.find((tool) => tool.name === 'repo_map')!;
    assert.ok(repoMap.description && repoMap.description.length > 100, 'a description written for a model');
    assert.deepEqual(Object.keys(repoMap.inputSchema.properties ?? {}).sort(), ['chat_files', 'max_tokens', 'mentioned_files', 'mentioned_identifiers', 'message']);

    // Every tool only reads; the map and the symbol search give the same answer for the same index.
    for (const tool of tools) {
      assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
      assert.equal(tool.annotations?.idempotentHint, true, tool.name);
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
    }

    const map = (await client.callTool({ name: 'repo_map', arguments: { chat_files: ['src/checkout.ts'], max_tokens: 400 } })) as TextResult;
    assert.equal(map.isError, undefined);
    assert.match(map.content[0].text, /^src\/cart\.ts:$/m);
    assert.doesNotMatch(map.content[0].text, /^src\/checkout\.ts:$/m);
    // The last line counts what is not mapped, without the CLI's flag a model cannot give.
    assert.match(map.content[0].text, /\(1 file not mapped: 1 no grammar\)$/m);
    assert.doesNotMatch(map.content[0].text, /--verbose/);
    // The map's structure as data: its files, their shown lines and roles, the tokens.
    const structured = map.structuredContent as { files: Array<{ path: string; tokens?: number; definitions?: number[] }>; tokens: number; budget: number };
    const cart = structured.files.find((file) => file.path === 'src/cart.ts');
    assert.ok(cart && cart.tokens! > 0 && cart.definitions!.includes(4));
    assert.equal(structured.budget, 400);
    assert.ok(structured.tokens <= 400);

    const symbol = (await client.callTool({ name: 'find_symbol', arguments: { name: 'sendReceipt' } })) as TextResult;
    assert.match(symbol.content[0].text, /^src\/mailer\.ts:6 function sendReceipt$/m);
    assert.match(symbol.content[0].text, /^src\/checkout\.ts:\d+ call in checkout: await sendReceipt\(email, receipt\);$/m);
    const found = symbol.structuredContent as {
      definitions: Array<{ path: string; line: number }>;
      references: Array<{ path: string; kind: string; enclosing?: unknown }>;
      totalReferences: number;
    };
    assert.deepEqual(found.definitions.map((def) => `${def.path}:${def.line}`), ['src/mailer.ts:6']);
    // Each reference with the definition it is in, as data too.
    assert.deepEqual(found.references.find((ref) => ref.path === 'src/checkout.ts' && ref.kind === 'call')?.enclosing, { name: 'checkout', kind: 'method', line: 8 });
    assert.ok(found.totalReferences >= 1);

    const status = (await client.callTool({ name: 'repo_status', arguments: {} })) as TextResult;
    assert.equal(JSON.parse(status.content[0].text).root, root);
    assert.equal((status.structuredContent as { state: string }).state, 'ready');

    const outside = (await client.callTool({ name: 'repo_map', arguments: { chat_files: ['../../etc/passwd'] } })) as TextResult;
    assert.equal(outside.isError, true);
    assert.match(outside.content[0].text, /outside the repository root/);
    const bad = (await client.callTool({ name: 'find_symbol', arguments: { name: '' } })) as TextResult;
    assert.equal(bad.isError, true);
    // Wrong arguments are one line naming each, checked as the daemon checks them, not the SDK's validation dump.
    const wrong: Array<[string, Record<string, unknown>, string]> = [
      ['find_symbol', { name: '', limit: 0 }, 'name must be a non-empty string, not ""; limit must be a positive whole number, not 0'],
      ['find_symbol', {}, 'name must be a non-empty string'],
      ['repo_map', { chat_files: 'src/cart.ts' }, 'chat_files must be a list of non-empty strings, not "src/cart.ts"'],
      ['repo_map', { max_tokens: 1.5, message: null }, 'message must be a string, not null; max_tokens must be a positive whole number, not 1.5'],
    ];
    for (const [name, args, text] of wrong) {
      const refused = (await client.callTool({ name, arguments: args })) as TextResult;
      assert.deepEqual([refused.isError, refused.content.map((item) => item.text)], [true, [text]], JSON.stringify(args));
    }
    // A budget too small for any line of the map is a tool error too, saying the budget that shows one.
    const tiny = (await client.callTool({ name: 'repo_map', arguments: { max_tokens: 1 } })) as TextResult;
    assert.equal(tiny.isError, true);
    assert.match(tiny.content[0].text, /^no line of the map of \S+ fits in 1 token: ask for at least 3 tokens$/);
    // A refusal names the tool's argument, not the command line's flag or the daemon's field.
    const large = (await client.callTool({ name: 'repo_map', arguments: { max_tokens: 65537 } })) as TextResult;
    assert.equal(large.isError, true);
    assert.equal(large.content[0].text, 'max_tokens must be at most 65536, not 65537');
    // Unknown arguments are tool errors of one line, also those named after Object.prototype members.
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'chatFiles']) {
      const unknown = (await client.callTool({ name: 'repo_map', arguments: JSON.parse(`{"${name}":1}`) })) as TextResult;
      assert.equal(unknown.isError, true, `${name}: ${JSON.stringify(unknown)}`);
      assert.equal(unknown.content[0].text, `unknown argument '${name}' of repo_map (known: chat_files, mentioned_files, mentioned_identifiers, message, max_tokens)`);
    }
    // Every wrong argument is named in one answer: the unknown ones, then the values of the wrong kind.
    const several = (await client.callTool({ name: 'repo_map', arguments: { bogus: 1, other: 2, max_tokens: 0, message: 3 } })) as TextResult;
    assert.equal(several.isError, true);
    assert.equal(
      several.content[0].text,
      "unknown arguments 'bogus', 'other' of repo_map (known: chat_files, mentioned_files, mentioned_identifiers, message, max_tokens); message must be a string, not 3; max_tokens must be a positive whole number, not 0",
    );
    // A budget over the most is named beside another wrong argument, not only alone.
    const over = (await client.callTool({ name: 'repo_map', arguments: { max_tokens: 70000, chat_files: 'x' } })) as TextResult;
    assert.equal(over.content[0].text, 'chat_files must be a list of non-empty strings, not "x"; max_tokens must be at most 65536, not 70000');
    // Files are checked as --chat checks them (one function): no NUL smuggles a path out, no folder.
    for (const [file, pattern] of [['README.md\u0000../../etc/passwd', /control character/], ['src', /is a folder/], ['src/nope.ts', /does not exist/]] as const) {
      const refused = (await client.callTool({ name: 'repo_map', arguments: { chat_files: [file] } })) as TextResult;
      assert.equal(refused.isError, true);
      assert.match(refused.content[0].text, pattern);
    }

    // The server is still alive after the errors.
    const again = (await client.callTool({ name: 'find_symbol', arguments: { name: 'Cart', limit: 1 } })) as TextResult;
    assert.match(again.content[0].text, /^src\/cart\.ts:4 class Cart$/m);
    // A list cut short names the limit as a tool call gives it.
    assert.match(again.content[0].text, /^references to 'Cart': \d+ \(1 of \d+ on the line shown; limit shows more\)/m);
    // Logged for the README's closing note: one tool call and its answer.
    process.stdout.write(`# find_symbol {"name":"Cart","limit":1} ->\n${again.content[0].text.replace(/^/gm, '#   ')}\n`);
  } finally {
    await client.close();
    runCli(['stop', root], { env });
  }
});

test('a map call made while the daemon indexes reports progress to a client that asks, and answers a partial map at its bound', async () => {
  const root = tempDir('repomap-many-');
  mkdirSync(join(root, 'src'));
  // Files heavy enough that one parse thread takes seconds over them, many times the bound below,
  // however fast the machine: 1,500 one-function files were all indexed within it on an idle one.
  const body = Array.from({ length: 40 }, (_, k) => `export function helper${k}(value: number, scale: number): number {\n  return value * scale + ${k};\n}\n`).join('');
  for (let i = 0; i < 1500; i++) {
    writeFileSync(join(root, 'src', `m${i}.ts`), `export function handler${i}(value: number): number {\n  return value + ${i};\n}\n${body}`);
  }
  // A bound of half a second (20 s otherwise): the call answers then, with a map of the files
  // indexed so far. (Not 0: the SDK's client handles a notification a tick after it reads it, and drops
  // one read in the same chunk as the answer, which then no longer waits for it.)
  const { client, env } = await mcpClient([root, '--cache-dir', tempDir(), '--workers', '1'], { env: { REPOMAP_TEST_MCP_WAIT_MS: '500' } });
  try {
    const progress: Array<{ progress: number; total?: number }> = [];
    const early = (await client.callTool({ name: 'repo_map', arguments: {} }, undefined, { onprogress: (p) => progress.push(p) })) as TextResult;
    assert.equal(early.isError, undefined, early.content[0].text);
    assert.match(early.content[0].text, /^\(partial map: the index is still being built, \d+ of 1500 source files indexed; ask again for the complete map\)\n/);
    const partial = (early.structuredContent as { partial: { indexedFiles: number; files: number } }).partial;
    assert.ok(partial.indexedFiles < partial.files && partial.files === 1500, JSON.stringify(partial));
    assert.ok(progress.length >= 1, 'a progress notification for the call');

    const deadline = Date.now() + 60_000;
    let status = (await client.callTool({ name: 'repo_status', arguments: {} })) as TextResult;
    while ((status.structuredContent as { state: string }).state !== 'ready' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await client.callTool({ name: 'repo_status', arguments: {} })) as TextResult;
    }
    const ready = (await client.callTool({ name: 'repo_map', arguments: { max_tokens: 256 } })) as TextResult;
    assert.match(ready.content[0].text, /^src\/m\d+\.ts/m);
    assert.equal((ready.structuredContent as { indexing?: unknown }).indexing, undefined);
    assert.equal((ready.structuredContent as { partial?: unknown }).partial, undefined);
  } finally {
    await client.close();
    runCli(['stop', root], { env });
  }
});

test('without a ROOT, in the home folder, the server answers every call with how to give a root, and starts no daemon', async () => {
  const home = tempDir('repomap-home-');
  const { client, env } = await mcpClient([], { cwd: home, env: { HOME: home } });
  try {
    for (const name of ['repo_map', 'repo_status']) {
      const refused = (await client.callTool({ name, arguments: {} })) as TextResult;
      assert.equal(refused.isError, true);
      assert.match(refused.content[0].text, /^repomap mcp was started without a ROOT in .* \(your home folder\), which it does not index: give the repository as ROOT/);
    }
    const runtime = join(env.XDG_RUNTIME_DIR, 'repomap');
    assert.ok(!existsSync(runtime) || readdirSync(runtime).length === 0, 'no daemon was started');
  } finally {
    await client.close();
  }
});

// A server that does not end would hang the run: the timeout turns it into a failure.
test('the server ends, status 0, when the client closes its stdin: after a call (its daemon connection closed too), and before any', { timeout: 120_000 }, async () => {
  const root = copyFixture('shop');
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime };
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'repomap-test', version: '1' } } };
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  const status = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'repo_status', arguments: {} } };
  const session = async (messages: Array<object | string>, answers: number) => {
    const server = spawn(process.execPath, [join(packageRoot, 'bin', 'repomap.js'), 'mcp', root], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
    let stdout = '';
    const answered = new Promise<void>((resolve) => {
      server.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.split('\n').filter(Boolean).length >= answers) resolve();
      });
    });
    for (const message of messages) server.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
    await answered;
    server.stdin.end();
    return { code: await exited, answers: stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id: number | null; result?: { isError?: boolean }; error?: { code: number } }) };
  };
  const called = await session([initialize, initialized, status], 2);
  assert.equal(called.code, 0);
  assert.deepEqual(called.answers.map((answer) => [answer.id, answer.result?.isError ?? false]), [[1, false], [2, false]]);
  const idle = await session([initialize], 1);
  assert.equal(idle.code, 0);
  // Stdin closed while a call runs (its daemon started, its index waited for): the server still ends.
  const symbol = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'find_symbol', arguments: { name: 'Cart' } } };
  runCli(['stop', root], { env });
  const midCall = await session([initialize, initialized, symbol], 1);
  assert.equal(midCall.code, 0);
  // A line that is not JSON, or JSON that is no JSON-RPC message, is answered with JSON-RPC's error (id null), and the session goes on;
  // a blank line is no message, and is not answered.
  const malformed = await session(['', ' \t\r', '{"jsonrpc": "2.0", "id": 3, "method": ', '', '{"hello": "world"}', initialize], 3);
  assert.equal(malformed.code, 0);
  assert.deepEqual(
    malformed.answers.map((answer) => [answer.id, answer.error?.code ?? 'answered']),
    [[null, -32700], [null, -32600], [1, 'answered']],
  );
  // A tools/call whose params are of another shape: JSON-RPC's invalid params, in one line.
  const call = (id: number, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
  const shapes = await session([initialize, initialized, call(4, { name: 'repo_status', arguments: [] }), call(5, { arguments: {} }), call(6, null)], 4);
  const codes = shapes.answers.map((answer) => `${answer.id}:${answer.error?.code ?? 'answered'}`).sort();
  assert.deepEqual(codes, ['1:answered', '4:-32602', '5:-32602', 'null:-32600'], 'params null is no JSON-RPC request at all');
  assert.equal(runCli(['stop', root], { env }).code, 0, 'the daemon the call started still runs, for the next client');
});

test('a client that writes its requests and closes stdin at once (a script, a pipe) gets every answer before the server ends', { timeout: 120_000 }, async () => {
  const root = copyFixture('shop');
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime };
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'repomap-test', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'repo_map', arguments: { max_tokens: 256 } } },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'find_symbol', arguments: { name: 'Cart' } } },
  ];
  const run = spawnSync(process.execPath, [join(packageRoot, 'bin', 'repomap.js'), 'mcp', root], { env, input: lines.map((line) => JSON.stringify(line)).join('\n') + '\n', encoding: 'utf8', timeout: 100_000 });
  runCli(['stop', root], { env });
  assert.equal(run.status, 0, run.stderr);
  const answers = run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id: number; result?: { isError?: boolean } });
  assert.deepEqual(answers.map((answer) => [answer.id, answer.result?.isError ?? false]).sort(), [[1, false], [2, false], [3, false]]);
});

test('a request before initialize is refused with JSON-RPC\'s invalid request (ping aside, notifications ignored), and answered after it', { timeout: 120_000 }, async () => {
  const root = copyFixture('shop');
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime };
  const server = spawn(process.execPath, [join(packageRoot, 'bin', 'repomap.js'), 'mcp', root, '--cache-dir', tempDir()], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
  type Answer = { id: number | null; result?: { isError?: boolean; structuredContent?: { root?: string }; tools?: unknown[] }; error?: { code: number; message: string } };
  // Each message is sent once the one before it is answered: the order the server sees is the order written here.
  const nextLine = lineReader(server.stdout);
  const next = async (): Promise<Answer> => JSON.parse(await nextLine()) as Answer;
  const ask = (message: object) => {
    server.stdin.write(`${JSON.stringify(message)}\n`);
    return next();
  };
  const status = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'repo_status', arguments: {} } });
  try {
    assert.deepEqual(await ask(status(1)), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32600, message: 'invalid request: tools/call before initialize: send initialize first' },
    });
    // Refused for coming first, whatever its arguments.
    const wrong = await ask({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'find_symbol', arguments: { nope: 1 } } });
    assert.deepEqual(wrong.error, { code: -32600, message: 'invalid request: tools/call before initialize: send initialize first' });
    assert.deepEqual((await ask({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).error?.message, 'invalid request: tools/list before initialize: send initialize first');
    // A notification is not answered (the ping's answer comes next), and a ping is answered.
    server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    assert.deepEqual(await ask({ jsonrpc: '2.0', id: 4, method: 'ping' }), { jsonrpc: '2.0', id: 4, result: {} });
    // An initialize the SDK refuses (no params) does not count: the next call is still refused.
    assert.deepEqual((await ask({ jsonrpc: '2.0', id: 5, method: 'initialize' })).error, {
      code: -32602,
      message: 'invalid params: initialize takes { protocolVersion: string, capabilities: object, clientInfo: { name: string, version: string } }',
    });
    assert.equal((await ask(status(6))).error?.code, -32600);

    const init = await ask({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'repomap-test', version: '1' } } });
    assert.equal(init.error, undefined);
    server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const called = await ask(status(8));
    assert.equal(called.error, undefined, JSON.stringify(called));
    assert.equal(called.result?.isError, undefined);
    assert.equal(called.result?.structuredContent?.root, root);
    assert.equal((await ask({ jsonrpc: '2.0', id: 9, method: 'tools/list' })).result?.tools?.length, 3);
  } finally {
    server.stdin.end();
    await exited;
    runCli(['stop', root], { env });
  }
});

test('the input reaches the SDK without its blank lines, every other line as it came, however it is cut into chunks', async () => {
  const input = '\n  {"a": 1}\n \t\r\n\n\r\n  {"b":\t2}\r\nnot json\n   \n{"c": 3}';
  const kept = '  {"a": 1}\n  {"b":\t2}\r\nnot json\n{"c": 3}';
  for (const size of [1, 2, 3, 5, input.length]) {
    const filter = inputLines(() => assert.fail('no line is refused'));
    const out: Buffer[] = [];
    filter.on('data', (chunk: Buffer) => out.push(chunk));
    const ended = new Promise((resolve) => filter.on('end', resolve));
    for (let at = 0; at < input.length; at += size) filter.write(Buffer.from(input.slice(at, at + size)));
    filter.end();
    await ended;
    assert.equal(Buffer.concat(out).toString(), kept, `chunks of ${size}`);
  }
});

test('a daemon killed between calls (SIGKILL) is started again: the next call is answered, or the one after it', { timeout: 120_000 }, async () => {
  const root = copyFixture('shop');
  const { client, env } = await mcpClient([root]);
  try {
    const pidOf = async () => {
      const status = (await client.callTool({ name: 'repo_status', arguments: {} })) as TextResult;
      assert.ok(!status.isError, status.content[0]?.text);
      return (status.structuredContent as { pid: number }).pid;
    };
    const first = await pidOf();
    process.kill(first, 'SIGKILL');
    // Gone, or a zombie its parent has not reaped yet: either way no live daemon answers.
    while (isProcessAlive(first)) await new Promise((resume) => setTimeout(resume, 10));
    // The stale connection may hear of the kill only when the next request meets it (a reset): that
    // call may fail as a tool error, and the one after it must be answered by a new daemon.
    const next = (await client.callTool({ name: 'repo_status', arguments: {} })) as TextResult;
    if (next.isError) assert.match(next.content[0].text, /the daemon stopped answering/);
    const second = next.isError ? await pidOf() : (next.structuredContent as { pid: number }).pid;
    assert.notEqual(second, first);
    assert.equal(await pidOf(), second, 'the new connection is kept');
  } finally {
    await client.close();
    runCli(['stop', root], { env });
  }
});

/** A client of `repomap mcp` for the shop fixture, its daemon stopped and the client closed after `run`. */
async function withShopServer(run: (client: Client) => Promise<void>): Promise<void> {
  const root = copyFixture('shop');
  const { client, env } = await mcpClient([root, '--cache-dir', tempDir()]);
  try {
    await run(client);
  } finally {
    await client.close();
    runCli(['stop', root], { env });
  }
}

test('item 5: repo_map sends its map once: structuredContent has the files, lines, roles and tokens, not the text', async () => {
  await withShopServer(async (client) => {
    const map = (await client.callTool({ name: 'repo_map', arguments: { max_tokens: 512 } })) as TextResult;
    assert.equal(map.isError, undefined);
    const text = map.content[0].text;
    type Roles = { definitions?: number[]; signatures?: number[]; scopes?: number[] };
    const structured = map.structuredContent as { text?: string; tokens: number; files: Array<{ path: string; tokens: number } & Roles> };
    assert.equal(structured.text, undefined);
    // No shown line's text is repeated in the data: each line is its number and role.
    const json = JSON.stringify(structured);
    for (const line of text.split('\n').filter((line) => line.includes('│'))) assert.ok(!json.includes(line.split('│')[1].trim()), line);
    // Each shown line is there by its role, once: a definition's own, a further line of its signature, a scope's header.
    const roles = ({ definitions = [], signatures = [], scopes = [] }: Roles) => [...definitions, ...signatures, ...scopes];
    assert.equal(structured.files.reduce((sum, file) => sum + new Set(roles(file)).size, 0), (text.match(/^│/gm) ?? []).length, text);
    const cart = structured.files.find((file) => file.path === 'src/cart.ts');
    assert.deepEqual(cart?.definitions?.slice(0, 2), [4, 5]);
    // The data takes less than the map it describes.
    assert.ok(json.length < text.length / 2, `${json.length} bytes of data for ${text.length} of text`);
    assert.equal(structured.files.map((file) => file.path).join('\n'), [...text.matchAll(/^([^│…(\s]\S*?):?$/gm)].map((match) => match[1]).join('\n'));
  });
});

test('item 6: the schemas state every bound the server enforces, without an internal $ref; every tool is idempotent', async () => {
  await withShopServer(async (client) => {
    const { tools } = await client.listTools();
    const maxTokens = tools.find((tool) => tool.name === 'repo_map')!.inputSchema.properties!.max_tokens as { type: string; maximum?: number; exclusiveMinimum?: number };
    assert.equal(maxTokens.type, 'integer');
    assert.equal(maxTokens.maximum, 65536);
    for (const tool of tools) {
      assert.doesNotMatch(JSON.stringify(tool.inputSchema), /\$ref/, tool.name);
      assert.doesNotMatch(JSON.stringify(tool.outputSchema), /\$ref/, tool.name);
      assert.equal(tool.annotations?.idempotentHint, true, tool.name);
      assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
    }
  });
});

test('item 6: a whole number written as a string is taken for an integer argument; anything else in a string is refused', async () => {
  await withShopServer(async (client) => {
    const map = (await client.callTool({ name: 'repo_map', arguments: { max_tokens: '512' } })) as TextResult;
    assert.equal(map.isError, undefined, map.content[0].text);
    assert.equal((map.structuredContent as { budget: number }).budget, 512);
    const found = (await client.callTool({ name: 'find_symbol', arguments: { name: 'Cart', limit: '1' } })) as TextResult;
    assert.equal(found.isError, undefined, found.content[0].text);
    assert.equal((found.structuredContent as { definitions: unknown[] }).definitions.length, 1);
    for (const [value, text] of [
      ['5x', 'max_tokens must be a positive whole number, not "5x"'],
      ['1.5', 'max_tokens must be a positive whole number, not "1.5"'],
      [' 512', 'max_tokens must be a positive whole number, not " 512"'],
      ['', 'max_tokens must be a positive whole number, not ""'],
      ['0', 'max_tokens must be a positive whole number, not 0'],
      ['70000', 'max_tokens must be at most 65536, not 70000'],
    ]) {
      const refused = (await client.callTool({ name: 'repo_map', arguments: { max_tokens: value } })) as TextResult;
      assert.deepEqual([refused.isError, refused.content.map((item) => item.text)], [true, [text]], value);
    }
    // Only integer arguments: a string stays a string, a number given for it is refused.
    const message = (await client.callTool({ name: 'repo_map', arguments: { message: 12 } })) as TextResult;
    assert.deepEqual([message.isError, message.content[0].text], [true, 'message must be a string, not 12']);
  });
});

test('item 6: repomap mcp with a ROOT that does not exist completes the handshake and answers each call with the reason', async () => {
  const missing = join(tempDir(), 'nonexistent');
  const { client } = await mcpClient([missing]);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['find_symbol', 'repo_map', 'repo_status']);
    for (const [name, args] of [['repo_map', {}], ['find_symbol', { name: 'x' }], ['repo_status', {}]] as const) {
      const answer = (await client.callTool({ name, arguments: args })) as TextResult;
      assert.deepEqual([answer.isError, answer.content.map((item) => item.text)], [true, [`repository root ${missing} does not exist`]], name);
    }
  } finally {
    await client.close();
  }
});

test('item 6: a lookup that finds nothing says so; a mentioned identifier no file has is named in a line', async () => {
  await withShopServer(async (client) => {
    const none = (await client.callTool({ name: 'find_symbol', arguments: { name: 'Nowhere' } })) as TextResult;
    assert.equal(none.content[0].text, "no definitions of 'Nowhere'\n\nno references to 'Nowhere'\n");
    const map = (await client.callTool({ name: 'repo_map', arguments: { mentioned_identifiers: ['Cart', 'mailer', 'Chekout'], max_tokens: 512 } })) as TextResult;
    const text = map.content[0].text;
    assert.match(text, /^\(no file defines or references the mentioned 'Chekout': check the spelling, or look it up by prefix\)$/m);
    // A name some file defines or references, or a file is named after (mailer.ts), is not named.
    assert.doesNotMatch(text, /'Cart'|'mailer'/);
    // Names found say nothing.
    const found = (await client.callTool({ name: 'repo_map', arguments: { mentioned_identifiers: ['Cart'], max_tokens: 512 } })) as TextResult;
    assert.doesNotMatch(found.content[0].text, /no file defines/);
  });
});
