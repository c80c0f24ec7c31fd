// A file's forward edges in the related graph (the 'repomap' ranking): each reference resolved to
// the definers it most likely means, its weight split among them.
import { RELATED_WEIGHTS } from '../model.js';
import { type DefinerCache, allDefiners, definersIn } from './definers.js';
import type { NameTable } from './name-table.js';
import { type FileNode, type Interner, type RelatedEdges, isDefiner } from './nodes.js';

/**
 * The forward edges of `u` (its names read), from its references and the current definers: a
 * reference links to the definers among the files it imports (`imported`) when there are any,
 * else to those in its own folder, else to every definer of its language family, unless there
 * are more than RELATED_WEIGHTS.maxDefiners. Its weight (Aider's multiplier times the square root
 * of the count) is split evenly among them. Identifiers are numbered by `idents` in order of first
 * use; `table` names the file's reference ids. With `numbering` (the current one), the edges hold
 * their targets' numbers only (no file objects: 8 bytes an edge less), for a graph written in
 * full that lets go of them once written (see RelatedState.build); they cannot be renumbered.
 */
export function deriveRelated(u: FileNode, imported: readonly FileNode[], definerCache: DefinerCache, idents: Interner, table: NameTable, numbering?: number): RelatedEdges {
  const viaImport: FileNode[] = [];
  const to: FileNode[] = [];
  const toDense: number[] = [];
  const byNumber = numbering !== undefined;
  const identIds: number[] = [];
  const weights: number[] = [];
  for (let k = 0; k < u.refIds.length; k++) {
    const ident = table.nameOf(u.refIds[k]);
    const count = u.refCounts[k];
    const definers = definerCache.definersOfFamily(ident, u.family);
    if (!definers) continue;
    // First the definers among the files it imports: the name is the one they export.
    viaImport.length = 0;
    for (const v of imported) if (isDefiner(definers.entry, v)) viaImport.push(v);
    if (viaImport.length > 0) {
      if (definers.relatedId < 0) definers.relatedId = idents.id(ident);
      const weight = (definers.multiplier * Math.sqrt(count)) / viaImport.length;
      for (const v of viaImport) {
        if (byNumber) toDense.push(v.dense);
        else to.push(v);
        identIds.push(definers.relatedId);
        weights.push(weight);
      }
      continue;
    }
    // Counted from the folder index, not by walking every definer: a name like __init__ has thousands.
    const sameFolder = definersIn(definers, u.folder);
    const near = sameFolder.length - (isDefiner(definers.entry, u) ? 1 : 0);
    const others = definers.count - sameFolder.length;
    if (near + others === 0) continue;
    const onlyNear = near > 0;
    const targets = onlyNear ? near : others;
    // A name with many definers and none nearby says little about which one is meant: its
    // split weight is tiny and its links would outnumber all others. It links nothing.
    if (targets > RELATED_WEIGHTS.maxDefiners) continue;
    if (definers.relatedId < 0) definers.relatedId = idents.id(ident);
    const id = definers.relatedId;
    const weight = (definers.multiplier * Math.sqrt(count)) / targets;
    for (const v of onlyNear ? sameFolder : allDefiners(definers)) {
      if (v === u) continue;
      if (byNumber) toDense.push(v.dense);
      else to.push(v);
      identIds.push(id);
      weights.push(weight);
    }
  }
  const ident = Uint32Array.from(identIds);
  const weight = Float64Array.from(weights);
  if (byNumber) return { to, ident, weight, toDense: Uint32Array.from(toDense), numbering };
  return { to, ident, weight, toDense: new Uint32Array(to.length), numbering: -1 };
}
