// The hostile-repository suite, its daemon and MCP part (issue 48): a name that is not UTF-8, a
// socket replaced under a running daemon, connections past the cap, params nested past any sane
// depth, an MCP line over the SDK's buffer, long values echoed in errors, and a daemon whose parse
// worker hangs that must stop all the same. Every child runs under a hard kill timer.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DaemonClient } from '../src/client/client.js';
import type { DaemonStatus, RepoMap } from '../src/api/types.js';
import { isProcessAlive } from '../src/lock-file.js';
import { packageRoot } from '../src/paths.js';
import { runCliBounded } from './bounded.js';
import { type RunningDaemon, exitWithin, rawExchange, runtimeEnv, sleep, startDaemon, startDaemonUnder } from './daemon-helpers.js';
import { git, lineReader, tempDir, writeTree } from './helpers.js';

const call = DaemonClient.once;

/** Daemons a test started: stopped (SIGKILL) when the file ends, whatever the test did. */
const pids = new Set<number>();
after(() => {
  for (const pid of pids) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
});

async function daemonFor(root: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<RunningDaemon> {
  const daemon = await startDaemon(root, env, ...args);
  if (daemon.child.pid !== undefined) pids.add(daemon.child.pid);
  return daemon;
}

/** A small Python repository, in git when `inGit`. */
function pythonRepo(files: Record<string, string> = {}, inGit = true): string {
  const root = tempDir('repomap-hostile-');
  writeTree(root, { 'ok.py': 'def ok():\n    return helper()\n', 'helper.py': 'def helper():\n    return 1\n', ...files });
  if (inGit) {
    git(root, 'init', '-q');
    git(root, 'add', '.');
    git(root, 'commit', '-qm', 'init');
  }
  return root;
}

const BAD_NAME = Buffer.from([0x66, 0xff, 0x2e, 0x70, 0x79]); // f\xff.py

for (const inGit of [true, false]) {
  test(`item 6: a file whose name is not valid UTF-8 is counted and listed as skipped (name not UTF-8), ${inGit ? 'in git' : 'outside git'}; --chat beside it does not say nothing else to map`, { timeout: 120_000 }, async () => {
    const root = pythonRepo({}, false);
    writeFileSync(Buffer.concat([Buffer.from(`${root}/`), BAD_NAME]), 'def bad_name():\n    return 1\n');
    if (inGit) {
      git(root, 'init', '-q');
      git(root, 'add', '.');
      git(root, 'commit', '-qm', 'init');
    }
    const env = { XDG_CACHE_HOME: tempDir(), REPOMAP_SHARED_CACHE: tempDir() };
    const verbose = await runCliBounded(['map', root, '--verbose', '--format', 'json'], { env, killAfterMs: 60_000 });
    assert.equal(verbose.code, 0, verbose.stderr);
    const map = JSON.parse(verbose.stdout) as RepoMap;
    assert.deepEqual(map.skipped, { 'name not UTF-8': 1 });
    assert.match(verbose.stderr, /f\\xff\.py.*name not UTF-8/);
    assert.match(map.text, /1 file not mapped: 1 name not UTF-8/);
    const chat = await runCliBounded(['map', root, '--chat', join(root, 'ok.py'), '--chat', join(root, 'helper.py')], { env, killAfterMs: 60_000 });
    assert.equal(chat.code, 0, chat.stderr);
    assert.doesNotMatch(chat.stderr, /nothing else to map/);
    assert.match(chat.stdout, /1 file not mapped: 1 name not UTF-8/);
    // The daemon counts it too.
    const daemonEnv = { ...env, ...runtimeEnv() };
    const daemon = await daemonFor(root, daemonEnv);
    const fromDaemon = await call<RepoMap>(daemon.socket, 'map', { listSkipped: true });
    assert.deepEqual(fromDaemon.skipped, { 'name not UTF-8': 1 });
    assert.deepEqual(fromDaemon.skippedFiles.map((file) => [file.path, file.reason]), [['f\\xff.py', 'name not UTF-8']]);
    await call(daemon.socket, 'shutdown');
    assert.equal(await exitWithin(daemon), 0);
  });
}

test('item 11: a socket replaced by a regular file or a symlink: the daemon exits saying so and leaves the replacement; status --all reports that entry in one line and goes on', { timeout: 120_000 }, async () => {
  const env = runtimeEnv();
  // Daemons that check their socket once in ten minutes: status --all meets the replaced socket.
  const slow = { ...env, REPOMAP_TEST_HOLD_CHECK_MS: '600000' };
  const [first, second] = [pythonRepo(), pythonRepo()];
  const replaced = await daemonFor(first, slow);
  const healthy = await daemonFor(second, slow);
  rmSync(replaced.socket);
  writeFileSync(replaced.socket, 'not a socket\n');
  const all = await runCliBounded(['status', '--all'], { env, killAfterMs: 30_000 });
  assert.equal(all.code, 0, all.stderr);
  const lines = all.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 2, all.stdout);
  assert.ok(lines.some((line) => line.startsWith(`${second}  pid ${healthy.child.pid}  ready`) || line.startsWith(`${second}  pid ${healthy.child.pid}  indexing`)), all.stdout);
  assert.ok(lines.some((line) => line.includes(replaced.socket) && /is not a socket/.test(line)), all.stdout);
  const json = await runCliBounded(['status', '--all', '--format', 'json'], { env, killAfterMs: 30_000 });
  const entries = JSON.parse(json.stdout) as Array<{ pid: number; error?: string }>;
  assert.deepEqual(entries.map((entry) => [entry.pid, entry.error !== undefined]).sort(), [[healthy.child.pid, false], [replaced.child.pid, true]].sort());
  await call(healthy.socket, 'shutdown');
  replaced.child.kill('SIGTERM');
  await exitWithin(replaced);
  assert.equal(readFileSync(replaced.socket, 'utf8'), 'not a socket\n', 'a daemon removes only its own socket');

  // Checking every 100 ms, a daemon sees its socket replaced, by a file or by a symlink, and exits.
  const quick = { ...env, REPOMAP_TEST_HOLD_CHECK_MS: '100' };
  for (const replace of ['file', 'symlink'] as const) {
    const root = pythonRepo();
    const daemon = await daemonFor(root, quick);
    rmSync(daemon.socket);
    if (replace === 'file') writeFileSync(daemon.socket, 'x');
    else symlinkSync(healthy.socket, daemon.socket);
    assert.equal(await exitWithin(daemon), 0, daemon.stderr());
    assert.match(daemon.stderr(), /shutting down: its socket \S+ was replaced/);
    assert.equal(lstatSync(daemon.socket).isSymbolicLink(), replace === 'symlink', 'the replacement is left where it is');
    rmSync(daemon.socket);
  }
});

/** Opens `count` connections to a socket and resolves once each is open or refused. */
async function openConnections(socket: string, count: number): Promise<Array<{ socket: Socket; answer: Promise<string>; failure: Promise<string | undefined> }>> {
  const opened = [];
  for (let i = 0; i < count; i++) {
    const s = connect(socket);
    s.setEncoding('utf8');
    let text = '';
    const answer = new Promise<string>((resolve) => {
      s.on('data', (chunk: string) => (text += chunk));
      s.on('close', () => resolve(text));
    });
    const failure = new Promise<string | undefined>((resolve) => {
      s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      s.once('close', () => resolve(undefined));
    });
    await new Promise<void>((resolve) => {
      s.once('connect', resolve);
      s.once('error', () => resolve());
    });
    opened.push({ socket: s, answer, failure });
  }
  return opened;
}

test('item 12: at ulimit -n 256, 400 idle connections: those past the cap get one JSON-RPC error line each, logged once, and the daemon keeps answering', { timeout: 120_000 }, async () => {
  const root = pythonRepo();
  const env = runtimeEnv();
  const daemon = await startDaemonUnder(256, root, env);
  if (daemon.child.pid !== undefined) pids.add(daemon.child.pid);
  await call(daemon.socket, 'status');
  await sleep(500); // the connections before (startDaemon's probes, the status) are closed on both sides
  const connections = await openConnections(daemon.socket, 400);
  // The daemon takes them as its event loop turns: until the refused ones are closed, and a moment more.
  const deadline = Date.now() + 20_000;
  while (connections.filter((c) => c.socket.destroyed).length < 336 && Date.now() < deadline) await sleep(50);
  await sleep(500);
  const refused = connections.filter((c) => c.socket.destroyed);
  const open = connections.filter((c) => !c.socket.destroyed);
  assert.equal(open.length, 64, 'the cap: 64 connections');
  assert.equal(refused.length, 336);
  for (const { answer, failure } of refused) {
    assert.equal(await failure, undefined, 'no ECONNRESET');
    const [line, ...rest] = (await answer).split('\n').filter(Boolean);
    assert.deepEqual(rest, []);
    assert.deepEqual(JSON.parse(line), { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'too many connections: the daemon serves at most 64 at once (64 open); close one and try again' } });
  }
  assert.equal(daemon.stderr().match(/refusing connections/g)?.length, 1, daemon.stderr());
  for (const { socket } of open) socket.destroy();
  await sleep(300);
  const status = await call<DaemonStatus>(daemon.socket, 'status');
  assert.equal(status.pid, daemon.child.pid);
  assert.match(daemon.stderr(), /refused 336 connections over the cap of 64/);
  await call(daemon.socket, 'shutdown');
  assert.equal(await exitWithin(daemon), 0);
});

/** `[[[...]]]` `depth` deep, as JSON text. */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

test('item 13: params nested 400,000 deep are refused as invalid params (-32602) in one line, no stack in the log; a 100 MB line is refused, not buffered', { timeout: 120_000 }, async () => {
  const root = pythonRepo();
  const env = runtimeEnv();
  const daemon = await daemonFor(root, env);
  const deep = nested(400_000);
  const answers = await rawExchange(
    daemon.socket,
    [
      `{"jsonrpc":"2.0","id":1,"method":"map","params":{"chatFiles":${deep}}}`,
      `{"jsonrpc":"2.0","id":2,"method":"map","params":{"tokens":${deep}}}`,
      `{"jsonrpc":"2.0","id":3,"method":"symbols","params":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`,
      `{"jsonrpc":"2.0","id":4,"method":"map","params":{"chatFiles":${nested(63)}}}`,
      '',
    ].join('\n'),
    4,
  );
  for (const answer of answers.filter((a) => a.id !== 4)) {
    assert.equal(answer.error?.code, -32602, JSON.stringify(answer).slice(0, 500));
    assert.equal(answer.error?.message, 'params nested deeper than 64 levels');
  }
  assert.equal(answers.find((a) => a.id === 4)?.error?.code, -32602, 'nested 63 deep: checked as usual, a wrong kind');
  assert.doesNotMatch(daemon.stderr(), /internal error|RangeError|\n\s+at /);

  // 100 MB without a newline, then a newline and a status: refused once, the status answered, memory bounded.
  const s = connect(daemon.socket);
  await new Promise((resolve) => s.once('connect', resolve));
  let received = '';
  s.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  const chunk = 'x'.repeat(1024 * 1024);
  for (let i = 0; i < 100; i++) if (!s.write(chunk)) await new Promise((resolve) => s.once('drain', resolve));
  s.write('\n{"jsonrpc":"2.0","id":7,"method":"status"}\n');
  while (received.split('\n').filter(Boolean).length < 2) await sleep(50);
  s.destroy();
  const [refusal, status] = received.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id: unknown; error?: { code: number; message: string }; result?: DaemonStatus });
  assert.equal(refusal.error?.code, -32600);
  assert.match(refusal.error?.message ?? '', /request over 1048576 bytes/);
  assert.equal(status.id, 7);
  assert.ok(status.result!.memory.rssBytes < 400 * 1024 * 1024, `RSS ${status.result!.memory.rssBytes}`);
  await call(daemon.socket, 'shutdown');
  assert.equal(await exitWithin(daemon), 0);
});

/** A `repomap mcp` child and its answers, line by line. */
function mcpServer(root: string, env: NodeJS.ProcessEnv): { server: ChildProcessWithoutNullStreams; next: () => Promise<{ id: unknown; result?: { tools?: unknown[]; isError?: boolean; content?: Array<{ text: string }> }; error?: { code: number; message: string } }>; stderr: () => string; exited: Promise<number | null> } {
  const server = spawn(process.execPath, [join(packageRoot, 'bin', 'repomap.js'), 'mcp', root, '--cache-dir', tempDir()], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const kill = setTimeout(() => server.kill('SIGKILL'), 90_000);
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => (clearTimeout(kill), resolve(code))));
  let stderr = '';
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const nextLine = lineReader(server.stdout);
  const next = async () => {
    try {
      return JSON.parse(await nextLine());
    } catch (err) {
      throw new Error(`repomap mcp ended (${String(await exited)}): ${stderr}`, { cause: err });
    }
  };
  return { server, next, stderr: () => stderr, exited };
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } } };

test('item 13: MCP tool arguments nested 400,000 deep get a one-line answer, and the session goes on', { timeout: 120_000 }, async () => {
  const root = pythonRepo();
  const { server, next, exited } = mcpServer(root, runtimeEnv());
  server.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  assert.equal((await next()).id, 1);
  server.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"repo_map","arguments":{"chat_files":${nested(400_000)}}}}\n`);
  const deep = await next();
  assert.equal(deep.id, 2);
  assert.deepEqual(deep.error, { code: -32602, message: 'invalid params: params nested deeper than 64 levels' });
  server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' })}\n`);
  const listed = await next();
  assert.equal(listed.id, 3);
  assert.equal(listed.result?.tools?.length, 3);
  server.stdin.end();
  assert.equal(await exited, 0);
});

test('item 14: an MCP input line over the limit is refused with a JSON-RPC error naming its size, and the requests after it are answered', { timeout: 120_000 }, async () => {
  const root = pythonRepo();
  const { server, next, exited, stderr } = mcpServer(root, runtimeEnv());
  server.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  assert.equal((await next()).id, 1);
  const big = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'repo_map', arguments: { message: 'x'.repeat(12 * 1024 * 1024) } } });
  const bigFirst = JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'repo_map', arguments: { message: 'y'.repeat(12 * 1024 * 1024) } }, id: 'tail-id' });
  server.stdin.write(`${big}\n${bigFirst}\n${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' })}\n`);
  const [first, second, third] = [await next(), await next(), await next()];
  assert.equal(first.id, 2, 'the id at the head of the line is read back');
  assert.equal(first.error?.code, -32600);
  assert.match(first.error?.message ?? '', /^invalid request: a line of \d+ bytes, over the limit of 4194304$/);
  assert.equal(second.id, 'tail-id', 'the id at the end of the line is read back');
  assert.equal(third.id, 3);
  assert.equal(third.result?.tools?.length, 3);
  server.stdin.end();
  assert.equal(await exited, 0, stderr());
});

test('item 15: a 400 KB chat path, param name or value is quoted cut to 200 characters with its length, from the daemon and the CLI', { timeout: 120_000 }, async () => {
  const root = pythonRepo();
  const env = runtimeEnv();
  const daemon = await daemonFor(root, env);
  const long = 'a/'.repeat(200_000);
  const requests = [
    { method: 'map', params: { chatFiles: [long] } },
    { method: 'map', params: { mentionedFiles: [`${long}\n`] } },
    { method: 'map', params: { [long]: 1 } },
    { method: 'map', params: { tokens: long } },
    { method: 'map', params: { ranking: long } },
    { method: long },
  ];
  const answers = await rawExchange(daemon.socket, requests.map((request, id) => JSON.stringify({ jsonrpc: '2.0', id, ...request })).join('\n') + '\n', requests.length);
  for (const answer of answers) {
    const message = answer.error?.message ?? '';
    assert.ok(message.length > 0 && message.length < 600, `${answer.id}: ${message.length} characters: ${message.slice(0, 300)}`);
    assert.match(message, /… \(\d+ characters\)/, `${answer.id}: ${message}`);
  }
  await call(daemon.socket, 'shutdown');
  assert.equal(await exitWithin(daemon), 0);
  // An argument of the command line is at most 128 KiB (the kernel's bound): 100,000 characters.
  const cli = await runCliBounded(['map', root, '--chat', 'b/'.repeat(50_000)], { env: { XDG_CACHE_HOME: tempDir() }, killAfterMs: 60_000 });
  assert.equal(cli.code, 2);
  assert.ok(cli.stderr.length < 600, cli.stderr.slice(0, 600));
  assert.match(cli.stderr, /… \(100000 characters\)/);
});

/** A repository with a file whose parse hangs its worker (REPOMAP_TEST_WORKER_STALL_ON), and the environment that makes it so. */
function hangingRepo(): { root: string; env: NodeJS.ProcessEnv } {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`pkg/mod${i}.py`] = `def f${i}():\n    return ${i}\n`;
  files['pkg/hang_here.py'] = 'def hang():\n    pass\n';
  return { root: pythonRepo(files), env: { ...runtimeEnv(), REPOMAP_TEST_WORKER_STALL_ON: 'hang_here' } };
}

/** Waits until the daemon's pid is gone, at most `ms`; whether it is. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isProcessAlive(pid) && Date.now() < deadline) await sleep(50);
  return !isProcessAlive(pid);
}

test('stop always stops: a daemon whose parse worker hangs ends on `repomap stop` and on SIGTERM within seconds; a stopped (SIGSTOP) one is killed and said so, never "no daemon runs" while it lives', { timeout: 120_000 }, async () => {
  const { root, env } = hangingRepo();
  const daemon = await daemonFor(root, env);
  const { pid } = await call<DaemonStatus>(daemon.socket, 'status');
  await sleep(1000); // the cold index reaches the file that hangs its worker
  const stop = await runCliBounded(['stop', root], { env, killAfterMs: 30_000 });
  assert.equal(stop.killedFor, undefined, 'stop returns by itself');
  assert.equal(stop.code, 0, stop.stderr);
  assert.match(stop.stdout, new RegExp(`^repomap: stopped the daemon for ${root} \\(pid ${pid}\\)`));
  assert.ok(await goneWithin(pid, 1000), 'the daemon is gone when stop returns');
  assert.match(daemon.stderr(), /shutdown did not finish within \d+ s/);

  const again = await daemonFor(root, env);
  await sleep(1000);
  again.child.kill('SIGTERM');
  assert.notEqual(await exitWithin(again, 15_000), 'still running', 'SIGTERM ends it');

  // A daemon that cannot act on anything (SIGSTOP), its socket gone: stop kills it, and says so.
  const frozen = await daemonFor(root, { ...env, REPOMAP_TEST_WORKER_STALL_ON: '' });
  const frozenPid = frozen.child.pid!;
  process.kill(frozenPid, 'SIGSTOP');
  rmSync(frozen.socket);
  const kill = await runCliBounded(['stop', root], { env, killAfterMs: 40_000 });
  assert.equal(kill.killedFor, undefined);
  assert.equal(kill.code, 0, kill.stderr);
  assert.match(kill.stdout, new RegExp(`^repomap: the daemon for ${root} \\(pid ${frozenPid}\\) did not stop within \\d+ s: killed it \\(SIGKILL\\)`));
  assert.ok(await goneWithin(frozenPid, 2000));
  assert.ok(!existsSync(frozen.socket));
  const none = await runCliBounded(['stop', root], { env, killAfterMs: 30_000 });
  assert.equal(none.stdout, `repomap: no daemon runs for ${root}\n`);
});
