import { existsSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from './errors.js';

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
 * A user-given path as a POSIX path relative to `root` (relative inputs resolve against `base`).
 * Throws a UserError for a path outside the root.
 */
export function toRootRelative(root: string, path: string, base: string = root): string {
  const absolute = resolve(base, path);
  const rel = relative(root, absolute);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new UserError(`${path} is outside the repository root ${root}`);
  }
  return rel.split(sep).join('/');
}

/** Resolves and checks a repository root: its real path, which must be a directory. */
export async function resolveRoot(root: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(root);
  } catch {
    throw new UserError(`repository root ${root} does not exist`);
  }
  if (!(await stat(real)).isDirectory()) throw new UserError(`repository root ${root} is not a directory`);
  return real;
}

/** This package's version, from its package.json. */
export async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
