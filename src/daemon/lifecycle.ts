// A daemon's hold on its root: the lock, the socket it listens on (and watches for removal), the
// root folder itself (deleted or moved, it is no longer the daemon's), its connections, and the
// idle timeout. One lock per root means one daemon per root.
import { type BigIntStats, existsSync, statSync, unlinkSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { RepomapError, isAbsent } from '../errors.js';
import { acquireLock, releaseLock } from '../lock-file.js';
import { type DaemonPaths, ensureRuntimeDir } from './runtime.js';

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
  /** Serves one new connection. */
  serve: (socket: Socket) => void;
  /** Asked when the daemon should stop: idle too long, its socket removed, or its root gone. */
  shutdown: (reason: string) => void;
}

/**
 * What a folder is, whatever its path: a rename keeps its device, inode and birth time. A folder
 * made anew at the path has another birth time where the file system records one (statx), even
 * when it is given the inode just freed, as ext4 does at once; elsewhere the birth time reads 0 and
 * the inode alone tells.
 */
type FolderIdentity = Pick<BigIntStats, 'dev' | 'ino' | 'birthtimeNs'>;

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
      this.connections.add(socket);
      options.serve(socket);
      socket.on('close', () => this.connections.delete(socket));
    });
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
    log(`listening on ${paths.socket} (pid ${process.pid}) for ${root}`);
    this.touch();
    // The watcher names the root's own removal (see RepoWatcherOptions.onRootEvent), but it starts
    // after the first map, and sees nothing when a folder above the root is moved: this timer tells.
    this.holdCheck = setInterval(() => {
      if (!existsSync(paths.socket)) this.options.shutdown('its socket was removed');
      else this.rootChecking ??= this.rootGone().finally(() => (this.rootChecking = undefined));
    }, this.options.holdCheckMs);
    this.holdCheck.unref();
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
    this.server.close();
    for (const socket of this.connections) socket.end();
  }

  /** Removes the socket and releases the lock: the last step of a shutdown. */
  release(): void {
    try {
      unlinkSync(this.options.paths.socket);
    } catch {
      // already removed (that may be why we stop)
    }
    releaseLock(this.options.paths.lock);
  }
}
