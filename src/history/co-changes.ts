// The chat files' history: the definitions of other files that past commits changed together with
// a chat file. A change lands where changes to the same file landed before (a handler and its
// route table, a type and its serializer), whether or not it uses the chat file's code: this is
// the one signal for such sites that the syntax trees do not give.
//
// Read from the repository's last HISTORY_MODEL.window commits (one `git log --name-only`, the
// files each modified): of those that modified a chat file, the last HISTORY_MODEL.commits that
// modified few source files, each with its diff (`git diff-tree -U0`, of those files only). Of
// each other file's hunks, the definition named in the hunk's function context (git's
// `@@ ... @@ int foo(...)`) and definitions whose lines the hunk changes are counted, per commit:
// newer commits weigh more, and commits that change more files less. The names are matched to the
// definitions of today's tree by the layout (co-changed.ts).
//
// The repository is untrusted: git runs with the settings of git-args.ts, without external diff
// programs or text conversion (`--no-ext-diff --no-textconv`: both are commands a repository's
// config may name), paths taken literally, its output cut at HISTORY_MODEL.maxBytes and its time
// bounded by HISTORY_MODEL.boundMs. A history that cannot be read gives none, with the reason.
import { HISTORY_MODEL } from '../model.js';
import { DIFF_ARGS, GitTimeoutError, runGitCommand } from '../git-args.js';
import { errorMessage, quoted } from '../errors.js';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';
import { getOrCreate } from '../graph/nodes.js';

/**
 * The diff drivers git is asked to use (git/attributes in the package, read after a repository's
 * own .gitattributes): a hunk's function context then names the method it is in, where git's
 * default names the last unindented line (a Python method's class). TypeScript and JavaScript
 * have no driver in git: this one takes a function, class, interface, type or enum line, and a
 * method's (a name, then a parenthesis).
 */
const DRIVER_CONFIG = [
  '-c',
  `core.attributesFile=${join(packageRoot, 'git', 'attributes')}`,
  '-c',
  // A POSIX bracket takes a tab as itself, not as `\t`: the string holds real tabs.
  'diff.repomap-ts.xfuncname=' +
    '^[\t ]*((export[\t ]+)?(default[\t ]+)?(declare[\t ]+)?(async[\t ]+)?(abstract[\t ]+)?(function|class|interface|type|enum|namespace)[\t *]+[A-Za-z_$].*' +
    '|((public|private|protected|static|async|readonly|get|set|override)[\t ]+)*[A-Za-z_$][A-Za-z0-9_$]*[\t ]*(<[^>]*>)?\\(.*)$',
];

/** Of each file other than the chat files (by path from the root): its definitions' names and their weights. */
export type CoChanges = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** Where the history is read: a checkout's folder (its HEAD), or a git directory at a commit (eval's parent commits). */
export interface HistorySource {
  /** The folder git runs in: the root of the map (paths are taken relative to it). */
  cwd: string;
  /** The git directory, when `cwd` is not a work tree of it (eval's scratch checkouts). */
  gitDir?: string;
  /** The commit the history ends at (default HEAD). */
  rev?: string;
  /** With `gitDir`: the root's folder in the repository, with its trailing slash (empty for the top level). */
  prefix?: string;
}

/** The co-changes, or why there are none (a root outside git has no history, and nothing is said). */
export interface History {
  coChanges: CoChanges;
  /** Set when the history could not be read: one line naming the reason. */
  problem?: string;
}

export const NO_HISTORY: History = { coChanges: new Map() };

/** A definition line in a diff or a hunk's function context: a keyword, then (Go's receiver) the name. */
const DEFINITION = /(?:^|[\s(])(?:def|func|fn|class|struct|enum|trait|interface|type|function|union|impl|module|mod|const|let|var)\s+(?:\([^)]*\)\s*)?([\p{L}_$][\p{L}\p{N}_$]*)/u;

/** A C-like function context line: the name before the first parenthesis (`static int foo(`). */
const CALLED = /([\p{L}_$][\p{L}\p{N}_$]*)\s*\(/u;

/** The definition a hunk's function context names: a keyword's name, else the name before a parenthesis. */
export function contextName(context: string): string | undefined {
  return DEFINITION.exec(context)?.[1] ?? CALLED.exec(context)?.[1];
}

/**
 * The repository's recent commits: the last HISTORY_MODEL.window with one parent (a first
 * commit's files are all new, and a merge repeats its parents' changes), newest first, each with
 * the files it modified (paths from the root), and each file's commits by their index.
 */
export interface RecentCommits {
  ids: readonly string[];
  files: ReadonlyArray<readonly string[]>;
  byFile: ReadonlyMap<string, readonly number[]>;
}

/** Parsed diffs by commit, then file: the definitions the commit's hunks in that file name (kept by the daemon across requests). */
export type DiffNames = Map<string, Map<string, ReadonlySet<string>>>;

/** How git is run on `source`: its repository, the drivers, literal pathspecs, the history's bounds; paths from the root. */
function gitOn(source: HistorySource) {
  const repo = source.gitDir ? ['--git-dir', source.gitDir] : [];
  return {
    // Paths from the root: the root's folder in the repository (a work tree's, from where git runs).
    relative: source.gitDir ? (source.prefix ? [`--relative=${source.prefix}`] : []) : ['--relative'],
    pathspecs: (paths: Iterable<string>) => [...paths].map((path) => (source.prefix ? source.prefix + path : path)),
    run: (args: string[], input?: string) =>
      runGitCommand([...repo, ...DRIVER_CONFIG, '--literal-pathspecs', ...args], { cwd: source.cwd, encoding: 'utf8', input, boundMs: HISTORY_MODEL.boundMs, maxBytes: HISTORY_MODEL.maxBytes }),
  };
}

/** The recent commits of `source` (one git log of trees only: no file's content is read). */
export async function readRecentCommits(source: HistorySource): Promise<RecentCommits> {
  const git = gitOn(source);
  const out = await git.run([
    '-c',
    'log.showRoot=false',
    'log',
    source.rev ?? 'HEAD',
    `--max-count=${HISTORY_MODEL.window}`,
    '--format=%x00%H %P',
    '--name-only',
    '--diff-filter=M',
    '--no-renames',
    ...git.relative,
  ]);
  const ids: string[] = [];
  const files: string[][] = [];
  const byFile = new Map<string, number[]>();
  for (const chunk of out.split('\0').slice(1)) {
    const [head, ...paths] = chunk.split('\n');
    const parents = head.trim().split(' ');
    if (parents.length !== 2) continue;
    const index = ids.length;
    const modified = paths.filter((path) => path !== '');
    ids.push(parents[0]);
    files.push(modified);
    for (const path of modified) getOrCreate(byFile, path, () => []).push(index);
  }
  return { ids, files, byFile };
}

/**
 * The co-changes of `chatFiles` (paths from the root) in `recent`, among the files `isSource`
 * takes (those the map has outlines of: a changelog or a lock file is no site). The diffs not in
 * `diffs` yet are read (one git diff-tree) and added to it.
 */
export async function coChangesIn(source: HistorySource, recent: RecentCommits, chatFiles: readonly string[], isSource: (path: string) => boolean, diffs: DiffNames): Promise<CoChanges> {
  // The last commits that modified a chat file, of those that modified few source files: a
  // commit that sweeps the tree says little of any one file, and its diff is large.
  const touching = [...new Set(chatFiles.flatMap((path) => recent.byFile.get(path) ?? []))].sort((a, b) => a - b);
  const chosen: Array<{ id: string; sources: string[] }> = [];
  for (const index of touching) {
    const sources = recent.files[index].filter(isSource);
    if (sources.length >= 2 && sources.length <= HISTORY_MODEL.maxFilesPerCommit) chosen.push({ id: recent.ids[index], sources });
    if (chosen.length === HISTORY_MODEL.commits) break;
  }
  const missing = chosen.filter(({ id, sources }) => sources.some((path) => !diffs.get(id)?.has(path)));
  if (missing.length > 0) {
    const git = gitOn(source);
    const paths = [...new Set(missing.flatMap(({ sources }) => sources))].sort();
    const out = await git.run(['diff-tree', '--stdin', '-r', '-p', ...DIFF_ARGS, '--diff-filter=M', ...git.relative, '--', ...git.pathspecs(paths)], missing.map(({ id }) => id).join('\n') + '\n');
    const parsed = byCommit(out);
    for (const { id } of missing) {
      const names = namesByFile(parsed.get(id) ?? []);
      const kept = getOrCreate(diffs, id, () => new Map<string, ReadonlySet<string>>());
      for (const path of paths) kept.set(path, names.get(path) ?? new Set());
    }
  }
  // Per commit, each other file's names, once, weighted by the commit's age and breadth.
  const chats = new Set(chatFiles);
  const weights = new Map<string, Map<string, number>>();
  chosen.forEach(({ id, sources }, age) => {
    const others = sources.filter((path) => !chats.has(path));
    const weight = 1 / (1 + age / HISTORY_MODEL.halfWeightAge) / Math.sqrt(others.length);
    for (const path of others) {
      const names = diffs.get(id)?.get(path);
      if (!names || names.size === 0) continue;
      const byName = getOrCreate(weights, path, () => new Map<string, number>());
      for (const name of names) byName.set(name, (byName.get(name) ?? 0) + weight);
    }
  });
  return weights;
}

/** A history read whole for one request (the CLI's map, eval's tasks); see HistoryCache for the daemon's. */
export function readHistory(source: HistorySource, chatFiles: readonly string[], isSource: (path: string) => boolean): Promise<History> {
  return historyOrProblem(async () => coChangesIn(source, await readRecentCommits(source), chatFiles, isSource, new Map()));
}

/** The co-changes `read` finds, or none with the reason git gave (none without a word for a root outside git or without commits). */
export async function historyOrProblem(read: () => Promise<CoChanges>): Promise<History> {
  try {
    return { coChanges: await read() };
  } catch (err) {
    if (err instanceof GitTimeoutError) return { ...NO_HISTORY, problem: `the chat files' history is left out: ${err.message}` };
    const stderr = String((err as { stderr?: unknown }).stderr ?? '');
    if (/not a git repository|does not have any commits|unknown revision|bad revision|ambiguous argument/i.test(stderr)) return NO_HISTORY;
    return { ...NO_HISTORY, problem: `the chat files' history is left out: git failed (${quoted(stderr.trim().split('\n')[0] || errorMessage(err))})` };
  }
}

/** A commit id line of `git diff-tree --stdin` output (SHA-1 or SHA-256): a diff's own lines never are one. */
const COMMIT_LINE = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** `git diff-tree --stdin` output cut at each commit's id line: each commit's lines, in order. */
function byCommit(out: string): Map<string, string[]> {
  const commits = new Map<string, string[]>();
  let lines: string[] | undefined;
  for (const line of out.split('\n')) {
    if (COMMIT_LINE.test(line)) commits.set(line, (lines = []));
    else lines?.push(line);
  }
  return commits;
}

/** One commit's changed files (by their new paths) and the definitions its hunks name. */
function namesByFile(lines: readonly string[]): Map<string, Set<string>> {
  const byFile = new Map<string, Set<string>>();
  // A file's header runs from `diff --git` to its first hunk: only there is `+++ ` the new path.
  let inHeader = false;
  let names: Set<string> | undefined;
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      inHeader = true;
      names = undefined;
    } else if (inHeader && line.startsWith('+++ ')) {
      // A quoted path (unusual characters) or /dev/null (a deleted file) names no file of today's tree to show.
      const path = line.slice(4);
      if (path.startsWith('b/')) byFile.set(path.slice(2), (names = new Set()));
    } else if (line.startsWith('@@')) {
      inHeader = false;
      const context = /^@@ [^@]*@@ ?(.*)$/.exec(line)?.[1];
      const name = context ? contextName(context) : undefined;
      if (name && names) names.add(name);
    } else if (!inHeader && names && (line.startsWith('+') || line.startsWith('-'))) {
      const name = DEFINITION.exec(line.slice(1))?.[1];
      if (name) names.add(name);
    }
  }
  return byFile;
}
