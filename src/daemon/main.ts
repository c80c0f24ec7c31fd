// repomapd: one repository's daemon. Usually started by `repomap query` or `repomap start`.
import { killAll } from '../child-processes.js';
import { folderOption, globsOption, idleTimeoutOption, integerOption, maxFileBytesOption, parseCommandArgs } from '../cli/args.js';
import { RepomapError, badRequest, errorMessage, errorStack } from '../errors.js';
import { exitStatus } from '../cli/exit-status.js';
import { defaultWorkerCount, workersNotice } from '../indexer/pool.js';
import { ALLOW_GRAMMAR_OPTION, allowGrammarHelp, allowGrammarsOf } from '../cli/start-options.js';
import { resolveRoot } from '../paths.js';
import { defaultCacheDir, ensureCacheDir, sharedCacheDir } from '../store/cache-dir.js';
import { configHelp, readProjectConfig } from '../config.js';
import { daemonTestOptions } from '../test-hooks.js';
import { Daemon } from './daemon.js';
import { createLog, daemonLogFile } from './log.js';
import { DEFAULT_IDLE_TIMEOUT_MS, daemonSettings } from './settings.js';
import type { DaemonFlags } from '../api/types.js';
import { daemonPaths } from './runtime.js';
import { MAX_FILE_BYTES_LIMIT } from '../api/request.js';

export const DAEMON_HELP = `Usage: repomapd [ROOT] [options]

Keeps the repository at ROOT (default: the current directory) indexed and its graph hot, follows
every file change, and answers JSON-RPC requests on a Unix socket. Usually started by
'repomap query' or 'repomap start'. Files another clone or work tree parsed are copied from the
shared tag cache, as 'repomap map' does (REPOMAP_SHARED_CACHE; see 'repomap map --help').

Options:
  --foreground          log to stderr instead of <cache dir>/daemon.log
  --idle-timeout SECS   exit after this long without a request (default ${DEFAULT_IDLE_TIMEOUT_MS / 1000}; 0 = never)
  --workers N           parse threads (default and most: the cores available, ${defaultWorkerCount()})
  --cache-dir DIR       where the tag cache and the log live (default $XDG_CACHE_HOME/repomap/<hash of ROOT>)
  --exclude GLOB        leave out matching paths (repeatable)
  --max-file-bytes N    skip files larger than N bytes (default 1048576, at most ${MAX_FILE_BYTES_LIMIT})
${allowGrammarHelp(24)}  -h, --help            show this help

${configHelp()}`;

/**
 * How long a shutdown may take: the update under way ends, the parse threads and the store close.
 * Past it, the process ends anyway (a parse thread stuck in a query, a store that does not return),
 * its socket removed and its lock released first: a stop always stops.
 */
export const SHUTDOWN_DEADLINE_MS = 5000;

const OPTIONS = {
  foreground: { type: 'boolean' },
  'idle-timeout': { type: 'string' },
  workers: { type: 'string' },
  'cache-dir': { type: 'string' },
  exclude: { type: 'string', multiple: true },
  'max-file-bytes': { type: 'string' },
  ...ALLOW_GRAMMAR_OPTION,
  help: { type: 'boolean', short: 'h' },
} as const;

export async function daemonMain(argv: string[]): Promise<number> {
  // Unset until the log opens: a failure before that is said on stderr alone, once.
  let log: ((line: string) => void) | undefined;
  try {
    const { values, positionals } = parseCommandArgs('repomapd', argv, OPTIONS);
    if (values.help) {
      process.stdout.write(DAEMON_HELP);
      return 0;
    }
    if (positionals.length > 1) throw badRequest(`repomapd takes one ROOT, got ${positionals.length}`);
    const idleTimeoutSeconds = idleTimeoutOption(values['idle-timeout']);
    const root = await resolveRoot(positionals[0] ?? '.');
    const flags: DaemonFlags = {
      cacheDir: folderOption(values['cache-dir'], 'cache-dir'),
      workers: integerOption(values.workers, 'workers'),
      exclude: globsOption(values.exclude, 'exclude'),
      maxFileBytes: maxFileBytesOption(values['max-file-bytes']),
      idleTimeoutSeconds,
      ...allowGrammarsOf(values),
    };
    const cacheDir = flags.cacheDir ?? defaultCacheDir(root);
    ensureCacheDir(cacheDir);
    const daemonLog = createLog(values.foreground ? undefined : daemonLogFile(cacheDir));
    log = daemonLog;
    const { config } = readProjectConfig(root);
    const tooMany = workersNotice(flags.workers ?? config.workers);
    if (tooMany) daemonLog(tooMany);
    const shared = sharedCacheDir(flags.cacheDir !== undefined);
    const daemon = await Daemon.start({
      root,
      cacheDir,
      paths: daemonPaths(root),
      flags,
      config,
      ...daemonSettings(flags, config),
      ...(shared ? { sharedCacheDir: shared } : {}),
      log: daemonLog,
      ...daemonTestOptions(process.env),
    });
    void daemon.shutdownBegun.then(() => setTimeout(() => endNow(daemon, daemonLog), SHUTDOWN_DEADLINE_MS));
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.on(signal, () => void daemon.shutdown(`received ${signal}`));
    }
    let crashed = false;
    process.on('uncaughtException', (err) => {
      if (crashed) return; // already shutting down: an error of the shutdown itself must not start another
      crashed = true;
      daemonLog(`uncaught exception: ${err.stack ?? err.message}`);
      void daemon.shutdown('uncaught exception').finally(() => process.exit(1));
    });
    daemon.ready.catch((err: unknown) => {
      if (daemon.isStopping) return; // stopped on purpose
      daemonLog(`cold index failed: ${errorStack(err)}`);
      void daemon.shutdown('cold index failed').finally(() => process.exit(1));
    });
    await daemon.closed;
    return 0;
  } catch (err) {
    // An internal failure (a damaged store) is thrown on, its stack logged.
    if (err instanceof RepomapError && err.code !== 'internal') {
      log?.(`not started: ${err.message}`);
      // The last line on stderr: the reason startDaemon passes on to the client that started this one.
      process.stderr.write(`repomapd: ${err.message}\n`);
      return exitStatus(err.code);
    }
    log?.(`failed to start: ${errorMessage(err)}`);
    throw err;
  }
}

/**
 * Ends a daemon whose shutdown passed its deadline: the socket and lock released, then SIGKILL to
 * itself. Not process.exit: it joins every worker thread first, and a thread stuck in native code
 * (a tree-sitter query) never returns to be joined. What the store committed is kept (LMDB takes a
 * kill as it takes a crash); an update under way is redone by the next start.
 */
function endNow(daemon: Daemon, log: (line: string) => void): void {
  log(`shutdown did not finish within ${SHUTDOWN_DEADLINE_MS / 1000} s (a parse thread or the store does not return): ending the process`);
  daemon.releaseHold();
  killAll(); // git and extraction children: a SIGKILL to itself runs no exit handler
  process.kill(process.pid, 'SIGKILL');
}
