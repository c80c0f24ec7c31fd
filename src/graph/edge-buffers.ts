// The related graph's edge arrays, reused from one change to the next: a large repository has
// millions of edges, and fresh arrays after every save would cost full garbage collections of the
// whole heap. A graph written into them is valid until the next one is written into the same set.

type TypedArrayOf<T> = T extends Uint8ArrayConstructor ? Uint8Array : T extends Uint32ArrayConstructor ? Uint32Array : Float64Array;

/** Room left in new edge arrays for the edges later changes add. */
const EDGE_HEADROOM = 1.25;

/** Named typed arrays that grow (by a quarter more than asked) and are handed out as views of the asked length. */
export class EdgeBuffers {
  private readonly arrays = new Map<string, Uint8Array | Uint32Array | Float64Array>();
  /** Arrays taken as they came (a saved graph's) or made to measure, without room for more edges. */
  private readonly exact = new Set<string>();
  /**
   * Whether new arrays get room for the edges later changes add; without, they are made to
   * measure (a graph nothing will change, or whose next change writes into the other set first).
   */
  headroom = true;

  take<C extends Uint8ArrayConstructor | Uint32ArrayConstructor | Float64ArrayConstructor>(name: string, type: C, length: number): TypedArrayOf<C> {
    let array = this.arrays.get(name);
    if (!array || array.length < length) {
      array = new type(this.headroom ? Math.ceil(length * EDGE_HEADROOM) : length);
      this.arrays.set(name, array);
      if (this.headroom) this.exact.delete(name);
      else this.exact.add(name);
    }
    return array.subarray(0, length) as TypedArrayOf<C>;
  }

  /** Takes arrays made elsewhere (a saved graph's) as its own. */
  adopt(arrays: Record<string, Uint8Array | Uint32Array | Float64Array>): void {
    for (const [name, array] of Object.entries(arrays)) {
      this.arrays.set(name, array);
      this.exact.add(name);
    }
  }

  /**
   * Arrays as large as `other`'s (with room for more edges where `other`'s have none), written
   * once so that their pages are there when needed. Without the room, the first change adding an
   * edge after a start from a saved graph would allocate and fault in whole arrays during a save.
   */
  reserveLike(other: EdgeBuffers): void {
    for (const [name, array] of other.arrays) {
      const size = other.exact.has(name) ? Math.ceil(array.length * EDGE_HEADROOM) : array.length;
      const own = this.arrays.get(name);
      if (own && own.length >= size) continue;
      const reserved = new (array.constructor as new (length: number) => typeof array)(size);
      reserved.fill(0);
      this.arrays.set(name, reserved);
      this.exact.delete(name);
    }
  }

  /** The merged walk's arrays: its entries, and each edge's entry. */
  walkArrays(entries: number, edges: number): { walkTargets: Uint32Array; walkWeights: Float64Array; walkSlot: Uint32Array } {
    return {
      walkTargets: this.take('walkTargets', Uint32Array, entries),
      walkWeights: this.take('walkWeights', Float64Array, entries),
      walkSlot: this.take('walkSlot', Uint32Array, edges),
    };
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
