// A scratch checkout for `repomap eval`, outside the user's repository: a private git repository
// in the system's temporary folder that borrows the user's objects (objects/info/alternates) and
// has its own index. Moving it from one commit to the next rewrites only the files that differ,
// so the others keep their mtimes and the tag cache reuses them by stat. The user's work tree,
// index and refs are never written.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGit } from './git.js';

// Checkouts take the bytes as stored: no line-ending conversion, no LFS or other filters.
const CHECKOUT_CONFIG = ['-c', 'core.autocrlf=false', '-c', 'core.eol=lf', '-c', 'filter.lfs.process=', '-c', 'filter.lfs.smudge=cat', '-c', 'filter.lfs.required=false'];

export class ScratchCheckout {
  private current: string | null = null;
  private removed = false;

  private constructor(
    /** The folder holding the checkout and anything else eval keeps for one run. */
    readonly dir: string,
    /** The checked-out tree: the root the map is built from. */
    readonly tree: string,
  ) {}

  /** A new, empty scratch repository borrowing the objects of `gitDir`. */
  static async create(gitDir: string, base = tmpdir()): Promise<ScratchCheckout> {
    const dir = mkdtempSync(join(base, 'repomap-eval-'));
    const scratch = new ScratchCheckout(dir, join(dir, 'tree'));
    try {
      mkdirSync(scratch.tree);
      await runGit(['init', '-q', scratch.tree]);
      writeFileSync(join(scratch.tree, '.git', 'objects', 'info', 'alternates'), `${join(gitDir, 'objects')}\n`);
    } catch (err) {
      scratch.remove();
      throw err;
    }
    return scratch;
  }

  /** The commit the tree shows, if any. */
  get commit(): string | null {
    return this.current;
  }

  /** Makes the tree show `commit`: a full checkout the first time, then only what differs. */
  async checkout(commit: string): Promise<void> {
    const git = ['-C', this.tree, ...CHECKOUT_CONFIG, 'read-tree'];
    if (this.current === null) await runGit([...git, '--reset', '-u', commit]);
    else if (this.current !== commit) {
      try {
        await runGit([...git, '-m', '-u', this.current, commit]);
      } catch {
        // Whatever blocked the two-tree move (a file turned folder, say): check the commit out whole.
        await runGit([...git, '--reset', '-u', commit]);
      }
    }
    this.current = commit;
  }

  /** Deletes the scratch folder (idempotent; safe to call from a signal handler). */
  remove(): void {
    if (this.removed) return;
    this.removed = true;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
