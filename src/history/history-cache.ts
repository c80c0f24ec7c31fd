// The daemon's history (co-changes.ts): the repository's recent commits, read once and kept while
// HEAD stays where it was, and every commit's parsed diff, kept for good (a commit never changes),
// so that a map costs a few stats, and a git diff-tree only for commits it has not met yet.
//
// HEAD has moved when one of these changed: the git folder's own entries (HEAD, the index and
// every ref git writes there are renamed into place from a lock file), the reflog of HEAD (appended
// at every move), the branches' folder and packed-refs. Only stats: nothing of the repository's is read.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { runGitCommand } from '../git-args.js';
import { type DiffNames, type History, NO_HISTORY, type RecentCommits, coChangesIn, historyOrProblem, readRecentCommits } from './co-changes.js';

/** Commits whose parsed diffs are kept: past this, they are dropped and read again when needed. */
const MAX_DIFFS = 20_000;

interface GitDirs {
  gitDir: string;
  commonDir: string;
}

export class HistoryCache {
  private dirs: Promise<GitDirs | undefined> | undefined;
  private recent: { stamp: string; commits: Promise<RecentCommits> } | undefined;
  private readonly diffs: DiffNames = new Map();

  constructor(private readonly root: string) {}

  /** The history of `chatFiles` (paths from the root, sorted; see coChangesIn), the recent commits read again when HEAD moved since. */
  async history(chatFiles: readonly string[], isSource: (path: string) => boolean): Promise<History> {
    if (chatFiles.length === 0) return NO_HISTORY;
    const dirs = await (this.dirs ??= gitDirsOf(this.root));
    if (!dirs) return NO_HISTORY;
    const stamp = headStamp(dirs);
    if (this.recent?.stamp !== stamp) this.recent = { stamp, commits: readRecentCommits({ cwd: this.root }) };
    const { commits } = this.recent;
    if (this.diffs.size > MAX_DIFFS) this.diffs.clear();
    // A failed read is read again at the next request, not kept.
    const history = await historyOrProblem(async () => coChangesIn({ cwd: this.root }, await commits, chatFiles, isSource, this.diffs));
    if (history.problem && this.recent?.commits === commits) this.recent = undefined;
    return history;
  }
}

/** The root's git folder and the folder its refs are in (one for a linked worktree); undefined outside git. */
async function gitDirsOf(root: string): Promise<GitDirs | undefined> {
  try {
    const [gitDir, commonDir] = (await runGitCommand(['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir'], { cwd: root, encoding: 'utf8' })).split('\n');
    return gitDir && commonDir ? { gitDir, commonDir } : undefined;
  } catch {
    return undefined;
  }
}

function headStamp({ gitDir, commonDir }: GitDirs): string {
  const files = [gitDir, join(gitDir, 'logs', 'HEAD'), join(commonDir, 'refs', 'heads'), join(commonDir, 'packed-refs')];
  return files
    .map((file) => {
      try {
        const info = statSync(file, { throwIfNoEntry: false, bigint: true });
        return info ? `${info.mtimeNs}:${info.size}:${info.ino}` : '-';
      } catch {
        return '?'; // unreadable now: read again once it is not
      }
    })
    .join(' ');
}
