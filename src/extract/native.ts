// The native tree-sitter runtime and a language's native grammar, loaded when they can be, and the
// runtime each language runs on in this process. The runtime (tree-sitter's Node binding) and the
// grammars' binaries are packed into the package for four platforms (see bundled.ts): a platform
// without one, or where one does not load, runs those languages on WebAssembly.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type Parser from 'tree-sitter';
import type { GrammarFallback } from '../api/types.js';
import { errorMessage, quoted } from '../errors.js';
import { nativeFailureForTests } from '../test-hooks.js';
import { RUNTIME_PACKAGE, loadBundled } from './bundled.js';
import { BUILTIN_LANGUAGES, type LanguageSpec, type WasmBuild, parsedWith } from './languages.js';

const require = createRequire(import.meta.url);

type ParserClass = typeof Parser;

/** A native grammar ready on its parser; or why the language cannot run natively (a sentence). */
export type NativeGrammar = { Parser: ParserClass; grammar: Parser.Language; parser: Parser } | { failure: string };

let runtime: { Parser: ParserClass } | { failure: string } | undefined;

/** The native runtime, loaded once per thread; or why it does not load. */
function nativeRuntime(): { Parser: ParserClass } | { failure: string } {
  if (!runtime) {
    try {
      const blocked = nativeFailureForTests('tree-sitter');
      if (blocked) throw new Error(blocked);
      runtime = { Parser: (loadBundled(RUNTIME_PACKAGE) ?? require(RUNTIME_PACKAGE)) as ParserClass };
    } catch (err) {
      runtime = { failure: `native tree-sitter failed to load (${firstLine(err)})` };
    }
  }
  return runtime;
}

// One outcome per language (and query signature: a project may give a language another grammar) per thread.
const grammars = new Map<string, NativeGrammar>();

/**
 * A native language's grammar set on a parser (which checks that the runtime reads its ABI), loaded
 * once per thread; or why not: the runtime or the grammar's binary does not load.
 */
export function nativeGrammar(lang: LanguageSpec & { grammar: { runtime: 'native' } }): NativeGrammar {
  const key = `${lang.id}\0${lang.signature}`;
  let outcome = grammars.get(key);
  if (!outcome) {
    outcome = loadGrammar(lang);
    grammars.set(key, outcome);
  }
  return outcome;
}

function loadGrammar(lang: LanguageSpec & { grammar: { runtime: 'native' } }): NativeGrammar {
  const loaded = nativeRuntime();
  if ('failure' in loaded) return loaded;
  try {
    const blocked = nativeFailureForTests(lang.id);
    if (blocked) throw new Error(blocked);
    const grammar = lang.grammar.load() as Parser.Language;
    const parser = new loaded.Parser();
    parser.setLanguage(grammar);
    return { Parser: loaded.Parser, grammar, parser };
  } catch (err) {
    return { failure: `native grammar ${quoted(lang.grammar.package)} failed to load (${firstLine(err)})` };
  }
}

/** An error's first line, cut (a loader's message quotes paths and symbol names at length). */
function firstLine(err: unknown): string {
  return quoted(errorMessage(err).split('\n')[0]);
}

/** The WebAssembly build a language runs on when its native grammar does not load: the first of its builds installed; undefined when none is. */
export function fallbackBuild(lang: LanguageSpec): WasmBuild | undefined {
  return lang.grammar.runtime === 'native' ? lang.grammar.wasm?.find((build) => wasmFile(build) !== undefined) : undefined;
}

/**
 * The languages among `langs` that do not run natively in this process, in order, each once: on
 * WebAssembly, or on nothing (their files are skipped as 'no grammar'), with why. Asks each native
 * grammar as a parse would (loading it in this thread): every thread of a process loads the same
 * binaries, and a child process inherits the environment that decides.
 */
export function grammarFallbacks(langs: readonly LanguageSpec[]): GrammarFallback[] {
  const fallbacks: GrammarFallback[] = [];
  const seen = new Set<string>();
  for (const lang of langs) {
    if (lang.grammar.runtime !== 'native' || seen.has(lang.id)) continue;
    seen.add(lang.id);
    const native = nativeGrammar(lang as LanguageSpec & { grammar: { runtime: 'native' } });
    if (!('failure' in native)) continue;
    fallbacks.push({ language: lang.id, runtime: fallbackBuild(lang) ? 'wasm' : 'none', reason: native.failure });
  }
  return fallbacks;
}

/**
 * grammarFallbacks of the built-in languages of these paths (a single-file component's: those of
 * its script blocks). A project's own native grammar that does not load is said otherwise: its
 * files are skipped as 'no grammar' with the reason, in a notice once a pass.
 */
export function repositoryFallbacks(paths: readonly string[]): GrammarFallback[] {
  const langs = BUILTIN_LANGUAGES.of(paths).flatMap((id) => parsedWith(BUILTIN_LANGUAGES.byIdOf(id)!, BUILTIN_LANGUAGES));
  return grammarFallbacks(langs);
}

/** The build's file, when it is installed. */
function wasmFile(build: WasmBuild): string | undefined {
  try {
    const file = build.file();
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}
