import { setFlagsFromString } from 'node:v8';
import type Parser from 'tree-sitter';
import { errorMessage, quoted } from '../errors.js';
import type { DefTag, FileTags, RefTag } from '../records.js';
import type { SkipReason } from '../api/types.js';
import { BUILTIN_LANGUAGES, type LanguageSet, type LanguageSpec, invalidQueryMessage, isPackageQuery, noteLoaded, parsedWith, readQuerySource } from './languages.js';
import { noteParsedSource } from './memory.js';
import { type NativeGrammar, fallbackBuild, nativeGrammar } from './native.js';
import { DEFAULT_PARSE_TIMEOUT_MS } from './parse-bound.js';
import { shownQuoted } from '../paths.js';
import { packRefs } from './refs.js';
import { type ScopeSpan, setExtents } from './extents.js';

/** Stored line text is cut here, so a long line cannot blow a map's budget or a record's size. */
export const MAX_STORED_LINE = 300;
/** A signature is shown to its last line (a multi-line parameter list), within these bounds. */
export const MAX_SIGNATURE_LINES = 4;
export const MAX_SIGNATURE_CHARS = 300;
/** A definition keeps the lines of this many of its outermost enclosing scopes ... */
export const SCOPE_LINES_OUTER = 8;
/** ... and of this many of its innermost (see enclosingRows). */
export const SCOPE_LINES_INNER = 8;
/** Files whose ERROR nodes cover more than this share of the text are reported, not indexed. */
const MAX_ERROR_SHARE = 0.5;

// Query predicates (#match? and the like) run as JavaScript regular expressions, in every thread
// that runs queries (this module is loaded in each). A regex that backtracks past V8's limit
// falls back to its linear-time engine, so no predicate takes exponential time on a name; one
// that engine cannot run (a backreference, a lookaround) is refused in a project query before it
// is compiled (see query-check.ts). V8 flags are the process's: setting one again is harmless.
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

/** What extraction reads of a syntax node: the native and the WebAssembly bindings both have it. */
interface SyntaxNodeView {
  readonly startIndex: number;
  readonly endIndex: number;
  readonly startPosition: { row: number };
  readonly endPosition: { row: number; column: number };
  readonly text: string;
  readonly hasError: boolean;
  descendantsOfType(type: string): ReadonlyArray<SyntaxNodeView | null>;
}

interface CaptureView {
  name: string;
  node: SyntaxNodeView;
}

/**
 * One parse's tree, seen through the views above; `dispose` frees it (a WebAssembly tree is not
 * collected). `captures` runs the query, its native matching stopped after `timeoutMicros` (0: no
 * bound), when it returns what it found by then.
 */
interface ParsedTree {
  root: SyntaxNodeView;
  captures(timeoutMicros: number): CaptureView[];
  dispose(): void;
}

/** A language ready in this thread: its parser and compiled query behind one interface, whatever the runtime. */
interface ReadyLanguage {
  /** The tree, or undefined when the parse ran out of time. Throws when the parser fails. */
  parse(source: string, timeoutMs: number): ParsedTree | undefined;
}

/** A language's grammar or query that failed to load: its files are skipped as 'no grammar', with this detail. */
class LanguageLoadError extends Error {
  override name = 'LanguageLoadError';
}

// One parser and one compiled query per language (and query signature) per thread, created on
// first use; a failure is kept too, so a broken query is compiled (and reported) once.
const ready = new Map<string, ReadyLanguage | LanguageLoadError>();
const loading = new Map<string, Promise<void>>();

const readyKey = (lang: LanguageSpec) => `${lang.id}\0${lang.signature}`;

function loadNative(lang: LanguageSpec, native: Exclude<NativeGrammar, { failure: string }>): ReadyLanguage {
  const { Parser: NativeParser, grammar, parser } = native;
  noteLoaded(lang.id);
  const query = compileQuery(lang, (source) => new NativeParser.Query(grammar, source), nativeErrorOffset);
  return {
    parse(source, timeoutMs) {
      parser.setTimeoutMicros(timeoutMs * 1000);
      let tree: Parser.Tree | undefined;
      try {
        tree = parser.parse(source);
      } catch (err) {
        parser.reset();
        throw err;
      }
      // A timed-out parse returns no tree (or a null root) in the node binding.
      if (!tree || !tree.rootNode) {
        parser.reset();
        return undefined;
      }
      const root = tree.rootNode;
      return { root, captures: (timeoutMicros) => query.captures(root, { timeoutMicros }), dispose: () => {} };
    },
  };
}

/** web-tree-sitter, imported and initialised once per thread, on its first WebAssembly grammar. */
let webTreeSitter: Promise<typeof import('web-tree-sitter')> | undefined;

function webTreeSitterModule(): Promise<typeof import('web-tree-sitter')> {
  return (webTreeSitter ??= import('web-tree-sitter').then(async (module) => {
    // A grammar's WebAssembly may write to the process's stdout or stderr (fd_write, which the
    // runtime gives it): its bytes would land in a map, unescaped. A grammar has nothing to say there.
    await module.Parser.init({ print: () => {}, printErr: () => {} });
    return module;
  }));
}

/** A language on WebAssembly: its own grammar's, or the fallback build of a native one (`file`). */
async function loadWasm(lang: LanguageSpec, file: string): Promise<ReadyLanguage> {
  const { Parser: WasmParser, Language, Query } = await webTreeSitterModule();
  const grammar = await Language.load(file);
  noteLoaded(lang.id);
  const parser = new WasmParser();
  parser.setLanguage(grammar);
  const query = compileQuery(lang, (source) => new Query(grammar, source), wasmErrorOffset);
  return {
    parse(source, timeoutMs) {
      const deadline = timeoutMs > 0 ? performance.now() + timeoutMs : Infinity;
      // The callback's true cancels the parse, which then returns null.
      const tree = parser.parse(source, null, { progressCallback: () => performance.now() > deadline });
      if (!tree) {
        parser.reset();
        return undefined;
      }
      const root = tree.rootNode;
      return { root, captures: (timeoutMicros) => query.captures(root, { timeoutMicros }), dispose: () => tree.delete() };
    },
  };
}

/**
 * A language's tag query, compiled; a query tree-sitter rejects is a LanguageLoadError naming the
 * query file, line and column. `errorOffset` gives the byte offset into the whole query text that
 * the runtime's error names, if it names one. A project's query is compiled only once a child
 * process compiled it without harm (see query-check.ts): a query can crash the native runtime.
 */
function compileQuery<Q>(lang: LanguageSpec, compile: (source: string) => Q, errorOffset: (err: unknown, source: string) => number | undefined): Q {
  if (lang.queryError !== undefined) throw new LanguageLoadError(lang.queryError);
  if (!lang.queryChecked && !isPackageQuery(lang.queryFiles)) throw new LanguageLoadError(`${lang.queryFiles.join(', ')}: tag query for ${lang.id} was not checked, so it is not compiled`);
  const source = readQuerySource(lang);
  try {
    return compile(source);
  } catch (err) {
    throw new LanguageLoadError(invalidQueryMessage(lang, source, errorMessage(err), errorOffset(err, source)));
  }
}

/**
 * Loads a language's grammar as a parse does, for a compile of a query text against it, unchecked:
 * for query-check's child process only, where a crash takes down nothing else. The compile returns
 * the error (with its byte offset, if it names one) when the runtime rejects the text.
 */
export async function uncheckedCompiler(lang: LanguageSpec, source: string): Promise<() => { message: string; offset: number | undefined } | undefined> {
  let compile: () => unknown;
  let errorOffset: (err: unknown) => number | undefined;
  const runtime = runtimeOf(lang);
  if ('failure' in runtime) throw new Error(runtime.failure);
  if ('native' in runtime) {
    const { Parser: NativeParser, grammar } = runtime.native;
    compile = () => new NativeParser.Query(grammar, source);
    errorOffset = nativeErrorOffset;
  } else {
    const { Language, Query } = await webTreeSitterModule();
    const grammar = await Language.load(runtime.file());
    compile = () => new Query(grammar, source);
    errorOffset = (err) => wasmErrorOffset(err, source);
  }
  return () => {
    try {
      compile();
      return undefined;
    } catch (err) {
      return { message: errorMessage(err), offset: errorOffset(err) };
    }
  };
}

/** The native binding says "Query error of type ... at position N", N in bytes. */
function nativeErrorOffset(err: unknown): number | undefined {
  const match = err instanceof Error ? /at position (\d+)/.exec(err.message) : null;
  return match ? Number(match[1]) : undefined;
}

/** web-tree-sitter's QueryError has the index of a character of the source: made a byte offset. */
function wasmErrorOffset(err: unknown, source: string): number | undefined {
  const index = (err as { index?: unknown } | null)?.index;
  return typeof index === 'number' ? Buffer.byteLength(source.slice(0, index)) : undefined;
}

/**
 * What a language runs on in this thread: its native grammar when the runtime and the grammar load,
 * else the WebAssembly file of its own grammar or of its fallback build (with why the native one
 * did not load), else why it has no grammar.
 */
type Runtime = { native: Exclude<NativeGrammar, { failure: string }> } | { file: () => string; build: string; nativeFailure?: string } | { failure: string };

function runtimeOf(lang: LanguageSpec): Runtime {
  const { grammar } = lang;
  if (grammar.runtime === 'wasm') return { file: grammar.file, build: grammar.package };
  if (grammar.runtime !== 'native') throw new Error(`${lang.id} has no grammar of its own`);
  const native = nativeGrammar({ ...lang, grammar });
  if (!('failure' in native)) return { native };
  const build = fallbackBuild(lang);
  return build ? { file: build.file, build: build.package, nativeFailure: native.failure } : { failure: `${native.failure}; no WebAssembly build` };
}

/** The language ready in this thread, loading it now if it runs natively (one on WebAssembly must have been prepared). */
function load(lang: LanguageSpec): ReadyLanguage | LanguageLoadError {
  const key = readyKey(lang);
  let entry = ready.get(key);
  if (!entry) {
    if (lang.queryError !== undefined) {
      // A refused query's grammar is not loaded either: it may be what failed the check (a
      // WebAssembly grammar whose start never returns).
      entry = new LanguageLoadError(lang.queryError);
    } else {
      const runtime = runtimeOf(lang);
      if ('file' in runtime) throw new Error(`the WebAssembly grammar of ${lang.id} is used before prepareLanguage`);
      entry = 'failure' in runtime ? new LanguageLoadError(`${lang.id}: ${runtime.failure}`) : settle(lang, () => loadNative(lang, runtime.native));
    }
    ready.set(key, entry);
  }
  return entry;
}

function settle(lang: LanguageSpec, create: () => ReadyLanguage): ReadyLanguage | LanguageLoadError {
  try {
    return create();
  } catch (err) {
    return loadFailure(lang, err);
  }
}

/** A grammar's or query's failure to load as the detail its files are skipped with (`nativeFailure`: why the native grammar did not load before). */
function loadFailure(lang: LanguageSpec, err: unknown, runtime?: { build: string; nativeFailure?: string }): LanguageLoadError {
  if (err instanceof LanguageLoadError) return err;
  const message = quoted(errorMessage(err).split('\n')[0]);
  if (runtime?.nativeFailure) return new LanguageLoadError(`${lang.id}: ${runtime.nativeFailure}; WebAssembly build of ${runtime.build} failed to load (${message})`);
  return new LanguageLoadError(`${lang.id}: grammar ${lang.grammar.package} failed to load (${message})`);
}

/** Whether extractTags can run on this language's files now, without prepareLanguage (`set`: the repository's languages). */
export function isLanguageReady(lang: LanguageSpec, set: LanguageSet = BUILTIN_LANGUAGES): boolean {
  return parsedWith(lang, set).every((parsed) => parsed.queryError !== undefined || ready.has(readyKey(parsed)) || !('file' in runtimeOf(parsed)));
}

/**
 * Loads a language's grammar and compiles its query in this thread: natively when it runs so,
 * else its WebAssembly build (web-tree-sitter's loading is asynchronous). Never rejects: a failure
 * is kept and reported per file by extractTags.
 */
export async function prepareLanguage(lang: LanguageSpec, set: LanguageSet = BUILTIN_LANGUAGES): Promise<void> {
  for (const parsed of parsedWith(lang, set)) {
    const key = readyKey(parsed);
    if (ready.has(key)) continue;
    if (parsed.queryError !== undefined) {
      load(parsed);
      continue;
    }
    const runtime = runtimeOf(parsed);
    if (!('file' in runtime)) {
      load(parsed);
      continue;
    }
    let pending = loading.get(key);
    if (!pending) {
      pending = Promise.resolve()
        .then(() => loadWasm(parsed, runtime.file()))
        .then(
          (entry) => void ready.set(key, entry),
          (err: unknown) => void ready.set(key, loadFailure(parsed, err, runtime)),
        );
      loading.set(key, pending);
    }
    await pending;
  }
}

/** Loads the grammars and compiles the queries of these languages in this thread now, not on first use. */
export async function preloadLanguages(langs: readonly LanguageSpec[]): Promise<void> {
  for (const lang of langs) await prepareLanguage(lang);
}

export type ExtractResult =
  | { ok: true; tags: FileTags }
  | { ok: false; skip: SkipReason; detail: string };

export interface ExtractOptions {
  /** Bound on the parse of one file, in milliseconds (0 = none). */
  parseTimeoutMs?: number;
}

/**
 * Parses one file's text and runs its language's tag query. Never throws for bad source. A
 * single-file component's script blocks are parsed with the language their `lang` names, looked
 * up in `set`.
 */
export function extractTags(lang: LanguageSpec, source: string, options: ExtractOptions = {}, set: LanguageSet = BUILTIN_LANGUAGES): ExtractResult {
  let parsedAs = lang;
  let parsedText = source;
  if (lang.grammar.runtime === 'scripts') {
    const scripts = scriptBlocks(source);
    const inner = set.byIdOf(scripts.typescript ? lang.grammar.typescript : lang.grammar.javascript);
    if (!inner) return { ok: false, skip: 'no grammar', detail: `${lang.id}: no language for its script blocks` };
    parsedAs = inner;
    parsedText = scripts.text;
  }
  if (parsedAs.grammar.runtime === 'refused') {
    const grammar = shownQuoted(parsedAs.grammar.package);
    return { ok: false, skip: 'grammar not allowed', detail: `${parsedAs.id}: native grammar ${grammar}, which the user has not allowed (--allow-grammar ${grammar})` };
  }
  const language = load(parsedAs);
  if (language instanceof LanguageLoadError) return { ok: false, skip: 'no grammar', detail: language.message };
  const timeoutMs = options.parseTimeoutMs ?? DEFAULT_PARSE_TIMEOUT_MS;
  noteParsedSource(parsedText.length);
  const started = performance.now();
  let tree: ParsedTree | undefined;
  try {
    tree = language.parse(parsedText, timeoutMs);
  } catch (err) {
    const message = errorMessage(err);
    return { ok: false, skip: 'parse failed', detail: message };
  }
  if (!tree) return { ok: false, skip: 'parse timeout', detail: `parse took longer than ${timeoutMs} ms` };
  try {
    const { root } = tree;
    if (root.hasError) {
      const share = errorShare(root, parsedText.length);
      if (share > MAX_ERROR_SHARE) {
        return { ok: false, skip: 'syntax errors', detail: `${Math.round(share * 100)}% of the file is in error nodes` };
      }
    }
    // The query runs in what is left of the bound: its native matching stops there, and a run that
    // used it all (matching and predicates) is not taken, its tags being partial.
    const left = timeoutMs > 0 ? Math.max(1, timeoutMs - (performance.now() - started)) : 0;
    const queryStarted = performance.now();
    const captures = tree.captures(Math.min(0xffffffff, Math.ceil(left * 1000)));
    if (left > 0 && performance.now() - queryStarted >= left) {
      return { ok: false, skip: 'query timed out', detail: `parse and tag query took longer than ${timeoutMs} ms` };
    }
    return { ok: true, tags: collectTags(lang.id, source, captures) };
  } finally {
    tree.dispose();
  }
}

/**
 * The `<script>` blocks of a single-file component (Vue, Svelte): the text with everything outside
 * them blanked (newlines kept), so that offsets and lines are the file's own, and whether a block
 * says `lang="ts"` (or tsx).
 */
export function scriptBlocks(source: string): { text: string; typescript: boolean } {
  const chars = source.replace(/[^\n]/g, ' ').split('');
  let typescript = false;
  const lower = source.toLowerCase();
  const open = /<script\b([^>]*)>/gi;
  for (let match = open.exec(source); match; match = open.exec(source)) {
    if (/\blang\s*=\s*["']?tsx?\b/i.test(match[1])) typescript = true;
    const start = match.index + match[0].length;
    const close = lower.indexOf('</script', start);
    const end = close === -1 ? source.length : close;
    for (let i = start; i < end; i++) chars[i] = source[i];
    open.lastIndex = end;
  }
  return { text: chars.join(''), typescript };
}

function errorShare(root: SyntaxNodeView, length: number): number {
  if (length === 0) return 0;
  let covered = 0;
  let lastEnd = -1;
  // descendantsOfType returns nodes in document order; count nested error nodes once.
  for (const node of root.descendantsOfType('ERROR')) {
    if (node && node.startIndex >= lastEnd) {
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
  /** Its last row (see lastRow). */
  endRow: number;
}

function collectTags(langId: string, source: string, captures: readonly CaptureView[]): FileTags {
  const lineTexts = source.split('\n');
  const defs: DefTag[] = [];
  const refs: RefTag[] = [];
  const shownLines = new Set<number>();
  // Captures arrive in document order; scopes are syntax nodes, so they nest and a stack suffices.
  const scopes: OpenScope[] = [];
  // Every scope pushed, in document order, and per definition its name's bytes and how many
  // scopes came before it: what setExtents reads.
  const spans: ScopeSpan[] = [];
  const sites: number[] = [];
  const seenDefs = new Set<string>();
  const seenRefs = new Set<string>();
  const modules = new Set<string>();

  for (const { name: capture, node } of captures) {
    const start = node.startIndex;
    while (scopes.length > 0 && scopes[scopes.length - 1].end <= start) scopes.pop();

    if (capture === 'scope') {
      const top = scopes[scopes.length - 1];
      if (!top || top.start !== start || top.end !== node.endIndex) {
        const span = { start, end: node.endIndex, row: node.startPosition.row, endRow: lastRow(node) };
        scopes.push(span);
        spans.push(span);
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
      const enclosing = enclosingRows(scopes, line, node.endIndex);
      for (const row of enclosing) shownLines.add(row);
      const signatureEnd = signatureEndOf(lineTexts, line);
      for (let row = line; row <= signatureEnd; row++) shownLines.add(row);
      defs.push({ name, subkind, line, signatureEnd, scopes: enclosing });
      sites.push(start, node.endIndex, spans.length);
    } else {
      // A name node is a definition or a reference, never both: queries list their definition
      // patterns first, so a node's definition capture comes before any reference capture of it.
      if (seenRefs.has(key) || seenDefs.has(key)) continue;
      seenRefs.add(key);
      refs.push({ name, subkind, line });
    }
  }

  setExtents(defs, sites, spans);
  const lines: Array<[number, string]> = [...shownLines]
    .sort((a, b) => a - b)
    .map((row) => [row, boundedLine(lineTexts[row] ?? '')]);
  const lineCount = source.endsWith('\n') ? lineTexts.length - 1 : lineTexts.length;
  return { lang: langId, lineCount, defs, refs: packRefs(refs), modules: [...modules].sort(), lines };
}

/**
 * The lines of the scopes enclosing a definition on `line` ending at `end`, outermost first, one
 * per line: at most the SCOPE_LINES_OUTER outermost and the SCOPE_LINES_INNER innermost of them,
 * so a definition nested thousands deep costs what one nested twenty deep does (every scope kept
 * made the tags of n nested functions n^2/2 numbers). The stack's scopes nest, so those that
 * start above the line and end past the name are its bottom part; the ones above them (the
 * definition's own scope, opening on its line) are few, and nothing else of the stack is read.
 */
function enclosingRows(stack: readonly OpenScope[], line: number, end: number): number[] {
  let top = stack.length;
  while (top > 0 && (stack[top - 1].row >= line || stack[top - 1].end < end)) top--;
  const outer: number[] = [];
  for (let i = 0; i < top && outer.length < SCOPE_LINES_OUTER; i++) {
    if (outer[outer.length - 1] !== stack[i].row) outer.push(stack[i].row);
  }
  const inner: number[] = [];
  const lastOuter = outer[outer.length - 1];
  for (let i = top - 1; i >= 0 && inner.length < SCOPE_LINES_INNER; i--) {
    const row = stack[i].row;
    if (row === lastOuter) break; // met the outer ones: the definition has no more scopes than both keep
    if (inner[inner.length - 1] !== row) inner.push(row);
  }
  return [...outer, ...inner.reverse()];
}

/** A node that ends at a row's first column ends with the row before (a trailing newline). */
function lastRow(node: SyntaxNodeView): number {
  const { row, column } = node.endPosition;
  return column === 0 && row > node.startPosition.row ? row - 1 : row;
}

/** A line as stored: trailing space off, cut at MAX_STORED_LINE with an ellipsis saying so. */
export function boundedLine(text: string): string {
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
 * node's parent and extent, per definition, is a sizeable part of extraction's cost); square
 * brackets are left out (an array constant is not a signature).
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
