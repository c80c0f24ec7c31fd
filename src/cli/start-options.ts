// The options of the commands that may start a repository's daemon (query, start, restart, mcp):
// one spec, one help text and one reading, so that each command takes and describes them alike.
// A leaf beside args.ts: the thin commands load it without the engine.
import type { StartOptions } from '../client/client.js';
import { type OptionSpec, folderOption, globsOption, idleTimeoutOption, integerOption } from './args.js';

export const START_OPTIONS = {
  'cache-dir': { type: 'string' },
  workers: { type: 'string' },
  exclude: { type: 'string', multiple: true },
  'idle-timeout': { type: 'string' },
} satisfies OptionSpec;

/** START_OPTIONS' lines of a command's help (the default idle timeout is the daemon's, DEFAULT_IDLE_TIMEOUT_MS). */
export const START_HELP = `  --cache-dir DIR      the daemon's tag cache (default $XDG_CACHE_HOME/repomap/<hash of ROOT>)
  --workers N          the daemon's parse threads (default: the cores available)
  --exclude GLOB       paths the daemon leaves out (repeatable)
  --idle-timeout SECS  the daemon exits after this long without a request (default 1800; 0 = never)
`;

/** The start options a command's START_OPTIONS flags give, each checked as its flag is. */
export function startOptionsOf(values: { 'cache-dir'?: string; workers?: string; exclude?: string[]; 'idle-timeout'?: string }): StartOptions {
  return {
    cacheDir: folderOption(values['cache-dir'], 'cache-dir'),
    workers: integerOption(values.workers, 'workers'),
    exclude: globsOption(values.exclude, 'exclude') ?? [],
    idleTimeoutSeconds: idleTimeoutOption(values['idle-timeout']),
  };
}
