// What a request asks of the name indexes: for each of a few hundred names, the files defining and
// referencing it, from the linked rows, the cold definitions and a scan of the files not linked yet
// (see NameIndex.scanWaiting), without linking them.
import type { NameFiles } from './graph-types.js';
import type { NameIndex } from './name-index.js';
import type { FileNode } from './nodes.js';

const NO_NODES: readonly FileNode[] = [];

/** The files defining each of `idents` and those referencing it, with their counts. */
export function namesOfAll(index: NameIndex, idents: Iterable<string>): Map<string, NameFiles> {
  const found = new Map<string, { definers: Set<string>; referencers: Array<readonly [string, number]> }>();
  let current!: { definers: Set<string>; referencers: Array<readonly [string, number]> };
  eachNamer(
    index,
    idents,
    (ident) => found.set(ident, (current = { definers: new Set(), referencers: [] })),
    (node, count, defines) => (defines ? current.definers.add(node.path) : current.referencers.push([node.path, count])),
  );
  const answers = new Map<string, NameFiles>();
  for (const [ident, { definers, referencers }] of found) {
    answers.set(ident, { definers: definers.size > 0 ? definers : undefined, referencers: referencers.length > 0 ? referencers : undefined });
  }
  return answers;
}

/** The files that define each of `idents` (namesOfAll without the referencers: a name like `get` has thousands). */
export function definersOfAll(index: NameIndex, idents: Iterable<string>): Map<string, ReadonlySet<string> | undefined> {
  const found = new Map<string, Set<string> | undefined>();
  let current: string;
  eachNamer(
    index,
    idents,
    (ident) => found.set((current = ident), undefined),
    (node) => {
      const set = found.get(current);
      if (set) set.add(node.path);
      else found.set(current, new Set([node.path]));
    },
    { referencers: false },
  );
  return found;
}

/**
 * Each of `idents` once (`onName` first), then each of its definers (in the order of their links,
 * then those among the waiting files) and referencers (count alongside): from the name indexes,
 * and from a scan of the files not linked yet.
 */
export function eachNamer(
  index: NameIndex,
  idents: Iterable<string>,
  onName: (ident: string) => void,
  visit: (node: FileNode, count: number, defines: boolean) => void,
  { referencers = true } = {},
): void {
  const wanted = [...new Set(idents)];
  const scanned = index.scanWaiting(wanted, referencers);
  const cold = index.coldDefiners(wanted);
  const visitDefiner = (node: FileNode) => visit(node, 1, true);
  const visitReferencer = (node: FileNode, count: number) => visit(node, count, false);
  for (const ident of wanted) {
    onName(ident);
    visitDefiners(index, ident, cold.get(ident), visitDefiner);
    const extra = scanned?.get(ident);
    for (const node of extra?.definers ?? []) visitDefiner(node);
    if (!referencers) continue;
    index.visitLinkedReferencers(ident, visitReferencer);
    if (!extra) continue;
    for (let j = 0; j < extra.referencers.length; j += 2) visitReferencer(extra.referencers[j] as FileNode, extra.referencers[j + 1] as number);
  }
}

/** The linked definers of `ident` in the order of their links, its cold definers (`cold`, in that order too) merged in. */
function visitDefiners(index: NameIndex, ident: string, cold: readonly FileNode[] | undefined, visit: (node: FileNode) => void): void {
  const entry = index.linkedDefiners(ident);
  if (cold) {
    // Both in the order of their links, merged: the order one index of them all would hold.
    const hot = entry === undefined ? NO_NODES : entry instanceof Set ? [...entry] : [entry];
    for (let h = 0, c = 0; h < hot.length || c < cold.length; ) {
      visit(c >= cold.length || (h < hot.length && hot[h].linkedAt < cold[c].linkedAt) ? hot[h++] : cold[c++]);
    }
  } else if (entry instanceof Set) for (const node of entry) visit(node);
  else if (entry) visit(entry);
}
