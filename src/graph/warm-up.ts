// Warm-up rehearsals: a change made and taken back, or a patch written again, so that the code a
// save runs is compiled before the first real save after a start. The graph ends as it was.
import type { FileNames } from '../records.js';
import type { NameIndex } from './name-index.js';
import type { FileNode } from './nodes.js';
import type { RelatedState } from './related.js';

/** Changes rehearsed after a start (each two patches). */
export const REHEARSALS = 2;
/** At most this many files derive their edges again in a rehearsed change (the daemon waits for it). */
const MAX_REHEARSED_STALE = 256;

/** What a rehearsed change does to the graph. */
export interface Rehearsable {
  setFile(path: string, names: FileNames): void;
  prepareRelated(): void;
}

/**
 * Makes a save's change and takes it back, `times` times: a file's definitions taken away, so
 * that the files using them derive their edges again and the related graph is patched, then
 * given back. The file is the one with the most definitions among those whose change derives the
 * edges of at most a few hundred files again (`nodes`: every file, sorted; its names read and linked).
 */
export function rehearseChange(graph: Rehearsable, nodes: readonly FileNode[], index: Pick<NameIndex, 'referencersOf' | 'definedOf' | 'definitionCount' | 'refNamesOf' | 'names'>, times: number): void {
  // The files that may derive their edges again (an upper bound): well under a patch's limit. A
  // file's cold definitions (see NameIndex) have no referencer: `defined` holds every one that has.
  const bound = Math.min(nodes.length / 16, MAX_REHEARSED_STALE);
  const staleBound = (node: FileNode) => node.defined.reduce((sum, ident) => sum + (index.referencersOf(ident)?.length ?? 0) / 2, 0);
  // Most definitions first; the bound is summed for as few files as it takes.
  const byDefinitions = nodes.filter((node) => index.definitionCount(node) > 0 && node.refIds.length > 0).sort((a, b) => index.definitionCount(b) - index.definitionCount(a));
  const chosen = byDefinitions.find((node) => staleBound(node) <= bound);
  if (!chosen) return;
  const { path, refCounts, importIds, modules } = chosen;
  // All its definitions, the cold ones included: given back, the file has every name it had.
  const names = { defined: [...index.definedOf(chosen)], referenced: index.refNamesOf(chosen), counts: Array.from(refCounts), imports: index.names.namesOf(importIds), modules };
  for (let i = 0; i < times; i++) {
    graph.setFile(path, { ...names, defined: [] });
    graph.prepareRelated();
    graph.setFile(path, names);
    graph.prepareRelated();
  }
}

/**
 * Patches the related graph as a change would (the file with the most names derives its edges
 * again, and its rows and its neighbours' are written anew), `times` times: the same graph, and
 * little garbage.
 */
export function rehearsePatch(related: RelatedState, nodes: readonly FileNode[], nameCount: (node: FileNode) => number, times: number): void {
  let busiest = nodes[0];
  for (const node of nodes) if (nameCount(node) > nameCount(busiest)) busiest = node;
  for (let i = 0; i < times; i++) related.rebuildWith(busiest);
}
