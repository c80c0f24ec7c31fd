// The public types: what a caller asks (MapRequest, SymbolQuery) and what every path answers
// (RepoMap, SymbolAnswer, DaemonStatus), one shape on each path, in-process or through the daemon.
// Line numbers are 1-based in all of them; the pipeline's records (records.ts) count from 0 and
// are converted once, where a map or an answer is made. The engine, the daemon's protocol and the
// library import these; nothing redefines them. Types only: a leaf.
import type { SymbolQuery } from './request.js';
export type { MapRequest, RankingName, SymbolQuery } from './request.js';

/** How far the index was when a partial map was made: source files (those with a grammar) indexed, of those discovered. */
export interface PartialIndex {
  indexedFiles: number;
  files: number;
}

/** Why a file was not indexed. Every skip is counted and can be listed. */
export type SkipReason =
  | 'no grammar'
  | 'grammar not allowed'
  | 'too large'
  | 'binary'
  | 'minified'
  | 'syntax errors'
  | 'parse failed'
  | 'parse timeout'
  | 'query timed out'
  | 'unreadable'
  | 'symlink outside root'
  | 'broken symlink'
  | 'not a regular file'
  | 'name not UTF-8';

/** A file that was left out of the map, and why. */
export interface SkippedFile {
  path: string;
  reason: SkipReason;
  detail?: string;
}

/**
 * A language that does not run on the native tree-sitter runtime in the process that parses (its
 * runtime or grammar binary did not load): its files are parsed with its WebAssembly build
 * (`wasm`), or skipped as 'no grammar' when it has none (`none`). `reason` says what failed.
 */
export interface GrammarFallback {
  language: string;
  runtime: 'wasm' | 'none';
  reason: string;
}

/** The index pass's work counts. */
export interface IndexStats {
  /** Files discovered (after --exclude), of any language. */
  discovered: number;
  /** Files the exclude and include globs left out at the last listing of the tree (not counted in `discovered`). */
  leftOut: number;
  /** Files that went through the parser. */
  parsed: number;
  /** Files whose stored record was reused because mtime and size matched. */
  reusedByStat: number;
  /** Files re-read because mtime or size changed, whose content hash matched: not parsed. */
  reusedByHash: number;
  /** Files new to this root whose tags were copied from the shared tag cache (another clone parsed them): not parsed. */
  reusedShared: number;
  /** Files parsed whose tags went to the shared tag cache (under their content; see the shared cache in docs/architecture.md). */
  published: number;
  /** Stored records dropped because their files are gone. */
  removed: number;
  /** Related graphs read from the saved one instead of derived (see graph-file): a start with nothing changed. */
  restoredGraphs: number;
  /** Of those, the ones another clone of the same files published to the shared tag cache. */
  restoredSharedGraphs: number;
}

/**
 * What a shown line is: a definition's own line (with its name and kind), a further line of its
 * signature, the header of a scope that encloses a shown definition, or a line of a shown
 * definition's body that uses a chat file's definition (the depth section's users of the chat files).
 */
export type MapLine =
  | { line: number; text: string; role: 'definition'; name: string; kind: string }
  | { line: number; text: string; role: 'signature' | 'scope' | 'use' };

/** One file of a map: its shown lines (1-based, sorted), or none for a bare path. */
export interface MapFile {
  path: string;
  /** Its PageRank. */
  rank: number;
  /** The tokens its block takes in the map. */
  tokens: number;
  lines: MapLine[];
}

/** The index's work counts, and the graph's size. */
export type MapStats = IndexStats & {
  /** Files in the graph. */
  nodes: number;
  /** File-name links: one per name a file defines or references. */
  edges: number;
  /** Files whose names were never linked into both of the graph's name indexes: the related graph needs only the definers, a saved one neither (see ReferenceGraph.linkPending). */
  unlinkedFiles: number;
};

/** A map, as `buildMap` and a daemon's `map` answer it (and `--format json` prints it). */
export interface RepoMap {
  root: string;
  /** Exact token count of `text`. */
  tokens: number;
  budget: number;
  /** Files in map order. */
  files: MapFile[];
  /** Skipped files counted by reason, in a fixed order. */
  skipped: Partial<Record<SkipReason, number>>;
  /** Every skipped file when the request says `listSkipped` (else empty; the counts are in `skipped`). */
  skippedFiles: SkippedFile[];
  /** With `listSkipped`: the repository's languages that do not run natively where the map was made, and why (none: absent). */
  grammarFallbacks?: GrammarFallback[];
  /** The index's work counts (a daemon's: since it started). */
  stats: MapStats;
  /** The request as understood: its files relative to the root, the message's identifiers added. */
  request: { chatFiles: string[]; mentionedFiles: string[]; mentionedIdents: string[] };
  /** Set on a map made before the index was complete (see MapRequest.waitSeconds): how far it was. */
  partial?: PartialIndex;
  /** The map. */
  text: string;
}

export interface SymbolDefinition {
  name: string;
  path: string;
  line: number;
  kind: string;
  /** The definition's lines as a map shows them: its own, to the end of its signature (lines joined by `\n`). */
  signature: string;
  /** Enclosing scope header lines, outermost first. */
  scopes: Array<{ line: number; text: string }>;
}

export interface SymbolReference {
  name: string;
  path: string;
  line: number;
  kind: string;
  text: string;
  /** PageRank of the referencing file: the most central callers come first. */
  rank: number;
  /**
   * The innermost definition whose extent holds the reference's line (a function, method, class,
   * ...): its name, kind and line. None at top level, or when no definition around it has a known
   * extent (its language's query captures none: a constant's, a field's).
   */
  enclosing?: { name: string; kind: string; line: number };
}

export interface SymbolAnswer {
  query: SymbolQuery;
  /** The name itself before longer names a prefix matches, code before tests, the most central defining file first, then by path and line. */
  definitions: SymbolDefinition[];
  references: SymbolReference[];
  /** Matches before the limit was applied. */
  totalDefinitions: number;
  totalReferences: number;
}

/** What a daemon's `status` answers. */
export interface DaemonStatus {
  root: string;
  pid: number;
  /** `indexing` until the cold index is complete (its pass, then the related graph read or built), then `ready`. */
  state: 'indexing' | 'ready';
  /**
   * The source files gone through (indexed, or skipped by their stat: a symlink that leads outside
   * the root or nowhere, a path out of reach) of `sourceFiles`, for a progress bar (total 0 until
   * the files are listed): `done` reaches `total` once the pass is over.
   */
  progress: { done: number; total: number };
  /** Files discovered, of every kind: the whole tree's count once it is listed (0 before). */
  files: number;
  /** Of `files`, the source files: those with a grammar, which the index reads. */
  sourceFiles: number;
  /**
   * Of `sourceFiles`, those indexed so far: read into a record (their tags, or why their content is
   * left out, recorded), as a map's work counts count them. Not those skipped by their stat, which
   * `skipped` counts.
   */
  indexed: number;
  /** Files parsed since the daemon started. */
  parsed: number;
  /** Skipped files by reason, as a map counts them (the important files it names are not skipped); empty until the index is complete. */
  skipped: Record<string, number>;
  /** The repository's languages that do not run natively in the daemon, and why; empty until the index is complete. */
  grammarFallbacks: GrammarFallback[];
  pendingChanges: number;
  /** Whether the watcher follows the tree (it starts once the index is complete, and catches up). */
  watching: boolean;
  /** Paths the watcher could not watch (the system's limit of watches reached); their files are stat'ed periodically instead. */
  unwatchedPaths: number;
  lastUpdate: string | null;
  memory: { rssBytes: number; heapUsedBytes: number };
  uptimeSeconds: number;
  /** The settings the daemon runs with (its command line's, over the project config's, over the defaults; a client's other options do not change them). */
  workers: number;
  exclude: string[];
  /** The project config's include globs (empty: every file). */
  include: string[];
  idleTimeoutSeconds: number;
  socket: string;
  cacheDir: string;
  /** The options on its command line, the ones `repomap restart` keeps when it is not given others. */
  startedWith: DaemonFlags;
}

/**
 * The options on a daemon's command line (`repomapd ROOT --workers N ...`), each absent when not
 * given: the project config, then the defaults, give those (and give them again when they change).
 */
export interface DaemonFlags {
  /** The folder given by --cache-dir (DaemonStatus.cacheDir is the one used, the default when none is given). */
  cacheDir?: string;
  workers?: number;
  exclude?: readonly string[];
  maxFileBytes?: number;
  idleTimeoutSeconds?: number;
  /** Native grammars the project config may load (--allow-grammar): the user's permission, which a restart keeps. */
  allowGrammars?: readonly string[];
}
