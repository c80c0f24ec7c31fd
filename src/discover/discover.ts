import { type Dirent, realpathSync } from 'node:fs';
import { access, lstat, readdir } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { badRequest, isAbsent } from '../errors.js';
import type { SkipReason } from '../api/types.js';
import { GLOB_OPTIONS, refuseGitFolder, rootRelativeGlobs } from '../paths.js';
import { GitTimeoutError, runGitCommand } from '../git-args.js';
import { linearGlobTest } from '../linear-glob.js';
import { MAX_CONFIG_BYTES, readBoundedText } from '../bounded-read.js';

export interface DiscoverOptions {
  /** Globs of paths to leave out (matched against the path relative to the root, and against each parent folder; an absolute one inside the root is taken from it: see rootRelativeGlob). */
  exclude?: readonly string[];
  /** Globs of the files to keep, matched as `exclude` is; when given, a file none matches is left out. Folders are never left out by it. */
  include?: readonly string[];
  /**
   * repomap's own cache folders: never listed when they lie inside the root, whatever git and the
   * globs say. Listed, a daemon would follow the writes to its own log and store as file changes,
   * and a map would count the files its previous run wrote.
   */
  cacheDir?: string;
  sharedCacheDir?: string;
  /** Receives one-line notices: git's listing past its bound, the tree walked instead. */
  onNotice?: (message: string) => void;
}

export interface Discovery {
  /** Relative POSIX paths of every candidate file, sorted. Not yet filtered by language or size. */
  paths: string[];
  /** How the list was made: git's view of the work tree, or a walk honouring .gitignore. */
  source: 'git' | 'walk';
  /**
   * Those of `paths` listed but never read, with why: neither files nor folders nor symlinks (FIFOs,
   * sockets, devices: 'not a regular file'), or named with bytes that are not UTF-8 ('name not
   * UTF-8': the path, its invalid bytes written `\xff`, names no file a system call could open).
   */
  unread: Map<string, UnreadReason>;
  /**
   * Those of `paths` that are symlinks, as the folders' entries say (read anyway: no lstat more): a
   * watcher names a changed target by its own path, not by the links that lead to it.
   */
  symlinks: Set<string>;
  /**
   * How many files the exclude and include globs left out of `paths` (counted as the globs filter
   * them, at no cost): what an empty map says when they left out every file.
   */
  leftOut: number;
}

/** Why discovery lists a path that is never read (see Discovery.unread). */
export type UnreadReason = Extract<SkipReason, 'not a regular file' | 'name not UTF-8'>;

/**
 * The ignore files read in every folder, in gitignore syntax, lowest precedence first: git's own,
 * Aider's, and repomap's. Inside git, git applies the first; the others are applied to its list.
 */
export const IGNORE_FILES = ['.gitignore', '.aiderignore', '.repomapignore'] as const;
/** The ignore files git does not read, which discovery applies to git's list itself. */
const OWN_IGNORE_FILES = IGNORE_FILES.slice(1);

/** Whether a path (relative) is an ignore file, whose change can change what discovery lists. */
export function isIgnoreFile(path: string): boolean {
  return (IGNORE_FILES as readonly string[]).includes(baseName(path));
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * Folders (relative, no trailing slash) that discovery leaves out whole: ignored folders and
 * .git. A watcher skips them instead of watching, say, node_modules.
 */
export async function ignoredFolders(root: string, source: Discovery['source']): Promise<Set<string>> {
  const folders = new Set<string>(['.git']);
  if (source === 'git') {
    try {
      const stdout = await runGitCommand(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], { cwd: root, encoding: 'utf8' });
      for (const entry of stdout.split('\0')) if (entry.endsWith('/')) folders.add(entry.slice(0, -1));
    } catch {
      // git gone since discovery, or past its bound: the watcher filters events by discovery anyway
    }
  } else {
    await walkFiles(root, folders);
  }
  return folders;
}

/**
 * Lists the files of a repository as git sees them (tracked plus untracked-not-ignored), or,
 * outside git, by walking the tree and honouring every .gitignore. Paths are relative to root.
 */
export async function discoverFiles(root: string, options: DiscoverOptions = {}): Promise<Discovery> {
  await refuseGitFolder(root);
  const undecodable: string[] = [];
  const listed = await gitFiles(root, undefined, undecodable, (late) => options.onNotice?.(gitTimeoutNotice(late)));
  const found: string[] = [];
  const links: string[] = [];
  let paths: string[];
  if (listed) {
    // git lists the tracked files deleted since (until `git rm`), and no FIFO, socket or device:
    // both are found by reading the folders it lists files in. A name that is not UTF-8 is not
    // among a folder's entries as read here (decoded): it is listed as git lists it.
    const decoded = undecodable.length === 0 ? listed : listed.filter((path) => !undecodable.includes(path));
    const { special, symlinks, deleted } = await checkListedFolders(root, decoded);
    paths = deleted.size === 0 ? listed : listed.filter((path) => !deleted.has(path));
    found.push(...special);
    links.push(...symlinks);
    paths.push(...found);
  } else {
    paths = await walkFiles(root, undefined, { special: found, symlinks: links, undecodable });
  }
  const fromGit = listed !== null;
  const unread = new Map<string, UnreadReason>(found.map((path) => [path, 'not a regular file']));
  for (const path of undecodable) unread.set(path, 'name not UTF-8');
  const excluded = leftOutMatcher(root, options);
  let kept = excluded ? paths.filter((path) => !excluded(path)) : paths;
  const leftOut = paths.length - kept.length;
  if (fromGit) kept = await withoutOwnIgnored(root, kept);
  kept.sort(comparePaths);
  // Only the links among the paths kept: a folder's entries include links git ignores or a glob leaves out.
  const linked = new Set(links);
  const symlinks = linked.size === 0 ? linked : new Set(kept.filter((path) => linked.has(path)));
  return { paths: kept, source: fromGit ? 'git' : 'walk', unread, symlinks, leftOut };
}

/**
 * Of git's list, the paths no .aiderignore or .repomapignore ignores (read from the root down).
 * Git lists those files themselves when it does not ignore them: a list without one is kept as it is.
 */
async function withoutOwnIgnored(root: string, paths: string[]): Promise<string[]> {
  if (!paths.some((path) => (OWN_IGNORE_FILES as readonly string[]).includes(baseName(path)))) return paths;
  const rules = new IgnoreRules(root, '', [], false, OWN_IGNORE_FILES);
  const kept: string[] = [];
  for (const path of paths) if (!(await rules.ignores(path))) kept.push(path);
  return kept;
}

/**
 * What reading the folders that hold git's listed files (and the root) finds: the FIFOs, sockets
 * and devices git does not ignore (nothing skipped silently: they are listed, and skipped as not
 * regular files), the symlinks among the entries (git may ignore some), and the listed files that
 * are not there (tracked files deleted since, until a `git rm`; a folder that is gone takes its
 * files with it, one that cannot be read keeps them).
 */
async function checkListedFolders(root: string, listed: readonly string[]): Promise<{ special: string[]; symlinks: string[]; deleted: Set<string> }> {
  const namesIn = new Map<string, string[]>([['', []]]);
  for (const path of listed) {
    const slash = path.lastIndexOf('/');
    const folder = slash === -1 ? '' : path.slice(0, slash);
    let names = namesIn.get(folder);
    if (!names) namesIn.set(folder, (names = []));
    names.push(path.slice(slash + 1));
  }
  const candidates: string[] = [];
  const symlinks: string[] = [];
  const deleted = new Set<string>();
  const absent: string[] = [];
  await Promise.all(
    [...namesIn].map(async ([folder, names]) => {
      const pathOf = (name: string) => (folder ? `${folder}/${name}` : name);
      let entries: Dirent[];
      try {
        entries = await readdir(join(root, folder), { withFileTypes: true });
      } catch (err) {
        if (isAbsent(err)) for (const name of names) deleted.add(pathOf(name));
        return;
      }
      const present = new Set<string>();
      for (const entry of entries) {
        present.add(entry.name);
        if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()) candidates.push(pathOf(entry.name));
        else if (entry.isSymbolicLink()) symlinks.push(pathOf(entry.name));
      }
      // Not among the entries: deleted, unless an lstat finds it (a case-insensitive file system
      // lists `foo.ts` where git's index says `Foo.ts`). Few: the lstat costs nothing on the rest.
      for (const name of names) if (!present.has(name)) absent.push(pathOf(name));
    }),
  );
  const found = await Promise.all(absent.map((path) => lstat(join(root, path)).then(() => true, () => false)));
  absent.forEach((path, i) => found[i] || deleted.add(path));
  if (candidates.length === 0) return { special: [], symlinks, deleted };
  // check-ignore exits 1 when it ignores none of them; past its bound, none is taken as ignored.
  const answer = await runGitCommand(['check-ignore', '-z', '--stdin'], { cwd: root, encoding: 'utf8', input: candidates.join('\0') + '\0' }).catch(
    (err: unknown) => (err instanceof GitTimeoutError ? '' : String((err as { stdout?: unknown }).stdout ?? '')),
  );
  const ignored = new Set(answer.split('\0'));
  return { special: candidates.filter((path) => !ignored.has(path)), symlinks, deleted };
}

/** Byte-wise path order, independent of locale: the order every stage uses. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface DiscoverableFilter {
  /** Which of some paths (relative to the root, maybe just changed or deleted) discovery would list. */
  (paths: readonly string[]): Promise<Set<string>>;
  /**
   * Whether discovery surely lists nothing under a folder: it is excluded, or the rules ignore it
   * and (for git) it holds no tracked file, which one `git ls-files` of the folder tells, not one
   * per 500 of its files (a `node_modules` made by `npm install` while a daemon runs). False when
   * git does not answer.
   */
  skips(folder: string): Promise<boolean>;
  /** Inside git, git's own files its verdicts rest on (see GitStateFiles); undefined outside git. */
  gitFiles?: GitStateFiles;
}

/**
 * The files of git's own, outside the work tree's files, that decide what it lists: its index (a
 * path force-added or taken out with `git rm --cached` comes or goes) and the ignore files outside
 * the tree, core.excludesFile (or its default) and info/exclude, lowest precedence first. Absolute
 * paths, as git resolves them (`--git-path`: the git dir of a worktree or a submodule lies
 * elsewhere); an ignore file may not exist.
 */
export interface GitStateFiles {
  index: string;
  excludes: string[];
}

/**
 * A filter telling which paths the discovery of `source` would list, by the same rules, for the
 * paths a watcher reports. The ignore files are read in this process (and kept until the filter
 * is replaced, as after a .gitignore change): a daemon holding a large heap must not fork a git
 * for every new file, since the fork alone makes every page of its heap copy-on-write and the
 * next writes to its graph fault page by page. For git, the paths these rules call ignored (and
 * those inside nested repositories) are still asked of git: a tracked file is listed even when a
 * rule matches it.
 */
export async function discoverableFilter(root: string, source: Discovery['source'], options: DiscoverOptions = {}): Promise<DiscoverableFilter> {
  const excluded = excludedPathMatcher(root, options);
  const leftOut = leftOutMatcher(root, options);
  const repo = source === 'git' ? await gitRepository(root) : undefined;
  const rules = source === 'git' ? await gitIgnoreRules(repo) : new IgnoreRules(root, '', [], false, IGNORE_FILES);
  // Inside git, the ignore files git does not read rule out a path whatever git says of it.
  const own = source === 'git' ? new IgnoreRules(root, '', [], false, OWN_IGNORE_FILES) : undefined;
  const skips = async (folder: string): Promise<boolean> => {
    if (excluded?.(folder) || folder.split('/').includes('.git')) return true;
    if (await own?.ignores(folder, true)) return true;
    if (!rules || !(await rules.ignores(folder, true))) return false;
    if (source !== 'git') return true;
    const listed = await gitFiles(root, [folder]);
    return listed !== null && listed.length === 0;
  };
  const filter = async (paths: readonly string[]): Promise<Set<string>> => {
    const kept = new Set<string>();
    const doubtful: string[] = [];
    for (const path of paths) {
      if (leftOut?.(path) || path.split('/').includes('.git') || (await own?.ignores(path))) continue;
      if (rules && !(await rules.ignores(path))) kept.add(path);
      else if (source === 'git') doubtful.push(path);
    }
    // If git cannot answer, keep them: the stat that follows tells what exists.
    if (doubtful.length > 0) for (const path of (await gitFiles(root, doubtful)) ?? doubtful) kept.add(path);
    return kept;
  };
  return Object.assign(filter, { skips, ...(repo ? { gitFiles: repo.files } : {}) });
}

/**
 * The ignore rules that apply below a root: the ones given (lowest precedence first), then the
 * ignore files `names` of each folder from `top` down, each read once. A folder holding its own .git (a
 * nested repository, whose files git does not list) makes its paths undecidable here.
 */
class IgnoreRules {
  private readonly levelsOf = new Map<string, Promise<IgnoreLevel[] | null>>();

  /**
   * `prefix`: the root's folder below `top` ('' or ending in '/'); `nestedRepos`: whether a
   * folder with its own .git is undecidable (for git, which lists none of its files; a walk does).
   */
  constructor(
    private readonly top: string,
    private readonly prefix: string,
    private readonly outer: IgnoreLevel[],
    private readonly nestedRepos: boolean,
    private readonly names: readonly string[],
  ) {}

  /** Whether a path (relative to the root) is ignored; a path these rules cannot decide counts as ignored. */
  async ignores(path: string, isFolder = false): Promise<boolean> {
    const parts = (this.prefix + path).split('/');
    for (let depth = 1; depth <= parts.length; depth++) {
      const levels = await this.levelsFor(parts.slice(0, depth - 1).join('/'));
      if (!levels || isIgnored(levels, parts.slice(0, depth).join('/'), depth < parts.length || isFolder)) return true;
    }
    return false;
  }

  private levelsFor(dir: string): Promise<IgnoreLevel[] | null> {
    let levels = this.levelsOf.get(dir);
    if (!levels) {
      const parent = dir === '' ? Promise.resolve(this.outer) : this.levelsFor(dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '');
      levels = parent.then(async (above) => {
        if (!above) return null;
        const abs = join(this.top, dir);
        if (this.nestedRepos && dir !== '' && (await exists(join(abs, '.git')))) return null;
        const levels = [...above];
        for (const name of this.names) {
          const text = readIgnoreFile(join(abs, name), this.top);
          if (text) levels.push({ base: dir, rules: ignore().add(text) });
        }
        return levels;
      });
      this.levelsOf.set(dir, levels);
    }
    return levels;
  }
}

/** Where the repository holding `root` lies: its top level, the root's folder below it ('' or ending in '/'), and git's files. */
interface GitRepository {
  top: string;
  prefix: string;
  files: GitStateFiles;
}

/** The repository holding `root`, as git says; undefined when git cannot tell (no git any more). */
async function gitRepository(root: string): Promise<GitRepository | undefined> {
  const git = (args: string[]) => runGitCommand(args, { cwd: root, encoding: 'utf8' });
  try {
    const [top, prefix, exclude, index] = (
      await git(['rev-parse', '--show-toplevel', '--show-prefix', '--git-path', 'info/exclude', '--git-path', 'index'])
    ).split('\n');
    const excludesFile = await git(['config', '--path', '--get', 'core.excludesFile']).then(
      (out) => out.trim(),
      () => defaultExcludesFile(),
    );
    const absolute = (path: string) => (isAbsolute(path) ? path : join(root, path));
    return { top, prefix, files: { index: absolute(index), excludes: [...(excludesFile ? [excludesFile] : []), absolute(exclude)] } };
  } catch {
    return undefined;
  }
}

/**
 * git's rules for a repository: core.excludesFile, then .git/info/exclude, then the .gitignore
 * files from the top level down. Null when git cannot tell (no git any more).
 */
async function gitIgnoreRules(repo: GitRepository | undefined): Promise<IgnoreRules | null> {
  if (!repo) return null;
  const outer: IgnoreLevel[] = [];
  for (const file of repo.files.excludes) {
    const text = readIgnoreFile(file);
    if (text) outer.push({ base: '', rules: ignore().add(text) });
  }
  return new IgnoreRules(repo.top, repo.prefix, outer, true, ['.gitignore']);
}

/** Where git looks for a user's ignore file when core.excludesFile is not set. */
function defaultExcludesFile(): string {
  const config = process.env.XDG_CONFIG_HOME || (process.env.HOME ? join(process.env.HOME, '.config') : '');
  return config ? join(config, 'git', 'ignore') : '';
}

function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Paths per `git ls-files` call when asking about given paths, to stay far below argument limits. */
const PATHS_PER_CALL = 500;

/**
 * What discovery says when git's listing ran past its bound. Outside git's own rules a walk is
 * bounded: it reads ignore files as readIgnoreFile does (a FIFO is no rules) and matches their
 * patterns in linear time.
 */
function gitTimeoutNotice(late: GitTimeoutError): string {
  return `repomap: ${late.message} (a .gitignore pattern it matches slowly, or an ignore file that is a FIFO); the tree is walked instead`;
}

/**
 * The files git lists (all, or those of `only`); those whose names are not UTF-8 written as nameOf
 * writes them, and added to `undecodable`. Null when git cannot list them (`onTimeout` told when
 * it ran past its bound).
 */
async function gitFiles(root: string, only?: readonly string[], undecodable?: string[], onTimeout?: (late: GitTimeoutError) => void): Promise<string[] | null> {
  const args = ['--literal-pathspecs', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'];
  try {
    if (!only) return splitNul(await runGitCommand(args, { cwd: root, encoding: 'buffer' }), undecodable);
    const listed: string[] = [];
    for (let start = 0; start < only.length; start += PATHS_PER_CALL) {
      const chunk = only.slice(start, start + PATHS_PER_CALL);
      listed.push(...splitNul(await runGitCommand([...args, '--', ...chunk], { cwd: root, encoding: 'buffer' }), undecodable));
    }
    return [...new Set(listed)];
  } catch (err) {
    if (err instanceof GitTimeoutError) onTimeout?.(err);
    return null; // not a work tree (any more), no git, or git past its bound
  }
}

/**
 * NUL-separated paths; --cached lists a path once per merge stage during a conflict, so keep one.
 * A nested repository comes as its folder ('vendor/lib/'): not a file, and none of its files are listed.
 */
function splitNul(stdout: Buffer, undecodable?: string[]): string[] {
  const text = stdout.toString('utf8');
  // Every name UTF-8 (any invalid byte would decode to U+FFFD): the common case, split as text.
  const names = text.includes('\uFFFD') ? nulSeparated(stdout).map((bytes) => decodedName(bytes, undecodable)) : text.split('\0');
  return [...new Set(names.filter((path) => path.length > 0 && !path.endsWith('/')))];
}

/** The NUL-separated parts of `bytes`. */
function nulSeparated(bytes: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let from = 0;
  for (let nul = bytes.indexOf(0); nul !== -1; nul = bytes.indexOf(0, from)) {
    parts.push(bytes.subarray(from, nul));
    from = nul + 1;
  }
  parts.push(bytes.subarray(from));
  return parts;
}

/** A name's bytes as nameOf writes them; a name that is not UTF-8 is added to `undecodable`. */
function decodedName(bytes: Buffer, undecodable?: string[]): string {
  const { name, utf8 } = nameOf(bytes);
  if (!utf8) undecodable?.push(name);
  return name;
}

/**
 * A file name's bytes as a string, and whether they are UTF-8: decoded when they are; else each
 * byte of an invalid sequence written `\xff` and the rest decoded (`f\xff.py`). Such a name stays
 * apart from every other (a lossy decoding would make `f\xff.py` and `f\xfe.py` one
 * `f\uFFFD.py`), and names no file a system call could open.
 */
export function nameOf(bytes: Buffer): { name: string; utf8: boolean } {
  let name = '';
  let valid = true;
  for (let i = 0; i < bytes.length; ) {
    const length = utf8SequenceAt(bytes, i);
    if (length > 0) {
      name += bytes.toString('utf8', i, i + length);
      i += length;
    } else {
      name += `\\x${bytes[i].toString(16).padStart(2, '0')}`;
      valid = false;
      i++;
    }
  }
  return { name, utf8: valid };
}

/** The length of the valid UTF-8 sequence starting at `i`, 0 when none does. */
function utf8SequenceAt(bytes: Buffer, i: number): number {
  const [length, low, high] = utf8Lead(bytes[i]);
  if (length <= 1) return length;
  if (i + length > bytes.length || bytes[i + 1] < low || bytes[i + 1] > high) return 0;
  for (let k = 2; k < length; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return 0;
  return length;
}

/**
 * The length of the sequence a lead byte starts and the range its second byte must be in (RFC
 * 3629: no overlong form, no surrogate, nothing past U+10FFFF); length 0 for a byte no sequence
 * starts with.
 */
function utf8Lead(lead: number): [number, number, number] {
  if (lead < 0x80) return [1, 0, 0];
  if (lead >= 0xc2 && lead <= 0xdf) return [2, 0x80, 0xbf];
  if (lead === 0xe0) return [3, 0xa0, 0xbf];
  if (lead === 0xed) return [3, 0x80, 0x9f];
  if (lead >= 0xe1 && lead <= 0xef) return [3, 0x80, 0xbf];
  if (lead === 0xf0) return [4, 0x90, 0xbf];
  if (lead >= 0xf1 && lead <= 0xf3) return [4, 0x80, 0xbf];
  if (lead === 0xf4) return [4, 0x80, 0x8f];
  return [0, 0, 0];
}

interface IgnoreLevel {
  /** Folder (relative to root, '' for the root) whose .gitignore this is. */
  base: string;
  rules: Ignore;
}

/** What a walk finds besides the files: the paths it lists that are not regular files (see Discovery). */
interface WalkFinds {
  /** FIFOs, sockets, devices. */
  special?: string[];
  symlinks?: string[];
  /** Entries whose names are not UTF-8 (see nameOf): listed, never read; a folder's files are not walked. */
  undecodable?: string[];
}

/** A folder's entry, its name as nameOf writes it. */
type WalkEntry = Pick<Dirent, 'isDirectory' | 'isFile' | 'isSymbolicLink'> & { name: string; utf8: boolean };

/**
 * A folder's entries. Read as UTF-8 names; when one decodes to U+FFFD (any invalid byte does),
 * read again as bytes, so that such a name is told from a valid one and from its neighbours.
 */
async function folderEntries(absDir: string): Promise<WalkEntry[]> {
  const entries = await readdir(absDir, { withFileTypes: true });
  if (!entries.some((entry) => entry.name.includes('\uFFFD'))) return entries.map((entry) => Object.assign(entry, { utf8: true }));
  const raw = await readdir(absDir, { withFileTypes: true, encoding: 'buffer' });
  return raw.map((entry) => Object.assign(entry, nameOf(entry.name)));
}

async function walkFiles(root: string, ignoredDirs?: Set<string>, finds: WalkFinds = {}): Promise<string[]> {
  const { special, symlinks, undecodable } = finds;
  const files: string[] = [];
  const walk = async (dir: string, levels: IgnoreLevel[]): Promise<void> => {
    const absDir = join(root, dir);
    let entries: WalkEntry[];
    try {
      entries = await folderEntries(absDir);
    } catch {
      return; // unreadable folder: nothing to list in it
    }
    const here = [...levels];
    for (const name of IGNORE_FILES) {
      if (!entries.some((entry) => entry.name === name && entry.isFile())) continue;
      const text = readIgnoreFile(join(absDir, name), root);
      if (text) here.push({ base: dir, rules: ignore().add(text) });
    }
    entries.sort((a, b) => comparePaths(a.name, b.name));
    for (const entry of entries) {
      if (entry.name === '.git') continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      const isDir = entry.isDirectory();
      if (isIgnored(here, path, isDir)) {
        if (isDir) ignoredDirs?.add(path);
        continue;
      }
      if (!entry.utf8) {
        files.push(path);
        undecodable?.push(path);
      }
      // Symlinked folders are not followed (they may lead out of the root or loop).
      else if (isDir) await walk(path, here);
      else if (entry.isFile()) files.push(path);
      else if (entry.isSymbolicLink()) {
        files.push(path);
        symlinks?.push(path);
      } else {
        files.push(path); // a FIFO, a socket, a device: listed, and skipped as not a regular file
        special?.push(path);
      }
    }
  };
  await walk('', []);
  return files;
}

/**
 * The files under a folder now (relative paths), past .git and the folders `skip` says: what a
 * watcher following folders looks for in one that just appeared. Discovery's filter then says
 * which of them it lists.
 */
export async function filesUnder(root: string, folder: string, skip: (path: string) => boolean): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []); // gone, or unreadable
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.name === '.git' || skip(path)) continue;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() || entry.isSymbolicLink()) files.push(path);
    }
  };
  await walk(folder);
  return files;
}

function isIgnored(levels: IgnoreLevel[], path: string, isDir: boolean): boolean {
  // The deepest .gitignore with an opinion wins, as in git (a nested `!pattern` re-includes).
  for (let i = levels.length - 1; i >= 0; i--) {
    const { base, rules } = levels[i];
    const relative = base ? path.slice(base.length + 1) : path;
    const verdict = rules.test(isDir ? `${relative}/` : relative);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

/** A test for paths the exclude globs leave out (a glob naming a folder excludes what is in it); globs as rootRelativeGlob takes them. */
export function excludeMatcher(root: string, globs: readonly string[]): ((path: string) => boolean) | null {
  return globs.length === 0 ? null : globMatcher(root, globs, 'exclude');
}

/**
 * A test for the files discovery leaves out: those `exclude` matches and, when `include` globs are
 * given, those no include glob matches. A folder is judged by `excludeMatcher` alone: an include
 * glob names files, which may lie in any folder.
 */
export function leftOutMatcher(root: string, options: DiscoverOptions): ((path: string) => boolean) | null {
  const excluded = excludedPathMatcher(root, options);
  if ((options.include ?? []).length === 0) return excluded;
  const included = globMatcher(root, options.include ?? [], 'include');
  return (path) => excluded?.(path) === true || !included(path);
}

/** A test for the paths the exclude globs leave out, and those inside repomap's cache folders (see DiscoverOptions.cacheDir). */
export function excludedPathMatcher(root: string, options: DiscoverOptions): ((path: string) => boolean) | null {
  const globbed = excludeMatcher(root, options.exclude ?? []);
  const inCache = cacheFolderMatcher(root, options);
  return globbed && inCache ? (path) => globbed(path) || inCache(path) : (globbed ?? inCache);
}

/** A test for the paths inside the cache folders of `options` that lie inside the root (see DiscoverOptions.cacheDir); null when none does. */
function cacheFolderMatcher(root: string, options: DiscoverOptions): ((path: string) => boolean) | null {
  const folders: string[] = [];
  for (const dir of [options.cacheDir, options.sharedCacheDir]) {
    if (!dir) continue;
    let real = resolve(dir);
    try {
      real = realpathSync.native(real); // the root is a real path
    } catch {
      // not made yet: as given
    }
    const rel = relative(root, real);
    if (rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) folders.push(rel.split(sep).join('/'));
  }
  if (folders.length === 0) return null;
  return (path) => folders.some((folder) => path === folder || path.startsWith(`${folder}/`));
}

/**
 * Whether a path (relative to the root), or one of its folders, matches one of the globs, taken
 * from the root by rootRelativeGlob. A glob without a slash matches basenames anywhere; one with
 * a slash, the path from the root. One that names a folder matches everything below it, written
 * with a trailing slash (`vendor/`, as in a .gitignore) or without.
 */
function globMatcher(root: string, globs: readonly string[], option: 'exclude' | 'include'): (path: string) => boolean {
  if (globs.includes('')) throw badRequest('a glob of exclude or include is an empty string');
  // picomatch matches `vendor/` against no path: the folder's own path has no trailing slash.
  const patterns = rootRelativeGlobs(root, globs, option).map((glob) => glob.replace(/([^/])\/+$/, '$1'));
  // picomatch's basename option matches every pattern against the last name alone, so that a
  // pattern with a slash would match nothing: it is only for those without.
  const names = patterns.filter((pattern) => !pattern.includes('/'));
  const anchored = patterns.filter((pattern) => pattern.includes('/'));
  const tests: Array<(path: string) => boolean> = [];
  if (names.length > 0) tests.push(linearGlobTest(names, { ...GLOB_OPTIONS, basename: true }));
  if (anchored.length > 0) tests.push(linearGlobTest(anchored, GLOB_OPTIONS));
  const isMatch = (path: string) => tests.some((test) => test(path));
  return (path) => {
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      if (isMatch(path.slice(0, slash))) return true;
    }
    return isMatch(path);
  };
}

/** The largest ignore file read (1 MiB, as a config file): each of its rules is matched against every path. */
export const MAX_IGNORE_FILE_BYTES = MAX_CONFIG_BYTES;

/**
 * An ignore file's text, read as readBounded reads: a regular file of at most 1 MiB and, for one in
 * the tree (`root` given), inside the root once symlinks are resolved; '' for any other (absent, a
 * FIFO or a device such as a link to /dev/zero, too large, leading out of the root), which is read as
 * no rules, as git reads a symlinked .gitignore.
 */
function readIgnoreFile(file: string, root?: string): string {
  try {
    return readBoundedText(file, { maxBytes: MAX_IGNORE_FILE_BYTES, ...(root !== undefined ? { root } : {}) }) ?? '';
  } catch {
    return '';
  }
}
