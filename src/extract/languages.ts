import { MAX_CONFIG_BYTES, readBounded } from '../bounded-read.js';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { quoted } from '../errors.js';
import { escapeControls, packageRoot } from '../paths.js';
import { grammarPackageFile, loadBundled } from './bundled.js';

const require = createRequire(import.meta.url);

/** A grammar's WebAssembly build: the npm package that ships it, and its file's path. */
export interface WasmBuild {
  package: string;
  /** The file's path inside a grammar package that repomap packs (see bundled.ts); absent for a build of an npm dependency. */
  inPackage?: string;
  file: () => string;
}

/**
 * Where a language's grammar comes from. `native`: a Node binding, loaded synchronously; `wasm`
 * lists the WebAssembly builds its files are parsed with where the native runtime or grammar does
 * not load (see native.ts), the first one installed, each one whose tags are the native grammar's
 * on every fixture (test/runtimes.test.ts). `wasm`: a WebAssembly grammar run by web-tree-sitter, for languages
 * without a native package that installs cleanly from the registry. `scripts`: a single-file component (Vue, Svelte) whose
 * `<script>` blocks are parsed with another language's grammar and query, chosen by their `lang`.
 * `refused`: a native grammar a project config names that the user has not allowed (see
 * user-languages.ts): never loaded, its files are skipped as 'grammar not allowed'.
 */
export type GrammarSource =
  | { runtime: 'native'; package: string; load: () => unknown; wasm?: readonly WasmBuild[] }
  | ({ runtime: 'wasm' } & WasmBuild)
  | { runtime: 'scripts'; package: string; typescript: string; javascript: string }
  | { runtime: 'refused'; package: string };

/** A language the extractor knows: which files are written in it, its grammar and its tag query. */
export interface LanguageSpec {
  /** Stable identifier, stored in records. */
  id: string;
  /**
   * Languages whose files can use each other's names share a family (TypeScript, TSX and
   * JavaScript; Java, Kotlin and Scala; C and C++): a reference never links files of two families.
   */
  family: string;
  extensions: readonly string[];
  /** Loaded lazily, once per thread, by the extraction (see extract.ts). */
  grammar: GrammarSource;
  /** Absolute paths of the files concatenated into this language's tag query. */
  queryFiles: readonly string[];
  /**
   * Identifies the query and grammar within a repository's language set: '' for a built-in
   * language as shipped (the store's format version covers those), a digest for one a project
   * configured or overrode, so that its tags are never mixed with another query's.
   */
  signature: string;
  /** The query's text as read once (a project's language): compiled instead of reading queryFiles again. */
  querySource?: string;
  /** A project query that passed its check in a child process (see query-check.ts): only such a one is compiled here. */
  queryChecked?: true;
  /** A project query refused by that check: why (its files are skipped as 'no grammar' with it). */
  queryError?: string;
}

/** The npm package of a language's grammar, for the README's language table and error messages. */
export function grammarPackage(lang: LanguageSpec): string {
  return lang.grammar.package;
}

/**
 * A native grammar package's language: the binary packed into repomap's package for this platform
 * (see bundled.ts), else the installed npm package's; `member`, for a package whose binary exports
 * several languages (tree-sitter-typescript's typescript and tsx), names the one.
 */
function native(pkg: string, member: string | undefined, ...wasm: WasmBuild[]): GrammarSource {
  const load = (): unknown => {
    const binding = (loadBundled(pkg) ?? loadNativeGrammar(pkg)) as Record<string, unknown>;
    return member === undefined ? binding : binding[member];
  };
  return { runtime: 'native', package: pkg, load, ...(wasm.length > 0 ? { wasm } : {}) };
}

/** The WebAssembly build a grammar package ships beside its binding: `file` in its folder (packed with the native binaries, see bundled.ts). */
function shipped(pkg: string, file: string): WasmBuild {
  return { package: pkg, inPackage: file, file: () => grammarPackageFile(pkg, file) };
}

/** A build of the tree-sitter-wasms package (prebuilt .wasm files, one per language; the pack takes the ones named here). */
function wasmsBuild(name: string): WasmBuild {
  return shipped('tree-sitter-wasms', `out/tree-sitter-${name}.wasm`);
}

/** A grammar of the tree-sitter-wasms package, its only runtime. */
function wasms(name: string): GrammarSource {
  return { runtime: 'wasm', ...wasmsBuild(name) };
}

/** A single-file component's script blocks: TypeScript or JavaScript, with the ecma queries. */
const scripts: GrammarSource = { runtime: 'scripts', package: 'tree-sitter-typescript', typescript: 'typescript', javascript: 'javascript' };

function queries(...files: string[]): string[] {
  return files.map((file) => join(packageRoot, 'queries', file));
}

// Adding a language: one query file in queries/ and one entry here.
export const LANGUAGES: readonly LanguageSpec[] = (
  [
    {
      id: 'typescript',
      family: 'ecma',
      extensions: ['.ts', '.mts', '.cts'],
      grammar: native('tree-sitter-typescript', 'typescript', shipped('tree-sitter-typescript', 'tree-sitter-typescript.wasm')),
      queryFiles: queries('ecma.scm', 'typescript.scm'),
    },
    {
      id: 'tsx',
      family: 'ecma',
      extensions: ['.tsx'],
      grammar: native('tree-sitter-typescript', 'tsx', shipped('tree-sitter-typescript', 'tree-sitter-tsx.wasm')),
      queryFiles: queries('ecma.scm', 'typescript.scm', 'jsx.scm'),
    },
    {
      id: 'javascript',
      family: 'ecma',
      extensions: ['.js', '.mjs', '.cjs', '.jsx'],
      grammar: native('tree-sitter-javascript', undefined, shipped('tree-sitter-javascript', 'tree-sitter-javascript.wasm')),
      queryFiles: queries('ecma.scm', 'javascript.scm', 'jsx.scm'),
    },
    {
      id: 'python',
      family: 'python',
      extensions: ['.py', '.pyi'],
      grammar: native('tree-sitter-python', undefined, shipped('tree-sitter-python', 'tree-sitter-python.wasm')),
      queryFiles: queries('python.scm'),
    },
    {
      id: 'rust',
      family: 'rust',
      extensions: ['.rs'],
      grammar: native('tree-sitter-rust', undefined, shipped('tree-sitter-rust', 'tree-sitter-rust.wasm')),
      queryFiles: queries('rust.scm'),
    },
    {
      id: 'go',
      family: 'go',
      extensions: ['.go'],
      grammar: native('tree-sitter-go', undefined, shipped('tree-sitter-go', 'tree-sitter-go.wasm')),
      queryFiles: queries('go.scm'),
    },
    {
      id: 'java',
      family: 'jvm',
      extensions: ['.java'],
      grammar: native('tree-sitter-java', undefined, shipped('tree-sitter-java', 'tree-sitter-java.wasm')),
      queryFiles: queries('java.scm'),
    },
    {
      id: 'c',
      family: 'c',
      extensions: ['.c'],
      grammar: native('tree-sitter-c', undefined, shipped('tree-sitter-c', 'tree-sitter-c.wasm')),
      queryFiles: queries('c.scm'),
    },
    {
      id: 'cpp',
      family: 'c',
      // .h too: a C++ header read as C is mostly error nodes (reported as 'syntax errors', so not
      // mapped), while C reads well as C++: on C headers and mixed ones alike, the C++ grammar
      // leaves out fewer files than C's, with as many definitions. The C query's patterns are part
      // of C++'s.
      extensions: ['.h', '.cc', '.cpp', '.cxx', '.c++', '.hh', '.hpp', '.hxx', '.h++', '.ipp', '.tpp'],
      grammar: native('tree-sitter-cpp', undefined, shipped('tree-sitter-cpp', 'tree-sitter-cpp.wasm')),
      queryFiles: queries('cpp.scm', 'c.scm'),
    },
    {
      id: 'csharp',
      family: 'dotnet',
      extensions: ['.cs'],
      grammar: native('tree-sitter-c-sharp', undefined, shipped('tree-sitter-c-sharp', 'tree-sitter-c_sharp.wasm')),
      queryFiles: queries('csharp.scm'),
    },
    {
      id: 'ruby',
      family: 'ruby',
      extensions: ['.rb', '.rake', '.gemspec', '.ru'],
      grammar: native('tree-sitter-ruby', undefined, shipped('tree-sitter-ruby', 'tree-sitter-ruby.wasm')),
      queryFiles: queries('ruby.scm'),
    },
    {
      id: 'php',
      family: 'php',
      extensions: ['.php'],
      // `php` parses whole files, HTML around <?php ... ?> included; `php_only` expects bare PHP.
      grammar: native('tree-sitter-php', 'php', shipped('tree-sitter-php', 'tree-sitter-php.wasm')),
      queryFiles: queries('php.scm'),
    },
    {
      id: 'kotlin',
      family: 'jvm',
      extensions: ['.kt', '.kts'],
      grammar: native('@tree-sitter-grammars/tree-sitter-kotlin', undefined, shipped('@tree-sitter-grammars/tree-sitter-kotlin', 'tree-sitter-kotlin.wasm')),
      queryFiles: queries('kotlin.scm'),
    },
    {
      id: 'scala',
      family: 'jvm',
      extensions: ['.scala', '.sc'],
      grammar: native('tree-sitter-scala', undefined, shipped('tree-sitter-scala', 'tree-sitter-scala.wasm')),
      queryFiles: queries('scala.scm'),
    },
    {
      id: 'bash',
      family: 'shell',
      extensions: ['.sh', '.bash'],
      grammar: native('tree-sitter-bash', undefined, shipped('tree-sitter-bash', 'tree-sitter-bash.wasm')),
      queryFiles: queries('bash.scm'),
    },
    {
      id: 'lua',
      family: 'lua',
      extensions: ['.lua'],
      grammar: native('@tree-sitter-grammars/tree-sitter-lua', undefined, shipped('@tree-sitter-grammars/tree-sitter-lua', 'tree-sitter-lua.wasm')),
      queryFiles: queries('lua.scm'),
    },
    {
      id: 'elixir',
      family: 'elixir',
      extensions: ['.ex', '.exs'],
      // tree-sitter-elixir's peer dependency on tree-sitter is not optional: where tree-sitter fails
      // to install, npm removes tree-sitter-elixir too, its own build with it; tree-sitter-wasms' is there.
      grammar: native('tree-sitter-elixir', undefined, shipped('tree-sitter-elixir', 'tree-sitter-elixir.wasm'), wasmsBuild('elixir')),
      queryFiles: queries('elixir.scm'),
    },
    {
      id: 'haskell',
      family: 'haskell',
      extensions: ['.hs'],
      grammar: native('tree-sitter-haskell', undefined, shipped('tree-sitter-haskell', 'tree-sitter-haskell.wasm')),
      queryFiles: queries('haskell.scm'),
    },
    {
      id: 'ocaml',
      family: 'ocaml',
      extensions: ['.ml'],
      grammar: native('tree-sitter-ocaml', 'ocaml', shipped('tree-sitter-ocaml', 'tree-sitter-ocaml.wasm')),
      queryFiles: queries('ocaml.scm'),
    },
    {
      id: 'swift',
      family: 'swift',
      extensions: ['.swift'],
      // tree-sitter-swift's npm package generates its parser at install (with tree-sitter-cli, which downloads a binary).
      grammar: wasms('swift'),
      queryFiles: queries('swift.scm'),
    },
    {
      id: 'zig',
      family: 'zig',
      extensions: ['.zig'],
      grammar: native('@tree-sitter-grammars/tree-sitter-zig', undefined, shipped('@tree-sitter-grammars/tree-sitter-zig', 'tree-sitter-zig.wasm')),
      queryFiles: queries('zig.scm'),
    },
    {
      id: 'hcl',
      family: 'hcl',
      extensions: ['.tf', '.tfvars', '.hcl'],
      grammar: native('@tree-sitter-grammars/tree-sitter-hcl', undefined, shipped('@tree-sitter-grammars/tree-sitter-hcl', 'tree-sitter-hcl.wasm')),
      queryFiles: queries('hcl.scm'),
    },
    {
      id: 'dart',
      family: 'dart',
      extensions: ['.dart'],
      // tree-sitter-dart 1.0.0 on npm is a nan binding with no prebuilt binary, for an older Node.
      grammar: wasms('dart'),
      queryFiles: queries('dart.scm'),
    },
    {
      id: 'julia',
      family: 'julia',
      extensions: ['.jl'],
      grammar: native('tree-sitter-julia', undefined, shipped('tree-sitter-julia', 'tree-sitter-julia.wasm')),
      queryFiles: queries('julia.scm'),
    },
    {
      id: 'r',
      family: 'r',
      extensions: ['.r'],
      grammar: native('@davisvaughan/tree-sitter-r', undefined, shipped('@davisvaughan/tree-sitter-r', 'tree-sitter-r.wasm')),
      queryFiles: queries('r.scm'),
    },
    {
      id: 'objc',
      family: 'c',
      extensions: ['.m'],
      grammar: native('tree-sitter-objc', undefined, shipped('tree-sitter-objc', 'tree-sitter-objc.wasm')),
      queryFiles: queries('objc.scm', 'c.scm'),
    },
    {
      id: 'groovy',
      family: 'jvm',
      extensions: ['.groovy', '.gradle'],
      grammar: native('tree-sitter-groovy', undefined, shipped('tree-sitter-groovy', 'tree-sitter-groovy.wasm')),
      queryFiles: queries('groovy.scm', 'java.scm'),
    },
    {
      id: 'solidity',
      family: 'solidity',
      extensions: ['.sol'],
      // tree-sitter-solidity on npm has a prebuilt binary but depends on yarn (an install script of its own).
      grammar: wasms('solidity'),
      queryFiles: queries('solidity.scm'),
    },
    {
      id: 'elisp',
      family: 'elisp',
      extensions: ['.el'],
      // A package without prebuilt binaries: the clone's npm ci compiles it, and the pack ships
      // that binary, for the packing platform only (see scripts/pack-grammars.ts). No WebAssembly fallback: tree-sitter-wasms' elisp is an older grammar (no function_quote node).
      grammar: native('tree-sitter-elisp', undefined),
      queryFiles: queries('elisp.scm'),
    },
    {
      id: 'commonlisp',
      family: 'commonlisp',
      // Not .cl: OpenCL sources use it as much.
      extensions: ['.lisp', '.lsp', '.asd'],
      grammar: native('tree-sitter-commonlisp', undefined),
      queryFiles: queries('commonlisp.scm'),
    },
    {
      id: 'd',
      family: 'd',
      extensions: ['.d'],
      // A package without prebuilt binaries: the clone's npm ci compiles it, and the pack ships
      // that binary, for the packing platform only (see scripts/pack-grammars.ts).
      grammar: native('tree-sitter-d', undefined),
      queryFiles: queries('d.scm'),
    },
    {
      id: 'elm',
      family: 'elm',
      extensions: ['.elm'],
      // A package without prebuilt binaries: the clone's npm ci compiles it, and the pack ships
      // that binary, for the packing platform only (see scripts/pack-grammars.ts). No WebAssembly fallback: tree-sitter-wasms' elm fails to load in web-tree-sitter 0.25 (memory access out of bounds).
      grammar: native('@elm-tooling/tree-sitter-elm', undefined),
      queryFiles: queries('elm.scm'),
    },
    {
      id: 'vue',
      family: 'ecma',
      extensions: ['.vue'],
      grammar: scripts,
      queryFiles: [],
    },
    {
      id: 'svelte',
      family: 'ecma',
      extensions: ['.svelte'],
      grammar: scripts,
      queryFiles: [],
    },
  ] satisfies Array<Omit<LanguageSpec, 'signature'>>
).map((lang) => ({ ...lang, signature: '' }));

/**
 * Loads an installed native grammar package's binding as its entry point does, without running
 * that entry point: some are ES modules with top-level await (tree-sitter-c-sharp 0.23.5,
 * @tree-sitter-grammars/tree-sitter-lua 0.4.1), which require() rejects and loadGrammar, being
 * synchronous, cannot import(). node-gyp-build finds the package's prebuilt (or locally built)
 * binary, and the grammar's node types are attached as the tree-sitter binding expects.
 */
function loadNativeGrammar(pkg: string): unknown {
  return loadNativeGrammarAt(require.resolve(`${pkg}/package.json`));
}

/** loadNativeGrammar for the package whose package.json is at `manifest`. */
export function loadNativeGrammarAt(manifest: string): unknown {
  const requireFromPackage = createRequire(manifest);
  const grammar = requireFromPackage('node-gyp-build')(dirname(manifest)) as { nodeTypeInfo?: unknown };
  try {
    grammar.nodeTypeInfo = requireFromPackage('./src/node-types.json');
  } catch {
    // Optional, as in the package's own entry point: queries do not need it.
  }
  return grammar;
}

/**
 * The languages of one repository: the built-in ones, with what its project configured or
 * overrode (see user-languages.ts). Every question about a path's language goes through one.
 */
export class LanguageSet {
  private readonly byExtension = new Map<string, LanguageSpec>();
  private readonly byId: Map<string, LanguageSpec>;

  /** Whether a language of this set runs a repository's own tag query (see isRepositoryOwn). */
  readonly hasRepositoryOwn: boolean;

  constructor(readonly list: readonly LanguageSpec[]) {
    for (const lang of list) for (const ext of lang.extensions) this.byExtension.set(ext, lang);
    this.byId = new Map(list.map((lang) => [lang.id, lang]));
    this.hasRepositoryOwn = list.some((lang) => runsOwnQuery(lang));
  }

  /**
   * Whether extracting this path's tags runs a repository's own tag query (and, with it, a grammar
   * the project named): such a file is parsed in a child process (see process-pool.ts), where a
   * query that crashes or will not stop takes nothing else down. A single-file component's script
   * blocks may be in such a language.
   */
  isRepositoryOwn(path: string): boolean {
    const lang = this.forPath(path);
    if (!lang || !this.hasRepositoryOwn) return false;
    return lang.grammar.runtime === 'scripts' || runsOwnQuery(lang);
  }

  /** The language of a path, by its extension; undefined when no grammar handles it. */
  forPath(path: string): LanguageSpec | undefined {
    return this.byExtension.get(extensionOf(path));
  }

  byIdOf(id: string): LanguageSpec | undefined {
    return this.byId.get(id);
  }

  /** The ids of the languages these paths are in, each once, in order of first use; with `minFiles`, only those with that many files. */
  of(paths: readonly string[], minFiles = 1): string[] {
    const counts = new Map<string, number>();
    for (const path of paths) {
      const id = this.forPath(path)?.id;
      if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return [...counts].filter(([, count]) => count >= minFiles).map(([id]) => id);
  }
}

/** A language whose query is a project's and will be compiled (one refused, or of a refused grammar, never loads). */
function runsOwnQuery(lang: LanguageSpec): boolean {
  return !isPackageQuery(lang.queryFiles) && lang.queryError === undefined && lang.grammar.runtime !== 'refused';
}

/** The languages whose grammars a language's files are parsed with: its own, or a single-file component's script languages (none: a refused grammar). */
export function parsedWith(lang: LanguageSpec, set: LanguageSet): LanguageSpec[] {
  if (lang.grammar.runtime === 'refused') return [];
  if (lang.grammar.runtime !== 'scripts') return [lang];
  return [lang.grammar.typescript, lang.grammar.javascript].flatMap((id) => set.byIdOf(id) ?? []);
}

/** The built-in languages, as shipped. */
export const BUILTIN_LANGUAGES = new LanguageSet(LANGUAGES);

/**
 * Families of the extensions that projects added (see noteFamilies). Family questions come from
 * code that knows paths, not repositories (the graph, resolution, ranking); a process serving
 * repositories that map one new extension to different families sees the last one's.
 */
const addedFamilies = new Map<string, string>();

/** Notes the families of a repository's languages for familyOfPath (built-in extensions keep theirs). */
export function noteFamilies(set: LanguageSet): void {
  for (const lang of set.list) {
    for (const ext of lang.extensions) if (!BUILTIN_LANGUAGES.forPath(`x${ext}`)) addedFamilies.set(ext, lang.family);
  }
}

/** The built-in language of a path, by its extension; undefined when no grammar handles it. */
export function languageForPath(path: string): LanguageSpec | undefined {
  return BUILTIN_LANGUAGES.forPath(path);
}

/** The ids of the built-in languages these paths are in (see LanguageSet.of). */
export function languagesOf(paths: readonly string[], minFiles = 1): string[] {
  return BUILTIN_LANGUAGES.of(paths, minFiles);
}

/** A path's extension as languages map it: lower case, with its dot; '' for none. */
export function extensionOf(path: string): string {
  return extname(path).toLowerCase();
}

/** The language family of a path (see LanguageSpec.family); undefined when no grammar handles it. */
export function familyOfPath(path: string): string | undefined {
  return BUILTIN_LANGUAGES.forPath(path)?.family ?? addedFamilies.get(extensionOf(path));
}

export function languageById(id: string): LanguageSpec | undefined {
  return BUILTIN_LANGUAGES.byIdOf(id);
}

/**
 * The text of a language's tag query: as read once (querySource), or its files joined by newlines
 * (see queryPosition), each read bounded (a project's were checked to lie in its root when its
 * languages were resolved).
 */
export function readQuerySource(lang: LanguageSpec): string {
  return lang.querySource ?? lang.queryFiles.map((file) => queryBytes(file).toString('utf8')).join('\n');
}

/** A query file's bytes, read as readBounded reads (one that is gone is an error here: it was there when resolved). */
function queryBytes(file: string): Buffer {
  const bytes = readBounded(file, { maxBytes: MAX_CONFIG_BYTES });
  if (bytes === undefined) throw new Error(`${file}: no such file`);
  return bytes;
}

/** Whether a query is repomap's own (every file of it in the package's queries/): trusted, compiled unchecked. */
export function isPackageQuery(queryFiles: readonly string[]): boolean {
  const dir = join(packageRoot, 'queries');
  return queryFiles.every((file) => dirname(file) === dir);
}

/**
 * The file, line and column (1-based) of a byte offset into readQuerySource's text: tree-sitter
 * reports a query error as a byte offset into the whole text. `source` is that text, when at hand
 * (the files are then not read again).
 */
export function queryPosition(lang: Pick<LanguageSpec, 'queryFiles'>, offset: number, source?: string): { file: string; line: number; column: number } {
  let start = 0;
  for (const [i, file] of lang.queryFiles.entries()) {
    // A single file's text is the whole source (a project's query, never read again).
    const bytes = source !== undefined && lang.queryFiles.length === 1 ? Buffer.from(source) : queryBytes(file);
    const end = start + bytes.length;
    if (offset <= end || i === lang.queryFiles.length - 1) {
      const lines = bytes.subarray(0, Math.max(0, offset - start)).toString('utf8').split('\n');
      return { file, line: lines.length, column: lines[lines.length - 1].length + 1 };
    }
    start = end + 1; // the joining newline
  }
  return { file: '', line: 0, column: 0 };
}

/**
 * What a query tree-sitter rejects is: its file, line and column (when the error gives an offset
 * into `source`, the query's text), and the error's first line, escaped and cut: it may quote the
 * query (web-tree-sitter quotes up to 100 characters of the failing line), which is repository
 * content, control and bidi characters included (see escapeControls).
 */
export function invalidQueryMessage(lang: Pick<LanguageSpec, 'id' | 'queryFiles'>, source: string, message: string, offset: number | undefined): string {
  const where = offset === undefined ? undefined : queryPosition(lang, offset, source);
  const place = where ? `${where.file}:${where.line}:${where.column}` : lang.queryFiles.join(', ');
  return `${escapeControls(place)}: tag query for ${escapeControls(lang.id)} is invalid (${quoted(escapeControls(message.split('\n')[0]))})`;
}

// Which grammars this thread has loaded, for tests and diagnostics (see extract.ts).
const loadedIds = new Set<string>();

/** Notes that this thread loaded a language's grammar. */
export function noteLoaded(id: string): void {
  loadedIds.add(id);
}

/** Ids of the languages whose grammar was loaded in this thread, sorted. */
export function loadedLanguages(): string[] {
  return [...loadedIds].sort();
}
