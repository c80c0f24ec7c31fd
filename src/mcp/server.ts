// The MCP server for one repository: the repo_map, find_symbol and repo_status tools, their input
// schemas derived from the request schema (api/request.ts), answered through the repository's daemon.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, type ServerNotification, type ServerRequest, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { StartOptions } from '../client/client.js';
import { escapeControls } from '../paths.js';
import { RepomapError, errorMessage, quoted } from '../errors.js';
import { type FieldSpec, MAP_REQUEST, MCP_NAMES, type MapRequest, SYMBOL_QUERY, type SymbolQuery, budgetFor, valueErrors } from '../api/request.js';
import { indexingProgress } from '../daemon/protocol.js';
import type { DaemonStatus, MapFile, MapLine } from '../api/types.js';
import { type RepomapDaemon, connect } from '../api/index.js';
import { emptyMapNote, textOutput } from '../render/output.js';
import { renderSymbols } from '../symbols.js';

type ToolResult = { content: Array<{ type: 'text'; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
/** What a tool answers: the text a model reads, and the same as data (the tool's outputSchema). */
type Answer = { text: string; structured: Record<string, unknown> };

/**
 * The longest a tool call waits for the daemon's index before it answers how far the index is
 * (McpServerOptions.indexWaitMs): a client gives up on a call after a while, and a model can do
 * other work meanwhile.
 */
const INDEX_WAIT_MS = 20_000;
/** How often the daemon's progress is asked for while a call waits. */
const PROGRESS_POLL_MS = 250;

/**
 * Every tool only reads the repository (through the daemon's index), so calling one again with the
 * same arguments has no further effect (idempotentHint: about effects, not answers; repo_status
 * answers the index's state as it is then).
 */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const PROGRESS_OUTPUT = z
  .object({ done: z.number().int(), total: z.number().int() })
  .describe('Source files indexed of those to index, while the index is being built (the call answered this instead of waiting longer)');

/** The map's structure: the text content holds the map itself, sent once (a client that forwards both to a model pays once for it). */
const REPO_MAP_OUTPUT = {
  tokens: z.number().int().optional().describe('Tokens the map takes'),
  budget: z.number().int().optional().describe('The token budget it was packed into'),
  files: z
    .array(
      z.object({
        path: z.string(),
        tokens: z.number().int().optional().describe("Tokens the file's block takes (not for a bare path)"),
        definitions: z.array(z.number().int()).optional().describe("Its shown lines that are a definition's own (1-based, sorted; none for a bare path)"),
        signatures: z.array(z.number().int()).optional().describe("Those that continue a definition's signature"),
        scopes: z.array(z.number().int()).optional().describe('Those that are the header of a scope around a shown definition'),
        uses: z.array(z.number().int()).optional().describe("Those of a shown definition's body that use a chat file's definition"),
      }),
    )
    .optional()
    .describe('The files shown, in map order'),
  indexing: PROGRESS_OUTPUT.optional(),
  partial: z
    .object({ indexedFiles: z.number().int(), files: z.number().int() })
    .optional()
    .describe('Set when the map was made before every source file was indexed (the files it needs were indexed first): source files indexed of those discovered. Call again later for the complete map'),
};

/**
 * Where a definition or a reference is: new schemas at each call, since a schema object used twice
 * becomes an internal `$ref` in the JSON Schema the SDK derives, which some strict clients mishandle.
 */
const location = () => ({ name: z.string(), path: z.string(), line: z.number().int(), kind: z.string() });
const FIND_SYMBOL_OUTPUT = {
  definitions: z.array(z.object({ ...location(), signature: z.string(), scopes: z.array(z.object({ line: z.number().int(), text: z.string() })) })).optional(),
  references: z
    .array(z.object({ ...location(), text: z.string(), rank: z.number(), enclosing: z.object({ name: z.string(), kind: z.string(), line: z.number().int() }).optional() }))
    .optional(),
  totalDefinitions: z.number().int().optional(),
  totalReferences: z.number().int().optional(),
  indexing: PROGRESS_OUTPUT.optional(),
};

/** The daemon's status (DaemonStatus), field by field: a client checks a tool's data against this. */
const REPO_STATUS_OUTPUT = {
  root: z.string(),
  pid: z.number().int(),
  state: z.enum(['indexing', 'ready']),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  files: z.number().int(),
  sourceFiles: z.number().int(),
  indexed: z.number().int(),
  parsed: z.number().int(),
  skipped: z.record(z.string(), z.number().int()),
  grammarFallbacks: z.array(z.object({ language: z.string(), runtime: z.enum(['wasm', 'none']), reason: z.string() })),
  pendingChanges: z.number().int(),
  watching: z.boolean(),
  unwatchedPaths: z.number().int(),
  lastUpdate: z.string().nullable(),
  memory: z.object({ rssBytes: z.number(), heapUsedBytes: z.number() }),
  uptimeSeconds: z.number(),
  workers: z.number().int(),
  exclude: z.array(z.string()),
  include: z.array(z.string()),
  idleTimeoutSeconds: z.number(),
  socket: z.string(),
  cacheDir: z.string(),
  startedWith: z.object({
    cacheDir: z.string().optional(),
    workers: z.number().int().optional(),
    exclude: z.array(z.string()).optional(),
    maxFileBytes: z.number().int().optional(),
    idleTimeoutSeconds: z.number().optional(),
    allowGrammars: z.array(z.string()).optional(),
  }),
} satisfies Record<keyof DaemonStatus, z.ZodTypeAny>;

/** A field's form in a tool's input schema (see FieldSpec). */
function zodOf(spec: FieldSpec): z.ZodTypeAny {
  switch (spec.kind) {
    case 'strings':
      return z.array(z.string());
    case 'string': {
      const text = spec.required ? z.string().min(1) : z.string();
      return spec.max === undefined ? text : text.max(spec.max);
    }
    case 'count':
      return spec.max === undefined ? z.number().int().positive() : z.number().int().positive().max(spec.max);
    case 'seconds':
      return z.number().nonnegative();
    case 'boolean':
      return z.boolean();
    case 'choice':
      return z.enum(spec.choices as [string, ...string[]]);
  }
}

/** A tool's arguments: the fields that have an MCP form, under their MCP names, in the schema's order. */
function toolArguments(fields: Readonly<Record<string, FieldSpec>>): Record<string, z.ZodTypeAny> {
  const shape: Record<string, z.ZodTypeAny> = {};
  for (const spec of Object.values(fields)) {
    if (!spec.mcp) continue;
    const type = zodOf(spec);
    shape[spec.mcp.name] = (spec.required ? type : type.optional()).describe(spec.mcp.help);
  }
  return shape;
}

/** The request a tool call's arguments give: each argument back under its field's name. */
function fromArguments(args: Readonly<Record<string, unknown>>, fields: Readonly<Record<string, FieldSpec>>): Record<string, unknown> {
  const request: Record<string, unknown> = {};
  for (const [field, spec] of Object.entries(fields)) {
    if (spec.mcp && args[spec.mcp.name] !== undefined) request[field] = args[spec.mcp.name];
  }
  return request;
}

/** Each tool's fields: its arguments are those with an MCP form, under their MCP names (see toolArguments). */
const TOOL_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>> = {
  repo_map: MAP_REQUEST,
  find_symbol: SYMBOL_QUERY,
  repo_status: {},
};

const REPO_MAP_ARGUMENTS = toolArguments(TOOL_FIELDS.repo_map);
const FIND_SYMBOL_ARGUMENTS = toolArguments(TOOL_FIELDS.find_symbol);
const REPO_STATUS_ARGUMENTS = toolArguments(TOOL_FIELDS.repo_status);
/** Each tool's argument names. */
const TOOL_ARGUMENTS: Readonly<Record<string, readonly string[]>> = {
  repo_map: Object.keys(REPO_MAP_ARGUMENTS),
  find_symbol: Object.keys(FIND_SYMBOL_ARGUMENTS),
  repo_status: Object.keys(REPO_STATUS_ARGUMENTS),
};

/**
 * Answers a tool call whose arguments are wrong with a tool error of one line naming them, before
 * the SDK sees it: an unknown argument, as the daemon refuses an unknown param (the SDK would drop
 * it without a word, and one named after an Object.prototype member, `constructor`, fails its
 * request schema, answered as a JSON-RPC error with a validation dump), and a value of the wrong
 * kind, checked as the daemon checks it (its checks refuse whatever the input schema does, and
 * more: the SDK's own refusal runs over several lines, in its wording). A call whose arguments are
 * right goes on with its integers given as strings made numbers (coercedArguments: checked and
 * delivered in the one form); other messages go on to the server as they are.
 */
export function refuseBadArguments(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('refuseBadArguments: connect the server to the transport first');
  transport.onmessage = (message, extra) => {
    const checked = checkedArguments(message);
    if ('refusal' in checked) void transport.send(checked.refusal);
    else deliver(checked.message, extra);
  };
}

/** A whole number written as a string ("512"), as models often send an integer argument. */
const WHOLE_NUMBER = /^-?\d{1,15}$/;

/**
 * A tool's arguments with each whole number written as a string ("512") made a number, for the
 * fields that take one (`count`): the one place an argument's form is loosened, before it is
 * checked, so that "5x" or "1.5" are still refused as they are. Other arguments are left as given.
 */
function coercedArguments(args: Readonly<Record<string, unknown>>, fields: Readonly<Record<string, FieldSpec>>): Record<string, unknown> {
  const coerced = { ...args };
  for (const spec of Object.values(fields)) {
    const value = spec.mcp && spec.kind === 'count' ? coerced[spec.mcp.name] : undefined;
    if (typeof value === 'string' && WHOLE_NUMBER.test(value)) coerced[spec.mcp!.name] = Number(value);
  }
  return coerced;
}

/**
 * Answers a request that comes before the client's initialize with JSON-RPC's invalid-request
 * error, as the MCP lifecycle asks (initialize first; only ping may come before it): the SDK's
 * server answers it as it would after one, and offers no hook to refuse it. An initialize that
 * fails the SDK's check of its params is refused here as JSON-RPC's invalid params, in a line.
 * The gate opens at an initialize the SDK answers with a result, one that passes its own check of initialize
 * (isInitializeRequest; its handler cannot fail after it), and stays open: requests after it are
 * handled in the order they came, those a client sends before the answer to its initialize
 * included. Notifications and responses go on to the server as before (it ignores the notifications
 * it has no handler for). Installed last, so that it runs first: a tools/call before initialize is
 * refused for that, whatever its arguments (refuseBadArguments).
 */
export function refuseBeforeInitialize(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('refuseBeforeInitialize: connect the server to the transport first');
  let initialized = false;
  transport.onmessage = (message, extra) => {
    if (!initialized && 'method' in message && 'id' in message && message.method !== 'ping') {
      // An initialize whose params are wrong is said in one line (the SDK's validation dump runs over many).
      const error =
        message.method !== 'initialize'
          ? { code: INVALID_REQUEST, message: `invalid request: ${message.method} before initialize: send initialize first` }
          : !isInitializeRequest(message)
            ? { code: INVALID_PARAMS, message: 'invalid params: initialize takes { protocolVersion: string, capabilities: object, clientInfo: { name: string, version: string } }' }
            : undefined;
      if (error) {
        void transport.send({ jsonrpc: '2.0', id: message.id, error } as unknown as JSONRPCMessage);
        return;
      }
      initialized = true;
    }
    deliver(message, extra);
  };
}

/**
 * Returns what to call when the transport's input has ended: the transport then closes once every
 * request it read has been answered, so a client that writes its requests and closes the server's
 * stdin (a script, a pipe) gets every answer. Installed after the other wrappers, it sees each
 * message first, the ones they answer themselves too.
 */
export function closeWhenAnswered(transport: Transport): () => void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('closeWhenAnswered: connect the server to the transport first');
  const unanswered = new Set<string | number>();
  let inputEnded = false;
  const closeIfDone = () => {
    if (inputEnded && unanswered.size === 0) void transport.close();
  };
  transport.onmessage = (message, extra) => {
    if ('method' in message && 'id' in message && message.id !== undefined) unanswered.add(message.id);
    deliver(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    await send(message, options);
    if (!('method' in message) && 'id' in message && message.id !== null && message.id !== undefined) {
      unanswered.delete(message.id);
      closeIfDone();
    }
  };
  return () => {
    inputEnded = true;
    closeIfDone();
  };
}

/**
 * Answers a line that is not JSON with JSON-RPC's parse error, and one that is JSON but no JSON-RPC
 * message with its invalid-request error (id null: none could be read), as JSON-RPC 2.0 asks: the
 * SDK's stdio transport only reports such a line to the server's error handler, and a client would
 * wait for an answer that never comes. Other transport errors go on to the handler as before.
 */
export function answerMalformedMessages(transport: Transport): void {
  const report = transport.onerror;
  transport.onerror = (error) => {
    const code = error instanceof SyntaxError ? PARSE_ERROR : error.name === 'ZodError' ? INVALID_REQUEST : undefined;
    if (code === undefined) return report?.(error);
    const message = code === PARSE_ERROR ? `parse error: ${error.message}` : 'invalid request: not a JSON-RPC 2.0 message';
    void transport.send({ jsonrpc: '2.0', id: null, error: { code, message } } as unknown as JSONRPCMessage);
  };
}

/** JSON-RPC 2.0's error codes for a line that is not JSON, for JSON that is no request, and for a request's bad params. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

/**
 * A tools/call of a known tool checked: the tool error (or, for params of another shape, the
 * JSON-RPC error) it is answered when its arguments are wrong, else the message to deliver, its
 * whole-number strings made numbers (coercedArguments). Any other message is delivered as it is.
 */
function checkedArguments(message: JSONRPCMessage): { refusal: JSONRPCMessage } | { message: JSONRPCMessage } {
  if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return { message };
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  // Params of another shape fail the SDK's request schema, answered as an internal error with a
  // validation dump over many lines: said here in one, as JSON-RPC's invalid params.
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(params) || typeof params.name !== 'string' || (params.arguments !== undefined && !isObject(params.arguments))) {
    const error = { code: INVALID_PARAMS, message: 'invalid params: tools/call takes { name: string, arguments?: object }' };
    return { refusal: { jsonrpc: '2.0', id: message.id, error } as unknown as JSONRPCMessage };
  }
  // An unknown tool is the SDK's to answer (a one-line tool error).
  if (!Object.hasOwn(TOOL_FIELDS, params.name)) return { message };
  const fields = TOOL_FIELDS[params.name];
  const args = coercedArguments((params.arguments ?? {}) as Record<string, unknown>, fields);
  const known = TOOL_ARGUMENTS[params.name];
  const unknown = Object.keys(args).filter((key) => !known.includes(key));
  // Every wrong argument at once: the unknown ones, then each known one of the wrong kind.
  const errors = valueErrors(fromArguments(args, fields), fields, MCP_NAMES);
  if (unknown.length > 0) {
    const names = quoted(unknown.map((key) => `'${key}'`).join(', '));
    errors.unshift(`unknown argument${unknown.length === 1 ? '' : 's'} ${names} of ${params.name} (known: ${known.join(', ') || 'none'})`);
  }
  const text = errors.join('; ');
  if (text !== '') return { refusal: { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }], isError: true } } };
  return params.arguments === undefined ? { message } : { message: { ...message, params: { ...params, arguments: args } } as JSONRPCMessage };
}

export interface McpServerOptions extends StartOptions {
  /** Why this root is not indexed (see mcpCommand); every call answers it as an error. */
  refusal?: string;
  /** How long a call waits for the index (default INDEX_WAIT_MS; a test shortens it). */
  indexWaitMs?: number;
}

/**
 * The MCP server: three tools backed by the repository's daemon (started when needed, and
 * started again if it went away). A failing call is a tool error, never a dead server.
 */
export function createMcpServer(root: string, version: string, options: McpServerOptions = {}): McpServer {
  const { refusal, indexWaitMs = INDEX_WAIT_MS, ...startOptions } = options;
  const server = new McpServer({ name: 'repomap', version });
  let daemon: Promise<RepomapDaemon> | undefined;
  let clientGone = false;
  // The connection to the daemon goes when the client's does: nothing is left to hold the process.
  server.server.onclose = () => {
    clientGone = true;
    void daemon?.then((repo) => repo.close(), () => {});
  };

  // Runs a request on the daemon; a lost connection (an idle daemon exited) reconnects once, unless
  // the client has gone meanwhile (a call running when its stdin closed): a new connection would
  // then hold the process, and no answer could reach the client.
  const withDaemon = async <T>(ask: (repo: RepomapDaemon) => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      if (clientGone) throw new Error('the MCP client closed the connection');
      daemon ??= connect(root, startOptions);
      try {
        return await ask(await daemon);
      } catch (err) {
        // Once more only when the daemon may have gone (an idle one exits): not when it answered an error.
        const gone = !(err instanceof RepomapError) || err.code === 'connection-lost' || err.code === 'daemon-unavailable';
        if (!gone || attempt > 0) throw err;
        (await daemon.catch(() => undefined))?.close(); // a connect that failed has nothing to close
        daemon = undefined;
      }
    }
  };
  // A daemon already running with other options keeps its own: each answer says so, after the answer.
  const tool = async (run: () => Promise<Answer>): Promise<ToolResult> => {
    try {
      if (refusal) throw new Error(refusal);
      const { text, structured } = await run();
      const notice = (await daemon?.catch(() => undefined))?.notice; // a failed connect failed the call already
      return { content: [{ type: 'text', text }, ...(notice ? [{ type: 'text' as const, text: `note: ${notice}` }] : [])], structuredContent: structured };
    } catch (err) {
      return { content: [{ type: 'text', text: errorMessage(err) }], isError: true };
    }
  };
  // Runs a request once the index is complete, or answers how far it is after indexWaitMs.
  const whenIndexed = (name: string, extra: Extra, ask: (repo: RepomapDaemon) => Promise<Answer>): Promise<Answer> => {
    const reported: Progress = { done: -1 };
    return withDaemon(async (repo) => {
      const pending = await awaitIndex(repo, extra, indexWaitMs, reported);
      return pending ? stillIndexing(name, pending) : ask(repo);
    });
  };

  server.registerTool(
    'repo_map',
    {
      title: 'Repository map',
      description:
        'A ranked, token-budgeted outline of this repository: the files and the signature lines of the classes, ' +
        'functions and types that matter most to the current task, with their enclosing scopes (│ marks a shown ' +
        'line, … elided lines). Call it before editing code you have not seen, to find what already exists and ' +
        'where. Name the files already in the conversation (chat_files) and the files and identifiers the task ' +
        'mentions: they steer the ranking strongly. The files listed are summaries; read a file in full before changing it.',
      inputSchema: REPO_MAP_ARGUMENTS,
      outputSchema: REPO_MAP_OUTPUT,
      annotations: { title: 'Repository map', ...READ_ONLY },
    },
    (args, extra) =>
      tool(() => {
        // The daemon answers within the bound, from the files indexed by then if it must (a partial map).
        const request: MapRequest = { ...(fromArguments(args, MAP_REQUEST) as MapRequest), verboseHint: false, waitSeconds: indexWaitMs / 1000 };
        // Checked here, as the daemon would check it, so that a refusal names the tool's arguments (max_tokens), not the daemon's fields.
        budgetFor(request, MCP_NAMES);
        const reported: Progress = { done: -1 };
        return withDaemon(async (repo) => {
          const asked = repo.map(request);
          await awaitIndex(repo, extra, indexWaitMs, reported, asked);
          const map = await asked;
          const text = textOutput({ ...map, text: map.text || emptyMapNote(root, map) });
          const partial = map.partial ? { partial: map.partial } : {};
          return { text, structured: { tokens: map.tokens, budget: map.budget, files: map.files.map(fileStructure), ...partial } };
        });
      }),
  );

  server.registerTool(
    'find_symbol',
    {
      title: 'Find a symbol',
      description:
        'Where a name is defined (file, line, kind, signature, enclosing scopes) and where it is referenced ' +
        '(file, line, the line itself, the definition it is in), the most central callers first. Answers "what owns X and who calls it" ' +
        'without a grep. Use prefix for partial names.',
      inputSchema: FIND_SYMBOL_ARGUMENTS,
      outputSchema: FIND_SYMBOL_OUTPUT,
      annotations: { title: 'Find a symbol', ...READ_ONLY },
    },
    (args, extra) =>
      tool(() =>
        whenIndexed('find_symbol', extra, async (repo) => {
          const answer = await repo.symbols(fromArguments(args, SYMBOL_QUERY) as SymbolQuery);
          const { definitions, references, totalDefinitions, totalReferences } = answer;
          const shown = <T extends { path: string }>(hit: T): T => ({ ...hit, path: escapeControls(hit.path) });
          return { text: renderSymbols(answer, MCP_NAMES), structured: { definitions: definitions.map(shown), references: references.map(shown), totalDefinitions, totalReferences } };
        }),
      ),
  );

  server.registerTool(
    'repo_status',
    {
      title: 'Repository index status',
      description: 'Whether the repository index is ready or still indexing, how many files it covers and skips, and when it last updated.',
      inputSchema: REPO_STATUS_ARGUMENTS,
      outputSchema: REPO_STATUS_OUTPUT,
      annotations: { title: 'Repository index status', ...READ_ONLY },
    },
    () =>
      tool(async () => {
        const status = await withDaemon((repo) => repo.status());
        return { text: JSON.stringify(status, null, 2), structured: { ...status } };
      }),
  );
  return server;
}

/**
 * A map file's structure without its text (the text content has the map): its path escaped as the
 * text shows it (an answer goes to a model), and its shown lines by role (MapLine's), as line
 * numbers. Merged in order, they are the lines of the file's block, one each.
 */
function fileStructure({ path: exact, tokens, lines }: MapFile): Record<string, unknown> {
  const path = escapeControls(exact);
  const byRole: Record<MapLine['role'], number[]> = { definition: [], signature: [], scope: [], use: [] };
  for (const shown of lines) byRole[shown.role].push(shown.line);
  // A bare path is its path alone: its tokens are its line's, and it shows no line.
  if (lines.length === 0) return { path };
  const { definition, signature, scope, use } = byRole;
  return {
    path,
    tokens,
    definitions: definition,
    ...(signature.length > 0 ? { signatures: signature } : {}),
    ...(scope.length > 0 ? { scopes: scope } : {}),
    ...(use.length > 0 ? { uses: use } : {}),
  };
}

/** The progress a call has reported so far: kept across the call's reconnects. */
interface Progress {
  done: number;
}

/**
 * Waits until the daemon's index is complete, at most `waitMs` (or until `answer` settles),
 * sending the client progress notifications meanwhile when its call carries a progress token. The
 * status when the index is still being built by then; undefined once it is complete.
 */
async function awaitIndex(repo: RepomapDaemon, extra: Extra, waitMs: number, reported: Progress, answer?: Promise<unknown>): Promise<DaemonStatus | undefined> {
  let answered = false;
  answer?.then(
    () => (answered = true),
    () => (answered = true),
  );
  const token = extra._meta?.progressToken;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const status = await repo.status();
    if (status.state === 'ready') return undefined;
    const { done, total } = status.progress;
    // Progress must grow from one notification to the next, a daemon started again meanwhile included.
    if (token !== undefined && done > reported.done) {
      reported.done = done;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: done, ...(total > 0 ? { total } : {}), message: indexingLine(status) },
      });
    }
    if (Date.now() >= deadline || extra.signal.aborted || answered) return status;
    await new Promise((resolve) => setTimeout(resolve, Math.min(PROGRESS_POLL_MS, deadline - Date.now())));
  }
}

/** The answer of a call that did not wait for the index to be complete. */
function stillIndexing(tool: string, status: DaemonStatus): Answer {
  const { done, total } = status.progress;
  const text = `${indexingLine(status)}. Call ${tool} again in a little while (repo_status tells how far the index is).`;
  return { text, structured: { indexing: { done, total } } };
}

function indexingLine(status: DaemonStatus): string {
  return `The repository index is being built: ${indexingProgress(status)}`;
}
