/**
 * The order in which a pass works through its files: discovery's order, except that the files a
 * request wants (see prioritize) go ahead of those not taken yet. Each path is taken once; a
 * wanted path already taken keeps its place. Waiters learn when the paths they want have settled.
 */
export class ParseQueue {
  /** Paths not wanted ahead, in discovery order, from `next` on. */
  private rest: readonly string[] = [];
  private next = 0;
  /** Wanted paths by rank (the lower first), each in the order wanted, from `nextWanted` on. */
  private readonly wanted: string[][] = [];
  private readonly nextWanted: number[] = [];
  private readonly members = new Set<string>();
  private readonly taken = new Set<string>();
  private readonly settledPaths = new Set<string>();
  private waiters: Array<{ paths: string[]; resolve: () => void }> = [];
  private finished = false;
  private hasPaths = false;
  private filledNow!: () => void;
  /** Settles once the pass has its paths (a wait asked for before knows only then which paths are the pass's). */
  private readonly filled = new Promise<void>((resolve) => (this.filledNow = resolve));

  /** Sets the paths of the pass (files wanted before, among them, go first). */
  fill(paths: readonly string[]): void {
    this.rest = paths;
    for (const path of paths) this.members.add(path);
    this.hasPaths = true;
    this.filledNow();
  }

  /**
   * Puts these paths ahead of those not taken yet, in this order: after the ones wanted before at
   * the same rank or a lower one, before those of a higher rank.
   */
  want(paths: Iterable<string>, rank = 0): void {
    while (this.wanted.length <= rank) this.wanted.push([]), this.nextWanted.push(0);
    const list = this.wanted[rank];
    for (const path of paths) if (!this.taken.has(path)) list.push(path);
  }

  /** The next paths to work on, at most `count`: the wanted first; empty when none is left. */
  take(count: number): string[] {
    const out: string[] = [];
    for (let rank = 0; rank < this.wanted.length && out.length < count; rank++) {
      const list = this.wanted[rank];
      while (out.length < count && this.nextWanted[rank] < list.length) {
        const path = list[this.nextWanted[rank]++];
        if (this.members.has(path) && !this.taken.has(path)) this.taken.add(path), out.push(path);
      }
      if (this.nextWanted[rank] === list.length) (list.length = 0), (this.nextWanted[rank] = 0);
    }
    while (out.length < count && this.next < this.rest.length) {
      const path = this.rest[this.next++];
      if (!this.taken.has(path)) this.taken.add(path), out.push(path);
    }
    return out;
  }

  /** Marks paths settled (their state is known and applied), waking whoever waited for them. */
  settle(paths: Iterable<string>): void {
    for (const path of paths) if (this.members.has(path)) this.settledPaths.add(path);
    this.wake();
  }

  /** Marks the pass over (finished or stopped): every waiter is woken. */
  finish(): void {
    this.finished = true;
    this.filledNow(); // a pass that failed before it had its paths
    this.wake();
  }

  /** How far the pass is: its paths settled, of all its paths (the files with a grammar). */
  progress(): { indexedFiles: number; files: number } {
    return { indexedFiles: this.settledPaths.size, files: this.members.size };
  }

  /** Whether nothing is left to work on: every path of the pass has settled, or the pass is over (finished or stopped). */
  isDone(): boolean {
    return this.finished || (this.hasPaths && this.settledPaths.size === this.members.size);
  }

  /** Resolves once each of `paths` that is in the pass has settled, or the pass is over. */
  async whenSettled(paths: Iterable<string>): Promise<void> {
    const asked = [...paths];
    await this.filled;
    const pending = asked.filter((path) => this.members.has(path) && !this.settledPaths.has(path));
    if (pending.length === 0 || this.finished) return;
    return new Promise((resolve) => this.waiters.push({ paths: pending, resolve }));
  }

  private wake(): void {
    this.waiters = this.waiters.filter((waiter) => {
      waiter.paths = waiter.paths.filter((path) => !this.settledPaths.has(path));
      if (waiter.paths.length > 0 && !this.finished) return true;
      waiter.resolve();
      return false;
    });
  }
}
