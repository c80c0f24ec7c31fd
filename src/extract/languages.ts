import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { packageRoot } from '../paths.js';

const require = createRequire(import.meta.url);

/** A language the extractor knows: which files are written in it, its grammar and its tag query. */
export interface LanguageSpec {
  /** Stable identifier, stored in records. */
  id: string;
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
    extensions: ['.ts', '.mts', '.cts'],
    grammarPackage: 'tree-sitter-typescript',
    loadGrammar: () => require('tree-sitter-typescript').typescript,
    queryFiles: ['ecma.scm', 'typescript.scm'],
  },
  {
    id: 'tsx',
    extensions: ['.tsx'],
    grammarPackage: 'tree-sitter-typescript',
    loadGrammar: () => require('tree-sitter-typescript').tsx,
    queryFiles: ['ecma.scm', 'typescript.scm', 'jsx.scm'],
  },
  {
    id: 'javascript',
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    grammarPackage: 'tree-sitter-javascript',
    loadGrammar: () => require('tree-sitter-javascript'),
    queryFiles: ['ecma.scm', 'javascript.scm', 'jsx.scm'],
  },
  {
    id: 'python',
    extensions: ['.py', '.pyi'],
    grammarPackage: 'tree-sitter-python',
    loadGrammar: () => require('tree-sitter-python'),
    queryFiles: ['python.scm'],
  },
  {
    id: 'rust',
    extensions: ['.rs'],
    grammarPackage: 'tree-sitter-rust',
    loadGrammar: () => require('tree-sitter-rust'),
    queryFiles: ['rust.scm'],
  },
  {
    id: 'go',
    extensions: ['.go'],
    grammarPackage: 'tree-sitter-go',
    loadGrammar: () => require('tree-sitter-go'),
    queryFiles: ['go.scm'],
  },
];

const byExtension = new Map<string, LanguageSpec>();
for (const lang of LANGUAGES) for (const ext of lang.extensions) byExtension.set(ext, lang);
const byId = new Map(LANGUAGES.map((lang) => [lang.id, lang]));

/** The language of a path, by its extension; undefined when no grammar handles it. */
export function languageForPath(path: string): LanguageSpec | undefined {
  return byExtension.get(extname(path).toLowerCase());
}

export function languageById(id: string): LanguageSpec | undefined {
  return byId.get(id);
}

/** The text of a language's tag query. */
export function readQuerySource(lang: LanguageSpec): string {
  return lang.queryFiles.map((file) => readFileSync(join(packageRoot, 'queries', file), 'utf8')).join('\n');
}
