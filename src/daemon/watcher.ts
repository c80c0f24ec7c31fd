// The daemon's file watcher: chokidar on the repository's folders, its events handed over in batches.
import { basename, dirname, join, relative, sep } from 'node:path';
import { type FSWatcher as FileWatcher, type Stats, watch as watchFolder } from 'node:fs';
import type { FSWatcher } from 'chokidar';

/** Events are coalesced until this long passes without one ... */
const QUIET_MS = 15;
/** ... or this long after the first, whichever comes first: a long burst still flushes. */
const MAX_WAIT_MS = 400;

export interface RepoWatcherOptions {
  /** Whether a relative path (file or folder) is left out: not watched, no events. */
  isIgnored: (path: string) => boolean;
  /** A coalesced batch of changed relative file paths (created, changed or deleted), and the absolute paths of `files` changed. */
  onChanges: (paths: Set<string>) => void;
  /**
   * chokidar named the root itself as removed (an `unlinkDir` of the root, on a deletion or a
   * rename of it): the daemon checks whether its root is still the folder it started on.
   */
  onRootEvent?: () => void;
  onError?: (err: unknown) => void;
  /**
   * Files outside the tree's watch, by absolute path (git's index and ignore files, in a `.git`
   * the tree's watch leaves out, or elsewhere), followed by a watch of their folder alone: not of
   * all of `.git`, whose objects churn. A change of one is named in a batch by its absolute path.
   * A file whose folder does not exist when the watcher starts is not followed.
   */
  files?: readonly string[];
  /**
   * Test only (fault injection): paths containing this text cannot be watched, as when the
   * system's limit of watches is reached (ENOSPC).
   */
  unwatchable?: string;
}

/** Whether a watcher error means a path is not watched for want of system watches or handles. */
export function isWatchLimit(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EMFILE';
}

/**
 * Watches a repository with chokidar and hands over changed paths in batches, so a burst (a git
 * checkout, a formatter over the tree) becomes one update.
 *
 * Folders are watched, not files: a folder's watch reports what happens to the files in it, by
 * name (chokidar's 'raw' events). Watching each file as well, as chokidar does by default, would
 * take a watch per file and more memory and time to be ready, for no event the folders miss. A
 * new folder is handed over as `folder/` (its files were created before it was watched), and so
 * is a removed one.
 */
export class RepoWatcher {
  private readonly watcher: FSWatcher;
  private pending = new Set<string>();
  private quietTimer: NodeJS.Timeout | undefined;
  private maxTimer: NodeJS.Timeout | undefined;
  /** Paths refused by the test's fault injection (see RepoWatcherOptions.unwatchable). */
  private readonly refused = new Set<string>();
  /** The watches of the folders of `files` (see RepoWatcherOptions.files). */
  private readonly fileWatchers: FileWatcher[] = [];
  readonly ready: Promise<void>;

  /** Starts watching; chokidar is loaded now, not with the daemon, whose first map does not wait for it. */
  static async start(root: string, options: RepoWatcherOptions): Promise<RepoWatcher> {
    const { watch } = await import('chokidar');
    return new RepoWatcher(root, options, watch);
  }

  private constructor(
    private readonly root: string,
    private readonly options: RepoWatcherOptions,
    watch: typeof import('chokidar').watch,
  ) {
    const { unwatchable } = options;
    this.watcher = watch(root, {
      ignoreInitial: true,
      followSymlinks: false,
      ignored: (path: string, stats?: Stats) => {
        const rel = this.relative(path);
        if (unwatchable && rel.includes(unwatchable) && !this.refused.has(rel)) {
          this.refused.add(rel);
          options.onError?.(Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${path}'`), { code: 'ENOSPC' }));
        }
        return rel !== '' && (options.isIgnored(rel) || this.refused.has(rel) || stats?.isFile() === true);
      },
    });
    // What chokidar still watches as a file (a symbolic link) it reports itself.
    const onFile = (path: string) => this.add(this.relative(path));
    this.watcher.on('add', onFile).on('change', onFile).on('unlink', onFile);
    // A folder's event names the entry (null: the system did not say which, so the whole folder).
    // A link's own watch names itself: a path inside the link, which the daemon finds missing.
    this.watcher.on('raw', (_event, name: string | null, details) => {
      const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
      if (typeof watched !== 'string') return;
      const folder = this.relative(watched);
      if (!name) this.add(folder === '' ? '' : `${folder}/`);
      else this.add(folder === '' ? name : `${folder}/${name}`);
    });
    // A folder that appeared or went: the daemon checks every path under it, known or on disk. The
    // root's own removal is no change of a path in it: said apart (see onRootEvent).
    const onFolder = (path: string) => {
      const folder = this.relative(path);
      if (folder === '') options.onRootEvent?.();
      else this.add(`${folder}/`);
    };
    this.watcher.on('addDir', onFolder).on('unlinkDir', onFolder);
    this.watcher.on('error', (err: unknown) => options.onError?.(err));
    this.ready = new Promise((resolve) => this.watcher.once('ready', () => resolve()));
    const files = options.files ?? [];
    for (const folder of new Set(files.map(dirname))) this.followFiles(folder, files.filter((file) => dirname(file) === folder));
  }

  /**
   * Follows files of one folder by the folder's watch, which outlives the files: git replaces its
   * index by renaming a new one over it, where a watch of the file itself would follow the old one.
   */
  private followFiles(folder: string, files: readonly string[]): void {
    const names = new Set(files.map((file) => basename(file)));
    try {
      const watcher = watchFolder(folder, (_event, name) => {
        // No name: the system did not say which entry changed.
        if (name === null) for (const file of files) this.add(file);
        else if (names.has(name)) this.add(join(folder, name));
      });
      watcher.on('error', (err: unknown) => this.options.onError?.(err));
      this.fileWatchers.push(watcher);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.options.onError?.(err);
    }
  }

  /** Watches folders (relative) the rules ignored until now, and the folders under them they do not ignore. */
  watch(folders: readonly string[]): void {
    if (folders.length === 0) return;
    const watched = this.watcher.getWatched();
    const added = folders.map((folder) => join(this.root, folder)).filter((abs) => !(abs in watched));
    if (added.length > 0) this.watcher.add(added);
  }

  /**
   * Watches a folder (relative) anew, after a change of its own entry (a chmod): one this user could
   * not read when it was watched has no watch (chokidar's EACCES), and its files' edits would go
   * unseen once it can be read. One that still cannot be read fails as it did (an error).
   */
  rewatch(folder: string): void {
    const abs = join(this.root, folder);
    this.watcher.unwatch(abs);
    this.watcher.add(abs);
  }

  /** Stops watching a folder (relative) and the folders under it. */
  unwatch(folder: string): void {
    const abs = join(this.root, folder);
    this.watcher.unwatch(Object.keys(this.watcher.getWatched()).filter((dir) => dir === abs || dir.startsWith(abs + sep)));
  }

  /** Paths seen but not yet handed over. */
  get pendingCount(): number {
    return this.pending.size;
  }

  private relative(path: string): string {
    return relative(this.root, path).split(sep).join('/');
  }

  private add(path: string): void {
    if (path === '' || path.startsWith('../')) return;
    this.pending.add(path);
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.flush(), QUIET_MS);
    this.maxTimer ??= setTimeout(() => this.flush(), MAX_WAIT_MS);
  }

  private flush(): void {
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    this.quietTimer = this.maxTimer = undefined;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Set();
    this.options.onChanges(batch);
  }

  async close(): Promise<void> {
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    for (const watcher of this.fileWatchers) watcher.close();
    await this.watcher.close();
  }
}
