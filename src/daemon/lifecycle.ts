// A daemon's hold on its root: the lock, the socket it listens on (and watches: removed or
// replaced, it is no longer the daemon's), the root folder itself (deleted or moved, it is no
// longer the daemon's), its connections (at most MAX_CONNECTIONS), and the idle timeout. One lock
// per root means one daemon per root.
import { type BigIntStats, type Stats, existsSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { RepomapError, isAbsent } from '../errors.js';
import { acquireLock, releaseLock } from '../lock-file.js';
import { type DaemonPaths, ensureRuntimeDir } from './runtime.js';
import { rpcError } from './protocol.js';

/**
 * The most connections a daemon serves at once; one more is answered with a JSON-RPC error line
 * and closed. Each holds a file descriptor: a fixed bound well under the smallest usual limit of
 * open files (256, macOS's default), beside the daemon's own (its store, log, watcher, threads),
 * so that the daemon can always accept and answer. Node cannot read the limit (no getrlimit).
 * Idle connections are not timed out: only this user can connect (the socket is 0600), and a long
 * idle one is an MCP server or a library handle between calls.
 */
export const MAX_CONNECTIONS = 64;
/** How long a refused connection is read (and its input dropped) before it is closed anyway, if its client does not close it. */
const REFUSED_LINGER_MS = 5000;

/**
 * Takes the root's lock, cleans up after a crashed daemon, and runs `start` holding the lock (which
 * is released again if `start` fails). Throws a 'refused' RepomapError when another daemon already serves this root.
 */
export async function withRootLock<T>(paths: DaemonPaths, root: string, start: () => Promise<T>): Promise<T> {
  ensureRuntimeDir(paths.dir);
  const lock = acquireLock(paths.lock);
  if (!lock.ok) throw new RepomapError('refused', `a daemon (pid ${lock.holder}) already serves ${root}`);
  try {
    if (existsSync(paths.socket)) {
      if (await socketAnswers(paths.socket)) throw new RepomapError('refused', `a daemon already listens on ${paths.socket}`);
      unlinkSync(paths.socket); // left by a daemon that crashed
    }
    return await start();
  } catch (err) {
    releaseLock(paths.lock);
    throw err;
  }
}

/** Whether something answers on a Unix socket (a live daemon), within a short wait. */
export function socketAnswers(path: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (alive: boolean) => {
      socket.destroy();
      resolve(alive);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(timeoutMs, () => done(false));
  });
}

export interface LifecycleOptions {
  root: string;
  paths: DaemonPaths;
  /** How often the daemon checks that its socket is still there and its root is still the folder it started on. */
  holdCheckMs: number;
  /** The idle timeout in force (0 = never); read at each request, as the project config can change it. */
  idleTimeoutMs: () => number;
  log: (line: string) => void;
  /** Serves one new connection (at most MAX_CONNECTIONS at once). */
  serve: (socket: Socket) => void;
  /** Asked when the daemon should stop: idle too long, its socket removed or replaced, or its root gone. */
  shutdown: (reason: string) => void;
}

/**
 * What a folder is, whatever its path: a rename keeps its device, inode and birth time. A folder
 * made anew at the path has another birth time where the file system records one (statx), even
 * when it is given the inode just freed, as ext4 does at once; elsewhere the birth time reads 0 and
 * the inode alone tells.
 */
type FolderIdentity = Pick<BigIntStats, 'dev' | 'ino' | 'birthtimeNs'>;

/** The socket a daemon made, whatever its path holds later: a socket made anew at the path is another inode. */
type SocketIdentity = Pick<Stats, 'dev' | 'ino'>;

/** What a path that is not a daemon's socket holds, for a message. */
function kindOf(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symlink';
  if (info.isFile()) return 'a regular file';
  if (info.isDirectory()) return 'a folder';
  return info.isSocket() ? 'another socket' : 'something that is not a socket';
}

/**
 * Why `root` no longer leads to the folder `started` identifies (undefined while it does): deleted,
 * moved or renamed away, or another folder made at the path. Only a path that leads nowhere
 * (ENOENT, ENOTDIR) counts as gone: another failure to stat it (EIO, EACCES while a parent's mode
 * changes) says nothing of the folder, and the next check asks again.
 */
async function rootChange(root: string, started: FolderIdentity | undefined): Promise<string | undefined> {
  let now: BigIntStats;
  try {
    now = await stat(root, { bigint: true });
  } catch (err) {
    return isAbsent(err) ? `its root ${root} is gone (deleted, or moved or renamed)` : undefined;
  }
  if (started !== undefined && now.dev === started.dev && now.ino === started.ino && now.birthtimeNs === started.birthtimeNs) return undefined;
  return `its root ${root} is another folder now (the one it served was moved or renamed, or deleted and made again)`;
}

/**
 * The socket a daemon listens on, its connections, its idle timer, and the checks that its socket
 * and its root are still there; made once the lock is held.
 */
export class Lifecycle {
  private readonly server: Server;
  private readonly connections = new Set<Socket>();
  /** Connections refused since the last one served: the log says so once when refusing starts, and the count when it ends. */
  private refused = 0;
  /** The socket this daemon listens on, once it does: what release removes, and the hold check compares the path with. */
  private socketIdentity: SocketIdentity | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private holdCheck: NodeJS.Timeout | undefined;
  /** The timer's root check under way: at most one at a time, so a stat that hangs (a dead network mount) does not pile up. */
  private rootChecking: Promise<string | undefined> | undefined;
  /**
   * The root folder's identity, taken when the daemon is made, before its tree is listed: what it
   * indexes is this folder's. Undefined when the root was gone already (the first check says so).
   */
  private readonly rootIdentity: FolderIdentity | undefined;

  constructor(private readonly options: LifecycleOptions) {
    try {
      const { dev, ino, birthtimeNs } = statSync(options.root, { bigint: true });
      this.rootIdentity = { dev, ino, birthtimeNs };
    } catch {
      this.rootIdentity = undefined;
    }
    this.server = createServer((socket) => {
      if (this.connections.size >= MAX_CONNECTIONS) return this.refuse(socket);
      if (this.refused > 0) {
        options.log(`refused ${this.refused} connections over the cap of ${MAX_CONNECTIONS}`);
        this.refused = 0;
      }
      this.connections.add(socket);
      options.serve(socket);
      socket.on('close', () => this.connections.delete(socket));
    });
  }

  /**
   * Answers a connection over the cap with one JSON-RPC error line (id null: no request is read)
   * and closes it. What its client sends meanwhile is read and dropped: a socket closed with input
   * unread is reset, and its client would see ECONNRESET, not the error.
   */
  private refuse(socket: Socket): void {
    if (this.refused++ === 0) this.options.log(`refusing connections: ${MAX_CONNECTIONS} open, the most the daemon serves at once`);
    const error = new RepomapError('refused', `too many connections: the daemon serves at most ${MAX_CONNECTIONS} at once (${this.connections.size} open); close one and try again`);
    socket.on('error', () => {});
    socket.on('data', () => {});
    socket.setTimeout(REFUSED_LINGER_MS, () => socket.destroy());
    socket.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: rpcError(error) }) + '\n');
  }

  async listen(): Promise<void> {
    const { paths, root, log } = this.options;
    // The socket is created 0600 (umask), so no other user can connect even for a moment.
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(paths.socket, () => resolve());
      });
    } finally {
      process.umask(umask);
    }
    // Removed already (a client may connect, and remove it, before this runs), it is not the
    // daemon's: the first check says so.
    const made = this.atSocketPath();
    if (made?.isSocket()) this.socketIdentity = { dev: made.dev, ino: made.ino };
    log(`listening on ${paths.socket} (pid ${process.pid}) for ${root}`);
    this.touch();
    // The watcher names the root's own removal (see RepoWatcherOptions.onRootEvent), but it starts
    // after the first map, and sees nothing when a folder above the root is moved: this timer tells.
    this.holdCheck = setInterval(() => {
      const lost = this.socketLost();
      if (lost) this.options.shutdown(lost);
      else this.rootChecking ??= this.rootGone().finally(() => (this.rootChecking = undefined));
    }, this.options.holdCheckMs);
    this.holdCheck.unref();
  }

  /**
   * Why the socket path no longer leads to this daemon (undefined while it does): removed, or
   * replaced (a regular file, a symlink, another socket): no client reaches the daemon any more.
   * A failure to look (EACCES while the folder's mode changes) says nothing: the next check asks again.
   */
  private socketLost(): string | undefined {
    const { socket } = this.options.paths;
    let info: Stats;
    try {
      info = lstatSync(socket);
    } catch (err) {
      return isAbsent(err) ? 'its socket was removed' : undefined;
    }
    if (this.ownsSocket(info)) return undefined;
    return `its socket ${socket} was replaced by ${kindOf(info)}`;
  }

  /** What is at the socket path now; undefined when nothing is, or it cannot be looked at. */
  private atSocketPath(): Stats | undefined {
    try {
      return lstatSync(this.options.paths.socket);
    } catch {
      return undefined;
    }
  }

  /** Whether what is at the socket path is the socket this daemon made. */
  private ownsSocket(info: Stats | undefined): boolean {
    const made = this.socketIdentity;
    return info !== undefined && made !== undefined && info.isSocket() && info.dev === made.dev && info.ino === made.ino;
  }

  /**
   * Why the root is no longer the folder the daemon started on (see rootChange), having asked for
   * the shutdown then; undefined while it is.
   */
  async rootGone(): Promise<string | undefined> {
    const reason = await rootChange(this.options.root, this.rootIdentity);
    if (reason !== undefined) this.options.shutdown(reason);
    return reason;
  }

  /** Starts the idle timeout again: at each request, and when the timeout changes. */
  touch(): void {
    const idleMs = this.options.idleTimeoutMs();
    if (idleMs <= 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.options.shutdown(`idle for ${this.options.idleTimeoutMs()} ms`), idleMs);
  }

  /** Stops the timers and the server, and ends every connection (their answers written so far are sent). */
  stopServing(): void {
    clearTimeout(this.idleTimer);
    clearInterval(this.holdCheck);
    // Closing the server removes its path (libuv unlinks it): not when the path holds something
    // else now (a file or a link put in its place), which no client reaches the server through
    // either; the process's exit ends the server then.
    if (this.ownsSocket(this.atSocketPath())) this.server.close();
    for (const socket of this.connections) socket.end();
  }

  /**
   * Removes the socket, if the path still holds the one this daemon made (a file or link put in
   * its place is not the daemon's to remove), and releases the lock: the last step of a shutdown.
   */
  release(): void {
    const { socket, lock } = this.options.paths;
    try {
      if (this.ownsSocket(this.atSocketPath())) unlinkSync(socket);
    } catch {
      // already removed (that may be why we stop)
    }
    releaseLock(lock);
  }
}
