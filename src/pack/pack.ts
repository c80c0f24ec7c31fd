import { type MapBlock, type RenderStyle, type ShownLine, renderText } from '../render/render.js';
import type { Outline } from '../store/outline.js';
import type { DefTag } from '../records.js';
import type { TokenCounter } from './tokens.js';

/** One candidate for the map, in rank order: a definition to show, or a file to name. */
export interface PackEntry {
  path: string;
  rank: number;
  def?: DefTag;
  /** A line of the file shown under the definition: where it uses a chat file's definition (see users.ts). */
  use?: UseLine;
}

/**
 * A definition as an entry that says where a change lands shows it: by its first line alone (the
 * name, under its scopes), not its whole signature. A site is found by its name; a signature that
 * runs over lines (a long parameter list) would cost as much as another site.
 */
export function byFirstLine(def: DefTag): DefTag {
  return def.signatureEnd === def.line ? def : { ...def, signatureEnd: def.line };
}

/** A line shown for what it does, not what it defines: its 0-based number and its text (bounded and escaped, as an outline's lines). */
export interface UseLine {
  line: number;
  text: string;
}

/**
 * The candidates of a map, in order, read by index: a list may make each entry when first read
 * (the packer reads a prefix a few times the size of what fits, out of thousands). An array is one.
 */
export interface PackEntries {
  readonly length: number;
  at(index: number): PackEntry | undefined;
}

/** The entries of `head`, then those of `tail`. */
export function followedBy(head: readonly PackEntry[], tail: PackEntries): PackEntries {
  return { length: head.length + tail.length, at: (index) => (index < head.length ? head[index] : tail.at(index - head.length)) };
}

export interface PackResult {
  blocks: MapBlock[];
  text: string;
  tokens: number;
  /**
   * Set when entries were given and none fits, not even without a footer: the fewest tokens any
   * entry the packer looks at takes on its own (with the style, without a footer), the budget
   * that would show it for these entries.
   */
  leastBudget?: number;
}

/** After the binary search, how many further entries are tried one by one to fill the budget. */
const FILL_ATTEMPTS = 16;
/** ... among at most this many following entries. */
export const FILL_SCAN = 256;

/**
 * Chooses the entries to show: the longest prefix of `entries` whose rendering (with a footer,
 * its files placed by `placeOf`: see buildBlocks) fits `budget` tokens, found on exact counts
 * (doubling, then bisection), then a few later entries that still fit. Never exceeds the budget.
 *
 * `footers` are the forms of the map's last line, fullest first (see skipFooters in map.ts): the
 * first with which an entry fits is used, and none when no entry fits with any, so that the footer
 * never crowds out every file. With no entries, the map is the fullest footer alone, if it fits.
 */
export function packMap(
  entries: PackEntries,
  outlineOf: (path: string) => Outline | undefined,
  budget: number,
  countTokens: TokenCounter,
  footers: readonly string[],
  style: RenderStyle = {},
  placeOf?: (path: string) => number,
): PackResult {
  const render = (chosen: readonly number[], footer: string): PackResult => {
    const blocks = buildBlocks(entries, chosen, outlineOf, placeOf);
    const text = renderText(blocks, footer, style);
    return { blocks, text, tokens: countTokens(text) };
  };
  if (entries.length === 0) {
    const alone = render([], footers[0] ?? '');
    return alone.tokens <= budget ? alone : EMPTY;
  }
  for (const footer of [...footers, '']) {
    const packed = packWithFooter(entries, budget, countTokens, outlineOf, (chosen) => render(chosen, footer));
    if (packed.blocks.length > 0) return packed;
  }
  // Nothing fits: what it would take, from the entries the packer would look at (see packWithFooter).
  const looked = Math.min(entries.length, 1 + FILL_SCAN);
  let leastBudget = Infinity;
  for (let i = 0; i < looked; i++) leastBudget = Math.min(leastBudget, render([i], '').tokens);
  return { ...EMPTY, leastBudget };
}

const EMPTY: PackResult = { blocks: [], text: '', tokens: 0 };

/** packMap's search with one footer (`render` adds it): the map of the entries chosen, empty when not even the footer fits. */
function packWithFooter(
  entries: PackEntries,
  budget: number,
  countTokens: TokenCounter,
  outlineOf: (path: string) => Outline | undefined,
  render: (chosen: readonly number[]) => PackResult,
): PackResult {
  const prefix = (k: number) => Array.from({ length: k }, (_, i) => i);

  let best = render([]);
  if (best.tokens > budget) return EMPTY;
  // Find a prefix that overflows by doubling from a density guess (Aider's 25 tokens an entry),
  // so no render is much larger than the budget, then bisect between the two.
  let fits = 0;
  let overflows = entries.length + 1;
  for (let k = Math.min(entries.length, Math.max(1, Math.floor(budget / 25))); k > fits && k <= entries.length; ) {
    const attempt = render(prefix(k));
    if (attempt.tokens > budget) {
      overflows = k;
      break;
    }
    best = attempt;
    fits = k;
    k = Math.min(entries.length, k * 2);
  }
  let low = fits + 1;
  let high = overflows - 1;
  let bestCount = fits;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const attempt = render(prefix(middle));
    if (attempt.tokens <= budget) {
      best = attempt;
      bestCount = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  // The next entry did not fit; a later, smaller one may (a bare path, a line in a shown file).
  // Entries whose own line alone would not fit are passed over without a render.
  const chosen = prefix(bestCount);
  const scanEnd = Math.min(entries.length, bestCount + 1 + FILL_SCAN);
  for (let i = bestCount + 1, tries = 0; i < scanEnd && tries < FILL_ATTEMPTS && best.tokens < budget; i++) {
    const { path, def } = entries.at(i)!;
    const own = def ? (outlineOf(path)?.lineText(def.line) ?? '') : path;
    if (countTokens(own) > budget - best.tokens) continue;
    tries++;
    const attempt = render([...chosen, i]);
    if (attempt.tokens <= budget) {
      chosen.push(i);
      best = attempt;
    }
  }
  return best;
}

/**
 * Groups chosen entries by file, with each definition's signature and scope lines: files in order
 * of `placeOf` when given (lower first), else (and among equal places) of first appearance.
 */
export function buildBlocks(
  entries: PackEntries,
  chosen: readonly number[],
  outlineOf: (path: string) => Outline | undefined,
  placeOf?: (path: string) => number,
): MapBlock[] {
  const rowsByPath = new Map<string, { rank: number; rows: Map<number, ShownLine> }>();
  for (const i of chosen) {
    const { path, rank, def, use } = entries.at(i)!;
    let entry = rowsByPath.get(path);
    if (!entry) {
      entry = { rank, rows: new Map() };
      rowsByPath.set(path, entry);
    }
    if (def) {
      // A line shown for several reasons is what it is for the strongest: a definition, then a signature line, then a scope.
      const { rows } = entry;
      for (const line of def.scopes) if (!rows.has(line)) rows.set(line, { line, text: '', role: 'scope' });
      for (let line = def.line + 1; line <= def.signatureEnd; line++) if (rows.get(line)?.role !== 'definition') rows.set(line, { line, text: '', role: 'signature' });
      if (rows.get(def.line)?.role !== 'definition') rows.set(def.line, { line: def.line, text: '', role: 'definition', name: def.name, kind: def.subkind });
    }
    // A use line is no outline's line: its text comes with it, and any other role a line has comes first.
    if (use && !entry.rows.has(use.line)) entry.rows.set(use.line, { line: use.line, text: use.text, role: 'use' });
  }
  const blocks: MapBlock[] = [];
  for (const [path, { rank, rows }] of rowsByPath) {
    const tags = outlineOf(path);
    const lines = [...rows.values()].sort((a, b) => a.line - b.line);
    for (const row of lines) if (row.role !== 'use') row.text = tags?.lineText(row.line) ?? '';
    blocks.push({ path, rank, lang: tags?.lang ?? '', lines, lineCount: tags?.lineCount ?? 0 });
  }
  // Array sort is stable: equal places keep their order of first appearance.
  if (placeOf) blocks.sort((a, b) => placeOf(a.path) - placeOf(b.path));
  return blocks;
}
