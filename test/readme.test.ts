import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../src/paths.js';
import { runCli, tempDir } from './helpers.js';

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
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  const env = { ...process.env, XDG_CACHE_HOME: tempDir(), XDG_RUNTIME_DIR: runtime };
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
