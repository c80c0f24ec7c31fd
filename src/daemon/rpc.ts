// The daemon's JSON-RPC side: a connection's framing (one request per line, with back-pressure),
// requests parsed and their params validated, dispatch to the daemon's methods, and the replies.
import type { Socket } from 'node:net';
import { UserError, errorMessage } from '../errors.js';
import type { MapRequest } from '../map.js';
import type { SymbolQuery } from '../symbols.js';
import { type DaemonStatus, ERROR_CODES, MAX_REQUEST_BYTES, type RpcRequest, type RpcResponse } from './protocol.js';

/** Bytes of answers queued for a connection past which it is no longer read (see serveConnection). */
const MAX_QUEUED_BYTES = 1024 * 1024;
/** Requests of one connection answered at once, past which it is no longer read (see serveConnection). */
const MAX_IN_FLIGHT = 64;

/** A request failure that becomes a JSON-RPC error object. */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** What the daemon answers each method with, once the request and its params are valid. */
export interface RpcMethods {
  status(): DaemonStatus;
  map(params: MapRequest): Promise<unknown>;
  symbols(query: SymbolQuery): Promise<unknown>;
  reindex(): Promise<unknown>;
  /** Called once the answer to `shutdown` is written. */
  shutdown(): void;
}

export interface RpcHandler {
  methods: RpcMethods;
  /** Called as each request comes in (before it is parsed). */
  onRequest(): void;
  log(line: string): void;
}

/**
 * Reads one connection's requests, one per line. A line over MAX_REQUEST_BYTES (its bytes, the
 * newline not counted) is refused and skipped. A client that does not read its answers is not
 * read either: while its answers queued in this process exceed MAX_QUEUED_BYTES, or
 * MAX_IN_FLIGHT of its requests are being answered, the socket is paused (the kernel's buffer
 * then fills and the client's writes wait), and read again once they drain.
 */
export function serveConnection(socket: Socket, handler: RpcHandler): void {
  socket.setEncoding('utf8');
  let buffer = '';
  let discarding = false;
  let inFlight = 0;
  const congested = () => inFlight >= MAX_IN_FLIGHT || socket.writableLength > MAX_QUEUED_BYTES;
  const pump = () => {
    for (let newline = buffer.indexOf('\n'); newline !== -1 && !congested(); newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (discarding) {
        discarding = false; // the end of a line already refused
        continue;
      }
      if (Buffer.byteLength(line) > MAX_REQUEST_BYTES) {
        send(socket, errorResponse(null, ERROR_CODES.invalidRequest, `request over ${MAX_REQUEST_BYTES} bytes`));
        continue;
      }
      if (line.trim() === '') continue;
      inFlight++;
      void answer(socket, line, handler).finally(() => {
        inFlight--;
        pump();
      });
    }
    if (buffer.indexOf('\n') === -1) {
      if (discarding) buffer = '';
      else if (Buffer.byteLength(buffer) > MAX_REQUEST_BYTES) {
        buffer = '';
        discarding = true;
        send(socket, errorResponse(null, ERROR_CODES.invalidRequest, `request over ${MAX_REQUEST_BYTES} bytes`));
      }
    }
    if (congested()) socket.pause();
    else if (socket.isPaused()) socket.resume();
  };
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    pump();
  });
  socket.on('drain', pump);
  socket.on('error', () => {}); // a client that goes away mid-answer is its own business
}

async function answer(socket: Socket, line: string, { methods, onRequest, log }: RpcHandler): Promise<void> {
  onRequest();
  let request: RpcRequest;
  try {
    request = parseRequest(line);
  } catch (err) {
    const code = err instanceof RpcFailure ? err.code : ERROR_CODES.parseError;
    send(socket, errorResponse(idOf(line), code, errorMessage(err)));
    return;
  }
  try {
    const result = await dispatch(request, methods);
    send(socket, { jsonrpc: '2.0', id: request.id, result });
  } catch (err) {
    if (err instanceof RpcFailure) send(socket, errorResponse(request.id, err.code, err.message));
    else if (err instanceof UserError) send(socket, errorResponse(request.id, ERROR_CODES.invalidParams, err.message));
    else {
      log(`internal error on ${request.method}: ${err instanceof Error ? err.stack : String(err)}`);
      send(socket, errorResponse(request.id, ERROR_CODES.internalError, errorMessage(err)));
    }
  }
  if (request.method === 'shutdown') methods.shutdown();
}

async function dispatch(request: RpcRequest, methods: RpcMethods): Promise<unknown> {
  switch (request.method) {
    case 'status':
      return methods.status();
    case 'map':
      return methods.map(parseMapParams(request.params));
    case 'symbols':
      return methods.symbols(parseSymbolParams(request.params));
    case 'reindex':
      return methods.reindex();
    case 'shutdown':
      return { stopping: true };
    default:
      throw new RpcFailure(ERROR_CODES.methodNotFound, `unknown method '${request.method}' (methods: map, symbols, status, reindex, shutdown)`);
  }
}

function send(socket: Socket, response: RpcResponse): void {
  if (!socket.destroyed && socket.writable) socket.write(JSON.stringify(response) + '\n');
}

function errorResponse(id: RpcRequest['id'] | null, code: number, message: string): RpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** The id of a request that failed to parse, when it can be read at all, for the error answer. */
function idOf(line: string): RpcRequest['id'] | null {
  try {
    const value = JSON.parse(line) as { id?: unknown };
    return typeof value.id === 'number' || typeof value.id === 'string' ? value.id : null;
  } catch {
    return null;
  }
}

function parseRequest(line: string): RpcRequest {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new RpcFailure(ERROR_CODES.parseError, 'request is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RpcFailure(ERROR_CODES.invalidRequest, 'request must be a JSON object');
  }
  const { id, method, params } = value as Record<string, unknown>;
  if (typeof id !== 'number' && typeof id !== 'string') throw new RpcFailure(ERROR_CODES.invalidRequest, 'request needs an id (number or string)');
  if (typeof method !== 'string') throw new RpcFailure(ERROR_CODES.invalidRequest, 'request needs a method (string)');
  return { jsonrpc: '2.0', id, method, params };
}

type FieldType = 'strings' | 'string' | 'count' | 'seconds' | 'boolean';

const MAP_FIELDS: Record<string, FieldType> = {
  chatFiles: 'strings',
  mentionedFiles: 'strings',
  mentionedIdents: 'strings',
  message: 'string',
  encoding: 'string',
  ranking: 'string',
  tokens: 'count',
  maxTokens: 'count',
  waitSeconds: 'seconds',
  preamble: 'boolean',
  markdown: 'boolean',
  listSkipped: 'boolean',
  verboseHint: 'boolean',
};

const SYMBOL_FIELDS: Record<string, FieldType> = { name: 'string', prefix: 'boolean', limit: 'count' };

const FIELD_RULES: Record<FieldType, [(value: unknown) => boolean, string]> = {
  strings: [(v) => Array.isArray(v) && v.every((item) => typeof item === 'string'), 'an array of strings'],
  string: [(v) => typeof v === 'string', 'a string'],
  count: [(v) => typeof v === 'number' && Number.isInteger(v) && v > 0, 'a positive whole number'],
  seconds: [(v) => typeof v === 'number' && Number.isFinite(v) && v >= 0, 'a number of seconds, 0 or more'],
  boolean: [(v) => typeof v === 'boolean', 'true or false'],
};

/** Checks params field by field; unknown fields are refused so that a typo does not pass silently. */
function checkFields(params: unknown, fields: Record<string, FieldType>): Record<string, unknown> {
  if (params === undefined) return {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new RpcFailure(ERROR_CODES.invalidParams, 'params must be an object');
  }
  const given = params as Record<string, unknown>;
  for (const [key, value] of Object.entries(given)) {
    // Own fields only: a param named after an Object.prototype member (constructor, __proto__) is unknown too.
    const type = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!type) throw new RpcFailure(ERROR_CODES.invalidParams, `unknown param '${key}' (known: ${Object.keys(fields).join(', ')})`);
    const [valid, what] = FIELD_RULES[type];
    if (value !== undefined && !valid(value)) throw new RpcFailure(ERROR_CODES.invalidParams, `${key} must be ${what}`);
  }
  return given;
}

/** The params of a `map` request, validated (the one place the daemon checks a map request). */
export function parseMapParams(params: unknown): MapRequest {
  return checkFields(params, MAP_FIELDS) as MapRequest;
}

function parseSymbolParams(params: unknown): SymbolQuery {
  const fields = checkFields(params, SYMBOL_FIELDS);
  if (typeof fields.name !== 'string' || fields.name === '') throw new RpcFailure(ERROR_CODES.invalidParams, 'name must be a non-empty string');
  return fields as unknown as SymbolQuery;
}
