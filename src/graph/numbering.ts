// The numbering of the graph's files: their order by path gives each its node index in the compiled
// graphs (FileNode.dense). Files added or removed renumber the ones after them; the recent shifts
// are remembered so that numbers stored elsewhere (a file's related edges, a previous graph's
// arrays) move by arithmetic rather than by visiting each node.
import { comparePaths } from '../discover/discover.js';
import type { FileNode, RelatedEdges } from './nodes.js';

/** One file inserted at `at` (by +1) or removed from it (by -1). */
export interface Shift {
  at: number;
  by: 1 | -1;
}

/** Renumberings remembered for moving stored target numbers by arithmetic. */
const MAX_SHIFTS = 64;

/** Where node `i` of one numbering is after `shifts` (-1: removed). */
export function shifted(i: number, shifts: readonly Shift[]): number {
  for (const { at, by } of shifts) {
    if (by > 0) {
      if (i >= at) i++;
    } else if (i === at) return -1;
    else if (i > at) i--;
  }
  return i;
}

/**
 * Invariants: when `sorted` exists it holds every file of `files` sorted by path, and each node's
 * `dense` is its position there; `numbering` changes whenever a `dense` does, and shifts[k] took
 * numbering shiftsFrom + k to the next (undefined: a full renumbering).
 */
export class Numbering {
  private sorted: FileNode[] | undefined;
  private sortedPaths: string[] | undefined;
  private numbering = 0;
  private shifts: Array<Shift | undefined> = [];
  private shiftsFrom = 0;

  constructor(private readonly files: ReadonlyMap<string, FileNode>) {}

  /** The current numbering's number: bumped whenever `dense` numbers change. */
  get current(): number {
    return this.numbering;
  }

  /** The files sorted by path, if anything asked for them yet (see nodes). */
  get sortedIfAny(): readonly FileNode[] | undefined {
    return this.sorted;
  }

  /** The files sorted by path; `dense` is each one's position. */
  nodes(): FileNode[] {
    if (!this.sorted) {
      this.sorted = [...this.files.values()].sort((a, b) => comparePaths(a.path, b.path));
      this.renumber(0);
    }
    return this.sorted;
  }

  /** The files' paths, sorted. */
  paths(): string[] {
    this.sortedPaths ??= this.nodes().map((node) => node.path);
    return this.sortedPaths;
  }

  /** Takes `paths` (equal to paths()) as the list to hand out, so that lookups built over it serve. */
  adoptPaths(paths: string[]): void {
    this.sortedPaths = paths;
  }

  /** Keeps the sorted list (when there is one) in order without sorting it again. */
  insert(node: FileNode): void {
    const { sorted } = this;
    if (!sorted) return;
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (comparePaths(sorted[mid].path, node.path) < 0) low = mid + 1;
      else high = mid;
    }
    sorted.splice(low, 0, node);
    this.renumber(low, 1);
  }

  /** Takes a file out of the sorted list (when there is one). */
  remove(node: FileNode): void {
    if (!this.sorted) return;
    this.sorted.splice(node.dense, 1);
    this.renumber(node.dense, -1);
  }

  /** Renumbers from `from` on; `shift` says how (a file inserted there: +1; removed: -1), if it is one. */
  private renumber(from: number, shift?: 1 | -1): void {
    const sorted = this.sorted!;
    for (let i = from; i < sorted.length; i++) sorted[i].dense = i;
    this.sortedPaths = undefined;
    if (this.shifts.length >= MAX_SHIFTS) {
      this.shifts.splice(0, MAX_SHIFTS / 2);
      this.shiftsFrom += MAX_SHIFTS / 2;
    }
    this.shifts.push(shift === undefined ? undefined : { at: from, by: shift });
    this.numbering++;
  }

  /** The shifts from numbering `from` to the current one; undefined if one was a full renumbering or is forgotten. */
  shiftsSince(from: number): Shift[] | undefined {
    if (from < this.shiftsFrom) return undefined;
    const ops = this.shifts.slice(from - this.shiftsFrom);
    return ops.every((op) => op !== undefined) ? (ops as Shift[]) : undefined;
  }

  /** Refreshes a file's target numbers if files were added or removed since they were taken. */
  numbered(related: RelatedEdges): RelatedEdges {
    if (related.numbering === this.numbering) return related;
    const { toDense } = related;
    const ops = related.numbering >= 0 ? this.shiftsSince(related.numbering) : undefined;
    if (ops) {
      // Files added or removed since: the numbers move by arithmetic, without visiting the targets
      // (reading each target's number costs a cache miss per edge).
      for (let k = 0; k < toDense.length; k++) toDense[k] = shifted(toDense[k], ops);
    } else {
      for (let k = 0; k < related.to.length; k++) toDense[k] = related.to[k].dense;
    }
    related.numbering = this.numbering;
    return related;
  }
}
