import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { badRequest } from './errors.js';

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
 * A user-given path as a POSIX path relative to `root` (relative inputs resolve against `base`).
 * Throws a bad-request RepomapError for a path outside the root.
 */
export function toRootRelative(root: string, path: string, base: string = root): string {
  const absolute = resolve(base, path);
  const rel = relative(root, absolute);
  if (!isBelow(rel)) throw badRequest(`${escapeControls(path)} is outside the repository root ${root}`);
  return rel.split(sep).join('/');
}

const CONTROL = /[\x00-\x1f\x7f-\x9f]/;
const CONTROLS = /[\x00-\x1f\x7f-\x9f]/g;

/** Whether a relative path (from `relative`) names something strictly below its base: `..foo` is, `../foo` is not. */
function isBelow(rel: string): boolean {
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Control characters (C0, DEL, C1) as escapes (`\n`, `\t`, `\x00`), so that a path prints on
 * one line whatever its name holds (a map line, an error message).
 */
export function escapeControls(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROLS, (char) => {
    if (char === '\n') return '\\n';
    if (char === '\t') return '\\t';
    if (char === '\r') return '\\r';
    return `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/**
 * A file a request names (a chat file, a mentioned file), checked as every entry point checks it
 * (the CLI, the daemon, MCP, the library): relative inputs resolve against `base`; the name is not
 * empty and holds no control character (a NUL would cut the path short in the system calls); the
 * file exists, is a regular file, and is inside the root once symlinks are resolved (no file
 * outside the root is ever read or named). Returns the path relative to the root, POSIX style;
 * throws a bad-request RepomapError naming the file and the problem.
 */
export function requestFilePath(root: string, path: string, what: string, base: string = root): string {
  if (path === '') throw badRequest(`${what} is empty ('')`); // named in a message, it would be a blank
  if (CONTROL.test(path)) throw badRequest(`${what} ${escapeControls(path)}: a path may not contain a control character (NUL, newline)`);
  const rel = toRootRelative(root, path, base);
  let real: string;
  try {
    real = realpathSync(resolve(root, rel));
  } catch {
    throw badRequest(`${what} ${escapeControls(path)} does not exist`);
  }
  if (!isBelow(relative(realRootOf(root), real))) throw badRequest(`${what} ${escapeControls(path)} leads outside the repository root ${root}`);
  const info = statSync(real);
  if (info.isDirectory()) throw badRequest(`${what} ${escapeControls(path)} is a folder, not a file`);
  if (!info.isFile()) throw badRequest(`${what} ${escapeControls(path)} is not a regular file`);
  return rel;
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

/** The root's real path (a root given through a symlink compares with resolved paths only once resolved). */
function realRootOf(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
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

/** This package's version, from its package.json. */
export async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
