// repomap query | start | stop | status | restart: thin commands that talk to a repository's
// daemon. Nothing here loads the engine.
import { existsSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { DaemonClient, type DaemonStartOptions, connectOrStart } from '../client/client.js';
import { TAG_STORE_FOLDER, defaultCacheDir, ensureCacheDir } from '../store/cache-dir.js';
import { indexingProgress } from '../daemon/protocol.js';
import { type DaemonStatus } from '../api/types.js';
import { type DaemonPaths, checkRuntimeDir, daemonPaths, listDaemons, liveDaemonPid, runtimeDir, signallableDaemonPid } from '../daemon/runtime.js';
import { isProcessAlive, readLockPid } from '../lock-file.js';
import { INDEX_CONFIG_KEYS, configHelp, readProjectConfig } from '../config.js';
import { RepomapError, badRequest, errorMessage, quoted } from '../errors.js';
import { missingRealPath, resolveRoot, rootRelativeGlobs } from '../paths.js';
import { emptyMapNote, textOutput } from '../render/output.js';
import { type RepomapDaemon, connect } from '../api/index.js';
import { progressReporter } from './progress.js';
import { parseCommandArgs } from './args.js';
import { START_HELP, START_OPTIONS, startOptionsOf } from './start-options.js';
import { fallbackLine, printDetails } from './details.js';
import { REQUEST_HELP, REQUEST_OPTIONS, requestFromOptions } from './request-options.js';

export const QUERY_HELP = `Usage: repomap query [ROOT] [options]

Prints the map of the repository at ROOT (default: the current directory) from its
daemon, starting the daemon in the background when none runs. ROOT is the root, as for 'repomap
map' (a subfolder of a git work tree maps only what is under it). The answer is the same map as
'repomap map' prints.

Map options:
${REQUEST_HELP}  --verbose            on stderr: the daemon's work counts, the map's size, the languages that do
                       not run natively in the daemon (and why) and every skipped file
  --quiet              no progress line on stderr while the daemon indexes (shown only on a terminal anyway)

Options used when this command starts the daemon (a running daemon keeps its own, and a line on
stderr names those it does not use, with the 'repomap restart' that applies them):
${START_HELP}  -h, --help           show this help

${configHelp()}`;

/** How long status waits for a daemon's answer: one that is stuck is said, not waited for. */
const STATUS_WAIT_MS = 5000;

const STATUS_HELP = `Usage: repomap status [ROOT] [--all] [--format text|json]

Shows the daemon of ROOT's repository: state, files, skips, pending changes, memory, uptime.
With --all, lists every running daemon of this user, one it cannot ask (its socket replaced, no
answer within ${STATUS_WAIT_MS / 1000} s) in a line of its own. Exits 1 when no daemon runs. A ROOT deleted
or moved away is taken by the path it had while its daemon runs.
`;

/**
 * The start options of query, start and restart, with a line while a daemon starts. Their exclude
 * globs are checked against the root now (connect checks them too): restart would otherwise stop
 * the running daemon before a glob the new one refuses is said.
 */
function startOptions(root: string, values: Parameters<typeof startOptionsOf>[0]) {
  const options = startOptionsOf(values);
  rootRelativeGlobs(root, options.exclude ?? [], 'exclude');
  return {
    ...options,
    onStarting: () => {
      if (process.stderr.isTTY) process.stderr.write('repomap: starting the daemon...\n');
    },
  };
}

/** The ROOT a command was given, as given (the current folder by default). */
function rootArgument(positionals: string[], command: string): string {
  if (positionals.length > 1) throw badRequest(`${command} takes one ROOT, got ${positionals.length}: ${positionals.join(' ')}`);
  return positionals[0] ?? '.';
}

async function rootOf(positionals: string[], command: string): Promise<string> {
  return resolveRoot(rootArgument(positionals, command));
}

/**
 * The root of a command that asks its running daemon (status, stop). A ROOT that leads nowhere
 * (deleted, or moved away) is taken at the real path it had (see missingRealPath) when a live
 * daemon is registered under that path, whose root it was: such a daemon is stopped, or shows its
 * status, by the path it was started for. Otherwise the root is resolved as for every command,
 * and a missing one is a mistake.
 */
async function daemonRootOf(positionals: string[], command: string): Promise<string> {
  const given = rootArgument(positionals, command);
  try {
    return await resolveRoot(given);
  } catch (err) {
    const former = given === '' ? undefined : missingRealPath(given);
    if (former !== undefined && liveDaemonPid(daemonPaths(former).lock) !== undefined) return former;
    throw err;
  }
}

/** The root of a command that may start its daemon: its project config is checked here first, so a mistake in it is said directly. */
async function startableRoot(positionals: string[], command: string): Promise<string> {
  const root = await rootOf(positionals, command);
  readProjectConfig(root);
  return root;
}

/** Runs one request, then closes. Its failures are RepomapErrors (see DaemonClient): main says them in a line. */
async function answer<T>(request: () => Promise<T>, close: () => void): Promise<T> {
  try {
    return await request();
  } finally {
    close();
  }
}

function ask<T>(client: DaemonClient, method: string, params?: object): Promise<T> {
  return answer(() => client.request<T>(method, params), () => client.close());
}

export async function queryCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('query', args, {
    ...REQUEST_OPTIONS,
    ...START_OPTIONS,
    verbose: { type: 'boolean' },
    quiet: { type: 'boolean', short: 'q' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(QUERY_HELP);
    return 0;
  }
  const root = await startableRoot(positionals, 'query');
  const { request, format } = requestFromOptions(values, root);
  const repo = await connectSaying(root, startOptions(root, values));
  const map = await answer(() => whileShowingProgress(repo, repo.map(request), !values.quiet), () => repo.close());
  if (values.verbose) printDetails(map, { daemon: true });
  process.stdout.write(format === 'json' ? JSON.stringify(map, null, 2) + '\n' : textOutput(map));
  if (map.text === '') process.stderr.write(`repomap: ${emptyMapNote(root, map)}\n`);
  return 0;
}

/** How often a waiting query asks the daemon how far its index is. */
const PROGRESS_POLL_MS = 100;

/**
 * Waits for a request, drawing the daemon's indexing progress on a terminal meanwhile (files done
 * of total, rate, time left), as 'repomap map' draws its own. The status is asked on the same
 * connection, whose requests the daemon answers concurrently.
 */
async function whileShowingProgress<T>(repo: RepomapDaemon, pending: Promise<T>, enabled: boolean): Promise<T> {
  if (!enabled || !process.stderr.isTTY) return pending;
  const progress = progressReporter(process.stderr, true);
  let settled = false;
  const follow = async () => {
    while (!settled) {
      const status = await repo.status().catch(() => undefined); // the map's own request says why the daemon failed
      if (!status || status.state === 'ready' || settled) return;
      progress.update(status.progress.done, status.progress.total);
      await new Promise((resolve) => setTimeout(resolve, PROGRESS_POLL_MS));
    }
  };
  void follow();
  try {
    return await pending;
  } finally {
    settled = true;
    progress.finish();
  }
}

/** connect(), with the notice of a daemon already running that keeps its own options said on stderr. */
export async function connectSaying(root: string, options: Parameters<typeof connect>[1]): Promise<RepomapDaemon> {
  const repo = await connect(root, options);
  if (repo.notice) process.stderr.write(`repomap: ${repo.notice}\n`);
  return repo;
}

export async function startCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('start', args, { ...START_OPTIONS, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    process.stdout.write(`Usage: repomap start [ROOT] [options]\n\nStarts the daemon of ROOT's repository in the background (no-op when it runs).\n\n${START_HELP}\n${configHelp(INDEX_CONFIG_KEYS)}`);
    return 0;
  }
  const root = await startableRoot(positionals, 'start');
  const repo = await connectSaying(root, startOptions(root, values));
  const status = await answer(() => repo.status(), () => repo.close());
  process.stdout.write(`repomap: daemon for ${root} is running (pid ${status.pid}, ${status.state})\n`);
  return 0;
}

export async function stopCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('stop', args, { help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    process.stdout.write(
      "Usage: repomap stop [ROOT]\n\nStops the daemon of ROOT's repository, closing its store cleanly. A daemon that has not ended " +
        `${STOP_WAIT_MS / 1000} s later (one that cannot act on the request) is killed (SIGKILL), and this says so. A ROOT deleted or moved away is taken by the path it had while its daemon runs.\n`,
    );
    return 0;
  }
  const root = await daemonRootOf(positionals, 'stop');
  const stopped = await stopDaemon(root);
  const pid = stopped.pid === undefined ? '' : ` (pid ${stopped.pid})`;
  if (stopped.how === 'none') process.stdout.write(`repomap: no daemon runs for ${root}\n`);
  else if (stopped.how === 'stopped') process.stdout.write(`repomap: stopped the daemon for ${root}${pid}\n`);
  else process.stdout.write(`repomap: the daemon for ${root}${pid} did not stop within ${STOP_WAIT_MS / 1000} s: killed it (SIGKILL)\n`);
  return 0;
}

/**
 * How long stop waits for a daemon to end by itself: past its own deadline (SHUTDOWN_DEADLINE_MS,
 * after which it ends however its shutdown goes), with room for a loaded machine.
 */
const STOP_WAIT_MS = 10_000;
/** How long stop waits for a daemon it killed to be gone. */
const KILL_WAIT_MS = 5_000;

/** How a stop went: no daemon ran, it stopped when asked, or it did not and was killed; with its pid when its lock names one. */
export interface Stopped {
  how: 'none' | 'stopped' | 'killed';
  pid?: number;
}

/**
 * Stops the root's daemon and waits until it has ended. It is asked to shut down on its socket,
 * or, when that does not answer while its process lives (the socket removed, the daemon stuck),
 * with SIGTERM. One that has not ended STOP_WAIT_MS later is killed (SIGKILL) and its socket and
 * lock removed. Never says no daemon runs while the process holding the root's lock lives; throws
 * when even SIGKILL leaves it running.
 */
export async function stopDaemon(root: string): Promise<Stopped> {
  const paths = daemonPaths(root);
  const pid = signallableDaemonPid(paths.lock);
  let client: DaemonClient | undefined;
  try {
    client = await DaemonClient.connect(paths.socket);
  } catch (err) {
    if (err instanceof RepomapError) throw err; // a runtime folder or socket not to be trusted
  }
  const withPid = pid === undefined ? {} : { pid };
  try {
    // The answer may never come (a daemon that cannot act), or the connection may close before it: the wait tells.
    if (client) client.request('shutdown').catch(() => {});
    else if (pid === undefined) return { how: 'none' };
    else signal(pid, 'SIGTERM');
    const gone = () => (pid === undefined ? !existsSync(paths.socket) : !isProcessAlive(pid));
    if (await waitFor(gone, STOP_WAIT_MS)) return { how: 'stopped', ...withPid };
    if (pid === undefined) throw new RepomapError('internal', `the daemon for ${root} did not stop within ${STOP_WAIT_MS / 1000} s, and no lock names its pid to kill it`);
    signal(pid, 'SIGKILL');
    if (!(await waitFor(gone, KILL_WAIT_MS))) throw new RepomapError('internal', `the daemon for ${root} (pid ${pid}) still runs after SIGKILL`);
    removeLeftovers(paths, pid);
    return { how: 'killed', pid };
  } finally {
    client?.close();
  }
}

/** Sends a signal to a process, which may have ended meanwhile (the wait that follows tells). */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

/** Waits until `done` holds, checking every 25 ms, at most `ms`; whether it holds. */
async function waitFor(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  return done();
}

/** The socket and lock a killed daemon left, while its lock still names it (a new daemon may have taken the root meanwhile). */
function removeLeftovers(paths: DaemonPaths, pid: number): void {
  if (readLockPid(paths.lock) !== pid) return;
  for (const path of [paths.socket, paths.lock]) rmSync(path, { force: true });
}

const RESTART_HELP = `Usage: repomap restart [ROOT] [options]

Stops the daemon of ROOT's repository, then starts it again with the options it was started with
(its cache folder too), but those given here: 'repomap restart ROOT --workers 1' changes its
workers alone, and --exclude replaces its globs. The options it was not given come from the project
config and the defaults, read anew. To drop its options: 'repomap stop ROOT', then 'repomap start ROOT'.

${START_HELP}
${configHelp(INDEX_CONFIG_KEYS)}`;

export async function restartCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('restart', args, { ...START_OPTIONS, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    process.stdout.write(RESTART_HELP);
    return 0;
  }
  const root = await startableRoot(positionals, 'restart');
  const running = await DaemonClient.once<DaemonStatus>(daemonPaths(root).socket, 'status').catch(() => undefined);
  const options = running ? restartOptions(root, startOptions(root, values), running) : startOptions(root, values);
  // A cache folder the new daemon could not use is refused before the running one is stopped.
  ensureCacheDir(options.cacheDir ?? defaultCacheDir(root), TAG_STORE_FOLDER);
  await stopDaemon(root);
  const { client } = await connectOrStart(root, options);
  const status = await ask<DaemonStatus>(client, 'status');
  process.stdout.write(`repomap: daemon for ${root} is running (pid ${status.pid}, ${status.state})\n`);
  return 0;
}

/**
 * A restart is the running daemon again: each option not given is the one on its command line
 * (startedWith), so that the restart a notice suggests, which names only the options asked for,
 * keeps the others. Those it was not given stay unset: the project config and the defaults give
 * them again, as they gave its. Its cache folder is kept even when it was its default and this
 * client's default is another (another XDG_CACHE_HOME): started elsewhere, the new daemon would
 * index the tree again.
 */
function restartOptions(root: string, given: DaemonStartOptions, running: DaemonStatus): DaemonStartOptions {
  const kept = running.startedWith;
  return {
    ...given,
    cacheDir: given.cacheDir ?? kept.cacheDir ?? (running.cacheDir === defaultCacheDir(root) ? undefined : running.cacheDir),
    workers: given.workers ?? kept.workers,
    exclude: given.exclude?.length ? given.exclude : kept.exclude,
    idleTimeoutSeconds: given.idleTimeoutSeconds ?? kept.idleTimeoutSeconds,
    maxFileBytes: kept.maxFileBytes,
    allowGrammars: given.allowGrammars?.length ? given.allowGrammars : kept.allowGrammars,
  };
}

export async function statusCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('status', args, {
    all: { type: 'boolean' },
    format: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(STATUS_HELP);
    return 0;
  }
  const json = values.format === 'json';
  if (values.format !== undefined && !json && values.format !== 'text') throw badRequest(`--format must be one of text, json, not '${quoted(values.format)}'`);
  if (values.all && positionals.length > 0) throw badRequest(`status takes a ROOT or --all, not both (got ${positionals.join(' ')} and --all)`);
  if (values.all) {
    // A runtime folder not to be trusted is said, as for one ROOT, not taken as holding no daemon.
    if (existsSync(runtimeDir())) checkRuntimeDir(runtimeDir());
    // Each daemon on its own: one whose socket cannot be trusted or that does not answer is a line of its own.
    const entries = await Promise.all(
      listDaemons().map(({ pid, socket }) =>
        statusAt(socket).then(
          (status) => status ?? { pid, socket, error: `${socket} does not answer` },
          (err: unknown) => ({ pid, socket, error: errorMessage(err) }),
        ),
      ),
    );
    if (json) process.stdout.write(JSON.stringify(entries, null, 2) + '\n');
    else if (entries.length === 0) process.stdout.write('repomap: no daemon is running\n');
    else for (const entry of entries) process.stdout.write(('error' in entry ? `pid ${entry.pid}  ${entry.error}` : statusLine(entry)) + '\n');
    return entries.length === 0 ? 1 : 0;
  }
  const root = await daemonRootOf(positionals, 'status');
  const paths = daemonPaths(root);
  const status = await statusAt(paths.socket);
  if (!status) {
    const pid = signallableDaemonPid(paths.lock);
    if (json) process.stdout.write('null\n');
    else if (pid === undefined) process.stdout.write(`repomap: no daemon runs for ${root}${enclosingDaemonHint(root)}\n`);
    else process.stdout.write(`repomap: the daemon for ${root} (pid ${pid}) does not answer on ${paths.socket}; 'repomap stop' ends it\n`);
    return 1;
  }
  process.stdout.write(json ? JSON.stringify(status, null, 2) + '\n' : statusReport(status));
  return 0;
}

/**
 * Where a daemon runs for a folder above `root` (its repository's root, most often: `repomap
 * status` run in a subfolder), as the end of the line saying none runs for `root`; empty when none
 * does. The nearest such folder is named; each is looked at by its lock file alone, no process started.
 */
function enclosingDaemonHint(root: string): string {
  for (let dir = dirname(root); dir !== root; root = dir, dir = dirname(dir)) {
    if (signallableDaemonPid(daemonPaths(dir).lock) !== undefined) return `; ${dir}'s daemon runs (repomap status ${dir})`;
  }
  return '';
}

/**
 * The status of the daemon listening on `socket`; undefined when none listens or it does not
 * answer within STATUS_WAIT_MS. A runtime folder or socket not to be trusted is a 'refused' error.
 */
async function statusAt(socket: string): Promise<DaemonStatus | undefined> {
  let client: DaemonClient;
  try {
    client = await DaemonClient.connect(socket);
  } catch (err) {
    if (err instanceof RepomapError) throw err; // a runtime folder or socket not to be trusted
    return undefined; // no daemon listens: no status
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), STATUS_WAIT_MS)));
  try {
    return await Promise.race([client.request<DaemonStatus>('status').catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
    client.close();
  }
}

function statusLine(status: DaemonStatus): string {
  return `${status.root}  pid ${status.pid}  ${status.state}  ${status.files} files  ${mib(status.memory.rssBytes)} RSS  up ${status.uptimeSeconds} s`;
}

export function statusReport(status: DaemonStatus): string {
  const skips = Object.entries(status.skipped).map(([reason, n]) => `${n} ${reason}`).join(', ') || 'none';
  const skipped = status.state === 'ready' ? skips : 'counted once the index is complete';
  const state = status.state === 'indexing' ? `indexing: ${indexingProgress(status)}` : 'ready';
  // The same counts as the state line's, said as a whole: source files (which the index reads) and the others.
  const files =
    status.files === 0 && status.state === 'indexing'
      ? 'being listed'
      : `${status.files}: ${status.sourceFiles} source files (${status.indexed} indexed, ${status.parsed} parsed since start), ${status.files - status.sourceFiles} other files`;
  return [
    `root:            ${status.root}`,
    `pid:             ${status.pid}`,
    `state:           ${state}`,
    `files:           ${files}`,
    `skipped:         ${skipped}`,
    ...[fallbackLine(status.grammarFallbacks)].flatMap((line) => (line ? [`grammars:        ${line}`] : [])),
    `pending changes: ${status.pendingChanges}`,
    `watching:        ${status.watching ? 'yes' : status.state === 'ready' ? 'starting (changes meanwhile are caught up)' : 'after the index'}` +
      (status.unwatchedPaths > 0 ? `; ${status.unwatchedPaths} paths over the system's limit of watches, stat'ed every 30 s instead` : ''),
    `last update:     ${status.lastUpdate ?? 'never'}`,
    `memory:          ${mib(status.memory.rssBytes)} RSS, ${mib(status.memory.heapUsedBytes)} heap`,
    `uptime:          ${status.uptimeSeconds} s`,
    `workers:         ${status.workers}`,
    `socket:          ${status.socket}`,
    `cache:           ${status.cacheDir}`,
    '',
  ].join('\n');
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1048576)} MiB`;
}
