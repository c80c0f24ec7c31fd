import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { comparePaths } from './discover/discover.js';
import { isTestPath } from './file-kinds.js';
import type { RepoIndex } from './indexer/indexer.js';
import type { ReferenceGraph } from './graph/graph.js';
import type { NameFiles } from './graph/graph-types.js';
import type { TagStore } from './store/store.js';
import type { Outline } from './store/outline.js';
import { referenceTags } from './extract/refs.js';
import { escapeControls, escapeLineControls } from './paths.js';
import { signatureRows } from './rank/layout.js';
import type { RefTag } from './records.js';
import type { SymbolAnswer, SymbolDefinition, SymbolQuery, SymbolReference } from './api/types.js';
import { type FieldNames, OPTION_NAMES, SYMBOL_QUERY } from './api/request.js';


export const DEFAULT_SYMBOL_LIMIT = 20;

/** Which files define and reference each name (the graph), and a file's references (the store). */
export interface NameSource {
  /** The defined names `matching` takes (a kernel defines millions: they are not all held at once). */
  definedNames: (matching: (name: string) => boolean) => Iterable<string>;
  referencedNames: () => Iterable<string>;
  /** The definers and referencers of each name, asked together (a name nobody references is confirmed from the store, one read per file). */
  namesOfAll: (idents: readonly string[]) => ReadonlyMap<string, NameFiles>;
  refsOf: (path: string) => readonly RefTag[];
}

/** The names of a graph, and the reference sites the store keeps for each file. */
export function namesIn(graph: ReferenceGraph, store: Pick<TagStore, 'referenceSites'>): NameSource {
  return {
    definedNames: (matching) => graph.definedNames(matching),
    referencedNames: () => graph.referencedNames(),
    namesOfAll: (idents) => {
      graph.linkPending();
      return graph.namesOfAll(idents);
    },
    refsOf: (path) => referenceTags(store, path, () => graph.fileNames(path).referenced),
  };
}

/**
 * Where a name is defined and where it is referenced, from the indexed tags: definitions first
 * (see byRelevance), references by the PageRank of the referencing file. The files come from
 * the graph's name index; only their outlines (definitions) and the references returned are
 * read from the store, and the references' lines from the files (inside the root).
 */
export function findSymbols(
  index: RepoIndex,
  fileRank: ReadonlyMap<string, number>,
  query: SymbolQuery,
  names: NameSource,
): SymbolAnswer {
  const limit = query.limit ?? DEFAULT_SYMBOL_LIMIT;
  const wanted = query.prefix ? query.name.toLowerCase() : query.name;
  const matches = query.prefix ? (name: string) => name.toLowerCase().startsWith(wanted) : (name: string) => name === wanted;
  const rankOf = (path: string) => fileRank.get(path) ?? 0;

  const definers = new Set<string>();
  for (const { definers: paths } of names.namesOfAll(query.prefix ? [...names.definedNames(matches)] : [query.name]).values()) {
    for (const path of paths ?? []) definers.add(path);
  }
  const definitions: SymbolDefinition[] = [];
  for (const path of definers) {
    const outline = index.lookups.outlineOf(path);
    if (!outline) continue;
    for (const def of outline.defs()) {
      if (!matches(def.name)) continue;
      definitions.push({
        name: def.name,
        path,
        line: def.line + 1,
        kind: def.subkind,
        signature: signatureRows(def).map((line) => outline.lineText(line)).join('\n'),
        scopes: def.scopes.map((line) => ({ line: line + 1, text: outline.lineText(line) })),
      });
    }
  }
  // With --prefix: the name as written first, then the name in another case, then longer names.
  const closeness = query.prefix ? (name: string) => (name === query.name ? 2 : name.toLowerCase() === wanted ? 1 : 0) : () => 0;
  definitions.sort(byRelevance(closeness, rankOf));

  // The referencing files and their counts, from the graph; then, most central file first, each
  // file's matching references, a row at a time (see referenceRows), until `limit` rows: a row
  // comes whole, so that the count a row shows is every reference on its line.
  const referenced = query.prefix ? [...names.referencedNames()].filter(matches) : [query.name];
  const counts = new Map<string, number>();
  for (const { referencers } of names.namesOfAll(referenced).values()) {
    for (const [path, count] of referencers ?? []) counts.set(path, (counts.get(path) ?? 0) + count);
  }
  const files = [...counts.keys()].sort((a, b) => rankOf(b) - rankOf(a) || comparePaths(a, b));
  const shown: SymbolReference[] = [];
  let rows = 0;
  for (const path of files) {
    if (rows >= limit) break;
    const refs = names
      .refsOf(path)
      .filter((ref) => matches(ref.name))
      .map((ref): SymbolReference => ({ name: ref.name, path, line: ref.line + 1, kind: ref.subkind, text: '', rank: rankOf(path) }))
      .sort(byRow);
    const taken = referenceRows(refs).slice(0, limit - rows);
    const outline = taken.length > 0 ? index.lookups.outlineOf(path) : undefined;
    for (const row of taken) {
      const enclosing = outline ? enclosingOf(outline, row[0].line - 1) : undefined;
      for (const ref of row) shown.push(enclosing ? { ...ref, enclosing } : ref);
    }
    rows += taken.length;
  }
  fillLineTexts(index.root, shown);
  let totalReferences = 0;
  for (const count of counts.values()) totalReferences += count;
  return {
    // Field by field, in one order: the same answer in the same bytes, whoever built the query (the CLI, the daemon's parse).
    query: { name: query.name, ...(query.prefix === undefined ? {} : { prefix: query.prefix }), limit },
    definitions: definitions.slice(0, limit),
    references: shown,
    totalDefinitions: definitions.length,
    totalReferences,
  };
}

/**
 * The order of definitions, so that a limit keeps the ones that matter: the closest names first
 * (`closeness`: the name as asked before the same name in another case, before longer names a
 * prefix matches); code before tests (as a map shows them: a test's stub or fixture
 * is not the definition asked for); then the most central defining file first (the PageRank that
 * orders the references); then by path and line. A total order: the same index gives the same list.
 */
function byRelevance(closeness: (name: string) => number, rankOf: (path: string) => number): (a: SymbolDefinition, b: SymbolDefinition) => number {
  return (a, b) =>
    closeness(b.name) - closeness(a.name) ||
    Number(isTestPath(a.path)) - Number(isTestPath(b.path)) ||
    rankOf(b.path) - rankOf(a.path) ||
    comparePaths(a.path, b.path) ||
    a.line - b.line;
}

/**
 * The innermost definition of a file whose extent holds a line (0-based): the reference's
 * enclosing definition (1-based line, as the answer's), if any definition with a known extent does.
 */
function enclosingOf(outline: Outline, line: number): SymbolReference['enclosing'] {
  const i = outline.innermostHolding(line, line);
  return i === -1 ? undefined : { name: outline.defName(i), kind: outline.defSubkind(i), line: outline.defLine(i) + 1 };
}

function fillLineTexts(root: string, references: SymbolReference[]): void {
  const linesOf = new Map<string, string[]>();
  for (const ref of references) {
    let lines = linesOf.get(ref.path);
    if (!lines) {
      try {
        lines = readFileSync(join(root, ref.path), 'utf8').split('\n');
      } catch {
        lines = []; // deleted since it was indexed: the reference stands without its text
      }
      linesOf.set(ref.path, lines);
    }
    // Shown as a map shows its lines (see Outline.lineText); trim() drops a byte order mark too.
    ref.text = escapeLineControls((lines[ref.line - 1] ?? '').trim().slice(0, 200));
  }
}

function sameRow(a: SymbolReference, b: SymbolReference): boolean {
  return a.path === b.path && a.line === b.line && a.kind === b.kind && a.name === b.name;
}

/** The order of one file's references: by line, then name and kind, so that the references of a row are adjacent. */
function byRow(a: SymbolReference, b: SymbolReference): number {
  return a.line - b.line || compareText(a.name, b.name) || compareText(a.kind, b.kind);
}

/** Code-unit order: the same in every locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * References as the text shows them, one row each run of references on one line of one name and
 * kind (`a(b(a))`: a row of two for `a`): the same row twice would read as a mistake. A symbol
 * query's limit counts these rows, and the answer holds every reference of the rows it shows.
 */
function referenceRows(references: readonly SymbolReference[]): SymbolReference[][] {
  const rows: SymbolReference[][] = [];
  for (const ref of references) {
    const last = rows.at(-1);
    if (last && sameRow(last[0], ref)) last.push(ref);
    else rows.push([ref]);
  }
  return rows;
}

/**
 * The answer as text: definitions with their scope lines, then references, most central first,
 * each with the definition it is in (`src/a.ts:12 call in handle: ...`).
 * Paths and names have their control characters escaped, as the map's paths (the lines already are).
 * A cut list names the limit as the caller gives it (`names`: the command line's `--limit` by default).
 */
export function renderSymbols(answer: SymbolAnswer, names: FieldNames = OPTION_NAMES): string {
  const { query } = answer;
  const what = query.prefix ? `names starting with '${query.name}'` : `'${query.name}'`;
  const out: string[] = [];
  const limit = names('limit', SYMBOL_QUERY.limit);
  const more = `${limit} shows more`;
  const { definitions, references, totalDefinitions, totalReferences } = answer;
  const cutDefinitions = totalDefinitions > definitions.length ? ` (${definitions.length} of ${totalDefinitions}; ${more})` : '';
  out.push(totalDefinitions === 0 ? `no definitions of ${what}` : `definitions of ${what}: ${totalDefinitions}${cutDefinitions}`);
  for (const def of definitions) {
    out.push(`${escapeControls(def.path)}:${def.line} ${def.kind} ${escapeControls(def.name)}`);
    for (const scope of def.scopes) out.push(`  ${scope.line}│${scope.text}`);
    def.signature.split('\n').forEach((text, i) => out.push(`  ${def.line + i}│${text}`));
  }
  out.push('');
  // The limit counts rows (see referenceRows): a cut list says the references on the rows shown, and how many rows.
  const rows = referenceRows(references);
  const shownRows = rows.length === 1 ? 'the line shown' : `the ${rows.length} lines shown`;
  const cutReferences = totalReferences > references.length ? ` (${references.length} of ${totalReferences} on ${shownRows}; ${more})` : '';
  out.push(totalReferences === 0 ? `no references to ${what}` : `references to ${what}: ${totalReferences}${cutReferences}, most central first`);
  for (const [ref, ...same] of rows) {
    const within = ref.enclosing ? ` in ${escapeControls(ref.enclosing.name)}` : '';
    out.push(`${escapeControls(ref.path)}:${ref.line} ${ref.kind}${within}${same.length > 0 ? ` (${same.length + 1} on the line)` : ''}: ${ref.text}`);
  }
  return out.join('\n') + '\n';
}
