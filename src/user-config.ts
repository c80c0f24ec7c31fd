// The user's own config, outside every repository: $XDG_CONFIG_HOME/repomap/config.json (default
// ~/.config/repomap/config.json). It is where trust is granted: what a repository's config may
// name but not choose alone, the native grammars it may load (`allowGrammars`). Read only when a
// project config names a native grammar; read bounded as every config is (the user's file, so
// anywhere its symlinks lead).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MAX_CONFIG_BYTES, parseJson, readBoundedText } from './bounded-read.js';
import { badRequest, quoted, quotedJson } from './errors.js';
import { escapeControls, shownQuoted } from './paths.js';

/** What the user config holds. */
export interface UserConfig {
  /** Native grammars a project config may load, as it names them (a package name, or a path). */
  allowGrammars: readonly string[];
}

/** The most grammars a list allows (the user config's, or --allow-grammar's). */
export const MAX_ALLOWED_GRAMMARS = 1000;

/** Where the user config is: $XDG_CONFIG_HOME/repomap/config.json, else ~/.config/repomap/config.json. */
export function userConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'repomap', 'config.json');
}

/** What is wrong with a list of allowed grammars, or undefined when it is one. */
export function allowedGrammarsProblem(value: unknown): string | undefined {
  const ok = Array.isArray(value) && value.length <= MAX_ALLOWED_GRAMMARS && value.every((name) => typeof name === 'string' && name !== '');
  return ok ? undefined : `a list of at most ${MAX_ALLOWED_GRAMMARS} grammar names (a package name, or a path as the project config writes it)`;
}

/** The user config (empty when there is none); a wrong one is a one-line bad-request RepomapError naming it. */
export function readUserConfig(env: NodeJS.ProcessEnv = process.env): UserConfig {
  const file = userConfigFile(env);
  const text = readBoundedText(file, { maxBytes: MAX_CONFIG_BYTES });
  if (text === undefined) return { allowGrammars: [] };
  const raw = parseJson(text, file);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest(`${file}: the user config must be a JSON object`);
  for (const key of Object.keys(raw)) {
    if (key !== 'allowGrammars') throw badRequest(`${file}: unknown key '${shownQuoted(key)}' (known: allowGrammars)`);
  }
  const allowGrammars = (raw as { allowGrammars?: unknown }).allowGrammars ?? [];
  const problem = allowedGrammarsProblem(allowGrammars);
  if (problem) throw badRequest(`${file}: 'allowGrammars' must be ${problem}, not ${quotedJson(allowGrammars)}`);
  return { allowGrammars: allowGrammars as string[] };
}
