import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';

const execFileAsync = promisify(execFile);

export interface DiscoverOptions {
  /** Globs of paths to leave out (matched against the path relative to the root, and against each parent folder). */
  exclude?: readonly string[];
}

export interface Discovery {
  /** Relative POSIX paths of every candidate file, sorted. Not yet filtered by language or size. */
  paths: string[];
  /** How the list was made: git's view of the work tree, or a walk honouring .gitignore. */
  source: 'git' | 'walk';
}

/**
 * Folders (relative, no trailing slash) that discovery leaves out whole: ignored folders and
 * .git. A watcher skips them instead of watching, say, node_modules.
 */
export async function ignoredFolders(root: string, source: Discovery['source']): Promise<Set<string>> {
  const folders = new Set<string>(['.git']);
  if (source === 'git') {
    try {
      const { stdout } = await execFileAsync(
        'git',
        ['-c', 'core.quotepath=off', 'ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'],
        { cwd: root, maxBuffer: 1 << 30, encoding: 'utf8' },
      );
      for (const entry of stdout.split('\0')) if (entry.endsWith('/')) folders.add(entry.slice(0, -1));
    } catch {
      // git gone since discovery: the watcher filters events by discovery anyway
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
  const fromGit = await gitFiles(root);
  const paths = fromGit ?? (await walkFiles(root));
  const excluded = excludeMatcher(options.exclude ?? []);
  const kept = excluded ? paths.filter((path) => !excluded(path)) : paths;
  kept.sort(comparePaths);
  return { paths: kept, source: fromGit ? 'git' : 'walk' };
}

/** Byte-wise path order, independent of locale: the order every stage uses. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Which of `paths` (relative, maybe just changed or deleted) the discovery of `source` would list,
 * by the same rules: for git, asking git about just these paths; for a walk, the .gitignore
 * files above each path. Used on the paths a watcher reports, so a burst costs one git call.
 */
export async function filterDiscoverable(
  root: string,
  source: Discovery['source'],
  paths: readonly string[],
  options: DiscoverOptions = {},
): Promise<Set<string>> {
  const excluded = excludeMatcher(options.exclude ?? []);
  const candidates = excluded ? paths.filter((path) => !excluded(path)) : [...paths];
  if (candidates.length === 0) return new Set();
  // If git cannot answer, keep the candidates: the stat that follows tells what exists.
  if (source === 'git') return new Set((await gitFiles(root, candidates)) ?? candidates);
  const levelsOf = new Map<string, Promise<IgnoreLevel[]>>();
  const levelsFor = (dir: string): Promise<IgnoreLevel[]> => {
    let levels = levelsOf.get(dir);
    if (!levels) {
      const parent = dir === '' ? Promise.resolve([]) : levelsFor(dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '');
      levels = parent.then(async (above) => {
        const text = await readFile(join(root, dir, '.gitignore'), 'utf8').catch(() => '');
        return text ? [...above, { base: dir, rules: ignore().add(text) }] : above;
      });
      levelsOf.set(dir, levels);
    }
    return levels;
  };
  const kept = new Set<string>();
  for (const path of candidates) {
    const parts = path.split('/');
    if (parts.includes('.git')) continue;
    let ignored = false;
    for (let depth = 1; depth <= parts.length && !ignored; depth++) {
      const levels = await levelsFor(parts.slice(0, depth - 1).join('/'));
      ignored = isIgnored(levels, parts.slice(0, depth).join('/'), depth < parts.length);
    }
    if (!ignored) kept.add(path);
  }
  return kept;
}

/** Paths per `git ls-files` call when asking about given paths, to stay far below argument limits. */
const PATHS_PER_CALL = 500;

async function gitFiles(root: string, only?: readonly string[]): Promise<string[] | null> {
  const args = ['-c', 'core.quotepath=off', '--literal-pathspecs', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'];
  try {
    if (!only) return splitNul((await execFileAsync('git', args, { cwd: root, maxBuffer: 1 << 30, encoding: 'utf8' })).stdout);
    const listed: string[] = [];
    for (let start = 0; start < only.length; start += PATHS_PER_CALL) {
      const chunk = only.slice(start, start + PATHS_PER_CALL);
      const { stdout } = await execFileAsync('git', [...args, '--', ...chunk], { cwd: root, maxBuffer: 1 << 30, encoding: 'utf8' });
      listed.push(...splitNul(stdout));
    }
    return [...new Set(listed)];
  } catch {
    return null; // not a work tree (any more), or no git
  }
}

/** NUL-separated paths; --cached lists a path once per merge stage during a conflict, so keep one. */
function splitNul(stdout: string): string[] {
  return [...new Set(stdout.split('\0').filter((path) => path.length > 0))];
}

interface IgnoreLevel {
  /** Folder (relative to root, '' for the root) whose .gitignore this is. */
  base: string;
  rules: Ignore;
}

async function walkFiles(root: string, ignoredDirs?: Set<string>): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string, levels: IgnoreLevel[]): Promise<void> => {
    const absDir = join(root, dir);
    let entries;
    try {
      entries = await readdir(absDir, { withFileTypes: true });
    } catch {
      return; // unreadable folder: nothing to list in it
    }
    const gitignore = entries.some((entry) => entry.name === '.gitignore' && entry.isFile())
      ? await readFile(join(absDir, '.gitignore'), 'utf8').catch(() => '')
      : '';
    const here = gitignore ? [...levels, { base: dir, rules: ignore().add(gitignore) }] : levels;
    entries.sort((a, b) => comparePaths(a.name, b.name));
    for (const entry of entries) {
      if (entry.name === '.git') continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      const isDir = entry.isDirectory();
      if (isIgnored(here, path, isDir)) {
        if (isDir) ignoredDirs?.add(path);
        continue;
      }
      // Symlinked folders are not followed (they may lead out of the root or loop).
      if (isDir) await walk(path, here);
      else if (entry.isFile() || entry.isSymbolicLink()) files.push(path);
    }
  };
  await walk('', []);
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

/** A test for paths the --exclude globs leave out (a glob naming a folder excludes what is in it). */
export function excludeMatcher(globs: readonly string[]): ((path: string) => boolean) | null {
  if (globs.length === 0) return null;
  const isMatch = picomatch(globs as string[], { dot: true, basename: true });
  return (path) => {
    // A glob naming a folder excludes everything below it.
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      if (isMatch(path.slice(0, slash))) return true;
    }
    return isMatch(path);
  };
}
