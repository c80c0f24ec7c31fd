// What a batch of changed paths names, as the daemon's sync applies it (see RepoSync.applyChanges):
// the files under the folders it names, the paths that are not there (gone), and whether a listing
// of the tree differs from what the daemon holds; and what changed where no watch saw it (see
// RepoSync.changedUnseen).
import { lstat, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Discovery, filesUnder } from '../discover/discover.js';
import { outOfDate } from '../indexer/indexer.js';
import { isUnreachable, statAll } from '../indexer/stat.js';
import { languageForPath } from '../extract/languages.js';
import { isQueryFolder } from '../extract/user-languages.js';
import type { DaemonEngine } from './engine.js';

/** The discovery rules a batch is judged by (the sync's, replaced whenever discovery runs again). */
export interface BatchRules {
  /** Settles once the rules are those of the last discovery. */
  ready(): Promise<void>;
  /** Whether discovery lists nothing in a folder. */
  skips(folder: string): Promise<boolean>;
  isWatchIgnored(path: string): boolean;
  /** Watches a folder again (its own entry changed). */
  rewatch(folder: string): void;
}

/**
 * The files a batch changed: the files it names, and for each folder that went or appeared (the
 * watcher follows folders, so it named none of their files) or whose own entry changed (a chmod
 * that puts the files under it out of reach, or back within it) the known paths under it and the
 * files on disk under it, a folder inside another of the batch walked with it. A new folder that
 * discovery would list nothing in is not walked but returned in `leftOut`, to be left out unless
 * the batch re-runs discovery; a query folder (isQueryFolder) never is: it stays watched.
 */
export async function filesOf(engine: DaemonEngine, changed: Set<string>, rules: BatchRules): Promise<{ files: Set<string>; leftOut: string[] }> {
  const { state } = engine;
  const files = new Set([...changed].filter((path) => !path.endsWith('/')));
  const folders = new Set([...changed].filter((path) => path.endsWith('/')).map((path) => path.slice(0, -1)));
  // A folder's own change (a chmod, a chown) comes as its entry's, named without the slash: what
  // the index holds is a file, the other names are few and stat'ed (a symlink is a file, as discovery lists it).
  const unknown = [...files].filter((path) => !state.has(path));
  const isFolderAt = await Promise.all(unknown.map((path) => lstat(join(engine.options.root, path)).then((info) => info.isDirectory(), () => false)));
  /** Folders whose own entry changed, not made (a new folder comes with its slash too, watched already). */
  const touched = new Set<string>();
  unknown.forEach((path, i) => {
    if (!isFolderAt[i]) return;
    files.delete(path);
    if (!folders.has(path)) touched.add(path);
    folders.add(path);
  });
  const leftOut: string[] = [];
  if (folders.size === 0) return { files, leftOut };
  // The rules say which folders are walked (awaited only here: a batch of files that re-runs
  // discovery needs none, and one found earlier that could not be read does not block it).
  await rules.ready();
  const isInBatch = (folder: string) => folders.has(folder);
  for (const path of state.paths()) if (inFolder(path, isInBatch)) files.add(path);
  for (const folder of folders) {
    if (inFolder(folder, isInBatch) || rules.isWatchIgnored(folder)) continue;
    if (!(await rules.skips(folder))) {
      if (touched.has(folder)) rules.rewatch(folder);
      for (const path of await filesUnder(engine.options.root, folder, (sub) => rules.isWatchIgnored(sub))) files.add(path);
    } else if (!isQueryFolder(folder)) leftOut.push(folder);
    // A query folder discovery lists nothing in stays watched, not walked: its entry reloads the queries.
  }
  return { files, leftOut };
}

/**
 * Whether a listing of the tree differs from the paths the daemon holds: one it holds is not
 * listed, or one it does not hold is listed and exists (git lists the files of its index, deleted
 * ones too, whose deletion the daemon has taken).
 */
export async function listsOtherwise(engine: DaemonEngine, paths: readonly string[]): Promise<boolean> {
  const { state } = engine;
  const unknown = paths.filter((path) => !state.has(path));
  if (paths.length - unknown.length !== state.fileCount) return true;
  const found = await statAll(engine.options.root, unknown);
  return found.some((info) => info !== 'missing');
}

/**
 * Of paths about to be updated, those that are not there: gone. First those without a grammar
 * whose file is missing. An update stats each source file (and finds it gone), but takes a path
 * without a grammar for a file, as discovery lists files, and does not stat it. Taken so while
 * missing, a file whose deletion was handled already would stay until a restart, in the skips
 * and the counts: no event would come to take it out. A watcher names deleted entries, and git
 * lists its index, which a checkout writes after it has changed the tree. (The cold index's list
 * is checked by the catch-up: see watch.)
 *
 * Then those that cannot be reached (see Unreachable) and that no listing vouches for (`listed`
 * false: a name a watcher gave, not a path discovery listed or the index holds). A listed one is
 * skipped as unreadable, as a map skips it; an unlisted one may not exist (a folder's own watch
 * names the folder itself in it, when a chmod makes it unreadable), and no discovery would list
 * it: git lists the files of a folder it cannot read only when it tracks them, and a walk none.
 */
export async function notThere(root: string, paths: readonly string[], listed: (path: string) => boolean): Promise<string[]> {
  const checked = paths.filter((path) => !languageForPath(path) || !listed(path));
  const found = await statAll(root, checked);
  return checked.filter((path, i) => found[i] === 'missing' || (isUnreachable(found[i]) && !listed(path)));
}

/** Whether some folder above a path (not the path itself) is one `isFolder` picks. */
export function inFolder(path: string, isFolder: (folder: string) => boolean): boolean {
  for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
    if (isFolder(path.slice(0, slash))) return true;
  }
  return false;
}

/** Those of `files` (absolute) modified since `sinceMs`: the catch-up's, for git's index and ignore files, as changedSince's for a .gitignore. */
export async function modifiedSince(files: readonly string[], sinceMs: number): Promise<string[]> {
  const times = await Promise.all(files.map((file) => stat(file).then((info) => info.mtimeMs, () => -Infinity)));
  return files.filter((_, i) => times[i] >= sinceMs);
}

/** Paths discovery (`listTree`) lists that the daemon does not know: files created where no watch sees them. */
export async function newPaths(engine: DaemonEngine, listTree: (engine: DaemonEngine) => Promise<Discovery>): Promise<string[]> {
  const { paths } = await listTree(engine);
  return paths.filter((path) => !engine.state.has(path));
}

/** The known paths an update would not reuse (see outOfDate): what changed without an event. */
export function changedSince(engine: DaemonEngine, sinceMs: number): Promise<string[]> {
  const { state } = engine;
  return outOfDate(engine.options.root, state.paths(), (path) => state.recordOf(path), sinceMs);
}
