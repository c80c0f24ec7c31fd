// The daemon's wire protocol: JSON-RPC 2.0 objects, one per line, over a Unix socket.
// Kept free of engine imports: the thin client loads this and nothing heavy.
import { type ErrorCode, RepomapError } from '../errors.js';
import type { DaemonStatus, MapRequest, RepoMap, SymbolAnswer, SymbolQuery } from '../api/types.js';


/** Requests longer than this (bytes, one line) are refused. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/**
 * Each error code as a JSON-RPC error code, both ways: JSON-RPC's own codes where one fits, server
 * errors (-32000 to -32099) for the rest. A code no entry has reads back as `internal`.
 */
export const RPC_ERROR_CODES: Readonly<Record<ErrorCode, number>> = {
  'parse-error': -32700,
  'invalid-request': -32600,
  'unknown-method': -32601,
  'bad-request': -32602,
  internal: -32603,
  refused: -32001,
  'daemon-unavailable': -32002,
  'connection-lost': -32003,
};

/** A RepomapError as the error object of an answer. */
export function rpcError(err: RepomapError): RpcError {
  return { code: RPC_ERROR_CODES[err.code], message: err.message };
}

/** An answer's error object as the RepomapError it stands for. */
export function errorFromRpc(error: RpcError): RepomapError {
  const code = (Object.keys(RPC_ERROR_CODES) as ErrorCode[]).find((key) => RPC_ERROR_CODES[key] === error.code) ?? 'internal';
  return new RepomapError(code, error.message);
}

export interface RpcRequest {
  jsonrpc: '2.0';
  id: number | string;
  method: string;
  params?: unknown;
}

export interface RpcError {
  code: number;
  message: string;
}

export type RpcResponse =
  | { jsonrpc: '2.0'; id: number | string | null; result: unknown }
  | { jsonrpc: '2.0'; id: number | string | null; error: RpcError };

/**
 * How far the cold index is, in words, from the status's progress (the numbers its JSON gives):
 * the files being listed, the source files gone through (indexed or skipped) of those to go
 * through, or, all of them gone through, the related graph being read or built before the daemon
 * is ready. Its progress, not `indexed`: a source file skipped by its stat (a broken symlink) is
 * never indexed, and the pass is over all the same.
 */
export function indexingProgress({ files, progress: { done, total } }: Pick<DaemonStatus, 'files' | 'progress'>): string {
  if (files === 0) return 'listing the files';
  if (done < total) return `${done} of ${total} source files indexed or skipped (${Math.floor((100 * done) / total)}%)`;
  return `${total === 0 ? 'no source file to index' : `all ${total} source files indexed or skipped`}; reading or building the related graph`;
}

/**
 * Each method's params and answer: the one contract of the daemon's methods, which the client
 * calls (api/index.ts) and the daemon answers (rpc.ts's DaemonMethods). The params are the request
 * schema's (api/request.ts), checked by parseMapParams and parseSymbolParams.
 */
export interface RpcMethods {
  map: { params: MapRequest; result: RepoMap };
  symbols: { params: SymbolQuery; result: SymbolAnswer };
  status: { params: undefined; result: DaemonStatus };
  reindex: { params: undefined; result: { files: number; parsed: number } };
  shutdown: { params: undefined; result: { stopping: true } };
}
