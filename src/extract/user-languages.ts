// Languages a project adds or overrides without editing repomap: the `languages` key of its
// project config maps extensions to a grammar it has installed (a package resolved from the
// repository root, or a .wasm file) and a tag query file; `.repomap/queries/<id>.scm` replaces the
// query of a language (built-in or added). What comes out is plain data (LanguageOverride), sent
// to the parse workers with each batch, which turn it into a LanguageSet (languageSet).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { badRequest } from '../errors.js';
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
  /** An npm package installed in the repository (native), or a path to a .wasm grammar (relative to the root). */
  grammar?: string;
  /** The property of the package's export that is the grammar (tree-sitter-typescript's `tsx`). */
  export?: string;
  /** The tag query file, relative to the root; default `.repomap/queries/<id>.scm`. */
  query?: string;
  /** The language family (see LanguageSpec.family): a built-in language's, or the id, when omitted. */
  family?: string;
}

/** A grammar as the workers receive it: where to load it from, resolved in the main thread. */
export type ResolvedGrammar =
  | { runtime: 'native'; package: string; manifest: string; entry: string; export?: string }
  | { runtime: 'wasm'; package: string; file: string };

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

/** What is wrong with a config's `languages` value, or undefined when it is well formed. */
export function checkLanguagesConfig(value: unknown): string | undefined {
  const expected = 'an object of language ids (lower case) to { extensions, grammar, export, query, family }';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return expected;
  for (const [id, entry] of Object.entries(value)) {
    if (!ID.test(id)) return `${expected}; '${id}' is not such an id`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return `${expected}; '${id}' is not an object`;
    for (const [key, field] of Object.entries(entry)) {
      if (key === 'extensions') {
        if (!Array.isArray(field) || field.length === 0 || !field.every((ext) => typeof ext === 'string' && EXTENSION.test(ext))) {
          return `${expected}; '${id}.extensions' must be a list of extensions such as ".foo"`;
        }
      } else if (['grammar', 'export', 'query', 'family'].includes(key)) {
        if (typeof field !== 'string' || field === '') return `${expected}; '${id}.${key}' must be a non-empty string`;
      } else return `${expected}; '${id}' has an unknown key '${key}'`;
    }
    const builtin = BUILTIN_LANGUAGES.byIdOf(id);
    const given = entry as LanguageConfig;
    if (!builtin && (!given.extensions || !given.grammar)) return `${expected}; '${id}' is not a built-in language, so it needs extensions and a grammar`;
  }
  return undefined;
}

/**
 * A repository's languages beyond the built-in ones as shipped: those its config names and those
 * with a query file in .repomap/queries/. Grammars are resolved (not loaded) and queries read
 * here, so that a missing package or file is one bad-request RepomapError naming it; a query that does not
 * compile is found where it is compiled (see extract.ts), and its files fall back to 'no grammar'.
 */
export function resolveLanguages(root: string, config: Readonly<Record<string, LanguageConfig>> = {}): LanguageOverride[] {
  const queryDir = join(root, QUERY_DIR);
  const queryFiles = new Map<string, string>();
  if (existsSync(queryDir)) {
    for (const file of readdirSync(queryDir).sort()) {
      if (file.endsWith('.scm')) queryFiles.set(file.slice(0, -'.scm'.length), join(queryDir, file));
    }
  }
  const ids = [...new Set([...Object.keys(config), ...queryFiles.keys()])].sort();
  const overrides: LanguageOverride[] = [];
  for (const id of ids) {
    const given = config[id] ?? {};
    const builtin = BUILTIN_LANGUAGES.byIdOf(id);
    if (!builtin && !config[id]) {
      throw badRequest(`${queryFiles.get(id)}: no language '${id}' (built-in ones: ${LANGUAGES.map((lang) => lang.id).join(', ')}; add others under 'languages' in the project config)`);
    }
    const grammar = given.grammar === undefined ? undefined : resolveGrammar(root, id, given.grammar, given.export);
    const query = given.query !== undefined ? resolve(root, given.query) : queryFiles.get(id);
    const files = query !== undefined ? [query] : builtin && !grammar ? builtin.queryFiles : undefined;
    if (!files) throw badRequest(`language '${id}': no tag query (give 'query', or write ${join(QUERY_DIR, `${id}.scm`)})`);
    const texts = files.map((file) => {
      try {
        return readFileSync(file, 'utf8');
      } catch (err) {
        throw badRequest(`language '${id}': cannot read its tag query ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      }
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

function resolveGrammar(root: string, id: string, grammar: string, exported: string | undefined): ResolvedGrammar {
  if (grammar.endsWith('.wasm')) {
    const file = isAbsolute(grammar) ? grammar : resolve(root, grammar);
    if (!existsSync(file)) throw badRequest(`language '${id}': grammar file ${file} does not exist`);
    return { runtime: 'wasm', package: grammar, file };
  }
  const requireFromRoot = createRequire(join(root, 'package.json'));
  let entry: string;
  try {
    entry = requireFromRoot.resolve(grammar);
  } catch {
    throw badRequest(`language '${id}': grammar package '${grammar}' is not installed in ${root} (npm install it there, or give a .wasm file)`);
  }
  return { runtime: 'native', package: grammar, manifest: manifestOf(entry, grammar), entry, ...(exported ? { export: exported } : {}) };
}

/** The package.json of the package an entry file belongs to. */
function manifestOf(entry: string, pkg: string): string {
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === pkg) return manifest;
  }
  throw badRequest(`grammar package '${pkg}': no package.json above ${entry}`);
}

/** What changes a grammar's parses: its package's version (or the .wasm file's content). */
function grammarIdentity(grammar: ResolvedGrammar): string {
  if (grammar.runtime === 'wasm') return createHash('sha1').update(readFileSync(grammar.file)).digest('hex');
  const { version } = JSON.parse(readFileSync(grammar.manifest, 'utf8')) as { version?: string };
  return `${grammar.package}@${version ?? '?'}:${grammar.export ?? ''}`;
}

function grammarSource(grammar: ResolvedGrammar): GrammarSource {
  if (grammar.runtime === 'wasm') return { runtime: 'wasm', package: grammar.package, file: () => grammar.file };
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
