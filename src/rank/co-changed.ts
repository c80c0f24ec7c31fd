// The definitions past commits changed together with the chat files (history/co-changes.ts), as
// the depth section shows them: each by its first line, the most often and most lately changed
// first. The history names definitions by name in each file; a name matches today's definitions
// of that file of the kinds an edit lands in (functions, methods, types).
import { comparePaths } from '../discover/discover.js';
import { EDIT_SITE_KINDS } from '../eval/edit-sites.js';
import type { CoChanges } from '../history/co-changes.js';
import { byFirstLine, type PackEntry } from '../pack/pack.js';
import type { Outline } from '../store/outline.js';

export interface CoChangedRequest {
  chatFiles: ReadonlySet<string>;
  /** Files never shown: foreign to the request (tests, unless it is about one; other language families). */
  foreign: (path: string) => boolean;
  rankOf: (path: string) => number;
  /** Entries enough to fill the section's share: the list stops there. */
  limit: number;
}

/** The co-changed definitions as pack entries, best first: at most `limit`. */
export function coChangedEntries(coChanges: CoChanges, outlineOf: (path: string) => Outline | undefined, request: CoChangedRequest): PackEntry[] {
  const { chatFiles, foreign, rankOf } = request;
  const found: Array<{ path: string; index: number; score: number }> = [];
  for (const [path, weights] of coChanges) {
    if (chatFiles.has(path) || foreign(path)) continue;
    const outline = outlineOf(path);
    for (let i = 0; i < (outline?.defCount ?? 0); i++) {
      if (!EDIT_SITE_KINDS.has(outline!.defSubkind(i))) continue;
      const score = weights.get(outline!.defName(i));
      if (score !== undefined) found.push({ path, index: i, score });
    }
  }
  found.sort((a, b) => b.score - a.score || rankOf(b.path) - rankOf(a.path) || comparePaths(a.path, b.path) || a.index - b.index);
  return found.slice(0, request.limit).map(({ path, index }) => ({ path, rank: rankOf(path), def: byFirstLine(outlineOf(path)!.def(index)) }));
}
