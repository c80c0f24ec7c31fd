// The old entries a patch of the related graph keeps (runs of unchanged rows, and the entries of a
// changed row between the runs it trades), moved to their places in the patched graph: within the
// arrays the previous graph and the patched one share (or into new ones, when the patched graph
// outgrew them), their numbers moved past the files added or removed; and the merged walk's
// entries of the unchanged rows, each edge's merged-entry slot moved by as much.
//
// The order makes a move in place safe: the kept entries are in the same order before and after,
// so the segments that move toward the start, taken first to last, and then those that move toward
// the end, taken last to first, each write only over entries already moved or not kept (the new
// entries are written aside before, and placed after: see related-patch.ts).
import type { CsrGraph } from '../rank/pagerank.js';
import type { PatchPlan } from './related-patch.js';

/** Entries from which a run copied into another array is copied with a view and `set`, not a loop. */
const BLOCK_COPY = 256;

/** A related graph's per-edge arrays. */
export interface EdgeColumns {
  targets: Uint32Array;
  weights: Float64Array;
  edgeIdent: Uint32Array;
  forward: Uint8Array;
  walkSlot: Uint32Array;
}

/** The per-edge arrays of a row's entries (walkSlot is derived after). */
export type RowColumns = Pick<EdgeColumns, 'targets' | 'weights' | 'edgeIdent' | 'forward'>;

type Column = Uint8Array | Uint32Array | Float64Array;
/** Copies entries [start, end) of a column to `at` on. */
type Move = (start: number, end: number, at: number) => void;

/**
 * Moves the old entries a patch keeps (`kept`: segments [from, to, at, slots], in the order of their
 * places) from the previous graph's arrays (`from`) to their places in `into`: the same arrays, or
 * new ones. Each edge's merged-entry slot moves with it where `slots` is 1 (rows whose merged walk
 * is kept; see moveUnchangedWalk); the targets are numbered anew when files came or went.
 */
export function moveKept(kept: readonly number[], from: EdgeColumns, into: EdgeColumns, renumber: Int32Array | undefined): void {
  const moves = (['targets', 'weights', 'edgeIdent', 'forward'] as const).map((name) => mover(from[name], into[name]));
  const moveSlots = mover(from.walkSlot, into.walkSlot);
  inSweepOrder(
    kept.length / 4,
    (k) => kept[4 * k + 2] - kept[4 * k],
    (k) => {
      const [start, end, at, slots] = [kept[4 * k], kept[4 * k + 1], kept[4 * k + 2], kept[4 * k + 3]];
      for (const move of moves) move(start, end, at);
      if (slots) moveSlots(start, end, at);
      if (renumber) renumberRun(into.targets, at, at + end - start, renumber);
    },
  );
}

/**
 * Moves the merged walk's entries of the runs of unchanged rows from where the previous graph has
 * them to their places (`walk.offsets`) in `walk`, and shifts their edges' slots (`walkSlot`, at
 * their places `offsets`) by as much. The changed rows' merged entries are left to be merged anew.
 */
export function moveUnchangedWalk(plan: PatchPlan, offsets: Uint32Array, walk: CsrGraph, walkSlot: Uint32Array): void {
  const { oldOf, renumber, old } = plan;
  const oldWalkOffsets = old.walk.offsets;
  const runs = unchangedRuns(plan);
  const moves = (['targets', 'weights'] as const).map((name) => mover(old.walk[name], walk[name]));
  // Run r: rows [runs[2r], runs[2r + 1]), their merged entries [start, end) before and from `at` on after.
  const startOf = (r: number) => oldWalkOffsets[oldOf[runs[2 * r]]];
  const atOf = (r: number) => walk.offsets[runs[2 * r]];
  inSweepOrder(
    runs.length / 2,
    (r) => atOf(r) - startOf(r),
    (r) => {
      const start = startOf(r);
      const end = oldWalkOffsets[oldOf[runs[2 * r + 1] - 1] + 1];
      const at = atOf(r);
      for (const move of moves) move(start, end, at);
      if (renumber) renumberRun(walk.targets, at, at + end - start, renumber);
      const shift = at - start;
      if (shift !== 0) for (let e = offsets[runs[2 * r]]; e < offsets[runs[2 * r + 1]]; e++) walkSlot[e] += shift;
    },
  );
}

/** The runs of consecutive unchanged rows, as pairs [first, end). */
function unchangedRuns(plan: PatchPlan): number[] {
  const runs: number[] = [];
  for (let v = 0; v < plan.n; ) {
    if (plan.affected[v]) {
      v++;
      continue;
    }
    const end = unchangedRunEnd(plan, v);
    runs.push(v, end);
    v = end;
  }
  return runs;
}

/** The end of the run of unchanged rows from v: rows that move as one block. */
export function unchangedRunEnd(plan: PatchPlan, v: number): number {
  const { n, affected, oldOf } = plan;
  let end = v + 1;
  while (end < n && !affected[end] && oldOf[end] === oldOf[v] + (end - v)) end++;
  return end;
}

/**
 * Calls `visit` for each of `count` segments in an order safe for moves in place (see the file's
 * comment): those moving toward the start in ascending order, then those moving toward the end in
 * descending order, then those that stay.
 */
function inSweepOrder(count: number, shiftOf: (k: number) => number, visit: (k: number) => void): void {
  for (let k = 0; k < count; k++) if (shiftOf(k) < 0) visit(k);
  for (let k = count - 1; k >= 0; k--) if (shiftOf(k) > 0) visit(k);
  for (let k = 0; k < count; k++) if (shiftOf(k) === 0) visit(k);
}

/**
 * How a column's runs move from the previous graph's array to the new graph's: within one array
 * (copyWithin, which allows the two ranges to overlap) when they share it, else copied across.
 */
function mover<T extends Column>(from: T, into: T): Move {
  if (from.buffer !== into.buffer) return (start, end, at) => copyRun(from, start, end, into, at);
  // Both views of one array: from its start, as EdgeBuffers hands them out.
  if (from.byteOffset !== into.byteOffset) throw new Error('a patch would read and write one array at two offsets');
  const whole = new (from.constructor as new (buffer: ArrayBufferLike, offset: number, length: number) => T)(from.buffer, from.byteOffset, Math.max(from.length, into.length));
  return (start, end, at) => {
    if (at !== start) whole.copyWithin(at, start, end);
  };
}

/** Copies column entries [start, end) of `from` to `into` (another array) from `at` on: a loop for a short run, whose views for a block copy would cost more. */
function copyRun<T extends Column>(from: T, start: number, end: number, into: T, at: number): void {
  if (end - start >= BLOCK_COPY) {
    into.set(from.subarray(start, end), at);
    return;
  }
  const shift = at - start;
  for (let e = start; e < end; e++) into[e + shift] = from[e];
}

/** Numbers the targets [from, to) anew (files came or went). */
function renumberRun(targets: Uint32Array, from: number, to: number, renumber: Int32Array): void {
  // A lookup per entry: as fast as arithmetic on one file's shift, whose branch mispredicts on
  // targets in no order.
  for (let e = from; e < to; e++) targets[e] = renumber[targets[e]];
}

/** Copies entries [start, end) of a row's columns to `into` (other arrays) from `at` on. */
export function copyEntries(from: RowColumns, start: number, end: number, into: RowColumns, at: number): void {
  copyRun(from.targets, start, end, into.targets, at);
  copyRun(from.weights, start, end, into.weights, at);
  copyRun(from.edgeIdent, start, end, into.edgeIdent, at);
  copyRun(from.forward, start, end, into.forward, at);
}
