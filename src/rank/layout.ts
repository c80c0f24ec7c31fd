// How the 'repomap' ranking spends a budget. First the code the request's files use (see
// needed.ts), within depthTokens of it; then breadth: a bare path costs a few tokens and
// a signature line many more, and a change usually needs files more than every signature of one
// file, so the map names the best-ranked files with the rest (without a depth section, with all
// of it but what their definitions get: DEFINITIONS_SHARE, at most DEFINITIONS_MAX_TOKENS), then shows their best
// definitions round by round (each file's first, then each file's second, ...; tests after code
// unless the request's files are tests), then names further files while tokens remain.
import { FILL_SCAN, type PackEntries, type PackEntry } from '../pack/pack.js';
import type { TokenCounter } from '../pack/tokens.js';
import type { Outline } from '../store/outline.js';
import type { DefTag } from '../records.js';
import type { RelatedRanking } from './rank.js';
import { BREADTH_MAX_TOKENS, DEFINITIONS_MAX_TOKENS, DEFINITIONS_SHARE, NEEDED_SHARE } from '../model.js';
import { ELIDED_MARK, SHOWN_MARK } from '../render/render.js';

/** Tokens of a budget spent naming files before any definition is shown. */
export function namingTokens(budget: number): number {
  return budget - Math.min(budget * DEFINITIONS_SHARE, DEFINITIONS_MAX_TOKENS);
}

/** Tokens of a budget the depth section (needed.ts) may take: NEEDED_SHARE of it, and all but BREADTH_MAX_TOKENS of a large one. */
export function depthTokens(budget: number): number {
  return budget - Math.min(budget * (1 - NEEDED_SHARE), BREADTH_MAX_TOKENS);
}

export interface LayoutInput {
  /** Files in rank order (chat files left out). */
  files: readonly string[];
  /** Rank of each file, for the map's `rank` field. */
  rankOf: (path: string) => number;
  /** Each of the given files' definitions, best first (asked once, for the files named). */
  definitionsOf: (paths: readonly string[]) => readonly RankedDefinitions[];
  budget: number;
  countTokens: TokenCounter;
  /** Files whose definitions come after every other file's (tests, when the request is not about one). */
  isLate?: (path: string) => boolean;
  /** Tokens spent naming files before any of their definitions (default: namingTokens(budget)). */
  naming?: number;
  /** Every file named before any definition (the map shows the request's code already: see needed.ts). */
  definitionsLast?: boolean;
}

/** A file's definitions, best first, each made when first asked for. */
export interface RankedDefinitions {
  readonly count: number;
  at(k: number): DefTag;
}

const NO_MENTIONS: ReadonlySet<string> = new Set();
const NO_DEFINITIONS: RankedDefinitions = { count: 0, at: () => undefined as never };

/** The candidates of a 'repomap' map in order (after the important files): the packer takes the longest prefix that fits. */
export function layoutEntries({
  files,
  rankOf,
  definitionsOf,
  budget,
  countTokens,
  isLate = () => false,
  naming = namingTokens(budget),
  definitionsLast = false,
}: LayoutInput): PackEntries {
  // How many files the naming part of the budget can list as bare paths (one line each).
  let named = 0;
  for (let used = 0; named < files.length; named++) {
    used += countTokens(files[named] + '\n');
    if (used > naming) break;
  }
  return new LaidOutEntries(files, named, definitionsOf(files.slice(0, named)), rankOf, isLate, definitionsLast ? files.length : named);
}

/**
 * layoutEntries' order: the named files, their definitions round by round (the late files' after
 * all the others'), the other files; or, with definitionsLast, every file and then the named
 * files' definitions. Each entry is made when the packer first reads it: it reads a few hundred,
 * and the named files of a large repository define thousands of names.
 */
class LaidOutEntries implements PackEntries {
  readonly length: number;
  private readonly definitionCount: number;
  private readonly made: PackEntry[] = [];
  /** The named files' definitions in order, made as they are read. */
  private readonly rounds: Iterator<PackEntry>;

  constructor(
    private readonly files: readonly string[],
    named: number,
    private readonly definitions: readonly RankedDefinitions[],
    private readonly rankOf: (path: string) => number,
    isLate: (path: string) => boolean,
    /** Where the definitions start among the entries: after the named files, or after every file. */
    private readonly definitionsFrom: number,
  ) {
    this.definitionCount = definitions.reduce((sum, list) => sum + list.count, 0);
    this.length = files.length + this.definitionCount;
    const first: number[] = [];
    const late: number[] = [];
    for (let i = 0; i < named; i++) (isLate(files[i]) ? late : first).push(i);
    this.rounds = this.roundRobin([first, late]);
  }

  /** Each group's files' definitions round by round: every file's best, then every file's second, ... */
  private *roundRobin(groups: ReadonlyArray<readonly number[]>): Iterator<PackEntry> {
    for (const group of groups) {
      for (let round = 0, more = true; more; round++) {
        more = false;
        for (const i of group) {
          if (round >= this.definitions[i].count) continue;
          more = true;
          yield { path: this.files[i], rank: this.rankOf(this.files[i]), def: this.definitions[i].at(round) };
        }
      }
    }
  }

  at(index: number): PackEntry | undefined {
    if (!(index >= 0 && index < this.length)) return undefined;
    while (this.made.length <= index) this.made.push(this.make(this.made.length));
    return this.made[index];
  }

  private make(index: number): PackEntry {
    const { files, definitionsFrom } = this;
    // Entries are made in order (see at), so the next definition is the iterator's next.
    if (index >= definitionsFrom && index < definitionsFrom + this.definitionCount) return this.rounds.next().value as PackEntry;
    const path = files[index < definitionsFrom ? index : index - this.definitionCount];
    return { path, rank: this.rankOf(path) };
  }
}

/** A file's definitions, best first: the mentioned ones, then by rank (highest first), then outermost, then by line. */
export function definitionsByRank(outline: Outline | undefined, rankOfIdent: (ident: string) => number, mentioned: ReadonlySet<string> = NO_MENTIONS): RankedDefinitions {
  const count = outline?.defCount ?? 0;
  if (!outline || count === 0) return NO_DEFINITIONS;
  // Each rank looked up once, not twice per comparison.
  const rank = new Float64Array(count);
  for (let i = 0; i < count; i++) rank[i] = mentioned.has(outline.defName(i)) ? Infinity : rankOfIdent(outline.defName(i));
  const order = new Int32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  order.sort((a, b) => rank[b] - rank[a] || outline.defDepth(a) - outline.defDepth(b) || outline.defLine(a) - outline.defLine(b) || a - b);
  return { count, at: (k) => outline.def(order[k]) };
}

/**
 * The entries of a 'repomap' map: the fused file order (then the files outside the graph, by
 * path, while fewer than `limit` are placed), laid out by layoutEntries with each file's
 * definitions ranked by the forward edges.
 */
export function relatedEntries(
  ranking: RelatedRanking,
  others: Iterable<string>,
  outlineOf: (path: string) => Outline | undefined,
  budget: number,
  countTokens: TokenCounter,
  limit: number,
  {
    mentioned = NO_MENTIONS,
    isLate,
    namesOnly = false,
  }: {
    mentioned?: ReadonlySet<string>;
    isLate?: (path: string) => boolean;
    /** The map shows the request's code already (needed.ts): every file is named before any definition. */
    namesOnly?: boolean;
  } = {},
): PackEntries {
  const files = [...ranking.files];
  if (files.length < limit) {
    const placed = new Set(files);
    for (const path of others) {
      if (files.length >= limit) break;
      if (!placed.has(path)) files.push(path);
    }
  }
  return layoutEntries({
    files,
    rankOf: ranking.rankOf,
    definitionsOf: (named) => {
      const ranks = ranking.definitionRanks(named);
      return named.map((path) => definitionsByRank(outlineOf(path), (ident) => ranks.get(path)?.get(ident) ?? 0, mentioned));
    },
    budget,
    countTokens,
    isLate,
    naming: namesOnly ? budget : namingTokens(budget),
    definitionsLast: namesOnly,
  });
}

/**
 * How many files a map of `budget` tokens can reach: each named file costs a token at least, and
 * the packer looks at most FILL_SCAN entries past the prefix that fits.
 */
export function fileLimit(budget: number): number {
  return budget + FILL_SCAN;
}

/** Entries whose lines entriesWithin counts in one call. */
const COUNT_AHEAD = 32;

/**
 * The longest prefix of `entries` whose lines fit about `tokens` (each definition's scope and
 * signature lines, and its file's header when the file is new, counted once), and at least the
 * first entry when it fits `firstWithin`: how much of the budget the code the request needs takes.
 * An estimate; the packer counts the map exactly.
 */
export function entriesWithin(
  entries: readonly PackEntry[],
  tokens: number,
  outlineOf: (path: string) => Outline | undefined,
  countTokens: TokenCounter,
  firstWithin = tokens,
): { entries: PackEntry[]; tokens: number } {
  // The lines of the next COUNT_AHEAD entries counted at once: the counts below then come from the
  // counter's memo, not one round trip to its thread each; the entries past the ones that fit
  // (most of a long list) are never counted.
  const rowsOf = entries.map((entry) => shownRows(entry, outlineOf(entry.path)));
  let countedTo = 0;
  const countAhead = (from: number) => {
    const texts: string[] = [];
    countedTo = Math.min(entries.length, from + COUNT_AHEAD);
    for (let k = from; k < countedTo; k++) texts.push(entries[k].path + ':', ...rowsOf[k].map(([, text]) => SHOWN_MARK + text));
    countTokens(texts.join('\n'));
  };
  const shownByPath = new Map<string, Set<number>>();
  let used = 0;
  let k = 0;
  for (; k < entries.length; k++) {
    if (k === countedTo) countAhead(k);
    const { path } = entries[k];
    const shown = shownByPath.get(path) ?? new Set<number>();
    const lines: string[] = shownByPath.has(path) ? [] : ['', path + ':'];
    // Each new line, and the elision mark that usually comes before it.
    for (const [row, text] of rowsOf[k]) if (!shown.has(row)) lines.push(ELIDED_MARK, SHOWN_MARK + text);
    const cost = countTokens(lines.join('\n') + '\n');
    if (used + cost > (k === 0 ? Math.max(tokens, firstWithin) : tokens)) break;
    used += cost;
    shownByPath.set(path, shown);
    for (const [row] of rowsOf[k]) shown.add(row);
  }
  return { entries: entries.slice(0, k), tokens: used };
}

/** The lines an entry shows, with their texts: its definition's scopes and signature, and its use line. */
function shownRows({ def, use }: PackEntry, outline: Outline | undefined): Array<[number, string]> {
  const rows: Array<[number, string]> = def ? [...def.scopes, ...signatureRows(def)].map((row) => [row, outline?.lineText(row) ?? '']) : [];
  if (use) rows.push([use.line, use.text]);
  return rows;
}

/** The lines of a definition's signature: its own line to the signature's last (a map shows them all). */
export function signatureRows(def: DefTag): number[] {
  return Array.from({ length: def.signatureEnd - def.line + 1 }, (_, i) => def.line + i);
}
