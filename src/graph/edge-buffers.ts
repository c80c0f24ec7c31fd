// The related graph's edge arrays: one set, patched in place from one change to the next (see
// related-patch.ts), with room past the entries in use for the edges later changes add. A large
// repository has millions of edges: fresh arrays after every save would cost full garbage
// collections of the whole heap, and a second set to write each change into would double them.

type TypedArrayOf<T> = T extends Uint8ArrayConstructor ? Uint8Array : T extends Uint32ArrayConstructor ? Uint32Array : Float64Array;

/** Room left in new edge arrays for the edges later changes add. */
const EDGE_HEADROOM = 1.25;

/** The length of an edge array with room for the edges later changes add, for `length` entries in use. */
export function withRoom(length: number): number {
  return Math.ceil(length * EDGE_HEADROOM);
}

/** Named typed arrays that grow (by a quarter more than asked) and are handed out as views of the asked length. */
export class EdgeBuffers {
  private readonly arrays = new Map<string, Uint8Array | Uint32Array | Float64Array>();
  /** Arrays taken as they came or made to measure, without room for more edges. */
  private readonly exact = new Set<string>();
  /**
   * Whether new arrays get room for the edges later changes add; without, they are made to
   * measure (a graph nothing will change). An array made to measure is replaced by one with room
   * the next time it is taken with headroom, its contents left to the caller to copy.
   */
  headroom = true;

  /**
   * A view of `length` entries of the named array: the same array as last time, its entries kept,
   * while it has room for them (and, taken with headroom, was not made to measure), else a new one.
   */
  take<C extends Uint8ArrayConstructor | Uint32ArrayConstructor | Float64ArrayConstructor>(name: string, type: C, length: number): TypedArrayOf<C> {
    let array = this.arrays.get(name);
    if (!array || array.length < length || (this.headroom && this.exact.has(name))) {
      array = new type(this.headroom ? withRoom(length) : length);
      this.arrays.set(name, array);
      if (this.headroom) this.exact.delete(name);
      else this.exact.add(name);
    }
    return array.subarray(0, length) as TypedArrayOf<C>;
  }

  /**
   * Takes arrays made elsewhere (a saved graph's) as its own. With `room`, each is a view of the
   * start of an ArrayBuffer of its own whose rest is room for more entries (see graph-file.ts);
   * without, each is taken as made to measure.
   */
  adopt(arrays: Record<string, Uint8Array | Uint32Array | Float64Array>, room = false): void {
    for (const [name, array] of Object.entries(arrays)) {
      if (room && array.byteOffset === 0) {
        const whole = new (array.constructor as new (buffer: ArrayBufferLike) => typeof array)(array.buffer);
        this.arrays.set(name, whole);
        this.exact.delete(name);
      } else {
        this.arrays.set(name, array);
        this.exact.add(name);
      }
    }
  }

  /** Whether an array was taken or made without room: the graph's next patch moves into new ones. */
  get madeToMeasure(): boolean {
    return this.exact.size > 0;
  }

  /** The merged walk's arrays: its entries, and each edge's entry. */
  walkArrays(entries: number, edges: number): { walkTargets: Uint32Array; walkWeights: Float64Array; walkSlot: Uint32Array } {
    const { targets, weights } = this.walkEntries(entries);
    return { walkTargets: targets, walkWeights: weights, walkSlot: this.walkSlots(edges) };
  }

  /** The merged walk's entries. */
  walkEntries(entries: number): { targets: Uint32Array; weights: Float64Array } {
    return { targets: this.take('walkTargets', Uint32Array, entries), weights: this.take('walkWeights', Float64Array, entries) };
  }

  /** Each edge's merged entry. */
  walkSlots(edges: number): Uint32Array {
    return this.take('walkSlot', Uint32Array, edges);
  }

  /** The four per-edge arrays of a related graph's CSR. */
  edgeArrays(count: number): { targets: Uint32Array; weights: Float64Array; edgeIdent: Uint32Array; forward: Uint8Array } {
    return {
      targets: this.take('targets', Uint32Array, count),
      weights: this.take('weights', Float64Array, count),
      edgeIdent: this.take('edgeIdent', Uint32Array, count),
      forward: this.take('forward', Uint8Array, count),
    };
  }
}
