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

async function gitFiles(root: string): Promise<string[] | null> {
  try {
    const { stdout } = await execFileAsync(
      'git',
      ['-c', 'core.quotepath=off', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
      { cwd: root, maxBuffer: 1 << 30, encoding: 'utf8' },
    );
    // --cached lists a path once per merge stage during a conflict; keep one.
    return [...new Set(stdout.split('\0').filter((path) => path.length > 0))];
  } catch {
    return null; // not a git work tree, or no git: walk instead
  }
}

interface IgnoreLevel {
  /** Folder (relative to root, '' for the root) whose .gitignore this is. */
  base: string;
  rules: Ignore;
}

async function walkFiles(root: string): Promise<string[]> {
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
      if (isIgnored(here, path, isDir)) continue;
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

function excludeMatcher(globs: readonly string[]): ((path: string) => boolean) | null {
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
