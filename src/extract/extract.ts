import Parser from 'tree-sitter';
import type { DefTag, FileTags, RefTag, SkipReason } from '../types.js';
import { type LanguageSpec, readQuerySource } from './languages.js';
import { noteParsedSource } from './memory.js';
import { packRefs } from './refs.js';

/** Stored line text is cut here, so a long line cannot blow a map's budget or a record's size. */
export const MAX_STORED_LINE = 300;
/** A signature is shown to its last line (a multi-line parameter list), within these bounds. */
export const MAX_SIGNATURE_LINES = 4;
export const MAX_SIGNATURE_CHARS = 300;
/** Files whose ERROR nodes cover more than this share of the text are reported, not indexed. */
const MAX_ERROR_SHARE = 0.5;
/** Default bound on one file's parse time. */
export const DEFAULT_PARSE_TIMEOUT_MS = 10_000;

interface LoadedLanguage {
  parser: Parser;
  query: Parser.Query;
}

// One parser and one compiled query per language per thread, created on first use.
const loaded = new Map<string, LoadedLanguage>();

function load(lang: LanguageSpec): LoadedLanguage {
  let entry = loaded.get(lang.id);
  if (!entry) {
    const grammar = lang.loadGrammar() as Parser.Language;
    const parser = new Parser();
    parser.setLanguage(grammar);
    const query = new Parser.Query(grammar, readQuerySource(lang));
    entry = { parser, query };
    loaded.set(lang.id, entry);
  }
  return entry;
}

/** Loads the grammars and compiles the queries of these languages in this thread now, not on first use. */
export function preloadLanguages(langs: readonly LanguageSpec[]): void {
  for (const lang of langs) load(lang);
}

export type ExtractResult =
  | { ok: true; tags: FileTags }
  | { ok: false; skip: SkipReason; detail: string };

export interface ExtractOptions {
  /** Bound on the parse of one file, in milliseconds (0 = none). */
  parseTimeoutMs?: number;
}

/** Parses one file's text and runs its language's tag query. Never throws for bad source. */
export function extractTags(lang: LanguageSpec, source: string, options: ExtractOptions = {}): ExtractResult {
  const { parser, query } = load(lang);
  const timeoutMs = options.parseTimeoutMs ?? DEFAULT_PARSE_TIMEOUT_MS;
  parser.setTimeoutMicros(timeoutMs * 1000);
  noteParsedSource(source.length);
  let tree: Parser.Tree | undefined;
  try {
    tree = parser.parse(source);
  } catch (err) {
    parser.reset();
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, skip: 'parse failed', detail: message };
  }
  // A timed-out parse returns no tree (or a null root) in the node binding.
  if (!tree || !tree.rootNode) {
    parser.reset();
    return { ok: false, skip: 'parse timeout', detail: `parse took longer than ${timeoutMs} ms` };
  }
  const root = tree.rootNode;
  if (root.hasError) {
    const share = errorShare(root, source.length);
    if (share > MAX_ERROR_SHARE) {
      return { ok: false, skip: 'syntax errors', detail: `${Math.round(share * 100)}% of the file is in error nodes` };
    }
  }
  return { ok: true, tags: collectTags(lang.id, source, query.captures(root)) };
}

function errorShare(root: Parser.SyntaxNode, length: number): number {
  if (length === 0) return 0;
  let covered = 0;
  let lastEnd = -1;
  // descendantsOfType returns nodes in document order; count nested error nodes once.
  for (const node of root.descendantsOfType('ERROR')) {
    if (node.startIndex >= lastEnd) {
      covered += node.endIndex - node.startIndex;
      lastEnd = node.endIndex;
    }
  }
  return covered / length;
}

interface OpenScope {
  start: number;
  end: number;
  row: number;
}

function collectTags(langId: string, source: string, captures: Parser.QueryCapture[]): FileTags {
  const lineTexts = source.split('\n');
  const defs: DefTag[] = [];
  const refs: RefTag[] = [];
  const shownLines = new Set<number>();
  // Captures arrive in document order; scopes are syntax nodes, so they nest and a stack suffices.
  const scopes: OpenScope[] = [];
  const seenDefs = new Set<string>();
  const seenRefs = new Set<string>();
  const modules = new Set<string>();

  for (const { name: capture, node } of captures) {
    const start = node.startIndex;
    while (scopes.length > 0 && scopes[scopes.length - 1].end <= start) scopes.pop();

    if (capture === 'scope') {
      const top = scopes[scopes.length - 1];
      if (!top || top.start !== start || top.end !== node.endIndex) {
        scopes.push({ start, end: node.endIndex, row: node.startPosition.row });
      }
      continue;
    }
    if (capture.startsWith('module.')) {
      const specifier = moduleSpecifier(capture, node.text);
      if (specifier) modules.add(specifier);
      continue;
    }
    const def = capture.startsWith('name.definition.');
    if (!def && !capture.startsWith('name.reference.')) continue;
    const subkind = capture.slice(def ? 'name.definition.'.length : 'name.reference.'.length);
    const name = node.text;
    if (name.length === 0) continue;
    const line = node.startPosition.row;
    // Two patterns may capture the same node; keep one tag per (node, kind).
    const key = `${start}:${name}`;
    if (def) {
      if (seenDefs.has(key)) continue;
      seenDefs.add(key);
      const enclosing: number[] = [];
      for (const scope of scopes) {
        if (scope.row < line && scope.end >= node.endIndex && enclosing[enclosing.length - 1] !== scope.row) {
          enclosing.push(scope.row);
          shownLines.add(scope.row);
        }
      }
      const signatureEnd = signatureEndOf(lineTexts, line);
      for (let row = line; row <= signatureEnd; row++) shownLines.add(row);
      defs.push({ name, subkind, line, signatureEnd, scopes: enclosing });
    } else {
      if (seenRefs.has(key)) continue;
      seenRefs.add(key);
      refs.push({ name, subkind, line });
    }
  }

  const lines: Array<[number, string]> = [...shownLines]
    .sort((a, b) => a - b)
    .map((row) => [row, boundedLine(lineTexts[row] ?? '')]);
  const lineCount = source.endsWith('\n') ? lineTexts.length - 1 : lineTexts.length;
  return { lang: langId, lineCount, defs, refs: packRefs(refs), modules: [...modules].sort(), lines };
}

/** A line as stored: trailing space off, cut at MAX_STORED_LINE with an ellipsis saying so. */
function boundedLine(text: string): string {
  const line = text.trimEnd();
  return line.length <= MAX_STORED_LINE ? line : `${line.slice(0, MAX_STORED_LINE - 1)}…`;
}

/**
 * A module capture's text as FileNames.modules keeps it. By capture name:
 * - `module.import`: a specifier as written, quotes and angle brackets taken off;
 * - `module.declare`: a Rust `mod NAME;`, kept as `mod NAME`;
 * - `module.wildcard`: a JVM package imported whole (`import a.b.*`), kept as `a.b.*`;
 * - `module.relative`: a path relative to the importing file (Ruby's require_relative, PHP's
 *   `__DIR__ . '/x.php'`), kept as `./x` (`../x` as is);
 * - `module.statement`: a whole statement whose path has no node of its own (Scala's import, PHP's
 *   group use), kept without its leading keyword and trailing `;`.
 * A text over several lines (a Rust use list) is joined: comments dropped, spaces collapsed.
 */
function moduleSpecifier(capture: string, text: string): string | undefined {
  let specifier = text;
  if (specifier.includes('\n')) {
    specifier = specifier.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, ' ').replace(/\s+/g, ' ');
  }
  specifier = specifier.replace(/^["'`<]|["'`>]$/g, '').trim();
  if (capture === 'module.statement') specifier = specifier.replace(/^\S+\s+/, '').replace(/\s*;$/, '');
  if (specifier.length === 0) return undefined;
  switch (capture) {
    case 'module.declare':
      return `mod ${specifier}`;
    case 'module.wildcard':
      return `${specifier}.*`;
    case 'module.relative':
      return /^\.\.?\//.test(specifier) ? specifier : `./${specifier.replace(/^\/+/, '')}`;
    default:
      return specifier;
  }
}

/**
 * The last line of the signature starting at `line`: while a round bracket opened on its lines is
 * still open (a parameter list over several lines), the next line belongs to it; never past
 * MAX_SIGNATURE_LINES or MAX_SIGNATURE_CHARS. Brackets tell the end of a parameter list in every
 * language alike, where syntax trees name their parts differently (and asking the tree for a
 * node's parent and extent, per definition, cost a tenth of extraction); square brackets are left
 * out (an array constant is not a signature).
 */
export function signatureEndOf(lineTexts: readonly string[], line: number): number {
  let depth = 0;
  let chars = 0;
  let end = line;
  for (let row = line; row < Math.min(lineTexts.length, line + MAX_SIGNATURE_LINES); row++) {
    const text = lineTexts[row] ?? '';
    chars += text.trim().length;
    if (row > line && chars > MAX_SIGNATURE_CHARS) break;
    end = row;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 40) depth++; // (
      else if (c === 41 && depth > 0) depth--; // )
    }
    // A line that ends opening a type argument list (`extends Readonly<`) goes on as well.
    if (depth === 0 && !text.trimEnd().endsWith('<')) break;
  }
  return end;
}
