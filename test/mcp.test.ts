import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { packageRoot } from '../src/paths.js';
import { copyFixture, git, runCli, tempDir } from './helpers.js';

type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

test('MCP over stdio, with the SDK client: list the tools, call each, errors are tool errors', async () => {
  const root = copyFixture('shop');
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

    const map = (await client.callTool({ name: 'repo_map', arguments: { chat_files: ['src/checkout.ts'], max_tokens: 400 } })) as TextResult;
    assert.equal(map.isError, undefined);
    assert.match(map.content[0].text, /^src\/cart\.ts:$/m);
    assert.doesNotMatch(map.content[0].text, /^src\/checkout\.ts:$/m);

    const symbol = (await client.callTool({ name: 'find_symbol', arguments: { name: 'sendReceipt' } })) as TextResult;
    assert.match(symbol.content[0].text, /^src\/mailer\.ts:6 function sendReceipt$/m);
    assert.match(symbol.content[0].text, /^src\/checkout\.ts:\d+ call: await sendReceipt\(email, receipt\);$/m);

    const status = (await client.callTool({ name: 'repo_status', arguments: {} })) as TextResult;
    assert.equal(JSON.parse(status.content[0].text).root, root);

    const outside = (await client.callTool({ name: 'repo_map', arguments: { chat_files: ['../../etc/passwd'] } })) as TextResult;
    assert.equal(outside.isError, true);
    assert.match(outside.content[0].text, /outside the repository root/);
    const bad = (await client.callTool({ name: 'find_symbol', arguments: { name: '' } })) as TextResult;
    assert.equal(bad.isError, true);
    // Unknown arguments are tool errors of one line, also those named after Object.prototype members.
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'chatFiles']) {
      const unknown = (await client.callTool({ name: 'repo_map', arguments: JSON.parse(`{"${name}":1}`) })) as TextResult;
      assert.equal(unknown.isError, true, `${name}: ${JSON.stringify(unknown)}`);
      assert.equal(unknown.content[0].text, `unknown argument '${name}' of repo_map (known: chat_files, mentioned_files, mentioned_identifiers, message, max_tokens)`);
    }
    // Files are checked as --chat checks them (one function): no NUL smuggles a path out, no folder.
    for (const [file, pattern] of [['README.md\u0000../../etc/passwd', /control character/], ['src', /is a folder/], ['src/nope.ts', /does not exist/]] as const) {
      const refused = (await client.callTool({ name: 'repo_map', arguments: { chat_files: [file] } })) as TextResult;
      assert.equal(refused.isError, true);
      assert.match(refused.content[0].text, pattern);
    }

    // The server is still alive after the errors.
    const again = (await client.callTool({ name: 'find_symbol', arguments: { name: 'Cart', limit: 1 } })) as TextResult;
    assert.match(again.content[0].text, /^src\/cart\.ts:4 class Cart$/m);
    // Logged for the README's closing note: one tool call and its answer.
    process.stdout.write(`# find_symbol {"name":"Cart","limit":1} ->\n${again.content[0].text.replace(/^/gm, '#   ')}\n`);
  } finally {
    await client.close();
    runCli(['stop', root], { env });
  }
});
