// The graph's names, each held once: a number per distinct identifier, which the files' name lists
// hold (Uint32Array of ids) instead of strings. Names read from the store or a worker are fresh
// strings per file; a name a thousand files reference would otherwise be held a thousand times.

const NO_IDS = new Uint32Array(0);

/**
 * Invariants: `ids.get(name) === id` exactly when `names[id] === name`; `uses[id]` counts the
 * lists that hold `id` (see take and release), and an id whose count falls to 0 is freed: its
 * name leaves the table and the id is given to the next new name. A holder keeps an id only
 * while it counts among its uses, so a reused id never stands for two names to anyone. Ids of
 * names in use are stable.
 */
export class NameTable {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private uses = new Uint32Array(1024);
  private readonly free: number[] = [];

  /** Distinct names held. */
  get size(): number {
    return this.ids.size;
  }

  /** Every id given so far is below this. */
  get idBound(): number {
    return this.names.length;
  }

  /** The name of `id` (an id in use). */
  nameOf(id: number): string {
    return this.names[id];
  }

  /** The id of `name` if some list holds it; undefined otherwise. */
  idOf(name: string): number | undefined {
    return this.ids.get(name);
  }

  /** The ids of `names` (each counted as one more use), in their order. */
  take(names: readonly string[]): Uint32Array {
    if (names.length === 0) return NO_IDS;
    const out = new Uint32Array(names.length);
    for (let k = 0; k < names.length; k++) out[k] = this.takeOne(names[k]);
    return out;
  }

  /** The id of `name`, counted as one more use. */
  takeOne(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.free.pop() ?? this.names.length;
      if (id === this.names.length) this.names.push(name);
      else this.names[id] = name;
      this.ids.set(name, id);
      if (id >= this.uses.length) {
        const grown = new Uint32Array(Math.max(this.uses.length * 2, id + 1));
        grown.set(this.uses);
        this.uses = grown;
      }
    }
    this.uses[id]++;
    return id;
  }

  /** One use fewer of each of `ids`: a name no list holds any longer leaves the table. */
  release(ids: ArrayLike<number>): void {
    for (let k = 0; k < ids.length; k++) this.releaseOne(ids[k]);
  }

  releaseOne(id: number): void {
    if (--this.uses[id] > 0) return;
    this.ids.delete(this.names[id]);
    this.names[id] = '';
    this.free.push(id);
  }

  /** The names of `ids`, in their order. */
  namesOf(ids: ArrayLike<number>): string[] {
    const out = new Array<string>(ids.length);
    for (let k = 0; k < ids.length; k++) out[k] = this.names[ids[k]];
    return out;
  }

  /** Whether `ids` name `names`, in the same order. */
  same(ids: ArrayLike<number>, names: readonly string[]): boolean {
    if (ids.length !== names.length) return false;
    for (let k = 0; k < ids.length; k++) if (this.names[ids[k]] !== names[k]) return false;
    return true;
  }
}
