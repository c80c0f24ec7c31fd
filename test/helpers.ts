// Shared by the tests: temporary copies of fixtures, temporary caches, and running the real CLI.
import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { after } from 'node:test';
import { type IndexOptions, type RepoIndex, indexRepository } from '../src/indexer/indexer.js';
import { packageRoot } from '../src/paths.js';
import { TagStore } from '../src/store/store.js';

const made: string[] = [];
/** Paths makeUnwritable or makeUnreadable locked, each with how to undo it: a locked path in a temporary folder would keep it from being removed. */
const locked: Array<() => void> = [];
after(() => {
  for (const unlock of locked) unlock();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * Makes a file or folder refuse this process's writes, and undoes it when the test file ends. As
 * root, whom permission bits do not bind, by `chattr +i` (immutable: no write, no entry made or
 * removed in a folder); otherwise by a mode without write permission. False where that cannot be
 * done (no chattr, a file system without the flag): the test has nothing to check then.
 */
export function makeUnwritable(path: string): boolean {
  if (process.getuid?.() === 0) {
    if (spawnSync('chattr', ['+i', path]).status !== 0) return false;
    locked.push(() => spawnSync('chattr', ['-i', path]));
    return true;
  }
  const { mode } = statSync(path);
  chmodSync(path, mode & ~0o222);
  locked.push(() => chmodSync(path, mode));
  return true;
}

/**
 * Takes every permission off a file or folder (mode 000), and gives them back when the test file
 * ends (a folder this process cannot search could not be removed). False where permission bits do
 * not bind this process (root): the path stays readable, and the test has nothing to check then.
 */
export function makeUnreadable(path: string): boolean {
  const { mode } = statSync(path);
  chmodSync(path, 0);
  locked.push(() => chmodSync(path, mode));
  try {
    accessSync(path, constants.R_OK);
    return false;
  } catch {
    return true;
  }
}

/**
 * Puts a symlink to itself where a folder was (the folder moved aside, out of the root that git or
 * a walk lists): the paths under it cannot be reached (ELOOP), as under a folder this user may not
 * search (EACCES), which permission bits make only for a user who is not root. `restore` puts the
 * folder back.
 */
export function loopInPlaceOf(folder: string): { restore: () => void } {
  const aside = join(tempDir(), basename(folder));
  renameSync(folder, aside);
  symlinkSync(basename(folder), folder);
  return {
    restore: () => {
      rmSync(folder);
      renameSync(aside, folder);
    },
  };
}

/** Writes `files` (path from `root` to text) under `root`, making their folders. */
export function writeTree(root: string, files: Readonly<Record<string, string>>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A fresh temporary directory, removed when the test file ends. */
export function tempDir(prefix = 'repomap-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A writable copy of fixtures/repos/NAME. */
export function copyFixture(name: string): string {
  const dir = tempDir(`repomap-${name}-`);
  cpSync(join(packageRoot, 'fixtures', 'repos', name), dir, { recursive: true });
  return dir;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs bin/repomap.js as a user would. */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): CliResult {
  const result = spawnSync(process.execPath, [join(packageRoot, 'bin', 'repomap.js'), ...args], {
    cwd: options.cwd ?? packageRoot,
    ...(options.timeout ? { timeout: options.timeout } : {}),
    env: { ...process.env, ...options.env },
    encoding: 'utf8',
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Runs git in a folder, with a fixed identity. */
export function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/**
 * Edits a file in place the way `sed -i` then `touch -r` does: `change` keeps the size (by default
 * one letter changed), and the modification time is put back exactly (`touch -r` copies it to the
 * nanosecond, which utimes' seconds as a double may not). Only the change time tells.
 */
export function editKeepingStat(file: string, change = (text: string) => text.replace(/[a-y]/, (letter) => String.fromCharCode(letter.charCodeAt(0) + 1))): void {
  const reference = join(tempDir(), 'reference');
  const touch = (from: string, to: string) => {
    const touched = spawnSync('touch', ['-r', from, to], { encoding: 'utf8' });
    if (touched.status !== 0) throw new Error(`touch -r failed: ${touched.stderr}`);
  };
  touch(file, reference);
  writeFileSync(file, change(readFileSync(file, 'utf8')));
  touch(reference, file);
}

/** indexRepository over the tag store in `cacheDir` (a new one by default), closed again when the pass is done. */
export async function indexOnce(options: Omit<IndexOptions, 'store'> & { cacheDir?: string }): Promise<RepoIndex> {
  const store = TagStore.open(options.cacheDir ?? tempDir());
  try {
    return await indexRepository({ ...options, store });
  } finally {
    await store.close();
  }
}

/**
 * `count` Python modules of thirty classes and functions each, in `folders` folders, by path:
 * enough stored records that dropping them all in one transaction frees pages it dirtied.
 */
export function manyPythonModules(count: number, folders: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    let text = '';
    for (let j = 0; j < 30; j++) text += `class Thing${i}_${j}:\n    def method_${j}(self, value):\n        return helper_${j}(value)\n\ndef helper_${i}_${j}(x):\n    return x\n\n`;
    files[`pkg${i % folders}/mod${i}.py`] = text;
  }
  return files;
}

/**
 * The lines a stream writes (a child's JSON-RPC answers), one at a time as they come: the function
 * waits for the next line; once the stream has ended with none left, it throws.
 */
export function lineReader(stream: Readable): () => Promise<string> {
  const lines: string[] = [];
  let buffered = '';
  let ended = false;
  let waiting: (() => void) | undefined;
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    lines.push(...parts.filter(Boolean));
    waiting?.();
  });
  stream.on('close', () => {
    ended = true;
    waiting?.();
  });
  return async () => {
    while (lines.length === 0) {
      if (ended) throw new Error('the stream ended before another line');
      await new Promise<void>((resolve) => (waiting = resolve));
    }
    return lines.shift()!;
  };
}
