// The thin client: finds a repository's daemon, starts it when none runs, and talks JSON-RPC to
// it. Loads no tree-sitter, no LMDB and no graph, so `repomap query` starts fast.
import { spawn } from 'node:child_process';
import { type Socket, connect } from 'node:net';
import { constants } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RepomapError, badRequest, errorMessage } from '../errors.js';
import { MAX_REQUEST_BYTES, type RpcResponse, errorFromRpc } from '../daemon/protocol.js';
import { type DaemonFlags, type DaemonStatus } from '../api/types.js';
import { type DaemonPaths, checkRuntimeDir, checkSocket, daemonPaths } from '../daemon/runtime.js';
import { daemonLogFile } from '../daemon/log.js';
import { defaultCacheDir } from '../store/cache-dir.js';
import { refuseGitFolder, rootRelativeGlobs, shellWord } from '../paths.js';

/** How long a starting daemon may take to listen on its socket. */
const START_TIMEOUT_MS = 20_000;

/**
 * One connection to a daemon; requests may overlap and are matched to answers by id. A request
 * fails with a RepomapError: the daemon's error answer (see errorFromRpc), or `connection-lost`.
 */
export class DaemonClient {
  /** One request on a connection of its own, closed once it is answered. */
  static async once<T>(socket: string, method: string, params?: object): Promise<T> {
    const client = await DaemonClient.connect(socket);
    try {
      return await client.request<T>(method, params);
    } finally {
      client.close();
    }
  }

  private nextId = 1;
  private buffer = '';
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  /** Set once the connection is lost: a later request fails with it at once (no answer can come). */
  private lost: RepomapError | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.receive(chunk));
    const fail = (err: Error) => {
      this.lost ??= new RepomapError('connection-lost', `the daemon stopped answering: ${errorMessage(err)}`, { cause: err });
      for (const { reject } of this.waiting.values()) reject(this.lost);
      this.waiting.clear();
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the daemon closed the connection')));
  }

  /**
   * Connects to the daemon listening on `socketPath`, once its folder and the socket are checked
   * (see checkRuntimeDir): a 'refused' RepomapError when they could be another user's, an ENOENT error when
   * no daemon has made them.
   */
  static connect(socketPath: string): Promise<DaemonClient> {
    try {
      checkRuntimeDir(dirname(socketPath));
      checkSocket(socketPath);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return new Promise((resolve, reject) => {
      const socket = connect(socketPath);
      socket.once('connect', () => {
        socket.removeListener('error', reject);
        resolve(new DaemonClient(socket));
      });
      socket.once('error', reject);
    });
  }

  request<T = unknown>(method: string, params?: object): Promise<T> {
    // A connection whose daemon went while it was idle (an idle exit, a crash) heard its close then.
    if (this.lost) return Promise.reject(this.lost);
    const id = this.nextId++;
    const line = JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }) + '\n';
    // The daemon answers a longer line with an error it cannot address to this request (its id is
    // not read): refused here, where the request is known.
    const bytes = Buffer.byteLength(line) - 1; // the newline not counted, as the daemon counts
    if (bytes > MAX_REQUEST_BYTES) return Promise.reject(badRequest(`the ${method} request is ${bytes} bytes, over the daemon's limit of ${MAX_REQUEST_BYTES}: a message, name or list that long is no request`));
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.socket.write(line);
    });
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    for (let newline = this.buffer.indexOf('\n'); newline !== -1; newline = this.buffer.indexOf('\n')) {
      const response = JSON.parse(this.buffer.slice(0, newline)) as RpcResponse;
      this.buffer = this.buffer.slice(newline + 1);
      // An error the daemon could tie to no request (a connection over its cap) is every request's.
      if (response.id === null && 'error' in response) {
        this.lost ??= errorFromRpc(response.error);
        for (const { reject } of this.waiting.values()) reject(this.lost);
        this.waiting.clear();
        continue;
      }
      const pending = typeof response.id === 'number' ? this.waiting.get(response.id) : undefined;
      if (!pending) continue;
      this.waiting.delete(response.id as number);
      if ('error' in response) pending.reject(errorFromRpc(response.error));
      else pending.resolve(response.result);
    }
  }

  /** Closes the connection: a request pending or made later fails saying this side closed it (not that the daemon went). */
  close(): void {
    this.lost ??= new RepomapError('connection-lost', 'the connection to the daemon was closed by this client (close())');
    for (const { reject } of this.waiting.values()) reject(this.lost);
    this.waiting.clear();
    this.socket.end();
  }
}

/** Options passed to a daemon that this client starts (they do not change a running one). */
export interface StartOptions {
  cacheDir?: string;
  workers?: number;
  exclude?: readonly string[];
  idleTimeoutSeconds?: number;
  /** Native grammars the project config may load (the user's permission: see resolveLanguages). */
  allowGrammars?: readonly string[];
  /** Called once when a daemon has to be started. */
  onStarting?: () => void;
}

/**
 * Connects to the root's daemon, starting one in the background when none answers. `notice` says
 * which of the start options a daemon already running does not use (see ignoredOptions).
 */
export async function connectOrStart(root: string, options: DaemonStartOptions = {}): Promise<{ client: DaemonClient; notice?: string }> {
  // A glob outside the root is refused here, as `repomap map` refuses it, not by a daemon that fails to start.
  rootRelativeGlobs(root, options.exclude ?? [], 'exclude');
  const paths = daemonPaths(root);
  let client: DaemonClient;
  try {
    client = await DaemonClient.connect(paths.socket);
  } catch (err) {
    if (err instanceof RepomapError) throw err; // a runtime folder or socket not to be trusted
    // A root the daemon would refuse is refused here, in one line, not by a daemon that fails to start.
    await refuseGitFolder(root);
    options.onStarting?.();
    await startDaemon(root, paths, options);
    return { client: await DaemonClient.connect(paths.socket) };
  }
  if (!hasStartOptions(options)) return { client };
  const notice = ignoredOptions(root, options, await client.request<DaemonStatus>('status'));
  return notice ? { client, notice } : { client };
}

function hasStartOptions(options: StartOptions): boolean {
  return (
    options.cacheDir !== undefined || options.workers !== undefined || (options.exclude ?? []).length > 0 || options.idleTimeoutSeconds !== undefined || (options.allowGrammars ?? []).length > 0
  );
}

/**
 * One line naming the start options a running daemon does not use (it keeps those it was started
 * with), and the restart that applies them; undefined when it uses them all. The restart names only
 * the options given: it keeps the daemon's others (see restartCommand). Each value is written as a
 * POSIX shell reads it back, its flag before it (`--exclude 'a b' --exclude c`): a glob's spaces
 * and quotes, or one flag for two globs, would otherwise leave the line ambiguous.
 */
export function ignoredOptions(root: string, options: StartOptions, status: DaemonStatus): string | undefined {
  const differ: string[] = [];
  const given = options.exclude ?? [];
  // Compared as matched: `/root/vendor` and `./vendor` are the one glob.
  const matched = (globs: readonly string[]) => rootRelativeGlobs(root, globs, 'exclude').sort().join('\0');
  if (given.length > 0 && matched(given) !== matched(status.exclude)) {
    differ.push(`${commandLine(optionWords('--exclude', given))} (it uses: ${commandLine(optionWords('--exclude', status.exclude)) || 'none'})`);
  }
  const single = (flag: string, value: string | number | undefined, used: string | number) => {
    if (value !== undefined && value !== used) differ.push(`${commandLine([flag, String(value)])} (it uses: ${shellWord(String(used))})`);
  };
  single('--workers', options.workers, status.workers);
  single('--cache-dir', options.cacheDir === undefined ? undefined : resolve(options.cacheDir), status.cacheDir);
  single('--idle-timeout', options.idleTimeoutSeconds, status.idleTimeoutSeconds);
  const allowed = options.allowGrammars ?? [];
  const running = status.startedWith.allowGrammars ?? [];
  if (allowed.some((name) => !running.includes(name))) {
    differ.push(`${commandLine(optionWords('--allow-grammar', allowed))} (it uses: ${commandLine(optionWords('--allow-grammar', running)) || 'none'})`);
  }
  if (differ.length === 0) return undefined;
  const restart = commandLine(['repomap', 'restart', root, ...startFlags(options)]);
  return `the daemon for ${root} already runs and keeps the options it was started with, not ${differ.join(', ')}; to apply them: ${restart}`;
}

/** The words of a command line, each quoted for a POSIX shell (see shellWord). */
function commandLine(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}

/** An option's flag before each of its values (`--exclude a --exclude b`), as a command line takes them. */
function optionWords(flag: string, values: readonly (string | number | undefined)[]): string[] {
  return values.flatMap((value) => (value === undefined ? [] : [flag, String(value)]));
}

/**
 * What a client gives repomapd on its command line: the start options, and --max-file-bytes, which
 * no client takes but a restart hands on from the daemon it replaces (see restartCommand).
 */
export type DaemonStartOptions = StartOptions & Pick<DaemonFlags, 'maxFileBytes'>;

/** The flags of repomapd's command line for these options, unquoted (an argv). */
function startFlags(options: DaemonStartOptions): string[] {
  return [
    ...optionWords('--exclude', options.exclude ?? []),
    ...optionWords('--workers', [options.workers]),
    ...optionWords('--cache-dir', [options.cacheDir]),
    ...optionWords('--idle-timeout', [options.idleTimeoutSeconds]),
    ...optionWords('--max-file-bytes', [options.maxFileBytes]),
    ...optionWords('--allow-grammar', options.allowGrammars ?? []),
  ];
}

/**
 * glibc's malloc arenas a daemon may use (unless the caller's environment sets MALLOC_ARENA_MAX):
 * by default each thread that allocates (parse workers, libuv's, LMDB's) gets one of up to eight
 * per core, and each keeps the memory its thread freed in pieces. Two hold a first index of the
 * kernel about 100 MiB lower, in the same time.
 */
const DAEMON_MALLOC_ARENAS = '2';

/**
 * The shell a started daemon runs under, which outlives it: a daemon killed by a signal (SIGBUS
 * when a file LMDB maps is cut under it, SIGKILL, the kernel's out-of-memory killer) cannot log
 * it, and nobody else waits for it. The shell then appends one line to the daemon's log ($1), in
 * its format, and exits with the daemon's status; the rest of its arguments are the daemon's
 * command line. It ignores SIGPIPE: the client stops reading the stderr pipe once the daemon
 * listens, and the shell's word of a killed job there would end it before its line (Node ignores
 * SIGPIPE anyway, and its children start with it restored). It takes no signal of the daemon's:
 * stop and SIGTERM go to the daemon's pid, in its lock file.
 */
const WATCH_SCRIPT = `log=$1; shift
trap '' PIPE
"$@"; status=$?
if [ "$status" -gt 128 ]; then
  printf '%s the daemon was killed by SIG%s (exit status %s): it could not log why\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(kill -l "$status")" "$status" >> "$log" 2>/dev/null
fi
exit "$status"`;

/** How the daemon's shell (see WATCH_SCRIPT) ended: the daemon's exit status, or the signal that killed it (or the shell). */
function exitReason(code: number | null, signal: NodeJS.Signals | null): string {
  const killedBy = signal ?? (code !== null && code > 128 ? Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0] : undefined);
  return killedBy ? `it was killed by ${killedBy}` : `it exited with status ${code}`;
}

/** Starts a daemon in the background and waits until it listens; its error, if it fails. */
export async function startDaemon(root: string, paths: DaemonPaths, options: DaemonStartOptions = {}): Promise<void> {
  const binary = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'repomapd.js');
  const log = daemonLogFile(options.cacheDir === undefined ? defaultCacheDir(root) : resolve(options.cacheDir));
  const args = ['-c', WATCH_SCRIPT, 'repomapd', log, process.execPath, binary, root, ...startFlags(options)];
  const env = { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? DAEMON_MALLOC_ARENAS };
  const child = spawn('/bin/sh', args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = exitReason(code, signal)));

  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    while (Date.now() < deadline) {
      try {
        (await DaemonClient.connect(paths.socket)).close();
        return;
      } catch (err) {
        if (err instanceof RepomapError) throw err; // a runtime folder or socket not to be trusted
        // otherwise not listening yet
      }
      if (exited !== undefined) {
        const reason = stderr.trim().split('\n').pop() || exited;
        // Another client may have started the daemon at the same moment: that one serves us.
        if (/already (serves|listens)/.test(reason)) return;
        throw new RepomapError('daemon-unavailable', `could not start the daemon for ${root}: ${reason.replace(/^repomapd: /, '')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new RepomapError('daemon-unavailable', `the daemon for ${root} did not start listening within ${START_TIMEOUT_MS / 1000} s`);
  } finally {
    child.stderr.destroy();
    child.unref();
  }
}
