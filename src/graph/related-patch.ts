// The related graph patched after a change, in place: only the rows of the files whose edges were
// derived again (the stale files) and of their old and new targets are written anew; the rest
// stay where they are or move as blocks within the same arrays, their numbers moved past the files
// added or removed since. The result equals, entry for entry, what flattenRelated writes from
// scratch (test/graph.test.ts checks it).
//
// Steps: planPatch (which rows change, and how), rowSizes (where each row starts), changedRows (the
// changed rows' new entries, written aside: they read the rows' old entries), then the unchanged
// rows moved (related-move.ts), the changed rows put in place, their merged walk rows merged anew,
// and the forward totals.
import { RELATED_WEIGHTS } from '../model.js';
import type { EdgeBuffers } from './edge-buffers.js';
import type { RelatedGraph } from './graph-types.js';
import { type FileNode, getOrCreate } from './nodes.js';
import { type Numbering, type Shift, shifted } from './numbering.js';
import { type RelatedArrays, distinctTargets, mergeRow, rowForwardTotal } from './related-build.js';
import { type RowColumns, copyEntries, moveUnchangedRows } from './related-move.js';

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
  const { n } = plan;
  const { offsets, runsByRow } = rowSizes(plan);
  // Until the moves below, old's arrays are as they were: the changed rows' entries read them.
  const changed = changedRows(plan, offsets, runsByRow);
  const walkOffsets = walkSizes(plan, changed);
  const { walkTargets, walkWeights, walkSlot } = buffers.walkArrays(walkOffsets[n], offsets[n]);
  const edges = { ...buffers.edgeArrays(offsets[n]), walkSlot };
  moveUnchangedRows(plan, offsets, walkOffsets, edges, { targets: walkTargets, weights: walkWeights });
  placeChangedRows(changed, offsets, edges);
  const csr = { nodeCount: n, offsets, targets: edges.targets, weights: edges.weights };
  const seen = new Int32Array(n).fill(-1);
  const slotOf = new Uint32Array(n);
  for (const v of changed.rows) mergeRow(csr, v, walkOffsets[v], seen, slotOf, walkTargets, walkWeights, edges.walkSlot);
  const { isStale, oldOf } = plan;
  const forwardTotal = new Float64Array(n);
  for (let v = 0; v < n; v++) forwardTotal[v] = isStale[v] ? rowForwardTotal(csr, edges.forward, v) : old.forwardTotal[oldOf[v]];
  const walk = { nodeCount: n, offsets: walkOffsets, targets: walkTargets, weights: walkWeights };
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

/** Step 2: each row's start (offsets), and the runs of the rows that trade runs. */
function rowSizes(plan: PatchPlan): { offsets: Uint32Array; runsByRow: Map<number, number[]> } {
  const { n, nodes, oldOf, affected, entryWise, isStale, incoming } = plan;
  const oldOffsets = plan.old.csr.offsets;
  const runsByRow = new Map<number, number[]>();
  const offsets = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    const o = oldOf[v];
    let size = o >= 0 ? oldOffsets[o + 1] - oldOffsets[o] : 0;
    if (affected[v] && !entryWise[v]) {
      const runs = rowRuns(plan, v);
      runsByRow.set(v, runs);
      for (let r = 0; r < runs.length; r += 5) {
        size -= runs[r + 1] - runs[r];
        size += runs[r + 2] === v ? nodes[v].related!.toDense.length : (runs[r + 4] - runs[r + 3]) / 2;
      }
    } else if (affected[v]) {
      size = (incoming.get(v)?.length ?? 0) / 2 + (isStale[v] ? nodes[v].related!.toDense.length : 0);
      if (o >= 0) for (let e = oldOffsets[o]; e < oldOffsets[o + 1]; e++) if (keeps(plan, v, e)) size++;
    }
    offsets[v + 1] = offsets[v] + size;
  }
  return { offsets, runsByRow };
}

/** Writes changed rows' entries aside from `slot` on: copies of old entries, or new ones. */
class RowWriter {
  slot = 0;

  constructor(
    private readonly plan: PatchPlan,
    readonly targets: Uint32Array,
    readonly weights: Float64Array,
    readonly edgeIdent: Uint32Array,
    readonly forward: Uint8Array,
  ) {}

  /** Copies the old entries [from, to), their targets numbered anew when files came or went. */
  copyOld(from: number, to: number): void {
    const { old, renumber } = this.plan;
    copyEntries({ targets: old.csr.targets, weights: old.csr.weights, edgeIdent: old.edgeIdent, forward: old.forward }, from, to, this, this.slot, renumber);
    this.slot += to - from;
  }

  write(target: number, weight: number, ident: number, isForward: number): void {
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

/** A changed row that trades runs: old entries between the runs copied, each run's new entries written. */
function writeRunRow(plan: PatchPlan, writer: RowWriter, v: number, runs: readonly number[]): void {
  const o = plan.oldOf[v];
  const oldOffsets = plan.old.csr.offsets;
  const pairs = plan.incoming.get(v) ?? NO_PAIRS;
  let from = oldOffsets[o];
  for (let r = 0; r < runs.length; r += 5) {
    writer.copyOld(from, runs[r]);
    if (runs[r + 2] === v) writer.writeOwn(v);
    else for (let p = runs[r + 3]; p < runs[r + 4]; p += 2) writer.writeReverse(pairs[p], pairs[p + 1]);
    from = runs[r + 1];
  }
  writer.copyOld(from, oldOffsets[o + 1]);
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

/** The changed rows' new entries, written aside (in row order) before any row moves. */
interface ChangedRows {
  /** The changed rows, ascending. */
  rows: Uint32Array;
  /** Changed row k's entries are [starts[k], starts[k + 1]) of the arrays below. */
  starts: Uint32Array;
  targets: Uint32Array;
  weights: Float64Array;
  edgeIdent: Uint32Array;
  forward: Uint8Array;
}

/** Step 3: the changed rows' entries, by runs or entry by entry, from the old rows (not moved yet). */
function changedRows(plan: PatchPlan, offsets: Uint32Array, runsByRow: Map<number, number[]>): ChangedRows {
  const { n, affected } = plan;
  let count = 0;
  let size = 0;
  for (let v = 0; v < n; v++) {
    if (!affected[v]) continue;
    count++;
    size += offsets[v + 1] - offsets[v];
  }
  const rows = new Uint32Array(count);
  const starts = new Uint32Array(count + 1);
  const writer = new RowWriter(plan, new Uint32Array(size), new Float64Array(size), new Uint32Array(size), new Uint8Array(size));
  let k = 0;
  for (let v = 0; v < n; v++) {
    if (!affected[v]) continue;
    rows[k] = v;
    starts[k] = writer.slot;
    const runs = runsByRow.get(v);
    if (runs) writeRunRow(plan, writer, v, runs);
    else writeEntryRow(plan, writer, v);
    k++;
  }
  starts[count] = writer.slot;
  const { targets, weights, edgeIdent, forward } = writer;
  return { rows, starts, targets, weights, edgeIdent, forward };
}

/** The merged walk's offsets: an unchanged row keeps its size, a changed one has one entry per distinct target. */
function walkSizes(plan: PatchPlan, changed: ChangedRows): Uint32Array {
  const { n, oldOf, affected } = plan;
  const oldWalkOffsets = plan.old.walk.offsets;
  const walkOffsets = new Uint32Array(n + 1);
  const sizes = new Uint32Array(changed.rows.length);
  // The changed rows as a graph of their own (row k: changed row k), to count their distinct targets.
  const aside = { nodeCount: changed.rows.length, offsets: changed.starts, targets: changed.targets, weights: changed.weights };
  const seen = new Int32Array(n).fill(-1);
  for (let k = 0; k < sizes.length; k++) sizes[k] = distinctTargets(aside, k, seen);
  for (let v = 0, k = 0; v < n; v++) {
    const o = oldOf[v];
    const size = affected[v] ? sizes[k++] : oldWalkOffsets[o + 1] - oldWalkOffsets[o];
    walkOffsets[v + 1] = walkOffsets[v] + size;
  }
  return walkOffsets;
}

/** Step 5: the changed rows' entries, written aside, put at their rows' new places (the unchanged rows moved already). */
function placeChangedRows(changed: ChangedRows, offsets: Uint32Array, into: RowColumns): void {
  const { rows, starts } = changed;
  for (let k = 0; k < rows.length; k++) copyEntries(changed, starts[k], starts[k + 1], into, offsets[rows[k]]);
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
