import { join, relative, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';

/** Events are coalesced until this long passes without one ... */
const QUIET_MS = 15;
/** ... or this long after the first, whichever comes first: a long burst still flushes. */
const MAX_WAIT_MS = 400;

export interface RepoWatcherOptions {
  /** Whether a relative path (file or folder) is left out: not watched, no events. */
  isIgnored: (path: string) => boolean;
  /** A coalesced batch of changed relative file paths (created, changed or deleted). */
  onChanges: (paths: Set<string>) => void;
  onError?: (err: unknown) => void;
}

// Fault injection for the tests: paths containing this text cannot be watched, as when the
// system's limit of watches is reached (ENOSPC).
const unwatchable = process.env.REPOMAP_TEST_UNWATCHABLE;

/** Whether a watcher error means a path is not watched for want of system watches or handles. */
export function isWatchLimit(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EMFILE';
}

/**
 * Watches a repository with chokidar and hands over changed paths in batches, so a burst (a git
 * checkout, a formatter over the tree) becomes one update.
 */
export class RepoWatcher {
  private readonly watcher: FSWatcher;
  private pending = new Set<string>();
  private quietTimer: NodeJS.Timeout | undefined;
  private maxTimer: NodeJS.Timeout | undefined;
  /** Paths refused by the test's fault injection (see unwatchable). */
  private readonly refused = new Set<string>();
  readonly ready: Promise<void>;

  constructor(
    private readonly root: string,
    private readonly options: RepoWatcherOptions,
  ) {
    this.watcher = watch(root, {
      ignoreInitial: true,
      followSymlinks: false,
      ignored: (path: string) => {
        const rel = this.relative(path);
        if (unwatchable && rel.includes(unwatchable) && !this.refused.has(rel)) {
          this.refused.add(rel);
          options.onError?.(Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${path}'`), { code: 'ENOSPC' }));
        }
        return rel !== '' && (options.isIgnored(rel) || this.refused.has(rel));
      },
    });
    const onFile = (path: string) => this.add(this.relative(path));
    this.watcher.on('add', onFile).on('change', onFile).on('unlink', onFile);
    // A removed folder: every known path under it is checked again (the daemon expands it).
    this.watcher.on('unlinkDir', (path: string) => this.add(`${this.relative(path)}/`));
    this.watcher.on('error', (err: unknown) => options.onError?.(err));
    this.ready = new Promise((resolve) => this.watcher.once('ready', () => resolve()));
  }

  /** The files the watcher found (relative paths; folders left out). */
  watchedFiles(): string[] {
    const watched = this.watcher.getWatched();
    const files: string[] = [];
    for (const [folder, names] of Object.entries(watched)) {
      for (const name of names) {
        const path = join(folder, name);
        if (!(path in watched)) files.push(this.relative(path));
      }
    }
    return files;
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
    await this.watcher.close();
  }
}
