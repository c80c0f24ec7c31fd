// repomap's library API. Two ways in, one engine behind both:
//   in-process:  buildMap(options), findSymbolsIn(options)   (index with the LMDB cache, then answer)
//   daemon:      const repo = await connect(root); await repo.map(request); repo.close()
// The CLI, the daemon and the MCP server are built on these same functions. The engine is
// loaded on first in-process use, so a daemon-only user loads nothing heavy.
import { type StartOptions, connectOrStart } from '../client/client.js';
import type { DaemonStatus } from '../daemon/protocol.js';
import type { BuildMapOptions, RepoMap, RepoMapJson } from '../map.js';
import type { MapRequest } from '../request.js';
import { resolveRoot } from '../paths.js';
import { applyProjectConfig } from '../config.js';
import type { SymbolAnswer, SymbolQuery } from '../symbols.js';

export type { BuildMapOptions, RepoMap, RepoMapJson } from '../map.js';
export type { MapRequest } from '../request.js';
export type { SymbolAnswer, SymbolDefinition, SymbolQuery, SymbolReference } from '../symbols.js';
export type { DaemonStatus } from '../daemon/protocol.js';
export type { StartOptions } from '../client/client.js';
export type { MapBlock } from '../render/render.js';
export type { SkipReason, SkippedFile } from '../records.js';
export { UserError } from '../errors.js';
export { CONFIG_FILE, type ProjectConfig, parseProjectConfig, readProjectConfig } from '../config.js';
export { DaemonError } from '../client/client.js';

/** Indexes ROOT (reusing its tag cache) and builds one map, in this process. */
export async function buildMap(options: BuildMapOptions): Promise<RepoMap> {
  return (await import('../map.js')).buildMap(options);
}

/** Where a name is defined and referenced, in this process (references ranked by PageRank). */
export async function findSymbolsIn(options: Omit<BuildMapOptions, keyof MapRequest> & SymbolQuery): Promise<SymbolAnswer> {
  const { openRepository, centrality } = await import('../map.js');
  const { findSymbols, namesIn } = await import('../symbols.js');
  const { index, graph, store } = await openRepository(await applyProjectConfig(options));
  try {
    const query = { name: options.name, prefix: options.prefix, limit: options.limit };
    return findSymbols(index, centrality(graph), query, namesIn(graph, store));
  } finally {
    await store.close();
  }
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
  map(request?: MapRequest): Promise<RepoMapJson>;
  symbols(query: SymbolQuery): Promise<SymbolAnswer>;
  status(): Promise<DaemonStatus>;
  /** Closes this connection (the daemon goes on running). */
  close(): void;
}

/**
 * Connects to the daemon of the repository at `dir` (its real path: a subfolder of a git work
 * tree is a root of its own, as for `repomap map`), starting it in the background when none runs.
 */
export async function connect(dir: string, options: StartOptions = {}): Promise<RepomapDaemon> {
  const root = await resolveRoot(dir);
  const { client, notice } = await connectOrStart(root, options);
  return {
    root,
    ...(notice ? { notice } : {}),
    map: (request = {}) => client.request<RepoMapJson>('map', request),
    symbols: (query) => client.request<SymbolAnswer>('symbols', query),
    status: () => client.request<DaemonStatus>('status'),
    close: () => client.close(),
  };
}
