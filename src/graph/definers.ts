// What deriving an edge reads of a name: its definers sorted and grouped by folder (and by language
// family), and Aider's multiplier, computed once per name until its definers change.
import type { NameIndex } from './name-index.js';
import { identifierMultiplier } from './identifiers.js';
import { type DefinerFiles, type FileNode, byPath, definerCount, getOrCreate } from './nodes.js';

/**
 * The files defining a name, sorted by path, and the same grouped by folder; with what deriving
 * an edge reads of the name (one lookup per reference, not one per fact).
 */
export interface Definers {
  /** How many files define the name. */
  count: number;
  /** All of them sorted by path, built when first asked for (see allDefiners): edges never need them past a few. */
  all: FileNode[] | undefined;
  /** Grouped by folder, each group sorted; undefined for a name's one definer (most names), which `all` holds. */
  byFolder: Map<number, FileNode[]> | undefined;
  /** The definer index's entry, to tell whether a file is one of them. */
  entry: DefinerFiles;
  /** Aider's multiplier of the name without request mentions. */
  multiplier: number;
  /** The name's number in the related graph; -1 until an edge uses it (numbers are given in order of use). */
  relatedId: number;
  /** The definers' language family, when they share one; MIXED_FAMILIES when not (see byFamily). */
  family: string;
  /** The same, per family, for a name defined in several families (built when the related graph first asks). */
  byFamily?: Map<string, Definers>;
}

/** Definers.family of a name defined in files of several language families. */
const MIXED_FAMILIES = '*';

/** What the cache holds for a name nobody defines (never handed out). */
const NO_DEFINERS: Definers = Object.freeze({ count: 0, all: [], byFolder: undefined, entry: new Set<FileNode>(), multiplier: 0, relatedId: -1, family: '' });

const NO_MENTIONS: ReadonlySet<string> = new Set();
const NO_NODES: readonly FileNode[] = [];

/** Aider's multiplier of `ident` defined in `count` files, without request mentions (what the related graph's edges take). */
export function baseMultiplier(ident: string, count: number): number {
  return identifierMultiplier(ident, count, NO_MENTIONS);
}

/** Invariant: an entry reflects the name's current definers; whoever changes them calls forget. */
export class DefinerCache {
  /** Per identifier of two definers or more, or of none, until its definers change: its definers grouped (see definersOf). */
  private readonly definerNodes = new Map<string, Definers>();
  private readonly multipliers = new Map<string, number>();

  /** Whether anything was asked since the graph was made (a release keeps this). */
  private asked = false;

  constructor(private readonly index: NameIndex) {}

  /** Names it holds an entry for: those of two definers or more, and those of none (see definersOf). */
  get size(): number {
    return this.definerNodes.size;
  }

  /** Whether nothing was asked yet. */
  get isEmpty(): boolean {
    return !this.asked;
  }

  /**
   * Forgets every entry. Writing a related graph in full groups the definers of every name
   * referenced, a cache as large as the names themselves; what follows (a change, a request)
   * asks for a few names, which are grouped again when asked.
   */
  release(): void {
    this.definerNodes.clear();
    this.multipliers.clear();
  }

  /** Drops what is known of `ident` (its definers changed). */
  forget(ident: string): void {
    this.definerNodes.delete(ident);
    this.multipliers.delete(ident);
  }

  /**
   * The files defining `ident`, sorted by path, and grouped by folder; undefined when none does.
   * A name nobody defines is remembered as such (a reference to a builtin like len or console
   * would otherwise look it up twice, for each of its thousands of referencers).
   */
  definersOf(ident: string): Definers | undefined {
    this.asked = true;
    let definers = this.definerNodes.get(ident);
    if (!definers) {
      const entry = this.index.definers.get(ident);
      if (entry === undefined) {
        this.definerNodes.set(ident, NO_DEFINERS);
        return undefined;
      }
      definers = this.groupDefiners(ident, entry);
      // A name's one definer (most names) is wrapped afresh at each ask, not kept: a related graph
      // written in full asks for every referenced name, and an entry would cost some 200 bytes
      // (80 MB for a kernel's 420,000 such names) for what one look-up in the definer index gives.
      if (entry instanceof Set) this.definerNodes.set(ident, definers);
    }
    return definers === NO_DEFINERS ? undefined : definers;
  }

  /** definersOf, narrowed to the definers of one language family (what a reference of a file of that family may link to). */
  definersOfFamily(ident: string, family: string): Definers | undefined {
    const definers = this.definersOf(ident);
    if (!definers || definers.family === family) return definers;
    if (definers.family !== MIXED_FAMILIES) return undefined;
    if (!definers.byFamily) {
      const groups = new Map<string, Set<FileNode>>();
      for (const node of definers.entry as Set<FileNode>) getOrCreate(groups, node.family, () => new Set()).add(node);
      definers.byFamily = new Map();
      for (const [group, nodes] of groups) definers.byFamily.set(group, this.groupDefiners(ident, nodes.size === 1 ? nodes.values().next().value! : nodes));
    }
    // Each family's definers number the name alike: the related graph interns it by name.
    return definers.byFamily.get(family);
  }

  /** Aider's multiplier of `ident` without request mentions. */
  multiplierOf(ident: string, count = definerCount(this.index.definers.get(ident))): number {
    this.asked = true;
    let mul = this.multipliers.get(ident);
    if (mul === undefined) {
      mul = baseMultiplier(ident, count);
      this.multipliers.set(ident, mul);
    }
    return mul;
  }

  /** A name's definers grouped by folder (each group sorted), with its multiplier and family. */
  private groupDefiners(ident: string, entry: DefinerFiles): Definers {
    const count = definerCount(entry);
    const multiplier = this.multiplierOf(ident, count);
    if (entry instanceof Set) {
      // Grouped, and each group sorted, without sorting them all: a name like __init__ or get has
      // thousands of definers, and a first edit after a restart would sort them for each such name.
      const byFolder = new Map<number, FileNode[]>();
      let family: string | undefined;
      for (const node of entry) {
        getOrCreate(byFolder, node.folder, () => []).push(node);
        family = family === undefined || family === node.family ? node.family : MIXED_FAMILIES;
      }
      for (const group of byFolder.values()) if (group.length > 1) group.sort(byPath);
      return { count, all: undefined, byFolder, entry, multiplier, relatedId: -1, family: family ?? '' };
    }
    // No folder map for one definer: most names have one, and a related graph asks for each.
    return { count, all: [entry], byFolder: undefined, entry, multiplier, relatedId: -1, family: entry.family };
  }
}

/** A name's definers sorted by path. */
export function allDefiners(definers: Definers): FileNode[] {
  definers.all ??= [...definers.byFolder!.values()].flat().sort(byPath);
  return definers.all;
}

/** A name's definers in one folder, sorted by path. */
export function definersIn(definers: Definers, folder: number): readonly FileNode[] {
  if (definers.byFolder) return definers.byFolder.get(folder) ?? NO_NODES;
  return definers.all![0].folder === folder ? definers.all! : NO_NODES;
}
