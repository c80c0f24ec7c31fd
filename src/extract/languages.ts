import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { packageRoot } from '../paths.js';

const require = createRequire(import.meta.url);

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
  /** npm package of the grammar, for the README's language table and error messages. */
  grammarPackage: string;
  /** Loads the native grammar object (called lazily, once per thread). */
  loadGrammar: () => unknown;
  /** Files in queries/ concatenated into this language's tag query. */
  queryFiles: readonly string[];
}

// Adding a language: one query file in queries/ and one entry here.
export const LANGUAGES: readonly LanguageSpec[] = [
  {
    id: 'typescript',
    family: 'ecma',
    extensions: ['.ts', '.mts', '.cts'],
    grammarPackage: 'tree-sitter-typescript',
    loadGrammar: () => require('tree-sitter-typescript').typescript,
    queryFiles: ['ecma.scm', 'typescript.scm'],
  },
  {
    id: 'tsx',
    family: 'ecma',
    extensions: ['.tsx'],
    grammarPackage: 'tree-sitter-typescript',
    loadGrammar: () => require('tree-sitter-typescript').tsx,
    queryFiles: ['ecma.scm', 'typescript.scm', 'jsx.scm'],
  },
  {
    id: 'javascript',
    family: 'ecma',
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    grammarPackage: 'tree-sitter-javascript',
    loadGrammar: () => require('tree-sitter-javascript'),
    queryFiles: ['ecma.scm', 'javascript.scm', 'jsx.scm'],
  },
  {
    id: 'python',
    family: 'python',
    extensions: ['.py', '.pyi'],
    grammarPackage: 'tree-sitter-python',
    loadGrammar: () => require('tree-sitter-python'),
    queryFiles: ['python.scm'],
  },
  {
    id: 'rust',
    family: 'rust',
    extensions: ['.rs'],
    grammarPackage: 'tree-sitter-rust',
    loadGrammar: () => require('tree-sitter-rust'),
    queryFiles: ['rust.scm'],
  },
  {
    id: 'go',
    family: 'go',
    extensions: ['.go'],
    grammarPackage: 'tree-sitter-go',
    loadGrammar: () => require('tree-sitter-go'),
    queryFiles: ['go.scm'],
  },
  {
    id: 'java',
    family: 'jvm',
    extensions: ['.java'],
    grammarPackage: 'tree-sitter-java',
    loadGrammar: () => require('tree-sitter-java'),
    queryFiles: ['java.scm'],
  },
  {
    id: 'c',
    family: 'c',
    extensions: ['.c'],
    grammarPackage: 'tree-sitter-c',
    loadGrammar: () => require('tree-sitter-c'),
    queryFiles: ['c.scm'],
  },
  {
    id: 'cpp',
    family: 'c',
    // .h too: a C++ header read as C is mostly error nodes (reported as 'syntax errors', so not
    // mapped), while C reads well as C++. On this machine's headers (924 from /usr/include, C
    // mostly) the C++ grammar left out 17 files against 25 for C, with as many definitions; on
    // 400 headers of mixed C and C++, 10 against 34. The C query's patterns are part of C++'s.
    extensions: ['.h', '.cc', '.cpp', '.cxx', '.c++', '.hh', '.hpp', '.hxx', '.h++', '.ipp', '.tpp'],
    grammarPackage: 'tree-sitter-cpp',
    loadGrammar: () => require('tree-sitter-cpp'),
    queryFiles: ['cpp.scm', 'c.scm'],
  },
  {
    id: 'csharp',
    family: 'dotnet',
    extensions: ['.cs'],
    grammarPackage: 'tree-sitter-c-sharp',
    loadGrammar: () => loadNativeGrammar('tree-sitter-c-sharp'),
    queryFiles: ['csharp.scm'],
  },
  {
    id: 'ruby',
    family: 'ruby',
    extensions: ['.rb', '.rake', '.gemspec', '.ru'],
    grammarPackage: 'tree-sitter-ruby',
    loadGrammar: () => require('tree-sitter-ruby'),
    queryFiles: ['ruby.scm'],
  },
  {
    id: 'php',
    family: 'php',
    extensions: ['.php'],
    grammarPackage: 'tree-sitter-php',
    // `php` parses whole files, HTML around <?php ... ?> included; `php_only` expects bare PHP.
    loadGrammar: () => require('tree-sitter-php').php,
    queryFiles: ['php.scm'],
  },
  {
    id: 'kotlin',
    family: 'jvm',
    extensions: ['.kt', '.kts'],
    grammarPackage: '@tree-sitter-grammars/tree-sitter-kotlin',
    loadGrammar: () => require('@tree-sitter-grammars/tree-sitter-kotlin'),
    queryFiles: ['kotlin.scm'],
  },
  {
    id: 'scala',
    family: 'jvm',
    extensions: ['.scala', '.sc'],
    grammarPackage: 'tree-sitter-scala',
    loadGrammar: () => require('tree-sitter-scala'),
    queryFiles: ['scala.scm'],
  },
  {
    id: 'bash',
    family: 'shell',
    extensions: ['.sh', '.bash'],
    grammarPackage: 'tree-sitter-bash',
    loadGrammar: () => require('tree-sitter-bash'),
    queryFiles: ['bash.scm'],
  },
  {
    id: 'lua',
    family: 'lua',
    extensions: ['.lua'],
    grammarPackage: '@tree-sitter-grammars/tree-sitter-lua',
    loadGrammar: () => loadNativeGrammar('@tree-sitter-grammars/tree-sitter-lua'),
    queryFiles: ['lua.scm'],
  },
  {
    id: 'elixir',
    family: 'elixir',
    extensions: ['.ex', '.exs'],
    grammarPackage: 'tree-sitter-elixir',
    loadGrammar: () => require('tree-sitter-elixir'),
    queryFiles: ['elixir.scm'],
  },
  {
    id: 'haskell',
    family: 'haskell',
    extensions: ['.hs'],
    grammarPackage: 'tree-sitter-haskell',
    loadGrammar: () => require('tree-sitter-haskell'),
    queryFiles: ['haskell.scm'],
  },
  {
    id: 'ocaml',
    family: 'ocaml',
    extensions: ['.ml'],
    grammarPackage: 'tree-sitter-ocaml',
    loadGrammar: () => require('tree-sitter-ocaml').ocaml,
    queryFiles: ['ocaml.scm'],
  },
];

/**
 * Loads the native grammar of a package whose entry point is an ES module with top-level await
 * (tree-sitter-c-sharp 0.23.5, @tree-sitter-grammars/tree-sitter-lua 0.4.1), which require()
 * rejects and loadGrammar, being synchronous, cannot import(). It does what that entry point
 * does: node-gyp-build finds the package's prebuilt (or locally built) binary, and the grammar's
 * node types are attached as the tree-sitter binding expects.
 */
function loadNativeGrammar(pkg: string): unknown {
  const manifest = require.resolve(`${pkg}/package.json`);
  const requireFromPackage = createRequire(manifest);
  const grammar = requireFromPackage('node-gyp-build')(dirname(manifest)) as { nodeTypeInfo?: unknown };
  try {
    grammar.nodeTypeInfo = requireFromPackage('./src/node-types.json');
  } catch {
    // Optional, as in the package's own entry point: queries do not need it.
  }
  return grammar;
}

// Which grammars this thread has loaded, for tests and diagnostics: each loadGrammar is wrapped
// to note its language once it has succeeded.
const loadedIds = new Set<string>();
for (const lang of LANGUAGES) {
  const loadGrammar = lang.loadGrammar;
  lang.loadGrammar = () => {
    const grammar = loadGrammar();
    loadedIds.add(lang.id);
    return grammar;
  };
}

/** Ids of the languages whose grammar was loaded in this thread, sorted. */
export function loadedLanguages(): string[] {
  return [...loadedIds].sort();
}

const byExtension = new Map<string, LanguageSpec>();
for (const lang of LANGUAGES) for (const ext of lang.extensions) byExtension.set(ext, lang);
const byId = new Map(LANGUAGES.map((lang) => [lang.id, lang]));

/** The language of a path, by its extension; undefined when no grammar handles it. */
export function languageForPath(path: string): LanguageSpec | undefined {
  return byExtension.get(extname(path).toLowerCase());
}

/** The ids of the languages these paths are in, each once, in order of first use; with `minFiles`, only those with that many files. */
export function languagesOf(paths: readonly string[], minFiles = 1): string[] {
  const counts = new Map<string, number>();
  for (const path of paths) {
    const id = languageForPath(path)?.id;
    if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts].filter(([, count]) => count >= minFiles).map(([id]) => id);
}

/** The language family of a path (see LanguageSpec.family); undefined when no grammar handles it. */
export function familyOfPath(path: string): string | undefined {
  return languageForPath(path)?.family;
}

export function languageById(id: string): LanguageSpec | undefined {
  return byId.get(id);
}

/** The text of a language's tag query. */
export function readQuerySource(lang: LanguageSpec): string {
  return lang.queryFiles.map((file) => readFileSync(join(packageRoot, 'queries', file), 'utf8')).join('\n');
}
