// The daemon's JSON-RPC side: a connection's framing (one request per line, with back-pressure),
// requests parsed and their params checked against the request schema (api/request.ts), dispatch
// to the daemon's methods, and the replies, failures as RepomapErrors in JSON-RPC form.
import type { Socket } from 'node:net';
import { RepomapError, asRepomapError, badRequest, errorMessage, errorStack, quoted } from '../errors.js';
import { MAX_PARAMS_DEPTH, nestedDeeperThan } from '../json-depth.js';
import { parseMapParams, parseSymbolParams } from '../api/request.js';
import { MAX_REQUEST_BYTES, type RpcMethods, type RpcRequest, type RpcResponse, rpcError } from './protocol.js';

/** Bytes of answers queued for a connection past which it is no longer read (see serveConnection). */
const MAX_QUEUED_BYTES = 1024 * 1024;
/** Requests of one connection answered at once, past which it is no longer read (see serveConnection). */
const MAX_IN_FLIGHT = 64;

/** How the daemon answers each method of the protocol (RpcMethods), once the request and its params are valid. */
type Answers = { [M in Exclude<keyof RpcMethods, 'shutdown'>]: (params: RpcMethods[M]['params']) => RpcMethods[M]['result'] | Promise<RpcMethods[M]['result']> };

/** The daemon's methods: the answers, and `shutdown`, whose answer this side writes before it is called. */
export interface DaemonMethods extends Answers {
  /** Called once the answer to `shutdown` is written. */
  shutdown(): void;
}

export interface RpcHandler {
  methods: DaemonMethods;
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
        send(socket, errorResponse(null, new RepomapError('invalid-request', `request over ${MAX_REQUEST_BYTES} bytes`)));
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
        send(socket, errorResponse(null, new RepomapError('invalid-request', `request over ${MAX_REQUEST_BYTES} bytes`)));
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
    send(socket, errorResponse(idOf(line), err instanceof RepomapError ? err : new RepomapError('parse-error', errorMessage(err))));
    return;
  }
  try {
    const result = await dispatch(request, methods);
    send(socket, { jsonrpc: '2.0', id: request.id, result });
  } catch (err) {
    const failure = asRepomapError(err);
    if (failure.code === 'internal') log(`internal error on ${request.method}: ${errorStack(err)}`);
    send(socket, errorResponse(request.id, failure));
  }
  if (request.method === 'shutdown') methods.shutdown();
}

async function dispatch(request: RpcRequest, methods: DaemonMethods): Promise<unknown> {
  switch (request.method) {
    case 'status':
      return methods.status(undefined);
    case 'map':
      return methods.map(parseMapParams(request.params));
    case 'symbols':
      return methods.symbols(parseSymbolParams(request.params));
    case 'reindex':
      return methods.reindex(undefined);
    case 'shutdown':
      return { stopping: true } satisfies RpcMethods['shutdown']['result'];
    default:
      throw new RepomapError('unknown-method', `unknown method '${quoted(request.method)}' (methods: map, symbols, status, reindex, shutdown)`);
  }
}

function send(socket: Socket, response: RpcResponse): void {
  if (!socket.destroyed && socket.writable) socket.write(JSON.stringify(response) + '\n');
}

function errorResponse(id: RpcRequest['id'] | null, err: RepomapError): RpcResponse {
  return { jsonrpc: '2.0', id, error: rpcError(err) };
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
    throw new RepomapError('parse-error', 'request is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RepomapError('invalid-request', 'request must be a JSON object');
  }
  const { id, method, params } = value as Record<string, unknown>;
  if (typeof id !== 'number' && typeof id !== 'string') throw new RepomapError('invalid-request', 'request needs an id (number or string)');
  if (typeof method !== 'string') throw new RepomapError('invalid-request', 'request needs a method (string)');
  // Before anything recursive (a check's message quoting a value) meets them.
  if (nestedDeeperThan(params, MAX_PARAMS_DEPTH)) throw badRequest(`params nested deeper than ${MAX_PARAMS_DEPTH} levels`);
  return { jsonrpc: '2.0', id, method, params };
}
