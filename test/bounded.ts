// Runs a command of repomap's as the hostile-repository tests need it: a child process under a hard
// kill timer and a resident-memory ceiling, so a test of a hang or a memory blow-up ends by itself
// and says which bound the child hit, instead of hanging the suite or exhausting the machine.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';

export interface BoundedResult {
  /** The exit status, or null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The bound that ended it, if one did: the kill timer or the memory ceiling. */
  killedFor?: 'time' | 'memory';
  /** The highest resident set seen while it ran, in MiB (sampled). */
  peakRssMib: number;
}

export interface BoundedOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Sent to its standard input, which is then closed (default: closed at once). */
  input?: string;
  /** Killed (SIGKILL) after this many milliseconds (default 60 s). */
  killAfterMs?: number;
  /** Killed when its resident set passes this many MiB (default 1024). */
  maxRssMib?: number;
}

/** The resident set of a process in MiB, read from /proc (0 where that cannot be read). */
function rssMib(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Runs `command args` bounded in time and memory; resolves when it has ended, however it ended. */
export function runBounded(command: string, args: readonly string[], options: BoundedOptions = {}): Promise<BoundedResult> {
  const child = spawn(command, args, { cwd: options.cwd ?? packageRoot, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const maxRss = options.maxRssMib ?? 1024;
  let stdout = '';
  let stderr = '';
  let killedFor: BoundedResult['killedFor'];
  let peakRssMib = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.on('error', () => {}); // a child that exits before reading its input
  child.stdin.end(options.input ?? '');
  const kill = (why: 'time' | 'memory') => {
    killedFor ??= why;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(() => kill('time'), options.killAfterMs ?? 60_000);
  const sampler = setInterval(() => {
    if (child.pid === undefined) return;
    const rss = rssMib(child.pid);
    peakRssMib = Math.max(peakRssMib, rss);
    if (rss > maxRss) kill('memory');
  }, 50);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(sampler);
      resolve({ code, signal, stdout, stderr, ...(killedFor ? { killedFor } : {}), peakRssMib });
    });
  });
}

/** bin/repomap.js run bounded, as a user would run `repomap ARGS`. */
export function runCliBounded(args: readonly string[], options: BoundedOptions = {}): Promise<BoundedResult> {
  return runBounded(process.execPath, [join(packageRoot, 'bin', 'repomap.js'), ...args], options);
}
