// The tree's symlinks to files, checked again with every batch of changes: a link is indexed under
// its own path from its target (its stat follows it: see statInsideRoot), and a watcher names a
// target that changed, appeared or went by the target's path, never by the links leading to it.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { outOfDate } from '../indexer/indexer.js';
import type { RepoState } from './repo-state.js';

/**
 * The paths of the tree that are symlinks: those a listing found (see Discovery.symlinks), kept
 * up to date by each batch's files (see note). Only the links the state holds as source files are
 * checked again: a path without a grammar is settled by its name, whatever its target.
 *
 * Cost: every batch stats each such link that it does not name (an lstat, the target's real path
 * and its stat: about 10 µs a link with the inodes in memory), and updates only those whose stat
 * no longer matches their state. A tree with a few dozen links pays nothing to speak of; one with
 * 10,000 links to source files pays about 0.1 s more per batch (stat'ed in chunks, between which
 * the daemon answers requests: see statAll), however small the batch.
 */
export class SymlinkPaths {
  private links = new Set<string>();

  /** Takes the links of a listing of the whole tree, in place of those held. */
  reset(links: ReadonlySet<string>): void {
    this.links = new Set(links);
  }

  /**
   * Notes which of a batch's updated paths are links now, by an lstat of each the state holds as
   * a source file: a link made since comes in; a path gone, replaced by a file, or no source file
   * leaves.
   */
  async note(root: string, state: RepoState, paths: Iterable<string>): Promise<void> {
    const sources: string[] = [];
    for (const path of paths) {
      if (state.isSource(path)) sources.push(path);
      else this.links.delete(path);
    }
    const isLink = await Promise.all(sources.map((path) => lstat(join(root, path)).then((info) => info.isSymbolicLink(), () => false)));
    sources.forEach((path, i) => (isLink[i] ? this.links.add(path) : this.links.delete(path)));
  }

  /**
   * The links held as source files, other than those `named` (a batch's, updated anyway), whose
   * stat no longer matches their state: their target was edited, appeared or went (or the link
   * itself went, its event still to come). A link without a record (leading nowhere, or outside
   * the root) that leads to a file now is one of them (see outOfDate, from the start of time).
   */
  async changed(root: string, state: RepoState, named: ReadonlySet<string>): Promise<string[]> {
    const held = [...this.links].filter((path) => !named.has(path) && state.isSource(path));
    return held.length === 0 ? [] : outOfDate(root, held, (path) => state.recordOf(path), -Infinity);
  }
}
