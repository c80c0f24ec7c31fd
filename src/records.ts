// The records that flow through the pipeline: discover -> extract -> store -> graph -> rank -> pack -> render.
// Their lines are 0-based; the public types (api/types.ts) are 1-based.
import type { SkipReason } from './api/types.js';

/** What a tag is: a definition of a name or a reference to one. */
export type TagKind = 'def' | 'ref';

/** A definition extracted from a file. Lines are 0-based. */
export interface DefTag {
  name: string;
  /** class, interface, type, enum, function, method, constant, module, ... (from the query capture). */
  subkind: string;
  line: number;
  /**
   * The last line of its signature (>= line): a multi-line parameter list or header runs to
   * here. Every line from `line` to it is present in FileOutline.lines.
   */
  signatureEnd: number;
  /** Start lines of the enclosing scopes (outermost first), each present in FileOutline.lines. */
  scopes: number[];
  /**
   * The last line of the definition's extent (>= line): of the syntax node it names, its body
   * included (see setExtents). None when its query captures no scope of its own (a constant, a field).
   */
  end?: number;
}

/** A reference to a name. Lines are 0-based. */
export interface RefTag {
  name: string;
  /** call, type, import, new, decorator, inheritance, ... */
  subkind: string;
  line: number;
}

/**
 * A file's references, by column: each distinct name once, and each reference as three numbers.
 * A large repository has millions of references; as objects, moving them from a worker, storing
 * and loading them cost more than parsing did (see packRefs and unpackRefs).
 */
export interface FileRefs {
  /** The distinct names referenced, sorted. */
  names: string[];
  /** How many times each name is referenced (parallel to names). */
  counts: number[];
  /** The names referenced by an import, sorted. */
  imports: string[];
  /** The reference kinds used, each once, in order of first use. */
  subkinds: string[];
  /** The references in file order, three numbers each: index in names, index in subkinds, line. */
  sites: number[];
}

/**
 * What rendering reads of a file, as extraction gives it: its definitions and the lines they name,
 * so nothing re-reads the file (the store keeps it packed: see Outline).
 */
export interface FileOutline {
  lang: string;
  /** Number of lines in the file, so rendering knows whether lines follow the last shown one. */
  lineCount: number;
  defs: DefTag[];
  /** Text of every line a definition or scope names: [line, text] sorted by line. */
  lines: Array<[number, string]>;
}

/** The extraction result for one file: its outline and its references. */
export interface FileTags extends FileOutline {
  refs: FileRefs;
  /** The modules the file imports, as written (see FileNames.modules). */
  modules: string[];
}

/**
 * What the reference graph reads of a file: the names it defines and references. Small next to
 * the tags, so it is what a warm start decodes for every file (outlines are read when shown).
 */
export interface FileNames {
  /** The distinct names defined, sorted. */
  defined: string[];
  /** The distinct names referenced, sorted (FileRefs.names), with their counts alongside. */
  referenced: string[];
  counts: number[];
  /** The names referenced by an import, sorted. */
  imports: string[];
  /**
   * The modules the file imports, as its source writes them, sorted and each once: a TypeScript
   * specifier (`./cart.js`, `@scope/pkg`), a Python dotted module (`.models`, `pkg.sub`), a Go
   * import path, a Rust `use` path (`crate::a::b`) or `mod NAME` for a `mod NAME;` declaration,
   * a JVM or C# package or namespace, a C `#include "..."` path, a Ruby require (`./x` for a
   * require_relative), a PHP use or require. src/resolve/ maps them to files (docs/resolution.md).
   */
  modules: string[];
}

/**
 * What a file's stat says of its content: a file whose stat matches its record's is taken as
 * unchanged. The change time catches an edit that keeps the size and puts the modification time
 * back (`touch -r`, `cp -p`, an editor that preserves it), as git's own index does.
 */
export interface FileStat {
  mtimeMs: number;
  size: number;
  ctimeMs: number;
}

/** The stat fields of a stat (of `fs.Stats`, or of a record): what a record keeps. */
export function statOf(info: FileStat): FileStat {
  return { mtimeMs: info.mtimeMs, size: info.size, ctimeMs: info.ctimeMs };
}

/**
 * Whether a file's stat (`info`) matches the one its record was made at. A record stored before
 * change times were kept has none: its modification time and size vouch for it, as they did then.
 */
export function statMatches(record: Pick<FileRecord, 'mtimeMs' | 'size' | 'ctimeMs'>, info: FileStat): boolean {
  return record.mtimeMs === info.mtimeMs && record.size === info.size && (record.ctimeMs === undefined || record.ctimeMs === info.ctimeMs);
}

/** What the store keeps per path. */
export interface FileRecord {
  path: string;
  mtimeMs: number;
  size: number;
  /** The change time (see FileStat); none on a record stored before it was kept. */
  ctimeMs?: number;
  /** Hex digest of the content; empty when the content was never read (too large). */
  hash: string;
  /**
   * The file's tags, on a record just extracted (null when it was skipped). The store keeps them
   * and a record read back from it has none: read them with TagStore.outline and TagStore.refs.
   */
  tags?: FileTags | null;
  /** The names for the graph, on a record just extracted, until a graph takes them (the store keeps them: TagStore.names). */
  names?: FileNames;
  /** How many names the file defines plus how many it references, on a record read from the store: a graph counts them before it reads them. */
  links?: number;
  skip: SkipReason | null;
  /** Detail for a skip, such as the parser's error message. */
  detail?: string;
  /**
   * The shared cache's key of the content, when the file's names and tags are read from the shared
   * cache rather than from the root's store (see TagStore.writeReference).
   */
  shared?: string;
}
