// repomap's library API. Two ways in, one engine behind both:
//   in-process:  buildMap(options), findSymbolsIn(options)   (index with the LMDB cache, then answer)
//   daemon:      const repo = await connect(root); await repo.map(request); repo.close()
// The CLI, the daemon and the MCP server are built on these same functions. The engine is
// loaded on first in-process use, so a daemon-only user loads nothing heavy.
import { type StartOptions, type DaemonClient, connectOrStart } from '../client/client.js';
import type { RpcMethods } from '../daemon/protocol.js';
import type { BuildMapOptions as EngineOptions } from '../map.js';
import { resolveRoot } from '../paths.js';
import { applyProjectConfig } from '../config.js';
import { asRepomapError } from '../errors.js';
import { type IndexOptionName, checkMapOptions, checkStartOptions, checkSymbolOptions } from './options.js';
import type { DaemonStatus, MapRequest, RepoMap, SymbolAnswer, SymbolQuery } from './types.js';

export type * from './types.js';
/** buildMap's options: a request's fields and the index options (see INDEX_OPTIONS: the engine's other options are its own). */
export type BuildMapOptions = Pick<EngineOptions, keyof MapRequest | IndexOptionName>;
export type { StartOptions } from '../client/client.js';
export { type ErrorCode, RepomapError } from '../errors.js';
export { CONFIG_FILE, type ProjectConfig, parseProjectConfig, readProjectConfig } from '../config.js';

/**
 * Indexes ROOT (reusing its tag cache) and builds one map, in this process: the same map a daemon
 * answers for the same request. Each function here checks its options first, before any work.
 */
export function buildMap(options: BuildMapOptions): Promise<RepoMap> {
  return library(async () => {
    checkMapOptions(options);
    const { buildMap: build, publicMap } = await import('../map.js');
    return publicMap(await build(options), { listSkipped: options.listSkipped === true });
  });
}

/** Where a name is defined and referenced, in this process (references ranked by PageRank). */
export function findSymbolsIn(options: Omit<BuildMapOptions, keyof MapRequest> & SymbolQuery): Promise<SymbolAnswer> {
  return library(async () => {
    checkSymbolOptions(options);
    const { openRepository, readyRelatedGraph, centrality } = await import('../map.js');
    const { findSymbols, namesIn } = await import('../symbols.js');
    const given = await applyProjectConfig(options);
    // Files ranked as the map ranks them: by the related graph, read from the cache when it is current.
    const opened = await openRepository(given, { readGraph: true });
    const { index, graph, store, savedGraph } = opened;
    try {
      if (savedGraph) await readyRelatedGraph({ ...opened, savedGraph }, given);
      const query = { name: options.name, prefix: options.prefix, limit: options.limit };
      return findSymbols(index, centrality(graph), query, namesIn(graph, store));
    } finally {
      await store.close();
    }
  });
}

/** Runs a library call: whatever it fails with reaches the caller as a RepomapError (see asRepomapError). */
async function library<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw asRepomapError(err);
  }
}

/** One request to the daemon, typed by its method (see RpcMethods). */
function call<M extends keyof RpcMethods>(client: DaemonClient, method: M, ...params: RpcMethods[M]['params'] extends undefined ? [] : [RpcMethods[M]['params']]): Promise<RpcMethods[M]['result']> {
  return library(() => client.request<RpcMethods[M]['result']>(method, params[0]));
}

/** A connection to a repository's daemon. */
export interface RepomapDaemon {
  /** The repository root the daemon serves. */
  readonly root: string;
  /**
   * Set when the daemon already ran with other options than those given (it keeps its own): which,
   * and the `repomap restart` that applies them.
   */
  readonly notice?: string;
  map(request?: MapRequest): Promise<RepoMap>;
  symbols(query: SymbolQuery): Promise<SymbolAnswer>;
  status(): Promise<DaemonStatus>;
  /** Closes this connection (the daemon goes on running). */
  close(): void;
}

/**
 * Connects to the daemon of the repository at `dir` (its real path: a subfolder of a git work
 * tree is a root of its own, as for `repomap map`), starting it in the background when none runs.
 */
export function connect(dir: string, options: StartOptions = {}): Promise<RepomapDaemon> {
  return library(async () => {
    checkStartOptions(options);
    const root = await resolveRoot(dir);
    const { client, notice } = await connectOrStart(root, options);
    return {
      root,
      ...(notice ? { notice } : {}),
      map: (request = {}) => call(client, 'map', request),
      symbols: (query) => call(client, 'symbols', query),
      status: () => call(client, 'status'),
      close: () => client.close(),
    };
  });
}
