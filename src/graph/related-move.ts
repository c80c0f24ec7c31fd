// The rows a patch leaves unchanged, moved to where they start in the patched related graph: within
// the arrays the previous graph and the patched one share (or into new ones, when the patched graph
// outgrew them), a run of consecutive unchanged rows as one block, their numbers moved past the
// files added or removed, and each edge's merged entry moved with its row's merged entries.
//
// The order makes a move in place safe: the rows are in the same order before and after, so the
// runs that move toward the start, taken first to last, and then those that move toward the end,
// taken last to first, each write only over entries already moved or of changed rows (whose new
// entries were written aside before, see related-patch.ts).
import type { PatchPlan } from './related-patch.js';

/** Entries from which a run is copied with views and `set` (or copyWithin), not a loop. */
export const BLOCK_COPY = 256;

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

/** The merged walk's per-entry arrays. */
export interface WalkColumns {
  targets: Uint32Array;
  weights: Float64Array;
}

type Column = Uint8Array | Uint32Array | Float64Array;
/** Copies entries [start, end) of a column to `at` on. */
type Move = (start: number, end: number, at: number) => void;

/**
 * Moves the unchanged rows' entries (CSR and merged walk) from where the previous graph has them
 * to their new starts (`offsets`, `walkOffsets`) in `into` and `walkInto`: the previous graph's
 * arrays, or new ones. The changed rows' places are left to be written.
 */
export function moveUnchangedRows(plan: PatchPlan, offsets: Uint32Array, walkOffsets: Uint32Array, into: EdgeColumns, walkInto: WalkColumns): void {
  const { oldOf, renumber, old } = plan;
  const from: EdgeColumns = { targets: old.csr.targets, weights: old.csr.weights, edgeIdent: old.edgeIdent, forward: old.forward, walkSlot: old.walkSlot };
  const walkFrom: WalkColumns = old.walk;
  const oldOffsets = old.csr.offsets;
  const oldWalkOffsets = old.walk.offsets;
  const runs = unchangedRuns(plan);
  const edgeMoves = (['targets', 'weights', 'edgeIdent', 'forward', 'walkSlot'] as const).map((name) => mover(from[name], into[name]));
  // Run r: rows [runs[2r], runs[2r + 1]), their entries [start, end) before and from `at` on after.
  const edgeRun = (r: number) => {
    const first = oldOf[runs[2 * r]];
    const last = oldOf[runs[2 * r + 1] - 1];
    return { start: oldOffsets[first], end: oldOffsets[last + 1], at: offsets[runs[2 * r]] };
  };
  const walkRun = (r: number) => {
    const first = oldOf[runs[2 * r]];
    const last = oldOf[runs[2 * r + 1] - 1];
    return { start: oldWalkOffsets[first], end: oldWalkOffsets[last + 1], at: walkOffsets[runs[2 * r]] };
  };
  const count = runs.length / 2;
  inSweepOrder(count, edgeRun, (r) => {
    const { start, end, at } = edgeRun(r);
    for (const move of edgeMoves) move(start, end, at);
    const to = at + end - start;
    if (renumber) renumberRun(into.targets, at, to, renumber);
    const walk = walkRun(r);
    const slotShift = walk.at - walk.start;
    if (slotShift !== 0) for (let e = at; e < to; e++) into.walkSlot[e] += slotShift;
  });
  const walkMoves = (['targets', 'weights'] as const).map((name) => mover(walkFrom[name], walkInto[name]));
  inSweepOrder(count, walkRun, (r) => {
    const { start, end, at } = walkRun(r);
    for (const move of walkMoves) move(start, end, at);
    if (renumber) renumberRun(walkInto.targets, at, at + end - start, renumber);
  });
}

/** The runs of consecutive unchanged rows, as pairs [first, end): rows that move as one block. */
function unchangedRuns(plan: PatchPlan): number[] {
  const { n, affected, oldOf } = plan;
  const runs: number[] = [];
  for (let v = 0; v < n; ) {
    if (affected[v]) {
      v++;
      continue;
    }
    let end = v + 1;
    while (end < n && !affected[end] && oldOf[end] === oldOf[v] + (end - v)) end++;
    runs.push(v, end);
    v = end;
  }
  return runs;
}

/**
 * Calls `visit` for each of `count` runs in an order safe for moves in place (see the file's comment):
 * those moving toward the start in ascending order, then those moving toward the end in
 * descending order, then those that stay.
 */
function inSweepOrder(count: number, place: (run: number) => { start: number; at: number }, visit: (run: number) => void): void {
  const shiftOf = (r: number) => {
    const { start, at } = place(r);
    return at - start;
  };
  for (let r = 0; r < count; r++) if (shiftOf(r) < 0) visit(r);
  for (let r = count - 1; r >= 0; r--) if (shiftOf(r) > 0) visit(r);
  for (let r = 0; r < count; r++) if (shiftOf(r) === 0) visit(r);
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

/** Copies column entries [start, end) of `from` to `into` (another array) from `at` on. */
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

/**
 * Copies entries [start, end) of a row's columns to `into` (other arrays) from `at` on, the targets
 * numbered anew by `renumber` when files came or went.
 */
export function copyEntries(from: RowColumns, start: number, end: number, into: RowColumns, at: number, renumber?: Int32Array): void {
  if (end - start < BLOCK_COPY) {
    // A loop: views for a block copy cost more than the copy of a run of a few dozen entries.
    const shift = at - start;
    for (let e = start; e < end; e++) {
      into.targets[e + shift] = renumber ? renumber[from.targets[e]] : from.targets[e];
      into.weights[e + shift] = from.weights[e];
      into.edgeIdent[e + shift] = from.edgeIdent[e];
      into.forward[e + shift] = from.forward[e];
    }
    return;
  }
  into.targets.set(from.targets.subarray(start, end), at);
  if (renumber) renumberRun(into.targets, at, at + end - start, renumber);
  into.weights.set(from.weights.subarray(start, end), at);
  into.edgeIdent.set(from.edgeIdent.subarray(start, end), at);
  into.forward.set(from.forward.subarray(start, end), at);
}
