// The source files a bench works with: the repository's tracked files that have a grammar, and of
// those the ones repomap indexes with its defaults, which alone a bench may name as chat files (a
// chat file over --max-file-bytes is a bad request).

import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { languageForPath } from '../src/extract/languages.js';
import { DEFAULT_MAX_FILE_BYTES } from '../src/indexer/indexer.js';

/** `git ls-files` of root, kept to the paths with a grammar. */
export function trackedSourceFiles(root: string): string[] {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 });
  return listed.split('\0').filter((path) => path && languageForPath(path));
}

/** Of trackedSourceFiles, the regular files within repomap's default size limit. */
export function indexableSourceFiles(root: string): string[] {
  return trackedSourceFiles(root).filter((path) => {
    const info = statSync(join(root, path), { throwIfNoEntry: false });
    return info !== undefined && info.isFile() && info.size <= DEFAULT_MAX_FILE_BYTES;
  });
}
