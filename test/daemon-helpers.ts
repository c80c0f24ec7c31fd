// Running real daemons in the tests: a private runtime folder, repomapd started in the foreground
// (killed when the test file ends if a test left it running), and raw JSON-RPC lines on its socket.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after } from 'node:test';
import { daemonPaths } from '../src/daemon/runtime.js';
import { packageRoot } from '../src/paths.js';
import { tempDir } from './helpers.js';

export const DAEMON = join(packageRoot, 'bin', 'repomapd.js');
const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** A private runtime folder, as XDG_RUNTIME_DIR would give. */
export function runtimeEnv(): { XDG_RUNTIME_DIR: string } {
  const dir = tempDir('repomap-run-');
  chmodSync(dir, 0o700);
  return { XDG_RUNTIME_DIR: dir };
}

export interface RunningDaemon {
  child: ChildProcess;
  socket: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** One cache folder per root, kept across restarts of its daemon and removed with the other temporary folders. */
export const cacheDirs = new Map<string, string>();
export const cacheFor = (root: string) => cacheDirs.get(root) ?? (cacheDirs.set(root, tempDir('repomap-cache-')), cacheDirs.get(root)!);

export function startDaemon(root: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<RunningDaemon> {
  return startDaemonUnder(undefined, root, env, ...args);
}

/** startDaemon, under a limit of open files (`ulimit -n`) when one is given. */
export async function startDaemonUnder(fileLimit: number | undefined, root: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<RunningDaemon> {
  const command = [process.execPath, DAEMON, root, '--foreground', '--workers', '2', '--cache-dir', cacheFor(root), ...args];
  const [file, ...argv] = fileLimit === undefined ? command : ['/bin/sh', '-c', `ulimit -n ${fileLimit} && exec "$@"`, 'sh', ...command];
  const child = spawn(file, argv, {
    // Every store lets go of its map, however small: these tests run through the releases.
    env: { ...process.env, REPOMAP_TEST_RELEASE_FROM_BYTES: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { running.delete(child); resolve(code); }));
  const socket = daemonPaths(root, join(env.XDG_RUNTIME_DIR!, 'repomap')).socket;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (await answers(socket)) return { child, socket, stderr: () => stderr, exited };
    await sleep(25);
  }
  return { child, socket, stderr: () => stderr, exited };
}

export function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(socket);
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends raw lines on one connection and collects one answer per line. */
export function rawExchange(socket: string, payload: string, answersWanted: number): Promise<Array<{ id: unknown; error?: { code: number; message: string }; result?: unknown }>> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let buffer = '';
    const got: Array<{ id: unknown; error?: { code: number; message: string }; result?: unknown }> = [];
    s.setEncoding('utf8');
    s.on('data', (chunk: string) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        got.push(JSON.parse(buffer.slice(0, newline)));
        buffer = buffer.slice(newline + 1);
      }
      if (got.length >= answersWanted) {
        s.destroy();
        resolve(got);
      }
    });
    s.on('error', reject);
    s.write(payload);
  });
}

/** The daemon's exit code once it exits, or 'still running' after `ms` (generous: a bound, not a speed). */
export function exitWithin(daemon: RunningDaemon, ms = 20_000): Promise<number | null | 'still running'> {
  return Promise.race([daemon.exited, sleep(ms).then(() => 'still running' as const)]);
}

