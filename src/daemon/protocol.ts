// The daemon's wire protocol: JSON-RPC 2.0 objects, one per line, over a Unix socket.
// Kept free of engine imports: the thin client loads this and nothing heavy.

/** Requests longer than this (bytes, one line) are refused. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

export const ERROR_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

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
 * The index's progress in words: files indexed of those to index, or, while that count is not
 * known yet or nothing needs parsing (a restart whose files are all in the cache), what it does.
 */
export function indexingProgress(progress: { done: number; total: number }): string {
  const { done, total } = progress;
  return total > 0 ? `${done} of ${total} files indexed (${Math.floor((100 * done) / total)}%)` : 'listing the files and checking them against the cache';
}

/** Params of `map`: the options of `repomap map` that shape one map. Paths are relative to the root. */
export interface MapParams {
  chatFiles?: string[];
  mentionedFiles?: string[];
  mentionedIdents?: string[];
  message?: string;
  tokens?: number;
  maxTokens?: number;
  encoding?: string;
}

/** What `status` answers. */
export interface DaemonStatus {
  root: string;
  pid: number;
  state: 'indexing' | 'ready';
  /** While indexing: files done of files needing work. */
  progress: { done: number; total: number };
  files: number;
  indexed: number;
  parsed: number;
  skipped: Record<string, number>;
  pendingChanges: number;
  /** Whether the watcher follows the tree (it starts once the index is complete, and catches up). */
  watching: boolean;
  /** Paths the watcher could not watch (the system's limit of watches reached); their files are stat'ed periodically instead. */
  unwatchedPaths: number;
  lastUpdate: string | null;
  memory: { rssBytes: number; heapUsedBytes: number };
  uptimeSeconds: number;
  workers: number;
  /** The options the daemon was started with (a client's other options do not change them). */
  exclude: string[];
  /** The project config's include globs (empty: every file). */
  include: string[];
  idleTimeoutSeconds: number;
  socket: string;
  cacheDir: string;
}
