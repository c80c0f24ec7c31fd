import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DaemonError, type StartOptions } from '../client/client.js';
import { type RepomapDaemon, connect } from '../index.js';
import { nothingToMap } from '../request.js';
import { renderSymbols } from '../symbols.js';

type ToolResult = { content: Array<{ type: 'text'; text: string }>; isError?: boolean };

const REPO_MAP_ARGUMENTS = {
  chat_files: z.array(z.string()).optional().describe('Paths (relative to the repository root) of files already in the conversation; they are not shown, but what they use ranks first.'),
  mentioned_files: z.array(z.string()).optional().describe('Paths the user or task mentions.'),
  mentioned_identifiers: z.array(z.string()).optional().describe('Function, class or variable names the task mentions.'),
  message: z.string().optional().describe("The user's request as free text; identifiers and file names are taken from it."),
  max_tokens: z.number().int().positive().optional().describe('The most tokens the map may use (default 1024 with chat_files, 8192 without).'),
};

const FIND_SYMBOL_ARGUMENTS = {
  name: z.string().min(1).describe('The identifier to look up, e.g. authenticate or UserService.'),
  limit: z.number().int().positive().optional().describe('At most this many definitions and references (default 20).'),
  prefix: z.boolean().optional().describe('Match names starting with name, ignoring case.'),
};

const REPO_STATUS_ARGUMENTS = {};

/** Each tool's argument names. */
const TOOL_ARGUMENTS: Readonly<Record<string, readonly string[]>> = {
  repo_map: Object.keys(REPO_MAP_ARGUMENTS),
  find_symbol: Object.keys(FIND_SYMBOL_ARGUMENTS),
  repo_status: Object.keys(REPO_STATUS_ARGUMENTS),
};

/**
 * Answers a tool call that names an unknown argument with a tool error, as the daemon refuses an
 * unknown param, before the SDK sees it: the SDK would drop an unknown argument without a word,
 * and an argument named after an Object.prototype member (`constructor`) fails its request schema,
 * answered as a JSON-RPC error with a validation dump. Other messages go on to the server.
 */
export function refuseUnknownArguments(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('refuseUnknownArguments: connect the server to the transport first');
  transport.onmessage = (message, extra) => {
    const refusal = unknownArgument(message);
    if (refusal) void transport.send(refusal);
    else deliver(message, extra);
  };
}

function unknownArgument(message: JSONRPCMessage): JSONRPCMessage | undefined {
  if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return undefined;
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  const known = typeof params?.name === 'string' && Object.hasOwn(TOOL_ARGUMENTS, params.name) ? TOOL_ARGUMENTS[params.name] : undefined;
  const args = params?.arguments;
  if (!known || typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const unknown = Object.keys(args).find((key) => !known.includes(key));
  if (unknown === undefined) return undefined;
  const text = `unknown argument '${unknown}' of ${String(params!.name)} (known: ${known.join(', ') || 'none'})`;
  return { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }], isError: true } };
}

/**
 * The MCP server: three tools backed by the repository's daemon (started when needed, and
 * started again if it went away). A failing call is a tool error, never a dead server.
 */
export function createMcpServer(root: string, version: string, options: StartOptions = {}): McpServer {
  const server = new McpServer({ name: 'repomap', version });
  let daemon: Promise<RepomapDaemon> | undefined;

  // Runs a request on the daemon; a lost connection (an idle daemon exited) reconnects once.
  const withDaemon = async <T>(ask: (repo: RepomapDaemon) => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      daemon ??= connect(root, options);
      try {
        return await ask(await daemon);
      } catch (err) {
        if (err instanceof DaemonError || attempt > 0) throw err;
        (await daemon.catch(() => undefined))?.close();
        daemon = undefined;
      }
    }
  };
  // A daemon already running with other options keeps its own: each answer says so, after the answer.
  const tool = async (run: () => Promise<string>): Promise<ToolResult> => {
    try {
      const text = await run();
      const notice = (await daemon?.catch(() => undefined))?.notice;
      return { content: [{ type: 'text', text }, ...(notice ? [{ type: 'text' as const, text: `note: ${notice}` }] : [])] };
    } catch (err) {
      return { content: [{ type: 'text', text: err instanceof Error ? err.message : String(err) }], isError: true };
    }
  };

  server.registerTool(
    'repo_map',
    {
      title: 'Repository map',
      description:
        'A ranked, token-budgeted outline of this repository: the files and the signature lines of the classes, ' +
        'functions and types that matter most to the current task, with their enclosing scopes (│ marks a shown ' +
        'line, ⋮ elided lines). Call it before editing code you have not seen, to find what already exists and ' +
        'where. Name the files already in the conversation (chat_files) and the files and identifiers the task ' +
        'mentions: they steer the ranking strongly. The files listed are summaries; read a file in full before changing it.',
      inputSchema: REPO_MAP_ARGUMENTS,
    },
    (args) =>
      tool(async () => {
        const map = await withDaemon((repo) =>
          repo.map({
            chatFiles: args.chat_files,
            mentionedFiles: args.mentioned_files,
            mentionedIdents: args.mentioned_identifiers,
            message: args.message,
            ...(args.max_tokens ? { tokens: args.max_tokens, maxTokens: args.max_tokens } : {}),
          }),
        );
        return map.text || nothingToMap(root);
      }),
  );

  server.registerTool(
    'find_symbol',
    {
      title: 'Find a symbol',
      description:
        'Where a name is defined (file, line, kind, signature, enclosing scopes) and where it is referenced ' +
        '(file, line, the line itself), the most central callers first. Answers "what owns X and who calls it" ' +
        'without a grep. Use prefix for partial names.',
      inputSchema: FIND_SYMBOL_ARGUMENTS,
    },
    (args) => tool(async () => renderSymbols(await withDaemon((repo) => repo.symbols({ name: args.name, limit: args.limit, prefix: args.prefix })))),
  );

  server.registerTool(
    'repo_status',
    {
      title: 'Repository index status',
      description: 'Whether the repository index is ready or still indexing, how many files it covers and skips, and when it last updated.',
      inputSchema: REPO_STATUS_ARGUMENTS,
    },
    () => tool(async () => JSON.stringify(await withDaemon((repo) => repo.status()), null, 2)),
  );
  return server;
}
