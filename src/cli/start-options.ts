// The options of the commands that may start a repository's daemon (query, start, restart, mcp):
// one spec, one help text and one reading, so that each command takes and describes them alike.
// A leaf beside args.ts: the thin commands load it without the engine.
import type { StartOptions } from '../client/client.js';
import { badRequest } from '../errors.js';
import { type OptionSpec, folderOption, globsOption, idleTimeoutOption, integerOption } from './args.js';

/**
 * `--allow-grammar NAME`, of every command that indexes (map, symbols, eval, and those starting a
 * daemon): the user's permission for the project config to load a native grammar (see
 * user-languages.ts), which a repository cannot give itself.
 */
export const ALLOW_GRAMMAR_OPTION = { 'allow-grammar': { type: 'string', multiple: true } } satisfies OptionSpec;

/** --allow-grammar's help lines, its text from `column` on (23 for repomap's commands). */
export function allowGrammarHelp(column = 23): string {
  const pad = ' '.repeat(column);
  return `${'  --allow-grammar NAME'.padEnd(column)}let the project config load the native grammar NAME (repeatable): its
${pad}code would run in repomap, so a repository cannot choose it alone (also
${pad}"allowGrammars" in $XDG_CONFIG_HOME/repomap/config.json)
`;
}

/** The grammars --allow-grammar allows (none given: no key, so that a daemon's startedWith stays as it was). */
export function allowGrammarsOf(values: { 'allow-grammar'?: string[] }): { allowGrammars?: string[] } {
  const names = values['allow-grammar'] ?? [];
  if (names.includes('')) throw badRequest('--allow-grammar takes a grammar name, not an empty string');
  return names.length > 0 ? { allowGrammars: [...names] } : {};
}

export const START_OPTIONS = {
  'cache-dir': { type: 'string' },
  workers: { type: 'string' },
  exclude: { type: 'string', multiple: true },
  'idle-timeout': { type: 'string' },
  ...ALLOW_GRAMMAR_OPTION,
} satisfies OptionSpec;

/** START_OPTIONS' lines of a command's help (the default idle timeout is the daemon's, DEFAULT_IDLE_TIMEOUT_MS). */
export const START_HELP = `  --cache-dir DIR      the daemon's tag cache (default $XDG_CACHE_HOME/repomap/<hash of ROOT>)
  --workers N          the daemon's parse threads (default: the cores available; at most those)
  --exclude GLOB       paths the daemon leaves out (repeatable)
  --idle-timeout SECS  the daemon exits after this long without a request (default 1800; 0 = never)
${allowGrammarHelp()}`;

/** The start options a command's START_OPTIONS flags give, each checked as its flag is. */
export function startOptionsOf(values: { 'cache-dir'?: string; workers?: string; exclude?: string[]; 'idle-timeout'?: string; 'allow-grammar'?: string[] }): StartOptions {
  return {
    cacheDir: folderOption(values['cache-dir'], 'cache-dir'),
    workers: integerOption(values.workers, 'workers'),
    exclude: globsOption(values.exclude, 'exclude') ?? [],
    idleTimeoutSeconds: idleTimeoutOption(values['idle-timeout']),
    ...allowGrammarsOf(values),
  };
}
