// The library's own options, beside a request's fields: each written once with its kind, and
// checked as the daemon checks its params (request.ts's checkFields, one rule per kind), up front,
// before any work. The command line reads the same options from its flags (cli/args.ts) and
// refuses the same values. A leaf, as request.ts is: the thin client loads it.
import { MAP_REQUEST, MAX_FILE_BYTES_LIMIT, SYMBOL_QUERY, type ValueSpec, budgetFor, checkFields } from './request.js';
import type { MapRequest } from './request.js';

/** The options of indexing a root in this process (buildMap's and findSymbolsIn's beside the request). */
export const INDEX_OPTIONS = {
  root: { kind: 'string', required: true },
  cacheDir: { kind: 'folder' },
  sharedCacheDir: { kind: 'folder' },
  exclude: { kind: 'globs' },
  include: { kind: 'globs' },
  workers: { kind: 'count' },
  maxFileBytes: { kind: 'count', max: MAX_FILE_BYTES_LIMIT },
  allowGrammars: { kind: 'strings' },
  projectConfig: { kind: 'boolean' },
  onProgress: { kind: 'function' },
  onNotice: { kind: 'function' },
} as const satisfies Record<string, ValueSpec>;

/** The options of a daemon that connect starts (StartOptions). */
export const START_OPTIONS = {
  cacheDir: INDEX_OPTIONS.cacheDir,
  workers: INDEX_OPTIONS.workers,
  exclude: INDEX_OPTIONS.exclude,
  // The daemon's --idle-timeout takes whole seconds.
  idleTimeoutSeconds: { kind: 'whole seconds' },
  allowGrammars: INDEX_OPTIONS.allowGrammars,
  onStarting: { kind: 'function' },
} as const satisfies Record<string, ValueSpec>;

/** The options of buildMap and findSymbolsIn, as the library names them. */
export type IndexOptionName = keyof typeof INDEX_OPTIONS;

/** A library function's options, checked (see checkFields): a bad-request RepomapError naming the option otherwise. */
function checkOptions(options: unknown, fn: string, fields: Record<string, ValueSpec>): void {
  checkFields(options, fields, { what: `the options of ${fn}`, unknown: (key) => `unknown option '${key}' of ${fn}` });
}

/** buildMap's options, checked: the request's fields as the daemon checks them (its budget too), and the index options. */
export function checkMapOptions(options: unknown): void {
  checkOptions(options, 'buildMap', { ...MAP_REQUEST, ...INDEX_OPTIONS });
  budgetFor(options as MapRequest);
}

/** findSymbolsIn's options, checked: the query's fields as the daemon checks them, and the index options. */
export function checkSymbolOptions(options: unknown): void {
  checkOptions(options, 'findSymbolsIn', { ...SYMBOL_QUERY, ...INDEX_OPTIONS });
}

/** connect's start options, checked. */
export function checkStartOptions(options: unknown): void {
  checkOptions(options, 'connect', START_OPTIONS);
}
