// Languages a project adds or overrides without editing repomap: the `languages` key of its
// project config maps extensions to a grammar (a package resolved from the repository root, or a
// .wasm file in it) and a tag query file; `.repomap/queries/<id>.scm` replaces the query of a
// language (built-in or added). What comes out is plain data (LanguageOverride), sent to the parse
// workers with each batch, which turn it into a LanguageSet (languageSet).
//
// Trust: a native grammar is code, run in the process; a repository cannot choose it alone. One
// the user has not allowed (--allow-grammar, allowGrammars, the user config: see user-config.ts) is
// neither resolved nor loaded, and its files are skipped as 'grammar not allowed'. A WebAssembly
// grammar runs sandboxed, so a .wasm file inside the root needs no permission. Every file named
// here (a query, a .wasm grammar) is read as readBounded reads: inside the root once symlinks are
// resolved, a regular file, under a size cap.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { MAX_CONFIG_BYTES, readBounded } from '../bounded-read.js';
import { badRequest, describeOsCode, errorCode, isAbsent, quoted } from '../errors.js';
import { escapeControls, shellWord, shownQuoted } from '../paths.js';
import { readUserConfig, userConfigFile } from '../user-config.js';
import { BUILTIN_LANGUAGES, type GrammarSource, LANGUAGES, LanguageSet, type LanguageSpec, loadNativeGrammarAt, noteFamilies } from './languages.js';

/** Where a project's own query files are: `<root>/.repomap/queries/<language id>.scm`. */
export const QUERY_DIR = join('.repomap', 'queries');

/** Whether a changed path (relative to the root) is a query file of QUERY_DIR. */
export function isQueryPath(path: string): boolean {
  return path.startsWith('.repomap/queries/') && path.endsWith('.scm');
}

/**
 * Whether a path (relative to the root) is QUERY_DIR or the folder holding it: the queries are read
 * from there whatever discovery lists (git may ignore `.repomap/`), so a watcher follows them, and
 * their own entry coming or going (made, deleted, renamed) can change the queries.
 */
export function isQueryFolder(path: string): boolean {
  return path === QUERY_DIR || path === dirname(QUERY_DIR);
}

/** One entry of the config's `languages` key, as written. */
export interface LanguageConfig {
  /** Extensions (with their dot) parsed as this language; a built-in language's own when omitted. */
  extensions?: readonly string[];
  /** An npm package resolved from the root (native: loaded only when the user allows it), or a path to a .wasm grammar inside the root. */
  grammar?: string;
  /** The property of the package's export that is the grammar (tree-sitter-typescript's `tsx`). */
  export?: string;
  /** The tag query file, relative to the root; default `.repomap/queries/<id>.scm`. */
  query?: string;
  /** The language family (see LanguageSpec.family): a built-in language's, or the id, when omitted. */
  family?: string;
}

/**
 * A grammar as the workers receive it: where to load it from, resolved in the main thread; or
 * `refused`: a native grammar the user has not allowed, never resolved (its files are skipped).
 */
export type ResolvedGrammar =
  | { runtime: 'native'; package: string; manifest: string; entry: string; export?: string }
  | { runtime: 'wasm'; package: string; file: string; digest: string }
  | { runtime: 'refused'; package: string };

/** A project's language, resolved: plain data, sent to the workers. */
export interface LanguageOverride {
  id: string;
  family: string;
  extensions: readonly string[];
  /** Absent: the built-in language's grammar. */
  grammar?: ResolvedGrammar;
  queryFiles: readonly string[];
  /** The text of queryFiles as read here, joined by newlines: what is checked and compiled (the files are not read again). */
  queryText: string;
  /** A digest of what decides its tags: grammar, query text, extensions (see LanguageSpec.signature). */
  signature: string;
  /** Set by checkQueries (see query-check.ts): the project query passed its check (or is the package's own). */
  queryChecked?: true;
  /** Set by checkQueries: why the query was refused; the language's files are skipped with it. */
  queryError?: string;
}

const ID = /^[a-z][a-z0-9_-]*$/;
const EXTENSION = /^\.[^/\\\s]+$/;
/** The most languages a config may add or change, and extensions one may list: each costs a query compiled per parse thread. */
export const MAX_LANGUAGES = 64;
export const MAX_EXTENSIONS = 64;
/** The longest `grammar`, `export`, `query` or `family` (a path's length on Linux): each travels with every batch to the workers. */
const MAX_NAME_LENGTH = 4096;
/** The most characters of a language id or key a message quotes (see quoted). */
const SHORT_QUOTE = 80;
/** The largest .wasm grammar read (64 MiB; the largest of tree-sitter-wasms is under 10). */
const MAX_WASM_BYTES = 64 * 1024 * 1024;

/** What is wrong with a config's `languages` value, or undefined when it is well formed. */
export function checkLanguagesConfig(value: unknown): string | undefined {
  const expected = 'an object of language ids (lower case) to { extensions, grammar, export, query, family }';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return expected;
  const count = Object.keys(value).length;
  if (count > MAX_LANGUAGES) return `${expected}; it has ${count} languages, more than ${MAX_LANGUAGES}`;
  for (const [id, entry] of Object.entries(value)) {
    // An id is a short word: one quoted is cut shorter than other values, the message being long already.
    const name = shownQuoted(id, SHORT_QUOTE);
    if (!ID.test(id)) return `${expected}; '${name}' is not such an id`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return `${expected}; '${name}' is not an object`;
    for (const [key, field] of Object.entries(entry)) {
      if (key === 'extensions') {
        if (!Array.isArray(field) || field.length === 0 || !field.every((ext) => typeof ext === 'string' && EXTENSION.test(ext))) {
          return `${expected}; '${name}.extensions' must be a list of extensions such as ".foo"`;
        }
        if (field.length > MAX_EXTENSIONS) return `${expected}; '${name}.extensions' lists ${field.length} extensions, more than ${MAX_EXTENSIONS}`;
      } else if (['grammar', 'export', 'query', 'family'].includes(key)) {
        if (typeof field !== 'string' || field === '') return `${expected}; '${name}.${key}' must be a non-empty string`;
        if (field.length > MAX_NAME_LENGTH) return `${expected}; '${name}.${key}' must be at most ${MAX_NAME_LENGTH} characters, not ${field.length}`;
      } else return `${expected}; '${name}' has an unknown key '${shownQuoted(key, SHORT_QUOTE)}'`;
    }
    const builtin = BUILTIN_LANGUAGES.byIdOf(id);
    const given = entry as LanguageConfig;
    if (!builtin && (!given.extensions || !given.grammar)) return `${expected}; '${name}' is not a built-in language, so it needs extensions and a grammar`;
  }
  return undefined;
}

/**
 * A repository's languages beyond the built-in ones as shipped: those its config names and those
 * with a query file in .repomap/queries/. Grammars are resolved (not loaded) and queries read
 * here, so that a missing package or file, or one outside the root, is one bad-request
 * RepomapError naming it; a query that does not compile is found where it is compiled (see
 * extract.ts), and its files fall back to 'no grammar'. A native grammar is resolved only when
 * `allowGrammars` or the user config (read only then) names it; else it is `refused`.
 */
export function resolveLanguages(root: string, config: Readonly<Record<string, LanguageConfig>> = {}, allowGrammars: readonly string[] = []): LanguageOverride[] {
  const queryFiles = projectQueryFiles(root);
  const ids = [...new Set([...Object.keys(config), ...queryFiles.keys()])].sort();
  const allowed = allowedGrammars(allowGrammars);
  const overrides: LanguageOverride[] = [];
  for (const id of ids) {
    const given = config[id] ?? {};
    const builtin = BUILTIN_LANGUAGES.byIdOf(id);
    if (!builtin && !config[id]) {
      throw badRequest(`${escapeControls(queryFiles.get(id)!)}: no language '${shownQuoted(id)}' (built-in ones: ${LANGUAGES.map((lang) => lang.id).join(', ')}; add others under 'languages' in the project config)`);
    }
    const grammar = given.grammar === undefined ? undefined : resolveGrammar(root, id, given.grammar, given.export, allowed);
    const query = given.query !== undefined ? resolve(root, given.query) : queryFiles.get(id);
    const files = query !== undefined ? [query] : builtin && !grammar ? builtin.queryFiles : undefined;
    if (!files) throw badRequest(`language '${id}': no tag query (give 'query', or write ${join(QUERY_DIR, `${id}.scm`)})`);
    // The project's own query files, read from the root; the built-in ones, from repomap's package.
    const own = query !== undefined;
    const name = given.query !== undefined ? `language '${id}': query '${shownQuoted(given.query)}'` : undefined;
    const texts = files.map((file) => {
      const text = readBounded(file, { maxBytes: MAX_CONFIG_BYTES, ...(own ? { root } : {}), ...(name ? { name } : {}) });
      if (text === undefined) throw badRequest(`language '${id}': cannot read its tag query ${shownQuoted(file)} (it does not exist)`);
      return text.toString('utf8');
    });
    const extensions = (given.extensions ?? builtin?.extensions ?? []).map((ext) => ext.toLowerCase());
    const family = given.family ?? builtin?.family ?? id;
    const signature = createHash('sha1')
      .update(JSON.stringify({ grammar: grammar ? grammarIdentity(grammar) : 'builtin', extensions, family, texts }))
      .digest('hex')
      .slice(0, 16);
    overrides.push({ id, family, extensions, ...(grammar ? { grammar } : {}), queryFiles: files, queryText: texts.join('\n'), signature });
  }
  return overrides;
}

/** The query files of QUERY_DIR by language id; a QUERY_DIR that is there but cannot be listed (a file, a FIFO) is one line. */
function projectQueryFiles(root: string): Map<string, string> {
  const queryDir = join(root, QUERY_DIR);
  const queryFiles = new Map<string, string>();
  let names: string[];
  try {
    names = readdirSync(queryDir);
  } catch (err) {
    if (isAbsent(err) && !existsSync(queryDir)) return queryFiles;
    throw badRequest(`${queryDir}: cannot be listed (${describeOsCode(errorCode(err))})`);
  }
  for (const file of names.sort()) {
    if (file.endsWith('.scm')) queryFiles.set(file.slice(0, -'.scm'.length), join(queryDir, file));
  }
  return queryFiles;
}

/** Whether a grammar is allowed: the caller's list, else the user config's, read the first time a native grammar asks. */
function allowedGrammars(given: readonly string[]): (grammar: string) => boolean {
  let fromUser: readonly string[] | undefined;
  return (grammar) => given.includes(grammar) || (fromUser ??= readUserConfig().allowGrammars).includes(grammar);
}

function resolveGrammar(root: string, id: string, grammar: string, exported: string | undefined, allowed: (grammar: string) => boolean): ResolvedGrammar {
  const shown = shownQuoted(grammar);
  if (grammar.endsWith('.wasm')) {
    if (isAbsolute(grammar)) throw badRequest(`language '${id}': grammar '${shown}' is an absolute path; a WebAssembly grammar is a file inside the repository, named from its root`);
    const file = resolve(root, grammar);
    const bytes = readBounded(file, { maxBytes: MAX_WASM_BYTES, root, name: `language '${id}': grammar '${shown}'` });
    if (bytes === undefined) throw badRequest(`language '${id}': grammar file ${shownQuoted(file)} does not exist`);
    return { runtime: 'wasm', package: grammar, file, digest: createHash('sha1').update(bytes).digest('hex') };
  }
  // Not even resolved: resolving reads the package.json files the repository may have committed.
  if (!allowed(grammar)) return { runtime: 'refused', package: grammar };
  const requireFromRoot = createRequire(join(root, 'package.json'));
  let entry: string;
  try {
    entry = requireFromRoot.resolve(grammar);
  } catch {
    throw badRequest(`language '${id}': grammar package '${shown}' is not installed in ${root} (npm install it there, or give a .wasm file)`);
  }
  return { runtime: 'native', package: grammar, manifest: manifestOf(entry, grammar), entry, ...(exported ? { export: exported } : {}) };
}

/**
 * The notice for each language whose native grammar the user has not allowed (said once for each
 * time the languages are read: a run, or a daemon's reading of its config), naming how to allow it.
 */
export function refusedGrammarNotices(overrides: readonly LanguageOverride[]): string[] {
  return overrides.flatMap((lang) =>
    lang.grammar?.runtime === 'refused'
      ? [
          `repomap: ${lang.id}: grammar ${shownQuoted(lang.grammar.package)} is not allowed: a native grammar runs code, which a repository cannot choose alone; ` +
            `allow it with --allow-grammar ${shellWord(lang.grammar.package)} (the library's allowGrammars) or in "allowGrammars" of ${userConfigFile()}; ` +
            `its files are left out as 'grammar not allowed'`,
        ]
      : [],
  );
}

/** The package.json of the package an entry file belongs to. */
function manifestOf(entry: string, pkg: string): string {
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === pkg) return manifest;
  }
  throw badRequest(`grammar package '${shownQuoted(pkg)}': no package.json above ${entry}`);
}

/** What changes a grammar's parses: its package's version (or the .wasm file's content). */
function grammarIdentity(grammar: ResolvedGrammar): string {
  if (grammar.runtime === 'wasm') return grammar.digest;
  if (grammar.runtime === 'refused') return `refused:${grammar.package}`;
  const { version } = JSON.parse(readFileSync(grammar.manifest, 'utf8')) as { version?: string };
  return `${grammar.package}@${version ?? '?'}:${grammar.export ?? ''}`;
}

function grammarSource(grammar: ResolvedGrammar): GrammarSource {
  if (grammar.runtime === 'wasm') return { runtime: 'wasm', package: grammar.package, file: () => grammar.file };
  if (grammar.runtime === 'refused') return grammar;
  return {
    runtime: 'native',
    package: grammar.package,
    load: () => {
      let loaded: unknown;
      try {
        loaded = createRequire(grammar.manifest)(grammar.entry);
      } catch (err) {
        // An ES module entry with top-level await, which require() cannot load (see loadNativeGrammarAt).
        if ((err as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ASYNC_MODULE') throw err;
        loaded = loadNativeGrammarAt(grammar.manifest);
      }
      if (grammar.export === undefined) return loaded;
      const picked = (loaded as Record<string, unknown>)[grammar.export];
      if (picked === undefined) throw new Error(`${grammar.package} exports no '${grammar.export}'`);
      return picked;
    },
  };
}

const sets = new Map<string, LanguageSet>();

/**
 * The language set of a repository with these overrides (the built-in one without any), the same
 * object for the same overrides: a worker keeps one per repository it parses for.
 */
export function languageSet(overrides: readonly LanguageOverride[] | undefined): LanguageSet {
  if (!overrides || overrides.length === 0) return BUILTIN_LANGUAGES;
  const key = overrides.map((lang) => `${lang.id}:${lang.signature}:${lang.queryChecked ? 'checked' : (lang.queryError ?? '')}`).join(',');
  let set = sets.get(key);
  if (!set) {
    const added = new Map<string, LanguageSpec>();
    for (const override of overrides) {
      const builtin = BUILTIN_LANGUAGES.byIdOf(override.id);
      const grammar = override.grammar ? grammarSource(override.grammar) : builtin!.grammar;
      const { queryText, queryChecked, queryError } = override;
      const query = { querySource: queryText, ...(queryChecked ? { queryChecked } : {}), ...(queryError !== undefined ? { queryError } : {}) };
      added.set(override.id, { id: override.id, family: override.family, extensions: override.extensions, grammar, queryFiles: override.queryFiles, signature: override.signature, ...query });
    }
    const taken = new Set([...added.values()].flatMap((lang) => lang.extensions));
    const list = LANGUAGES.filter((lang) => !added.has(lang.id)).map((lang) => ({ ...lang, extensions: lang.extensions.filter((ext) => !taken.has(ext)) }));
    set = new LanguageSet([...list, ...added.values()]);
    noteFamilies(set);
    sets.set(key, set);
  }
  return set;
}
