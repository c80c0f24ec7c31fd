// A file node's name fields: a file's names as a node holds them (referenced and imported names as
// ids of the name table, definitions packed in one string while the file waits to be linked) and
// back again. The name index decides when; this module keeps the table's counts of uses right.
import type { NameTable } from './name-table.js';
import { DEFINED_PACKED, type FileNode, type NodeNames } from './nodes.js';

/** What separates the names of FileNode.packed (no name that holds it is packed: see packNames). */
const PACKED_SEPARATOR = '\0';

/** The name fields of a node. */
export type NameFields = Pick<FileNode, 'defined' | 'packed' | 'refIds' | 'refCounts' | 'importIds' | 'modules'>;

/** `names` as one string (see DEFINED_PACKED); undefined when there is none, or one holds the separator. */
function packNames(names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  for (const name of names) if (name.includes(PACKED_SEPARATOR)) return undefined;
  return names.join(PACKED_SEPARATOR);
}

/** The names packNames packed, in their order. */
export function unpackNames(packed: string): string[] {
  return packed.split(PACKED_SEPARATOR);
}

/** How many names packNames packed. */
export function packedCount(packed: string): number {
  let count = 1;
  for (let at = packed.indexOf(PACKED_SEPARATOR); at >= 0; at = packed.indexOf(PACKED_SEPARATOR, at + 1)) count++;
  return count;
}

/** Replaces each of `names` that the table holds with the table's string (a file's own copy is let go of). */
function shareStrings(table: NameTable, names: string[]): void {
  for (let k = 0; k < names.length; k++) {
    const id = table.idOf(names[k]);
    if (id !== undefined) names[k] = table.nameOf(id);
  }
}

/**
 * A node's name fields for `names`, its referenced and imported names numbered (each id one more
 * use: see NameTable). A file that waits to be linked (`waiting`) has its definitions packed;
 * otherwise those of names in the table are the table's strings.
 */
export function nameFields(table: NameTable, names: NodeNames, waiting: boolean): NameFields {
  const { defined, refCounts, modules } = names;
  const refIds = table.take(names.refNames);
  const importIds = table.take(names.imports);
  const packed = waiting ? packNames(defined) : undefined;
  if (packed !== undefined) return { defined: DEFINED_PACKED, packed, refIds, refCounts, importIds, modules };
  shareStrings(table, defined);
  return { defined, packed: undefined, refIds, refCounts, importIds, modules };
}

/** Gives a node whose definitions are packed its definitions as names, those in the table as the table's strings. */
export function unpackDefinitions(table: NameTable, node: FileNode): void {
  if (node.defined !== DEFINED_PACKED) return;
  const defined = unpackNames(node.packed!);
  shareStrings(table, defined);
  node.defined = defined;
  node.packed = undefined;
}

/**
 * For a name some file of `nodes` references, the table's string of it (its definitions then hold
 * that one, not their own copies); undefined for any other name.
 */
export function referencedBy(table: NameTable, nodes: readonly FileNode[]): (ident: string) => string | undefined {
  const referenced = new Uint8Array(table.idBound);
  for (const node of nodes) for (const id of node.refIds) referenced[id] = 1;
  return (ident) => {
    const id = table.idOf(ident);
    return id !== undefined && referenced[id] === 1 ? table.nameOf(id) : undefined;
  };
}

/** Lets go of a node's name ids (it leaves, or its names were replaced: numbered first, so a name kept keeps its id). */
export function releaseIds(table: NameTable, fields: Pick<FileNode, 'refIds' | 'importIds'>): void {
  table.release(fields.refIds);
  table.release(fields.importIds);
}
