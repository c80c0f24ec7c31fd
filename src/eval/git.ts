// Reading a repository's history for `repomap eval`: git is run on the object database only, so a
// bare repository works as well as a checkout, and the user's work tree and index are never read.
import { leftOutMatcher } from '../discover/discover.js';
import { messageWithinBound } from '../api/request.js';
import { badRequest, errorMessage } from '../errors.js';
import { languageForPath } from '../extract/languages.js';
import { mentionedIdentifiers } from '../mentions.js';
import { seededRandom } from '../random.js';
import { isTestPath, isVendoredOrGenerated } from '../file-kinds.js';
import { DIFF_ARGS, GitTimeoutError, runGitCommand } from '../git-args.js';

/** Runs git with the given arguments; its stdout, or an error carrying git's first stderr line (or saying it ran past its bound). */
export async function runGit(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  try {
    return await runGitCommand(args, { cwd: options.cwd, env: options.env ? { ...process.env, ...options.env } : process.env, encoding: 'utf8' });
  } catch (err) {
    if (err instanceof GitTimeoutError) throw err; // its message names the command and the bound
    const stderr = (err as { stderr?: string }).stderr ?? '';
    const first = stderr.split('\n').find((line) => line.trim().length > 0) ?? errorMessage(err);
    throw new Error(`git ${args[0] === '--git-dir' ? args.slice(1).join(' ') : args.join(' ')}: ${first.trim()}`);
  }
}

/** A repository as eval sees it: where its objects are, and the commit history is read from. */
export interface GitRepo {
  /** ROOT as openRepo was given it: the folder the tasks' paths, and the exclude and include globs, are taken from. */
  root: string;
  /** Absolute path of the git directory (the common one, for a linked worktree). */
  gitDir: string;
  /** The commit the window ends at. */
  head: string;
  /**
   * The folder of the work tree ROOT is, with its trailing slash (`packages/api/`); empty for the
   * top level or a bare repository. The history is read as this folder's (see diffOptions).
   */
  prefix: string;
}

/**
 * Finds the git directory of ROOT (a checkout, a linked worktree, a subfolder of one, or a bare
 * repository), ROOT's folder in the work tree, and resolves REV.
 */
export async function openRepo(root: string, rev = 'HEAD'): Promise<GitRepo> {
  let gitDir: string;
  let prefix: string;
  try {
    [gitDir, prefix] = (await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir', '--show-prefix'], { cwd: root })).split('\n');
  } catch (err) {
    if (err instanceof GitTimeoutError) throw err;
    throw badRequest(`${root} is not a git repository (eval reads its history)`);
  }
  let head: string;
  try {
    head = (await runGit(['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', `${rev}^{commit}`])).trim();
  } catch (err) {
    if (err instanceof GitTimeoutError) throw err;
    // HEAD names no commit only in a repository without any (the first not made yet).
    throw badRequest(rev === 'HEAD' ? `${root} has no commits yet (eval reads its history)` : `--rev ${rev} is not a commit of ${root}`);
  }
  return { root, gitDir, head, prefix };
}

/**
 * The diff options that show a commit as ROOT's folder sees it: only the files under it, by their
 * paths from it (as a map of that folder names them). The commits are the repository's all the same.
 */
function diffOptions(repo: GitRepo): string[] {
  return repo.prefix ? [`--relative=${repo.prefix}`] : [];
}

/** One commit of the first-parent chain, with the files it changed. */
export interface CommitInfo {
  commit: string;
  parents: string[];
  /** Committer time, seconds since the epoch. */
  time: number;
  /** Its message, at most MAX_MESSAGE_CHARS characters (see messageWithinBound). */
  message: string;
  /** Changed files: status (A, M, D, T, ...) and lines added plus deleted (-1 for binary). */
  files: Array<{ path: string; status: string; changedLines: number }>;
}

const RECORD = '\x1e';
const FIELD = '\x1f';
const END = '\x1d';

/** The last `count` commits of the first-parent chain ending at `head`, newest first, with the files they changed under ROOT's folder. */
export async function firstParentCommits(repo: GitRepo, count: number): Promise<CommitInfo[]> {
  const out = await runGit([
    '--git-dir',
    repo.gitDir,
    'log',
    '--first-parent',
    `-n${count}`,
    `--format=${RECORD}%H${FIELD}%P${FIELD}%ct${FIELD}%B${END}`,
    '--raw',
    '--numstat',
    '--no-renames',
    '--no-abbrev',
    ...diffOptions(repo),
    repo.head,
    '--',
  ]);
  const commits: CommitInfo[] = [];
  for (const chunk of out.split(RECORD)) {
    if (chunk.length === 0) continue;
    const end = chunk.indexOf(END);
    const [commit, parents, time, message] = chunk.slice(0, end).split(FIELD);
    const status = new Map<string, string>();
    const lines = new Map<string, number>();
    for (const line of chunk.slice(end + 1).split('\n')) {
      if (line.startsWith(':')) {
        // :100644 100644 <old> <new> M\tpath
        const tab = line.indexOf('\t');
        const fields = line.slice(0, tab).split(' ');
        status.set(line.slice(tab + 1), fields[fields.length - 1].charAt(0));
      } else if (/^(\d+|-)\t(\d+|-)\t/.test(line)) {
        const [added, deleted, ...rest] = line.split('\t');
        lines.set(rest.join('\t'), added === '-' ? -1 : Number(added) + Number(deleted));
      }
    }
    const files = [...status].map(([path, s]) => ({ path, status: s, changedLines: lines.get(path) ?? 0 }));
    // Cut as a request's message is bounded: a commit made with `git commit -F` of a huge file is a task of a bounded message.
    commits.push({ commit, parents: parents.split(' ').filter(Boolean), time: Number(time), message: messageWithinBound(message).trim(), files });
  }
  return commits;
}

export interface TaskOptions {
  /** Commits of the first-parent chain to look at (default 2000). */
  commits?: number;
  /** Tasks to sample (default 50). */
  tasks?: number;
  /** Seed of the sample (default 1). */
  seed?: number;
  /** Test files are neither the chat file nor targets, and do not count as changed files. */
  excludeTests?: boolean;
  /** Globs of paths left out (the same --exclude as the map's). */
  exclude?: readonly string[];
  /** Globs of the files kept (the project config's include, as the map's). */
  include?: readonly string[];
  minFiles?: number;
  maxFiles?: number;
}

/** One evaluation task: a commit, seen from its parent. */
export interface EvalTask {
  commit: string;
  parent: string;
  time: number;
  subject: string;
  message: string;
  /** The changed source file with the most changed lines: the model has it. */
  chatFile: string;
  /** The other changed source files: what the map should show. */
  targets: string[];
  /** Identifiers of the commit message, as --message extracts them. */
  mentions: string[];
}

export const DEFAULT_COMMITS = 2000;
export const DEFAULT_TASKS = 50;
export const MIN_TASK_FILES = 2;
export const MAX_TASK_FILES = 8;

/** Candidate tasks of a window (oldest first) and a seeded sample of them spread over it. */
export async function mineTasks(repo: GitRepo, options: TaskOptions = {}): Promise<{ window: number; candidates: number; tasks: EvalTask[] }> {
  const history = await firstParentCommits(repo, options.commits ?? 2000);
  const leftOut = leftOutMatcher(repo.root, options);
  const candidates = history
    .map((info) => taskOf(info, options, leftOut))
    .filter((task): task is EvalTask => task !== null)
    .reverse();
  return { window: history.length, candidates: candidates.length, tasks: sampleSpread(candidates, options.tasks ?? DEFAULT_TASKS, options.seed ?? 1) };
}

/**
 * The task of one commit, or null when it is not one (a merge, a chore, too few or too many files).
 * `leftOut`: the paths the map's discovery leaves out (leftOutMatcher of ROOT and the globs, made
 * once per mining: see mineTasks).
 */
export function taskOf(info: CommitInfo, options: Omit<TaskOptions, 'exclude' | 'include'> = {}, leftOut: ((path: string) => boolean) | null = null): EvalTask | null {
  if (info.parents.length !== 1) return null;
  const subject = info.message.split('\n')[0] ?? '';
  if (isChore(subject)) return null;
  const sources = info.files.filter(
    (file) =>
      file.changedLines >= 0 &&
      !file.path.startsWith('"') &&
      languageForPath(file.path) !== undefined &&
      !isVendoredOrGenerated(file.path) &&
      !(options.excludeTests && isTestPath(file.path)) &&
      !leftOut?.(file.path),
  );
  // Added files cannot be in the parent's map; deleted ones are not a change to make use of.
  const modified = sources.filter((file) => file.status === 'M');
  if (modified.length < (options.minFiles ?? MIN_TASK_FILES) || modified.length > (options.maxFiles ?? MAX_TASK_FILES)) return null;
  // Most changed lines first; ties by path, so the choice is deterministic.
  const ordered = [...modified].sort((a, b) => b.changedLines - a.changedLines || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    commit: info.commit,
    parent: info.parents[0],
    time: info.time,
    subject,
    message: info.message,
    chatFile: ordered[0].path,
    targets: ordered.slice(1).map((file) => file.path).sort(),
    mentions: [...mentionedIdentifiers(stripTrailers(info.message))].sort(),
  };
}

/** What eval reads of a commit's diff from its parent (see commitChanges). */
export interface CommitChanges {
  /**
   * The identifiers (as --message extracts words) of the lines the commit adds to its source
   * files: every changed file under ROOT's folder of a supported language that is not vendored or
   * generated (test files included: what a test calls is used too).
   */
  added: Set<string>;
  /**
   * Where each hunk of a changed file starts in the parent's version, by the file's parent path:
   * 0-based old lines [from, to] per hunk, in file order. A hunk that replaces or removes lines
   * starts at its first old line (from = to); one that only inserts lines sits between two old
   * lines (from, and to = from + 1: -1 before the first line).
   */
  hunks: Map<string, Array<[number, number]>>;
}

/** The added identifiers and the hunks' old starts of a commit's diff from its parent (`git diff -U0`): one git call. */
export async function commitChanges(repo: GitRepo, parent: string, commit: string): Promise<CommitChanges> {
  const out = await runGit([
    '--git-dir',
    repo.gitDir,
    'diff-tree',
    '-p',
    ...DIFF_ARGS,
    ...diffOptions(repo),
    parent,
    commit,
    '--',
  ]);
  const words = new Set<string>();
  const hunks = new Map<string, Array<[number, number]>>();
  // A file's header runs from `diff --git` to its first hunk: only there is `+++ ` the new path
  // (in a hunk, `+++ x` is an added line reading `++ x`), and `--- ` the old one.
  let inHeader = false;
  let counted = false;
  let oldHunks: Array<[number, number]> | undefined;
  for (const line of out.split('\n')) {
    if (line.startsWith('diff --git ')) {
      inHeader = true;
      counted = false;
      oldHunks = undefined;
    } else if (inHeader && line.startsWith('--- ')) {
      // A quoted path (unusual characters) or /dev/null (an added file) has no hunks kept.
      const path = line.slice(4);
      if (path.startsWith('a/')) hunks.set(path.slice(2), (oldHunks = []));
    } else if (inHeader && line.startsWith('+++ ')) {
      const path = line.slice(4);
      // A quoted path (unusual characters) or /dev/null (a deleted file) is not a source file taken.
      counted = path.startsWith('b/') && languageForPath(path) !== undefined && !isVendoredOrGenerated(path.slice(2));
    } else if (line.startsWith('@@')) {
      inHeader = false;
      // @@ -start[,count] +start[,count] @@: with a count of 0, start is the old line before the insertion.
      const match = /^@@ -(\d+)(?:,(\d+))? /.exec(line);
      if (match && oldHunks) {
        const start = Number(match[1]);
        oldHunks.push(match[2] === '0' ? [start - 1, start] : [start - 1, start - 1]);
      }
    } else if (!inHeader && counted && line.startsWith('+')) {
      for (const word of mentionedIdentifiers(line.slice(1))) words.add(word);
    }
  }
  return { added: words, hunks };
}

/** Drops trailer lines (Signed-off-by: ..., Co-authored-by: ...): names and addresses are not the request. */
export function stripTrailers(message: string): string {
  return message
    .split('\n')
    .filter((line) => !/^[A-Za-z][\w-]*-by:\s/.test(line.trim()))
    .join('\n');
}

const CHORE_PREFIX = /^(chore|style|ci|build|release|bump|revert|merge)\b/i;
const CHORE_WORDS =
  /\b(bump(ed|s)?|prepare (for )?release|release v?\d|changelog|reformat(ted)?|formatting|format(ted)? (code|with|using|files|all)|lint(ing|er)?|prettier|black|isort|ruff|gofmt|rustfmt|cargo fmt|clippy|typos?|spelling|whitespace|copyright|license headers?|pre-commit|autofix|(upgrade|update) dependencies|deps)\b/i;

/** Version bumps, releases, format and lint sweeps, typo fixes, reverts: not tasks a map helps with. */
export function isChore(subject: string): boolean {
  return CHORE_PREFIX.test(subject.trim()) || CHORE_WORDS.test(subject) || /^v?\d+\.\d+(\.\d+)?\b/.test(subject.trim());
}

/**
 * `count` items spread over `items` (kept in their order): the list is cut into `count` equal
 * strata and one item is drawn from each with a seeded generator. All items when there are fewer.
 */
export function sampleSpread<T>(items: readonly T[], count: number, seed: number): T[] {
  if (items.length <= count) return [...items];
  const random = seededRandom(seed);
  const out: T[] = [];
  for (let i = 0; i < count; i++) {
    const start = Math.floor((i * items.length) / count);
    const end = Math.floor(((i + 1) * items.length) / count);
    out.push(items[start + Math.floor(random() * (end - start))]);
  }
  return out;
}

