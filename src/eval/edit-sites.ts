// Edit sites for `repomap eval`: the definitions a commit's edits land in, in the files it modified
// other than the chat file and tests, from the parent version's definitions and their extents;
// and how many of them a map shows.
import { isTestPath } from '../file-kinds.js';
import type { MapBlock } from '../render/render.js';
import type { Outline } from '../store/outline.js';
import type { EvalTask } from './git.js';

/** A definition a commit edits: one the change has to touch. Its line is 1-based. */
export interface EditSite {
  path: string;
  name: string;
  kind: string;
  line: number;
}

/**
 * The kinds of definition an edit lands in: functions and types. A constant, a field or a module
 * around an edit is not where it lands (a module or namespace around a whole file would be every
 * hunk's site, and shown by its name alone).
 */
export const EDIT_SITE_KINDS: ReadonlySet<string> = new Set(['function', 'method', 'class', 'interface', 'type', 'struct', 'enum', 'trait']);

/**
 * The edit sites of a task: for each of its targets that is not a test, the innermost definition
 * of EDIT_SITE_KINDS (of the parent's tags) whose extent holds each hunk's first old line (a hunk
 * that only inserts: both old lines around it). A hunk outside every such definition, or in a
 * file without an outline, has none; two hunks in one definition make one site. In target order,
 * then file order.
 */
export function editSites(task: EvalTask, hunks: ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>, outlineOf: (path: string) => Outline | undefined): EditSite[] {
  const sites: EditSite[] = [];
  for (const path of task.targets) {
    if (path === task.chatFile || isTestPath(path)) continue;
    const outline = outlineOf(path);
    if (!outline) continue;
    const found = new Set<number>();
    for (const [from, to] of hunks.get(path) ?? []) {
      const i = outline.innermostHolding(from, to, EDIT_SITE_KINDS);
      if (i !== -1) found.add(i);
    }
    for (const i of [...found].sort((a, b) => a - b)) {
      sites.push({ path, name: outline.defName(i), kind: outline.defSubkind(i), line: outline.defLine(i) + 1 });
    }
  }
  return sites;
}

/**
 * Scores the lines a map shows against the edit sites: a site is shown when a line shown under
 * its file has its name as a whole word (not as part of a longer identifier).
 */
export function editScore(sites: readonly EditSite[], blocks: readonly MapBlock[]): { editRecall: number | null; shownSites: string[] } {
  const linesOf = new Map<string, string[]>();
  for (const block of blocks) linesOf.set(block.path, [...(linesOf.get(block.path) ?? []), ...block.lines.map((line) => line.text)]);
  const shownSites = sites
    .filter((site) => (linesOf.get(site.path) ?? []).some((text) => hasWord(text, site.name)))
    .map((site) => `${site.path}:${site.line} ${site.name}`);
  return { editRecall: sites.length > 0 ? shownSites.length / sites.length : null, shownSites };
}

const IDENTIFIER_CHAR = /[\p{L}\p{N}_$]/u;

/** Whether `text` has `word` where no identifier character touches it on either side. */
export function hasWord(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    const before = at > 0 ? text[at - 1] : '';
    const after = text[at + word.length] ?? '';
    if (!IDENTIFIER_CHAR.test(before) && !IDENTIFIER_CHAR.test(after)) return true;
  }
  return false;
}
