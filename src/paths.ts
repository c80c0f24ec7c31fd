import { type Stats, existsSync, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RepomapError, badRequest, describeOsCode, errorCode, errorMessage, isAbsent, leadsNowhere, quoted } from './errors.js';
import { runGitCommand } from './git-args.js';
import { linearGlobRegExp } from './linear-glob.js';

/** The package's root folder (where package.json and queries/ live), found from this module's location. */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('repomap: cannot find the package root from ' + import.meta.url);
    dir = up;
  }
  return dir;
})();

/**
 * Makes a folder and its missing parents, as `mkdir -p` does, and throws what mkdir throws. Not
 * Node's recursive mkdir: where a folder exists but refuses a child with ENOENT (under /proc, or a
 * dangling symlink's target), that one makes the parent and tries the child again for ever.
 */
export function makeFolder(dir: string, mode?: number): void {
  const options = mode === undefined ? {} : { mode };
  try {
    mkdirSync(dir, options);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && isFolder(dir)) return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw err;
  }
  makeFolder(dirname(dir), mode);
  // Once its parent is there, the child's ENOENT is final.
  try {
    mkdirSync(dir, options);
  } catch (err) {
    if (!((err as NodeJS.ErrnoException).code === 'EEXIST' && isFolder(dir))) throw err;
  }
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/**
 * A user-given path as a POSIX path relative to `root` (relative inputs resolve against `base`),
 * the root reached as written or through a symlink to it (see pathFromRoot). Throws a
 * bad-request RepomapError for a path outside the root.
 */
function toRootRelative(root: string, path: string, what: string, base: string): string {
  const rel = pathFromRoot(root, resolve(base, path));
  if (rel === '') throw badRequest(`${what} ${shownPath(path)} is the repository root itself, not a file in it`);
  if (rel === undefined) throw badRequest(`${what} ${shownPath(path)} is outside the repository root ${root}`);
  return rel;
}

/** The control characters (C0, DEL, C1): a path holding one is refused (see requestFilePath). */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;
/**
 * What escapeControls escapes beside the control characters: every format character (\p{Cf}: the
 * bidi controls U+061C, U+200E, U+200F, U+202A..U+202E and U+2066..U+2069, the zero-width spaces
 * and joiners, U+FEFF, the tag characters) and the line and paragraph separators U+2028 and U+2029.
 * None shows itself, and each can change how the text around it displays: a line holding one can
 * read differently from what it is (Trojan Source).
 */
const INVISIBLE = '\\p{Cf}\\u2028\\u2029';
const ESCAPED = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f${INVISIBLE}]`, 'u');
const ESCAPED_ALL = new RegExp(ESCAPED.source, 'gu');

/**
 * A path a caller or a repository gave, as a message names it: its control characters escaped
 * (escapeControls) and cut as quoted cuts it, so that the message stays one short line.
 */
export function shownPath(path: string): string {
  return quoted(escapeControls(path));
}

/** Whether a relative path (from `relative`) names something strictly below its base: `..foo` is, `../foo` is not. */
function isBelow(rel: string): boolean {
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Control characters (C0, DEL, C1) and invisible formatting characters (see INVISIBLE) as escapes
 * (`\n`, `\t`, `\x00`, `\u202e`), so that a path prints on one line whatever its name holds (a
 * map line, an error message), and reads as what it is.
 */
export function escapeControls(text: string): string {
  return ESCAPED.test(text) ? text.replace(ESCAPED_ALL, escapeControl) : text;
}

/** A repository's (or a caller's) text as a message shows it: cut (see quoted) and escaped (see escapeControls). */
export function shownQuoted(text: string, max?: number): string {
  return escapeControls(quoted(text, max));
}

/** A word a POSIX shell reads as itself: no blank, quote, glob, expansion or operator character ('=' left out too: zsh expands a leading one). */
const SHELL_PLAIN = /^[A-Za-z0-9_@%+:,./-]+$/;

/**
 * A word of a command that a message suggests (`repomap restart ROOT --exclude GLOB`), written so
 * that a POSIX shell reads it back as given when the command is pasted: bare when it is plain
 * (`--exclude`, `/repo/src`), else in single quotes (`'*_test.go'`, `'my repo'`), a quote in it
 * as `'\''`. Control characters are escaped first, as escapeControls does for every message: the
 * message stays one line (such a name cannot be pasted as it is anyway).
 */
export function shellWord(word: string): string {
  const text = escapeControls(word);
  return SHELL_PLAIN.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** What escapeControls escapes, but the tab (see escapeLineControls). */
const LINE_ESCAPED = new RegExp(`[\\x00-\\x08\\x0a-\\x1f\\x7f-\\x9f${INVISIBLE}]`, 'u');
const LINE_ESCAPED_ALL = new RegExp(LINE_ESCAPED.source, 'gu');

/**
 * A source line as a map or `repomap symbols` shows it: its control and invisible formatting
 * characters escaped as escapeControls escapes them (an ESC sequence in a string literal would
 * recolour or clear the terminal, and reach the model as raw bytes; a bidi override in a comment
 * would show code other than the code that runs), except the tab. A tab is indentation (Go's, a
 * Makefile's): it moves the cursor and hides nothing, and `\t` would change the code shown, and
 * what it costs in tokens, for nothing.
 */
export function escapeLineControls(line: string): string {
  return LINE_ESCAPED.test(line) ? line.replace(LINE_ESCAPED_ALL, escapeControl) : line;
}

function escapeControl(char: string): string {
  if (char === '\n') return '\\n';
  if (char === '\t') return '\\t';
  if (char === '\r') return '\\r';
  const code = char.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * A file a request names (a chat file, a mentioned file), checked as every entry point checks it
 * (the CLI, the daemon, MCP, the library): relative inputs resolve against `base`; the name is not
 * empty and holds no control character (a NUL would cut the path short in the system calls); the
 * file exists, can be reached (a file in a folder this user may not search cannot), is a regular
 * file, and is inside the root once symlinks are resolved (no file outside the root is ever read
 * or named). Returns the path relative to the root, POSIX style; throws a bad-request
 * RepomapError naming the file and the problem.
 */
export function requestFilePath(root: string, path: string, what: string, base: string = root): string {
  if (path === '') throw badRequest(`${what} is empty ('')`); // named in a message, it would be a blank
  if (CONTROL.test(path)) throw badRequest(`${what} ${shownPath(path)}: a path may not contain a control character (NUL, newline)`);
  const rel = toRootRelative(root, path, what, base);
  const abs = resolve(root, rel);
  // Not there; a symlink there that leads nowhere (a dangling one, a loop: what the index skips as
  // a 'broken symlink', in its words); or there and out of reach (a folder on its way this user may
  // not search or that is a loop of symlinks): said apart, never a stack trace.
  const unreached = (err: unknown): RepomapError => {
    const nowhere = entryAt(abs)?.isSymbolicLink() ? leadsNowhere(err) : undefined;
    if (nowhere) return badRequest(`${what} ${shownPath(path)} is a broken symlink: it leads nowhere (${nowhere})`);
    return isAbsent(err) ? badRequest(`${what} ${shownPath(path)} does not exist`) : unreadableFile(what, path, errorCode(err));
  };
  let real: string;
  try {
    real = realpathSync(abs);
  } catch (err) {
    throw unreached(err);
  }
  if (!isBelow(relative(realRootOf(root), real))) throw badRequest(`${what} ${shownPath(path)} leads outside the repository root ${root}`);
  let info: Stats;
  try {
    info = statSync(real);
  } catch (err) {
    throw unreached(err); // changed since its realpath
  }
  if (info.isDirectory()) throw badRequest(`${what} ${shownPath(path)} is a folder, not a file`);
  if (!info.isFile()) throw badRequest(`${what} ${shownPath(path)} is not a regular file`);
  return rel;
}

/**
 * What is at the path itself, a symlink not followed (one that leads nowhere is there); undefined
 * where nothing is, or where that cannot be told (a folder on its way out of reach, which
 * requestFilePath says of the path).
 */
export function entryAt(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * The error for a file a request names that cannot be read, whatever finds it out (requestFilePath
 * on the way to it, the index pass on reading it: see indexedFilePath), in the same words: with
 * the OS error's code (a skipped file's detail), and the system's description of it.
 */
export function unreadableFile(what: string, path: string, code: string | undefined): RepomapError {
  return badRequest(`${what} ${shownPath(path)} cannot be read${code ? ` (${describeOsCode(code)})` : ''}`);
}

/** Of the files a request names, those that pass requestFilePath, relative to the root (a map refuses the others, saying why). */
export function requestFilePaths(root: string, paths: readonly string[]): string[] {
  const found: string[] = [];
  for (const path of paths) {
    try {
      found.push(requestFilePath(root, path, 'file'));
    } catch {
      // Not a file of the root: the map says why.
    }
  }
  return found;
}

/** A path segment holding one of these is a glob's, not a folder's name (picomatch's special characters, and its escape). */
const GLOB_SEGMENT = /[*?[\]{}()!\\]/;

/**
 * An `exclude` or `include` glob as it is matched: against paths from the root. The one place
 * where a glob meets its root: every matcher (discovery, the daemon's watcher, a refused chat
 * file, eval's tasks) and every client that starts a daemon takes its globs from here.
 *
 * A glob without a slash (`vendor`, `*.gen.ts`) names paths at any depth; one with a slash before
 * its end is anchored at the root. An absolute path inside the root, a glob below it included
 * (`/repo/vendor`, `/repo/src/*.ts`), is taken from the root and stays anchored there:
 * `/repo/vendor` is the root's `./vendor`, not every folder named vendor. The root may be reached
 * through a symlink (the glob written from the shell's `$PWD`, the root resolved). `.` and `..` in
 * the folders before the first wildcard are resolved (`./src/*.ts` is `src/*.ts`). A glob outside
 * the root, or the root itself, would match nothing (or everything) without a word: it is a
 * bad-request RepomapError naming `option` ('exclude', or a config file's key), the glob and the
 * root; so is a glob picomatch cannot compile as written (see GLOB_OPTIONS), checked here so that
 * every front end refuses it before any work. What it returns comes back unchanged, so globs may
 * be taken from the root twice.
 */
export function rootRelativeGlob(root: string, glob: string, option: string): string {
  // picomatch takes a leading '!' as "all but", which would leave out (or keep) everything else without a word.
  if (glob.startsWith('!')) throw badRequest(`${option} glob ${shownQuoted(glob)}: a negation ('!') is not supported; the globs name what to ${option === 'include' ? 'keep' : 'leave out'}`);
  const segments = glob.split('/');
  const firstWild = segments.findIndex((segment) => GLOB_SEGMENT.test(segment));
  const literal = firstWild === -1 ? segments.length : firstWild;
  const folders = segments.slice(0, literal).join('/') || (isAbsolute(glob) ? '/' : '.');
  const from = pathFromRoot(root, resolve(root, folders));
  const named = `${option} glob ${shownQuoted(glob)}`;
  if (from === undefined) throw badRequest(`${named} lies outside the repository root ${root} (globs are matched against paths from the root)`);
  const wild = segments.slice(literal).join('/');
  // resolve() drops the trailing slash of a folder written as in a .gitignore (`vendor/`): kept, it still floats.
  const trailing = firstWild === -1 && /[^/]\/+$/.test(glob) ? '/' : '';
  const path = [from, wild].filter((part) => part !== '').join('/');
  if (path === '') throw badRequest(`${named} is the repository root itself, not a path in it`);
  const wrong = globSyntaxProblem(path);
  if (wrong !== undefined) throw badRequest(`${named}: ${wrong}`);
  const hasSlash = (text: string) => text.replace(/\/+$/, '').includes('/');
  return `${hasSlash(glob) && !hasSlash(path) ? './' : ''}${path}${trailing}`;
}

/**
 * How picomatch compiles every exclude and include glob (discovery's matchers take these). By
 * default it reads an unbalanced '[', '(' or ']' as a literal character (`[` matches only a file
 * named `[`), and a glob it cannot make a regular expression of (an unclosed '{', `[z-a]`, a
 * trailing '\') as one that matches nothing: a typo would leave out (or keep) nothing without a
 * word. strictBrackets throws on the first, debug on the second (both documented options).
 */
export const GLOB_OPTIONS = { dot: true, strictBrackets: true, debug: true } as const;

/**
 * What is wrong with a glob picomatch cannot compile with GLOB_OPTIONS, said for the user (its
 * own words name the wrong escape for an unclosed '[', and a regular expression the user never
 * wrote); undefined for a glob it compiles.
 */
function globSyntaxProblem(glob: string): string | undefined {
  try {
    // Matched on the linear-time engine (see linear-glob.ts): a glob it cannot run is refused, never backtracked.
    if (linearGlobRegExp(glob, GLOB_OPTIONS)) return undefined;
    return 'an extglob negation such as !(...) cannot be matched in linear time; write the glob without it';
  } catch (err) {
    const message = errorMessage(err);
    const unpaired = /^Missing (opening|closing): "(.)"/.exec(message);
    if (unpaired) {
      // A missing closing ']' is an unclosed '[' (the one to escape), a missing opening '[' a stray ']'.
      const [, missing, wanted] = unpaired;
      const found = PARTNER[wanted];
      return `its '${found}' has no ${missing} '${wanted}' (write \\${found} to match a literal '${found}')`;
    }
    if (/(^|[^\\])(\\\\)*\\$/.test(glob)) return "it ends in a '\\' that escapes nothing (write \\\\ to match a literal '\\')";
    const regexp = /^Invalid regular expression: .*: ([^:]+)$/.exec(message)?.[1];
    return regexp === undefined ? `picomatch cannot compile it (${message})` : `picomatch cannot compile it: ${regexp.toLowerCase()}`;
  }
}

/** Each bracket picomatch pairs, and its partner. */
const PARTNER: Record<string, string> = { '[': ']', ']': '[', '{': '}', '}': '{', '(': ')', ')': '(' };

/** rootRelativeGlob of each glob. */
export function rootRelativeGlobs(root: string, globs: readonly string[], option: string): string[] {
  return globs.map((glob) => rootRelativeGlob(root, glob, option));
}

/**
 * An absolute path as a POSIX path from the root ('' for the root itself), or undefined when it
 * is not in the root. Compared as written first; else through symlinks: the first folder on the
 * way down that resolves to the root's real path, the rest as written (a symlink below the root is
 * one of its paths, wherever it leads, as discovery lists it).
 */
export function pathFromRoot(root: string, path: string): string | undefined {
  const rel = relative(root, path);
  if (rel === '' || isBelow(rel)) return rel.split(sep).join('/');
  const real = realRootOf(root);
  const parts = path.split(sep).filter((part) => part !== '');
  for (let depth = 1; depth <= parts.length; depth++) {
    let resolved: string;
    try {
      resolved = realpathSync(sep + parts.slice(0, depth).join(sep));
    } catch {
      return undefined; // a folder that does not exist holds no root
    }
    if (resolved === real) return parts.slice(depth).join('/');
  }
  return undefined;
}

/** The root's real path (a root given through a symlink compares with resolved paths only once resolved). */
/** Whether a real path (symlinks resolved) is the root or below it, the root taken by its real path too. */
export function isInRoot(root: string, real: string): boolean {
  const rel = relative(realRootOf(root), real);
  return rel === '' || isBelow(rel);
}

function realRootOf(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}

/**
 * Refuses a root that is git's own folder (a bare repository, a `.git` folder or a folder in one):
 * it has no work tree, and a map of it would be a map of git's objects and refs, or of files git
 * lists that are not there, without a word. Only a root that looks like one is asked of git.
 */
export async function refuseGitFolder(root: string): Promise<void> {
  const looksLikeOne = root.split(sep).includes('.git') || ['HEAD', 'objects', 'refs'].every((name) => existsSync(join(root, name)));
  if (!looksLikeOne) return;
  const answer = await runGitCommand(['rev-parse', '--is-bare-repository', '--is-inside-git-dir'], { cwd: root, encoding: 'utf8' }).catch(() => '');
  if (answer.split('\n').includes('true')) {
    throw badRequest(`repository root ${root} is a git folder without a work tree (a bare repository or a .git folder): give the folder of a checkout`);
  }
}

/**
 * Resolves and checks a repository root: its real path, which must be a directory. Every entry
 * point's ROOT comes here (the commands, the daemon, MCP, the library). An empty one (`""` in a
 * shell or a client's config) is said to be empty: named in a message, it would be a blank.
 */
export async function resolveRoot(root: string): Promise<string> {
  if (root === '') throw badRequest("repository root is empty ('')");
  let real: string;
  try {
    real = await realpath(root);
  } catch {
    throw badRequest(`repository root ${root} does not exist`);
  }
  if (!(await stat(real)).isDirectory()) throw badRequest(`repository root ${root} is not a directory`);
  return real;
}

/**
 * The real path a path that leads nowhere would have: the real path of its nearest folder that
 * exists, with the missing names after it (a root deleted or moved away had this real path, if no
 * symlink was among the missing names). Undefined when something is at the path (a dangling
 * symlink too), or when a relative path has no base (the current folder was deleted).
 */
export function missingRealPath(path: string): string | undefined {
  let dir: string;
  try {
    dir = resolve(path);
  } catch {
    return undefined; // process.cwd() throws: the current folder was deleted
  }
  try {
    if (lstatSync(dir, { throwIfNoEntry: false }) !== undefined) return undefined;
  } catch {
    // leads nowhere reachable (ENOTDIR: a folder above is a file now; EACCES)
  }
  const missing: string[] = [];
  for (; dirname(dir) !== dir; dir = dirname(dir)) {
    missing.unshift(basename(dir));
    try {
      return join(realpathSync(dirname(dir)), ...missing);
    } catch {
      // that folder is missing too: one up
    }
  }
  return undefined;
}

/** This package's version, from its package.json. */
export async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
