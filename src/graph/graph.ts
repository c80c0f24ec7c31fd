import createGraph, { type Graph } from 'ngraph.graph';
import { comparePaths } from '../discover/discover.js';
import type { FileRecord, FileTags } from '../types.js';
import type { CsrGraph } from '../rank/pagerank.js';

/** Aider's edge model (aider/repomap.py): the multipliers applied to an identifier's edges. */
export const EDGE_WEIGHTS = {
  mentionedIdent: 10,
  compoundIdent: 10,
  compoundMinLength: 8,
  privateIdent: 0.1,
  widelyDefined: 0.1,
  widelyDefinedOver: 5,
  fromChatFile: 50,
  unreferencedSelfEdge: 0.1,
} as const;

/** Per-request inputs that change edge weights. */
export interface EdgeRequest {
  chatFiles: ReadonlySet<string>;
  mentionedIdents: ReadonlySet<string>;
}

/** The weighted graph of one request, ready for PageRank: nodes are files, edges carry identifiers. */
export interface CompiledGraph {
  /** Node index -> path, sorted. */
  paths: string[];
  csr: CsrGraph;
  /** Per edge (CSR order), the index of its identifier in `idents`. */
  edgeIdent: Uint32Array;
  idents: string[];
}

interface FileNode {
  defined: Set<string>;
  referenced: Map<string, number>;
}

/** Reference counts by identifier on one referencer -> definer link. */
type LinkIdents = Map<string, number>;

/**
 * The reference graph: a node per file, a link from each file that references an identifier to
 * each file that defines it. Kept up to date file by file, so a change moves only that file's edges.
 */
export class ReferenceGraph {
  private readonly graph: Graph<FileNode, LinkIdents> = createGraph<FileNode, LinkIdents>();
  private readonly definers = new Map<string, Set<string>>();
  private readonly referencers = new Map<string, Map<string, number>>();

  static fromRecords(records: Iterable<FileRecord>): ReferenceGraph {
    const graph = new ReferenceGraph();
    for (const record of records) if (record.tags) graph.setFile(record.path, record.tags);
    return graph;
  }

  /** Files in the graph. */
  get fileCount(): number {
    return this.graph.getNodeCount();
  }

  /** Replaces a file's definitions and references (and so its edges). */
  setFile(path: string, tags: FileTags): void {
    this.removeFile(path);
    const defined = new Set(tags.defs.map((def) => def.name));
    const referenced = new Map<string, number>();
    for (const ref of tags.refs) referenced.set(ref.name, (referenced.get(ref.name) ?? 0) + 1);
    if (defined.size === 0 && referenced.size === 0) return;
    this.graph.addNode(path, { defined, referenced });

    for (const ident of defined) getOrCreate(this.definers, ident, () => new Set()).add(path);
    for (const [ident, count] of referenced) getOrCreate(this.referencers, ident, () => new Map()).set(path, count);
    for (const [ident, count] of referenced) {
      for (const definer of this.definers.get(ident) ?? []) this.link(path, definer, ident, count);
    }
    for (const ident of defined) {
      for (const [referencer, count] of this.referencers.get(ident) ?? []) {
        if (referencer !== path) this.link(referencer, path, ident, count);
      }
    }
  }

  removeFile(path: string): void {
    const node = this.graph.getNode(path);
    if (!node) return;
    for (const ident of node.data.defined) deleteFromIndex(this.definers, ident, path);
    for (const ident of node.data.referenced.keys()) deleteFromIndex(this.referencers, ident, path);
    this.graph.removeNode(path);
  }

  private link(from: string, to: string, ident: string, count: number): void {
    const existing = this.graph.getLink(from, to);
    if (existing) existing.data.set(ident, count);
    else this.graph.addLink(from, to, new Map([[ident, count]]));
  }

  /** Applies the request's multipliers and lays the graph out for PageRank, deterministically. */
  compile(request: EdgeRequest): CompiledGraph {
    const sorted: string[] = [];
    this.graph.forEachNode((node) => {
      sorted.push(node.id as string);
    });
    sorted.sort(comparePaths);

    const identIndex = new Map<string, number>();
    const idents: string[] = [];
    const identMul = new Map<string, number>();
    const multiplier = (ident: string): number => {
      let mul = identMul.get(ident);
      if (mul === undefined) {
        mul = identifierMultiplier(ident, this.definers.get(ident)?.size ?? 0, request.mentionedIdents);
        identMul.set(ident, mul);
      }
      return mul;
    };
    const identId = (ident: string): number => {
      let id = identIndex.get(ident);
      if (id === undefined) {
        id = idents.length;
        idents.push(ident);
        identIndex.set(ident, id);
      }
      return id;
    };

    // Edges per source, in sorted order; files without any edge are not nodes (as in Aider).
    const edgesBySource: Array<Array<[string, number, number]>> = [];
    const hasEdge = new Set<string>();
    for (const path of sorted) {
      const node = this.graph.getNode(path)!;
      const out: Array<[string, number, number]> = [];
      const chatMul = request.chatFiles.has(path) ? EDGE_WEIGHTS.fromChatFile : 1;
      const links = [...(node.links ?? [])].filter((link) => link.fromId === path);
      links.sort((a, b) => comparePaths(a.toId as string, b.toId as string));
      for (const link of links) {
        const target = link.toId as string;
        for (const ident of [...link.data.keys()].sort(comparePaths)) {
          const weight = multiplier(ident) * chatMul * Math.sqrt(link.data.get(ident)!);
          out.push([target, identId(ident), weight]);
        }
      }
      // A definition nobody references keeps a small self-edge so it can still rank.
      for (const ident of [...node.data.defined].sort(comparePaths)) {
        if (!this.referencers.has(ident)) out.push([path, identId(ident), EDGE_WEIGHTS.unreferencedSelfEdge]);
      }
      if (out.length > 0) {
        hasEdge.add(path);
        for (const [target] of out) hasEdge.add(target);
      }
      edgesBySource.push(out);
    }

    const paths = sorted.filter((path) => hasEdge.has(path));
    const index = new Map(paths.map((path, i) => [path, i]));
    const edgeCount = edgesBySource.reduce((sum, out) => sum + out.length, 0);
    const offsets = new Uint32Array(paths.length + 1);
    const targets = new Uint32Array(edgeCount);
    const weights = new Float64Array(edgeCount);
    const edgeIdent = new Uint32Array(edgeCount);
    let e = 0;
    for (let s = 0; s < sorted.length; s++) {
      const from = index.get(sorted[s]);
      if (from === undefined) continue;
      for (const [target, ident, weight] of edgesBySource[s]) {
        targets[e] = index.get(target)!;
        weights[e] = weight;
        edgeIdent[e] = ident;
        e++;
      }
      offsets[from + 1] = e;
    }
    return { paths, csr: { nodeCount: paths.length, offsets, targets, weights }, edgeIdent, idents };
  }

  /**
   * The graph of the 'repomap' ranking. Every file with tags is a node, linked or not. A reference
   * resolves to the definers in the referencing file's own folder when there are any (a Go package,
   * a sibling module), else to every definer, its weight (Aider's multipliers times the square root
   * of the count) split evenly among them rather than copied to each. Each link runs both ways:
   * a file is related to what it uses and to what uses it.
   */
  compileRelated(request: EdgeRequest): RelatedGraph {
    const paths: string[] = [];
    this.graph.forEachNode((node) => {
      paths.push(node.id as string);
    });
    paths.sort(comparePaths);
    const index = new Map(paths.map((path, i) => [path, i]));
    const identIndex = new Map<string, number>();
    const idents: string[] = [];
    const identId = (ident: string): number => {
      let id = identIndex.get(ident);
      if (id === undefined) {
        id = idents.length;
        idents.push(ident);
        identIndex.set(ident, id);
      }
      return id;
    };

    // Edges by source node: [target, ident, weight, forward].
    const out: Array<Array<[number, number, number, number]>> = paths.map(() => []);
    for (let u = 0; u < paths.length; u++) {
      const path = paths[u];
      const node = this.graph.getNode(path)!;
      const folder = path.slice(0, path.lastIndexOf('/') + 1);
      const chatMul = request.chatFiles.has(path) ? RELATED_WEIGHTS.fromChatFile : 1;
      for (const ident of [...node.data.referenced.keys()].sort(comparePaths)) {
        const definers = this.definers.get(ident);
        if (!definers) continue;
        let targets = [...definers].filter((definer) => definer !== path);
        if (targets.length === 0) continue;
        const near = targets.filter((definer) => definer.lastIndexOf('/') + 1 === folder.length && definer.startsWith(folder));
        if (near.length > 0) targets = near;
        targets.sort(comparePaths);
        const mul = identifierMultiplier(ident, definers.size, request.mentionedIdents) * chatMul;
        const weight = (mul * Math.sqrt(node.data.referenced.get(ident)!)) / targets.length;
        const id = identId(ident);
        for (const target of targets) {
          const v = index.get(target)!;
          out[u].push([v, id, weight, 1]);
          if (RELATED_WEIGHTS.reverse > 0) out[v].push([u, id, weight * RELATED_WEIGHTS.reverse, 0]);
        }
      }
    }

    const edgeCount = out.reduce((sum, edges) => sum + edges.length, 0);
    const offsets = new Uint32Array(paths.length + 1);
    const targets = new Uint32Array(edgeCount);
    const weights = new Float64Array(edgeCount);
    const edgeIdent = new Uint32Array(edgeCount);
    const forward = new Uint8Array(edgeCount);
    let e = 0;
    for (let u = 0; u < paths.length; u++) {
      for (const [target, ident, weight, isForward] of out[u]) {
        targets[e] = target;
        weights[e] = weight;
        edgeIdent[e] = ident;
        forward[e] = isForward;
        e++;
      }
      offsets[u + 1] = e;
    }
    return { paths, csr: { nodeCount: paths.length, offsets, targets, weights }, edgeIdent, idents, forward };
  }
}

/**
 * The weights of this project's model (the 'repomap' ranking), chosen by `repomap eval` over a
 * dev set of public repositories (see the README).
 */
export const RELATED_WEIGHTS = {
  /** A link also runs from the definer back to the referencing file, with this share of its weight. */
  reverse: 1,
  /** References from the chat file: personalization already starts the walk there. */
  fromChatFile: 1,
} as const;

/** The graph of the 'repomap' ranking: forward (reference -> definition) and reverse edges. */
export interface RelatedGraph extends CompiledGraph {
  /** Per edge, 1 when it runs from a referencing file to a definer (the edges that rank definitions). */
  forward: Uint8Array;
}

/** Aider's per-identifier multiplier: mentions and long compound names up, private and ubiquitous names down. */
export function identifierMultiplier(ident: string, definerCount: number, mentioned: ReadonlySet<string>): number {
  let mul = 1;
  if (mentioned.has(ident)) mul *= EDGE_WEIGHTS.mentionedIdent;
  if (isCompoundIdentifier(ident) && ident.length >= EDGE_WEIGHTS.compoundMinLength) mul *= EDGE_WEIGHTS.compoundIdent;
  if (ident.startsWith('_')) mul *= EDGE_WEIGHTS.privateIdent;
  if (definerCount > EDGE_WEIGHTS.widelyDefinedOver) mul *= EDGE_WEIGHTS.widelyDefined;
  return mul;
}

/** snake_case, kebab-case or camelCase (mixed case). */
export function isCompoundIdentifier(ident: string): boolean {
  const hasLetter = /\p{L}/u.test(ident);
  const snake = ident.includes('_') && hasLetter;
  const kebab = ident.includes('-') && hasLetter;
  const camel = /\p{Lu}/u.test(ident) && /\p{Ll}/u.test(ident);
  return snake || kebab || camel;
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

function deleteFromIndex<V extends { delete(key: string): boolean; size: number }>(
  index: Map<string, V>,
  ident: string,
  path: string,
): void {
  const entry = index.get(ident);
  if (!entry) return;
  entry.delete(path);
  if (entry.size === 0) index.delete(ident);
}
