// A project's tag query (.repomap/queries/<id>.scm, a config `query`) is repository content, and
// node tree-sitter's Query dies with SIGSEGV on some texts (a bare word, tens of thousands of
// patterns). So before any thread of repomap's compiles one (when a pass first meets a file of its
// language), a child process compiles it (workers/query-check.ts), the grammar loaded as a parse
// loads it, under a hard timeout; the child also refuses a predicate regex V8's linear-time engine
// cannot run. Each verdict is kept for the process, by the text and grammar it is about. A refused query is one notice, and the
// language's built-in query is used instead (its files are skipped as 'no grammar' with the
// reason when it has none).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { quoted } from '../errors.js';
import { BUILTIN_LANGUAGES, invalidQueryMessage, isPackageQuery, readQuerySource } from './languages.js';
import type { LanguageOverride } from './user-languages.js';

/** A project query longer than this is refused unread by tree-sitter (the package's largest is about 10 KB). */
export const MAX_QUERY_BYTES = 512 * 1024;
/** A project query with more top-level patterns than this is refused (65,000 crash the native runtime; the package's have a few hundred). */
export const MAX_QUERY_PATTERNS = 4096;
/** The child's bound: starting Node, loading the grammar and compiling the query. */
const CHECK_TIMEOUT_MS = 15_000;

/** What the child prints on its standard output, one JSON object. */
export type ChildVerdict =
  | { ok: true }
  | { ok: false; invalid: { message: string; offset: number | undefined } }
  | { ok: false; regex: { pattern: string; reason: string } }
  | { ok: false; grammar: string };

/** What the child reads on its standard input. */
export interface ChildInput {
  override: LanguageOverride;
}

const CHILD = fileURLToPath(new URL('../../workers/query-check.js', import.meta.url));

/** Verdicts of this process: undefined for a query that passed, else why it was refused. */
const verdicts = new Map<string, string | undefined>();

/**
 * The overrides with the project query of each language in `ids` checked (marked queryChecked),
 * or, where one is refused, the built-in query in its place (said once through `onNotice`) or the
 * refusal kept as queryError (said as its files are skipped, as a query that fails to load is).
 * Overrides checked before, and those of other languages, pass through as they are (the same
 * objects): a caller checks the languages it has files of, as it meets them, so that a query of a
 * language the repository has no file of (a stray .repomap/queries/ocaml.scm) costs no child.
 */
export function checkQueries(overrides: readonly LanguageOverride[], ids: ReadonlySet<string>, onNotice?: (message: string) => void): LanguageOverride[] {
  return overrides.map((override) => {
    if (!ids.has(override.id)) return override;
    // A grammar the user has not allowed is never loaded, here or in a child: its files are skipped.
    if (override.queryChecked || override.queryError !== undefined || override.grammar?.runtime === 'refused') return override;
    if (isPackageQuery(override.queryFiles)) return { ...override, queryChecked: true };
    const refused = queryProblem(override);
    if (refused === undefined) return { ...override, queryChecked: true };
    const builtin = BUILTIN_LANGUAGES.byIdOf(override.id);
    if (!builtin || override.grammar) return { ...override, queryError: refused };
    onNotice?.(`repomap: ${refused}; the built-in query is used`);
    return { ...override, queryFiles: builtin.queryFiles, queryText: readQuerySource(builtin), queryChecked: true };
  });
}

/** Why a project query is refused (a message naming its file), or undefined when it may be compiled. */
function queryProblem(override: LanguageOverride): string | undefined {
  const text = override.queryText;
  const refused = (why: string) => `${override.queryFiles.join(', ')}: tag query for ${override.id} refused (${why})`;
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_QUERY_BYTES) return refused(`${bytes} bytes, over the ${MAX_QUERY_BYTES} a tag query may have`);
  const patterns = patternCount(text);
  if (patterns > MAX_QUERY_PATTERNS) return refused(`${patterns} patterns, over the ${MAX_QUERY_PATTERNS} a tag query may have`);
  const key = createHash('sha1').update(JSON.stringify([override.id, override.grammar ?? 'builtin', text])).digest('hex');
  if (!verdicts.has(key)) verdicts.set(key, checkInChild(override, refused));
  return verdicts.get(key);
}

/** Compiles the query in a child process: why it failed there (made a message by `refused`, or tree-sitter's own), or undefined. */
function checkInChild(override: LanguageOverride, refused: (why: string) => string): string | undefined {
  const input: ChildInput = { override };
  const child = spawnSync(process.execPath, ['--enable-experimental-regexp-engine', CHILD], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    timeout: CHECK_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxBuffer: 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if ((child.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') return refused(`compiling it took longer than ${CHECK_TIMEOUT_MS / 1000} s`);
  if (child.signal) return refused(`compiling it crashed tree-sitter: ${child.signal}`);
  if (child.error) return refused(`it could not be compiled apart: ${child.error.message}`);
  let verdict: ChildVerdict;
  try {
    verdict = JSON.parse(child.stdout) as ChildVerdict;
  } catch {
    return refused(`compiling it failed: exit status ${child.status}, ${quoted(child.stderr.trim().split('\n').pop() ?? '')}`);
  }
  if (verdict.ok) return undefined;
  // The threads meet the same failure as they load the grammar, before the query: theirs is the notice.
  if ('grammar' in verdict) return `${override.id}: grammar ${override.grammar?.package ?? 'built-in'} failed to load (${quoted(verdict.grammar)})`;
  if ('regex' in verdict) return refused(`the regex ${quoted(JSON.stringify(verdict.regex.pattern))} of a predicate ${verdict.regex.reason}`);
  const { message, offset } = verdict.invalid;
  return invalidQueryMessage(override, override.queryText, message, offset);
}

/**
 * The number of top-level patterns of a query text, counted without compiling it: brackets opened
 * at depth 0, outside strings and comments (a top-level string or wildcard pattern is not counted:
 * the bound is on what crashes the runtime, tens of thousands).
 */
export function patternCount(text: string): number {
  let count = 0;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === ';') {
      const end = text.indexOf('\n', i);
      if (end === -1) break;
      i = end;
    } else if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '(' || c === '[') {
      if (depth === 0) count++;
      depth++;
    } else if ((c === ')' || c === ']') && depth > 0) {
      depth--;
    }
  }
  return count;
}
