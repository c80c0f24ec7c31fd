// The related graph patched after a change, in place: only the rows of the files whose edges were
// derived again (the stale files) and of their old and new targets change, and of those only the
// runs of entries of the stale sources; every other entry stays where it is or moves as part of a
// block within the same arrays, its numbers moved past the files added or removed since. The
// result equals, entry for entry, what flattenRelated writes from scratch (test/graph.test.ts).
//
// Steps: planPatch (which rows change, and how), rowSizes (where each row starts), layOut (the
// entries in order as segments: old ones kept, and new ones written aside, reading the old rows),
// then the kept entries moved (related-move.ts), the new ones put in place, the changed rows'
// merged walk merged anew around the unchanged rows' moved one, and the forward totals.
import { RELATED_WEIGHTS } from '../model.js';
import type { EdgeBuffers } from './edge-buffers.js';
import type { RelatedGraph } from './graph-types.js';
import { type FileNode, getOrCreate } from './nodes.js';
import { type Numbering, type Shift, shifted } from './numbering.js';
import { type RelatedArrays, distinctTargets, mergeRow, rowForwardTotal } from './related-build.js';
import { copyEntries, moveKept, moveUnchangedWalk, unchangedRunEnd } from './related-move.js';

const NO_PAIRS: readonly number[] = [];

/**
 * The related graph after the `stale` files took new forward edges (and files were added or
 * removed: `shifts` moves the previous graph's numbers to the current ones), written over the
 * previous graph `old`, in its own arrays when they have room (else in new ones from `buffers`):
 * a row keeps its entries in the order a full flatten gives (by source: the reverse entries of
 * lower sources, its own forward entries, those of higher sources), so the result is the same,
 * entry for entry. `old` is not to be read after: its arrays hold the new graph.
 */
export function patchRelated(old: RelatedGraph, shifts: readonly Shift[], stale: readonly FileNode[], nodes: readonly FileNode[], numbering: Numbering, buffers: EdgeBuffers): RelatedArrays {
  const plan = planPatch(old, shifts, stale, nodes, numbering);
  const { n, oldOf, isStale, affected, renumber } = plan;
  const { offsets, runsByRow, fresh } = rowSizes(plan);
  // Until the moves below, old's arrays are as they were: the new entries read them.
  const layout = layOut(plan, offsets, runsByRow, fresh);
  const edges = { ...buffers.edgeArrays(offsets[n]), walkSlot: buffers.walkSlots(offsets[n]) };
  const oldEdges = { targets: old.csr.targets, weights: old.csr.weights, edgeIdent: old.edgeIdent, forward: old.forward, walkSlot: old.walkSlot };
  moveKept(layout.kept, oldEdges, edges, renumber);
  for (let w = 0; w < layout.written.length; w += 3) copyEntries(layout, layout.written[w], layout.written[w + 1], edges, layout.written[w + 2]);
  const csr = { nodeCount: n, offsets, targets: edges.targets, weights: edges.weights };
  const seen = new Int32Array(n).fill(-1);
  const walkOffsets = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    const o = oldOf[v];
    const size = affected[v] ? distinctTargets(csr, v, seen) : old.walk.offsets[o + 1] - old.walk.offsets[o];
    walkOffsets[v + 1] = walkOffsets[v] + size;
  }
  const walk = { nodeCount: n, offsets: walkOffsets, ...buffers.walkEntries(walkOffsets[n]) };
  moveUnchangedWalk(plan, offsets, walk, edges.walkSlot);
  seen.fill(-1);
  const slotOf = new Uint32Array(n);
  for (let v = 0; v < n; v++) if (affected[v]) mergeRow(csr, v, walkOffsets[v], seen, slotOf, walk.targets, walk.weights, edges.walkSlot);
  const forwardTotal = new Float64Array(n);
  for (let v = 0; v < n; v++) forwardTotal[v] = isStale[v] ? rowForwardTotal(csr, edges.forward, v) : old.forwardTotal[oldOf[v]];
  return { csr, edgeIdent: edges.edgeIdent, forward: edges.forward, walk, walkSlot: edges.walkSlot, forwardTotal };
}

/** What a patch changes, found before anything is written. */
export interface PatchPlan {
  /** Nodes now, sorted (each stale one with its new `related` edges). */
  nodes: readonly FileNode[];
  n: number;
  old: RelatedGraph;
  /** Old node -> new node (-1: removed). */
  newOf: Int32Array;
  /** New node -> old node (-1: added). */
  oldOf: Int32Array;
  /** newOf when files were added or removed (copied targets are numbered anew), else undefined. */
  renumber: Int32Array | undefined;
  /** Per new node, 1 when its forward edges were derived again. */
  isStale: Uint8Array;
  /** Per new node, 1 when its row changes. */
  affected: Uint8Array;
  /**
   * Per new node, 1 when its row is rewritten entry by entry: rows of files added, and rows
   * holding entries of files added or removed. Other changed rows trade whole runs of entries, a
   * run per stale source, each found by binary search: a file used everywhere has a row of tens of
   * thousands of entries, of which an edit elsewhere changes a few.
   */
  entryWise: Uint8Array;
  /** Per row, the stale files whose old entries it holds, ascending: their runs give way. */
  dropped: Map<number, number[]>;
  /** Per target, the new reverse entries as (source, k) pairs, sources ascending. */
  incoming: Map<number, number[]>;
}

/** Step 1: the node mapping, and the rows the stale files' old and new edges touch. */
function planPatch(old: RelatedGraph, shifts: readonly Shift[], stale: readonly FileNode[], nodes: readonly FileNode[], numbering: Numbering): PatchPlan {
  const n = nodes.length;
  const { offsets: oldOffsets, targets: oldTargets } = old.csr;
  const oldForward = old.forward;
  const oldN = oldOffsets.length - 1;
  const newOf = new Int32Array(oldN);
  const oldOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < oldN; i++) {
    newOf[i] = shifted(i, shifts);
    if (newOf[i] >= 0) oldOf[newOf[i]] = i;
  }
  const isStale = new Uint8Array(n);
  const affected = new Uint8Array(n);
  const entryWise = new Uint8Array(n);
  for (const node of stale) isStale[node.dense] = affected[node.dense] = 1;
  const dropped = new Map<number, number[]>();
  // A removed file's old targets lose its reverse entries; a stale file's old targets too.
  for (let i = 0; i < oldN; i++) {
    const s = newOf[i];
    if (s >= 0 && !isStale[s]) continue;
    for (let e = oldOffsets[i]; e < oldOffsets[i + 1]; e++) {
      const t = oldForward[e] ? newOf[oldTargets[e]] : -1;
      if (t < 0) continue;
      affected[t] = 1;
      if (s < 0) entryWise[t] = 1;
      else {
        const sources = getOrCreate(dropped, t, () => []);
        if (sources[sources.length - 1] !== s) sources.push(s);
      }
    }
  }
  const incoming = new Map<number, number[]>();
  const staleNodes = stale.map((node) => node.dense).sort((a, b) => a - b);
  for (const s of staleNodes) {
    const { toDense } = numbering.numbered(nodes[s].related!);
    const added = oldOf[s] < 0;
    if (added) entryWise[s] = 1;
    for (let k = 0; k < toDense.length; k++) {
      affected[toDense[k]] = 1;
      if (added) entryWise[toDense[k]] = 1;
      getOrCreate(incoming, toDense[k], () => []).push(s, k);
    }
  }
  const renumber = shifts.length > 0 ? newOf : undefined;
  return { nodes, n, old, newOf, oldOf, renumber, isStale, affected, entryWise, dropped, incoming };
}

/** Whether old entry e of row v stays: unless its source is stale or gone. */
function keeps(plan: PatchPlan, v: number, e: number): boolean {
  const { isStale } = plan;
  if (plan.old.forward[e]) return !isStale[v];
  const source = plan.newOf[plan.old.csr.targets[e]];
  return source >= 0 && !isStale[source];
}

/**
 * Row v's changes as runs of five numbers: its old entries [from, to) give way to the new entries
 * of source s, pairs [p, q) of `incoming` (s = v: the row's own forward entries).
 */
function rowRuns(plan: PatchPlan, v: number): number[] {
  const { n, oldOf, isStale } = plan;
  const { offsets: oldOffsets, targets: oldTargets } = plan.old.csr;
  const o = oldOf[v];
  const start = oldOffsets[o];
  const end = oldOffsets[o + 1];
  const [ownFrom, ownTo] = ownEntries(oldTargets, plan.old.forward, start, end, o);
  const pairs = plan.incoming.get(v) ?? NO_PAIRS;
  const gone = plan.dropped.get(v) ?? NO_PAIRS;
  const runs: number[] = [];
  let p = 0;
  let d = 0;
  let own = isStale[v] === 1;
  for (;;) {
    const s = Math.min(p < pairs.length ? pairs[p] : n, d < gone.length ? gone[d] : n, own ? v : n);
    if (s === n) return runs;
    const q = pairsEnd(pairs, p, s);
    if (s === v) {
      runs.push(ownFrom, ownTo, s, p, q);
      own = false;
    } else {
      // Reverse entries sit by source, those of lower sources before the row's own entries.
      const os = oldOf[s];
      const [from, to] = os < o ? [start, ownFrom] : [ownTo, end];
      const at = lowerBound(oldTargets, from, to, os);
      runs.push(at, lowerBound(oldTargets, at, to, os + 1), s, p, q);
    }
    p = q;
    if (gone[d] === s) d++;
  }
}

/** Step 2: each row's start (offsets), the runs of the rows that trade runs, and how many new entries are written aside. */
function rowSizes(plan: PatchPlan): { offsets: Uint32Array; runsByRow: Map<number, number[]>; fresh: number } {
  const { n, nodes, oldOf, affected, entryWise, isStale, incoming } = plan;
  const oldOffsets = plan.old.csr.offsets;
  const runsByRow = new Map<number, number[]>();
  const offsets = new Uint32Array(n + 1);
  let fresh = 0;
  for (let v = 0; v < n; v++) {
    const o = oldOf[v];
    let size = o >= 0 ? oldOffsets[o + 1] - oldOffsets[o] : 0;
    if (affected[v] && !entryWise[v]) {
      const runs = rowRuns(plan, v);
      runsByRow.set(v, runs);
      for (let r = 0; r < runs.length; r += 5) {
        const added = runs[r + 2] === v ? nodes[v].related!.toDense.length : (runs[r + 4] - runs[r + 3]) / 2;
        size += added - (runs[r + 1] - runs[r]);
        fresh += added;
      }
    } else if (affected[v]) {
      size = (incoming.get(v)?.length ?? 0) / 2 + (isStale[v] ? nodes[v].related!.toDense.length : 0);
      if (o >= 0) for (let e = oldOffsets[o]; e < oldOffsets[o + 1]; e++) if (keeps(plan, v, e)) size++;
      fresh += size;
    }
    offsets[v + 1] = offsets[v] + size;
  }
  return { offsets, runsByRow, fresh };
}

/**
 * The patched graph's entries in the order of their places, as segments: runs of old entries kept
 * (moved to their places later, see moveKept), and new entries written aside (from `slot` on).
 */
class RowWriter {
  /** The next entry written aside. */
  slot = 0;
  /** The next entry's place in the patched graph. */
  at = 0;
  /** Old entries kept, as [from, to, at, slots]: slots is 1 when their merged entries' slots move with them (rows unchanged). */
  readonly kept: number[] = [];
  /** Entries written aside, as [from, to, at]. */
  readonly written: number[] = [];
  /** Where the segment being written aside began (-1: none). */
  private open = -1;
  private openAt = 0;

  constructor(
    private readonly plan: PatchPlan,
    readonly targets: Uint32Array,
    readonly weights: Float64Array,
    readonly edgeIdent: Uint32Array,
    readonly forward: Uint8Array,
  ) {}

  /** Keeps the old entries [from, to) (their targets numbered anew when files came or went) as the next entries. */
  keep(from: number, to: number, slots: 0 | 1): void {
    if (to <= from) return;
    this.close();
    this.kept.push(from, to, this.at, slots);
    this.at += to - from;
  }

  /** Ends the segment written aside, if any. */
  close(): void {
    if (this.open < 0) return;
    this.written.push(this.open, this.slot, this.openAt);
    this.open = -1;
  }

  write(target: number, weight: number, ident: number, isForward: number): void {
    if (this.open < 0) {
      this.open = this.slot;
      this.openAt = this.at;
    }
    this.at++;
    const slot = this.slot++;
    this.targets[slot] = target;
    this.weights[slot] = weight;
    this.edgeIdent[slot] = ident;
    this.forward[slot] = isForward;
  }

  /** Row v's own forward entries, as derived. */
  writeOwn(v: number): void {
    const own = this.plan.nodes[v].related!;
    for (let k = 0; k < own.toDense.length; k++) this.write(own.toDense[k], own.weight[k], own.ident[k], 1);
  }

  /** The reverse entry of `source`'s k-th forward edge. */
  writeReverse(source: number, k: number): void {
    const from = this.plan.nodes[source].related!;
    this.write(source, from.weight[k] * RELATED_WEIGHTS.reverse, from.ident[k], 0);
  }
}

/** A changed row that trades runs: old entries between the runs kept, each run's new entries written. */
function writeRunRow(plan: PatchPlan, writer: RowWriter, v: number, runs: readonly number[]): void {
  const o = plan.oldOf[v];
  const oldOffsets = plan.old.csr.offsets;
  const pairs = plan.incoming.get(v) ?? NO_PAIRS;
  let from = oldOffsets[o];
  for (let r = 0; r < runs.length; r += 5) {
    writer.keep(from, runs[r], 0);
    if (runs[r + 2] === v) writer.writeOwn(v);
    else for (let p = runs[r + 3]; p < runs[r + 4]; p += 2) writer.writeReverse(pairs[p], pairs[p + 1]);
    from = runs[r + 1];
  }
  writer.keep(from, oldOffsets[o + 1], 0);
}

/** A changed row written entry by entry: the old entries that stay, with the new ones merged in by source. */
function writeEntryRow(plan: PatchPlan, writer: RowWriter, v: number): void {
  const { newOf, isStale } = plan;
  const { offsets: oldOffsets, targets: oldTargets, weights: oldWeights } = plan.old.csr;
  const { edgeIdent: oldIdent, forward: oldForward } = plan.old;
  const pairs = plan.incoming.get(v) ?? NO_PAIRS;
  let next = 0;
  let ownPending = isStale[v] === 1;
  // Writes the new entries whose source comes before `limit`, in source order.
  const writeNewBefore = (limit: number) => {
    for (;;) {
      const source = next < pairs.length ? pairs[next] : Infinity;
      if (ownPending && v < limit && v < source) {
        writer.writeOwn(v);
        ownPending = false;
        continue;
      }
      if (source >= limit) return;
      writer.writeReverse(source, pairs[next + 1]);
      next += 2;
    }
  };
  const o = plan.oldOf[v];
  if (o >= 0) {
    for (let e = oldOffsets[o]; e < oldOffsets[o + 1]; e++) {
      if (!keeps(plan, v, e)) continue;
      const target = newOf[oldTargets[e]];
      writeNewBefore(oldForward[e] ? v : target);
      writer.write(target, oldWeights[e], oldIdent[e], oldForward[e]);
    }
  }
  writeNewBefore(Infinity);
}

/** Step 3: where each entry comes from, in row order: old entries kept, and new ones written aside (`fresh` of them) from the old rows (not moved yet). */
function layOut(plan: PatchPlan, offsets: Uint32Array, runsByRow: Map<number, number[]>, fresh: number): RowWriter {
  const { n, affected, oldOf } = plan;
  const oldOffsets = plan.old.csr.offsets;
  const writer = new RowWriter(plan, new Uint32Array(fresh), new Float64Array(fresh), new Uint32Array(fresh), new Uint8Array(fresh));
  for (let v = 0; v < n; ) {
    writer.close();
    writer.at = offsets[v];
    if (!affected[v]) {
      // A run of unchanged rows: kept as one block.
      const end = unchangedRunEnd(plan, v);
      writer.keep(oldOffsets[oldOf[v]], oldOffsets[oldOf[end - 1] + 1], 1);
      v = end;
      continue;
    }
    const runs = runsByRow.get(v);
    if (runs) writeRunRow(plan, writer, v, runs);
    else writeEntryRow(plan, writer, v);
    v++;
  }
  writer.close();
  return writer;
}

/** The end of source s's (source, k) pairs from p on. */
function pairsEnd(pairs: readonly number[], p: number, s: number): number {
  while (p < pairs.length && pairs[p] === s) p += 2;
  return p;
}

/** The first entry of [from, to) whose target is `value` or more (the entries sorted by target). */
function lowerBound(targets: Uint32Array, from: number, to: number, value: number): number {
  while (from < to) {
    const mid = (from + to) >>> 1;
    if (targets[mid] < value) from = mid + 1;
    else to = mid;
  }
  return from;
}

/**
 * Where row u's own (forward) entries begin and end in [start, end): after the reverse entries of
 * lower sources, before those of higher ones (a reverse entry's target is its source).
 */
function ownEntries(targets: Uint32Array, forward: Uint8Array, start: number, end: number, u: number): [number, number] {
  let from = start;
  let to = end;
  while (from < to) {
    const mid = (from + to) >>> 1;
    if (!forward[mid] && targets[mid] < u) from = mid + 1;
    else to = mid;
  }
  const ownFrom = from;
  to = end;
  while (from < to) {
    const mid = (from + to) >>> 1;
    if (forward[mid] || targets[mid] < u) from = mid + 1;
    else to = mid;
  }
  return [ownFrom, from];
}
