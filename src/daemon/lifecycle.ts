// A daemon's hold on its root: the lock, the socket it listens on (and watches for removal), its
// connections, and the idle timeout. One lock per root means one daemon per root.
import { existsSync, unlinkSync } from 'node:fs';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { RepomapError } from '../errors.js';
import { acquireLock, releaseLock } from '../lock-file.js';
import { type DaemonPaths, ensureRuntimeDir } from './runtime.js';

/** How often the daemon checks that its socket is still there. */
const SOCKET_CHECK_MS = 2000;

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
  /** The idle timeout in force (0 = never); read at each request, as the project config can change it. */
  idleTimeoutMs: () => number;
  log: (line: string) => void;
  /** Serves one new connection. */
  serve: (socket: Socket) => void;
  /** Asked when the daemon should stop: idle too long, or its socket removed. */
  shutdown: (reason: string) => void;
}

/** The socket a daemon listens on, its connections and its idle timer; made once the lock is held. */
export class Lifecycle {
  private readonly server: Server;
  private readonly connections = new Set<Socket>();
  private idleTimer: NodeJS.Timeout | undefined;
  private socketCheck: NodeJS.Timeout | undefined;

  constructor(private readonly options: LifecycleOptions) {
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
    this.socketCheck = setInterval(() => {
      if (!existsSync(paths.socket)) this.options.shutdown('its socket was removed');
    }, SOCKET_CHECK_MS);
    this.socketCheck.unref();
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
    clearInterval(this.socketCheck);
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
