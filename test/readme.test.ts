import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../src/paths.js';
import { copyFixture, runCli, tempDir } from './helpers.js';

/** The code blocks of README.md marked `<!-- example: NAME -->`, by name. */
function readmeExamples(): Map<string, string> {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const examples = new Map<string, string>();
  for (const match of readme.matchAll(/<!-- example: ([\w-]+) -->\n```js\n([\s\S]*?)```/g)) examples.set(match[1], match[2]);
  return examples;
}

/**
 * Runs an example as a user would: an ES module importing 'repomap' (it lives inside this
 * package, so the import resolves to the package itself), in a folder holding a copy of the
 * fixtures, with private cache and runtime folders.
 */
function runExample(name: string): { stdout: string; stderr: string; status: number | null; cwd: string; env: NodeJS.ProcessEnv } {
  const code = readmeExamples().get(name);
  assert.ok(code, `README has the example '${name}'`);
  const dir = join(packageRoot, 'dist', 'readme-examples');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, code);
  const cwd = tempDir();
  cpSync(join(packageRoot, 'fixtures', 'repos', 'shop'), join(cwd, 'fixtures', 'repos', 'shop'), { recursive: true });
  const env = { ...process.env, ...privateDaemonEnv() };
  const result = spawnSync(process.execPath, [file], { cwd, env, encoding: 'utf8' });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status, cwd, env };
}

test('README example: the in-process library API', () => {
  const run = runExample('in-process');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^src\/cart\.ts:$/m);
  assert.match(run.stdout, /^\d+ of 512 tokens; first file: README\.md$/m);
  assert.match(run.stdout, /^src\/pricing\.ts 5$/m);
});

test('README example: the daemon API', () => {
  const run = runExample('daemon');
  try {
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /│export class CheckoutService \{/);
    assert.match(run.stdout, /^ready 11$/m);
  } finally {
    runCli(['stop', join(run.cwd, 'fixtures', 'repos', 'shop')], { env: run.env });
  }
});

/** A cache and a private runtime folder (the daemon's socket) of a test's own. */
function privateDaemonEnv(): { XDG_CACHE_HOME: string; XDG_RUNTIME_DIR: string } {
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  return { XDG_CACHE_HOME: tempDir(), XDG_RUNTIME_DIR: runtime };
}

/** The MCP client configurations of README.md, marked `<!-- mcp-config: CLIENT -->`, by client. */
function mcpConfigs(): Map<string, { lang: string; text: string }> {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const configs = new Map<string, { lang: string; text: string }>();
  for (const match of readme.matchAll(/<!-- mcp-config: ([\w-]+) -->\n```(\w+)\n([\s\S]*?)```/g)) configs.set(match[1], { lang: match[2], text: match[3] });
  return configs;
}

type ServerEntry = { type?: string; command: string; args: string[] };

test('README MCP configurations: Claude Code, Claude Desktop, Cursor and VS Code, each of the shape its client reads, each starting the server', async () => {
  const configs = mcpConfigs();
  assert.deepEqual([...configs.keys()].sort(), ['claude-code', 'claude-desktop', 'cursor', 'vscode']);

  // Claude Code: one command, the server's command line after `--`, run in the project.
  const claudeCode = configs.get('claude-code')!;
  assert.equal(claudeCode.lang, 'sh');
  const words = claudeCode.text.trim().split(/\s+/);
  assert.deepEqual(words.slice(0, 5), ['claude', 'mcp', 'add', 'repomap', '--']);
  const entries: Array<[string, ServerEntry]> = [['claude-code', { command: words[5], args: words.slice(6) }]];

  // Claude Desktop and Cursor: mcpServers.NAME {command, args}; VS Code: servers.NAME {type, command, args}.
  for (const [client, key] of [['claude-desktop', 'mcpServers'], ['cursor', 'mcpServers'], ['vscode', 'servers']] as const) {
    const { lang, text } = configs.get(client)!;
    assert.equal(lang, 'json');
    const config = JSON.parse(text) as Record<string, Record<string, ServerEntry>>;
    assert.deepEqual(Object.keys(config), [key], client);
    assert.deepEqual(Object.keys(config[key]), ['repomap'], client);
    const entry = config[key].repomap;
    assert.deepEqual(Object.keys(entry).sort(), client === 'vscode' ? ['args', 'command', 'type'] : ['args', 'command'], client);
    if (client === 'vscode') assert.equal(entry.type, 'stdio');
    entries.push([client, entry]);
  }

  // Each runs the installed `repomap mcp [ROOT]` (not npx: the package is not published, and
  // `npx -y` would install whatever is published under the name later): started here as
  // `node bin/repomap.js mcp [ROOT]`, a placeholder ROOT given a fixture (the client's working
  // folder, for Claude Code), its tools listed.
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const fixture = join(packageRoot, 'fixtures', 'repos', 'shop');
  for (const [client, entry] of entries) {
    assert.equal(entry.command, 'repomap', client);
    assert.deepEqual(entry.args.slice(0, 1), ['mcp'], client);
    const rest = entry.args.slice(1);
    assert.ok(rest.length <= 1 && rest.every((arg) => arg === '/path/to/your/repo' || arg === '${workspaceFolder}'), `${client}: ${rest.join(' ')}`);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(packageRoot, 'bin', 'repomap.js'), 'mcp', ...rest.map(() => fixture)],
      cwd: fixture,
      stderr: 'pipe',
    });
    const mcp = new Client({ name: `readme-${client}`, version: '1.0.0' });
    await mcp.connect(transport);
    try {
      const { tools } = await mcp.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ['find_symbol', 'repo_map', 'repo_status'], client);
    } finally {
      await mcp.close();
    }
  }
});

test('README: no setup runs `npx -y`, and the Install section says `npm ci` before `npm pack`', () => {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  assert.doesNotMatch(readme, /npx -y/);
  const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Commands'));
  assert.match(install, /npm ci && npm pack/);
});

/** A folder with a `repomap` command running this package's CLI, as an installed one would be on PATH. */
function repomapOnPath(): string {
  const bin = tempDir('repomap-bin-');
  writeFileSync(join(bin, 'repomap'), `#!/bin/sh\nexec '${process.execPath}' '${join(packageRoot, 'bin', 'repomap.js')}' "$@"\n`);
  chmodSync(join(bin, 'repomap'), 0o755);
  return bin;
}

/** The MCP Inspector's command: REPOMAP_TEST_MCP_INSPECTOR, else `mcp-inspector` on PATH; undefined when neither runs. */
function inspectorCommand(): string | undefined {
  const command = process.env.REPOMAP_TEST_MCP_INSPECTOR ?? 'mcp-inspector';
  return spawnSync(command, ['--help'], { timeout: 30_000 }).error ? undefined : command;
}

/** The README's Claude Desktop server entry: `repomap mcp /path/to/your/repo`. */
function readmeServerArgs(root: string): string[] {
  const { mcpServers } = JSON.parse(mcpConfigs().get('claude-desktop')!.text) as { mcpServers: Record<string, ServerEntry> };
  const { command, args } = mcpServers.repomap;
  return [command, ...args.map((arg) => (arg === '/path/to/your/repo' ? root : arg))];
}

/** Runs `client` on a copy of the shop fixture with a `repomap` command on PATH and a daemon of its own, stopped after. */
function withInstalledServer(client: (root: string, env: NodeJS.ProcessEnv) => void): void {
  const root = copyFixture('shop');
  const env = { ...process.env, ...privateDaemonEnv(), PATH: `${repomapOnPath()}:${process.env.PATH}` };
  try {
    client(root, env);
  } finally {
    runCli(['stop', root], { env });
  }
}

const inspector = inspectorCommand();
test(
  "README's MCP setup in the official MCP Inspector CLI: its tools listed and a map answered through the installed `repomap` command",
  { skip: inspector ? false : 'the MCP Inspector is not installed (npm install @modelcontextprotocol/inspector, then REPOMAP_TEST_MCP_INSPECTOR=.../mcp-inspector)' },
  () =>
    withInstalledServer((root, env) => {
      const run = (...method: string[]) => spawnSync(inspector!, ['--cli', ...readmeServerArgs(root), ...method], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
      const listed = run('--method', 'tools/list');
      assert.equal(listed.status, 0, listed.stderr);
      const names = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name).sort();
      assert.deepEqual(names, ['find_symbol', 'repo_map', 'repo_status']);
      const called = run('--method', 'tools/call', '--tool-name', 'repo_map', '--tool-arg', 'chat_files=["src/checkout.ts"]', '--tool-arg', 'max_tokens=256');
      assert.equal(called.status, 0, called.stderr);
      const answer = JSON.parse(called.stdout) as { isError?: boolean; content: Array<{ text: string }>; structuredContent: { budget: number } };
      assert.notEqual(answer.isError, true, called.stdout);
      assert.equal(answer.structuredContent.budget, 256);
      assert.match(answer.content[0].text, /^src\/cart\.ts:$/m, 'the map shows what the chat file uses');
    }),
);

const pythonSdk = spawnSync('python3', ['-c', 'import mcp'], { timeout: 30_000 }).status === 0;
test(
  "README's MCP setup in the Python MCP SDK's stdio client: its tools listed and a map answered",
  { skip: pythonSdk ? false : "the Python MCP SDK is not installed (`python3 -c 'import mcp'` fails: pip install mcp)" },
  () =>
    withInstalledServer((root, env) => {
      const [command, ...args] = readmeServerArgs(root);
      const script = `
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
async def main():
    params = StdioServerParameters(command=${JSON.stringify(command)}, args=json.loads(sys.argv[1]), env=dict(__import__('os').environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            result = await session.call_tool('repo_map', {'chat_files': ['src/checkout.ts'], 'max_tokens': 256})
            print(json.dumps({'tools': sorted(t.name for t in tools.tools), 'isError': result.isError, 'text': result.content[0].text}))
asyncio.run(main())
`;
      const run = spawnSync('python3', ['-c', script, JSON.stringify(args)], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
      assert.equal(run.status, 0, run.stderr);
      const answer = JSON.parse(run.stdout.trim().split('\n').pop()!) as { tools: string[]; isError: boolean; text: string };
      assert.deepEqual(answer.tools, ['find_symbol', 'repo_map', 'repo_status']);
      assert.equal(answer.isError, false, answer.text);
      assert.match(answer.text, /^src\/cart\.ts:$/m);
    }),
);
