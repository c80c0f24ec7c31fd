// Every git command repomap runs: its command line, and the one function that runs it (bounded in
// time, and killed with this process: see runGitCommand). A repository's own `.git/config` is as
// untrusted as its files (a folder handed over whole, an archive, carries one): it may name
// programs for git to run on a plain read, which repomap never wants run. These settings, given on
// the command line, win over any config file.
//   core.fsmonitor=false     an fsmonitor hook runs on `git ls-files --others`, `check-ignore`, ...
//   log.showSignature=false  a signature check runs `gpg.program` on `git log`
//   core.quotepath=off       names are written as they are (UTF-8), not quoted
import { execFile } from 'node:child_process';
import { adopt } from './child-processes.js';
import { RepomapError } from './errors.js';
import { gitBoundMs } from './test-hooks.js';

const SAFE_CONFIG = ['-c', 'core.fsmonitor=false', '-c', 'log.showSignature=false', '-c', 'core.quotepath=off'] as const;

/**
 * How every diff repomap reads is written, whatever the repository's config says: no context
 * lines, no rename detection, no colour, `a/` and `b/` before the paths, and no program of the
 * repository's (an external diff, a text conversion) run on its files.
 */
export const DIFF_ARGS = ['--unified=0', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/'] as const;

/** git's arguments for `args`, after the settings above. */
export function gitArgs(args: readonly string[]): string[] {
  return [...SAFE_CONFIG, ...args];
}

/**
 * How long any git command may run before it is killed (SIGKILL): far past what a sound repository
 * needs (git lists the Linux kernel's files in 1-2 s), short of a hang. A hostile one can make git
 * spin (a .gitignore pattern its wildmatch takes exponential time on) or block (an ignore file that
 * is a FIFO).
 */
export const GIT_BOUND_MS = 60_000;

/** A git command that ran past its bound, and was killed: refused work (exit 2), one line naming the command. */
export class GitTimeoutError extends RepomapError {
  constructor(
    readonly command: string,
    readonly boundMs: number,
  ) {
    super('refused', `git ${command} did not finish within ${boundMs / 1000} s`);
  }
}

export interface GitRunOptions<E extends 'utf8' | 'buffer'> {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  encoding: E;
  /** Written to git's standard input, which is then closed (default: closed at once). */
  input?: string;
  /** Its bound, when shorter than GIT_BOUND_MS: a command whose answer the caller can do without. */
  boundMs?: number;
  /** With this bound on its output, git is stopped there and what it wrote so far is the answer (default: MAX_GIT_OUTPUT, past which it fails). */
  maxBytes?: number;
}

/** The largest output read from git (1 GiB: a listing of millions of paths). */
const MAX_GIT_OUTPUT = 1 << 30;

/**
 * Runs git with gitArgs(args), the one way repomap runs git: killed (SIGKILL) past the bound, and
 * adopted so that it dies with this process. Resolves to its stdout; rejects with a
 * GitTimeoutError past the bound, else with execFile's error (its `stderr` attached).
 */
export function runGitCommand(args: readonly string[], options: GitRunOptions<'utf8'>): Promise<string>;
export function runGitCommand(args: readonly string[], options: GitRunOptions<'buffer'>): Promise<Buffer>;
export function runGitCommand(args: readonly string[], options: GitRunOptions<'utf8' | 'buffer'>): Promise<string | Buffer> {
  const boundMs = gitBoundMs(process.env) ?? options.boundMs ?? GIT_BOUND_MS;
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      'git',
      gitArgs(args),
      { cwd: options.cwd, env: options.env, encoding: options.encoding, maxBuffer: options.maxBytes ?? MAX_GIT_OUTPUT, timeout: boundMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (!error) return resolvePromise(stdout);
        if (options.maxBytes !== undefined && (error as { code?: string }).code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return resolvePromise(stdout);
        if ((error as { killed?: boolean }).killed && error.signal === 'SIGKILL') return reject(new GitTimeoutError(gitCommandName(args), boundMs));
        reject(Object.assign(error, { stdout, stderr: String(stderr) }));
      },
    );
    adopt(child);
    child.stdin?.on('error', () => {}); // git gone before reading it all: its exit says why
    child.stdin?.end(options.input ?? '');
  });
}

/** The git command `args` run, as a message names it: `ls-files`, `log`, without the options before it. */
function gitCommandName(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--git-dir' || args[i] === '-C' || args[i] === '-c') i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return args.join(' ');
}
