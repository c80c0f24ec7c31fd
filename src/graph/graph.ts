import createGraph, { type Graph } from 'ngraph.graph';
import { comparePaths } from '../discover/discover.js';
import type { FileRecord, FileTags } from '../types.js';
import type { CsrGraph, FactoredGraph } from '../rank/pagerank.js';

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
  /** The same, sorted by identifier once, so each request reads them in a fixed order. */
  definedSorted: string[];
  referencedSorted: Array<[string, number]>;
}

/** An identifier's node: linked from the files that reference it, and to the files that define it. */
interface IdentNode {
  ident: string;
}

type NodeData = FileNode | IdentNode;

interface BaseGraph {
  compiled: AiderGraph;
  nodeIndex: Map<string, number>;
  identIndex: Map<string, number>;
}

/** Identifier nodes share the graph with file nodes; no path starts with NUL. */
const identKey = (ident: string) => `\0${ident}`;

/** Aider's graph of one request, factored through identifiers (see FactoredGraph). */
export interface AiderGraph {
  /** Node index -> path, sorted. */
  paths: string[];
  /** Identifier index -> identifier. */
  idents: string[];
  graph: FactoredGraph;
}

/**
 * The reference graph, in an ngraph.graph: a node per file and per identifier, a link from each
 * file to each identifier it references (with the count) and from each identifier to each file
 * that defines it. A file's change moves only its own links; the file -> file edges of Aider's
 * model (one per referencer and definer) are never materialised, so a name defined in hundreds
 * of files and used in thousands costs thousands of links, not hundreds of thousands.
 */
export class ReferenceGraph {
  private readonly graph: Graph<NodeData, number> = createGraph<NodeData, number>();
  private readonly definers = new Map<string, Set<string>>();
  private readonly referencers = new Map<string, Map<string, number>>();
  private files = 0;
  private sortedPaths: string[] | undefined;
  /** Aider's graph with no request multipliers, kept until the next change (requests only patch it). */
  private base: BaseGraph | undefined;
  /** The 'repomap' ranking's graph with no request multipliers, likewise. */
  private relatedBase: { graph: RelatedGraph; identIndex: Map<string, number> } | undefined;

  static fromRecords(records: Iterable<FileRecord>): ReferenceGraph {
    const graph = new ReferenceGraph();
    for (const record of records) if (record.tags) graph.setFile(record.path, record.tags);
    return graph;
  }

  /** Files in the graph. */
  get fileCount(): number {
    return this.files;
  }

  /** Links in the graph (file -> identifier and identifier -> file). */
  get linkCount(): number {
    return this.graph.getLinkCount();
  }

  /** The files in the graph, sorted. */
  filePaths(): string[] {
    if (!this.sortedPaths) {
      const paths: string[] = [];
      this.graph.forEachNode((node) => {
        if ('defined' in node.data) paths.push(node.id as string);
      });
      this.sortedPaths = paths.sort(comparePaths);
    }
    return this.sortedPaths;
  }

  private fileNode(path: string): FileNode | undefined {
    const data = this.graph.getNode(path)?.data;
    return data && 'defined' in data ? data : undefined;
  }

  /** Replaces a file's definitions and references (and so its edges). */
  setFile(path: string, tags: FileTags): void {
    this.removeFile(path);
    const defined = new Set(tags.defs.map((def) => def.name));
    const referenced = new Map<string, number>();
    for (const ref of tags.refs) referenced.set(ref.name, (referenced.get(ref.name) ?? 0) + 1);
    if (defined.size === 0 && referenced.size === 0) return;
    const definedSorted = [...defined].sort(comparePaths);
    const referencedSorted = [...referenced].sort((a, b) => comparePaths(a[0], b[0]));
    this.graph.addNode(path, { defined, referenced, definedSorted, referencedSorted });
    this.files++;
    this.sortedPaths = this.base = this.relatedBase = undefined;
    for (const ident of defined) {
      getOrCreate(this.definers, ident, () => new Set()).add(path);
      this.ensureIdentNode(ident);
      this.graph.addLink(identKey(ident), path, 0);
    }
    for (const [ident, count] of referenced) {
      getOrCreate(this.referencers, ident, () => new Map()).set(path, count);
      this.ensureIdentNode(ident);
      this.graph.addLink(path, identKey(ident), count);
    }
  }

  removeFile(path: string): void {
    const node = this.fileNode(path);
    if (!node) return;
    for (const ident of node.defined) deleteFromIndex(this.definers, ident, path);
    for (const ident of node.referenced.keys()) deleteFromIndex(this.referencers, ident, path);
    this.graph.removeNode(path);
    // An identifier nobody defines or references any more leaves the graph too.
    for (const ident of [...node.defined, ...node.referenced.keys()]) {
      const identNode = this.graph.getNode(identKey(ident));
      if (identNode && (!identNode.links || identNode.links.size === 0)) this.graph.removeNode(identKey(ident));
    }
    this.files--;
    this.sortedPaths = this.base = this.relatedBase = undefined;
  }

  private ensureIdentNode(ident: string): void {
    if (!this.graph.hasNode(identKey(ident))) this.graph.addNode(identKey(ident), { ident });
  }

  /**
   * Aider's weighted graph for one request, factored through identifiers: nodes are the files
   * with a definition or a reference to a defined name (as in Aider, files without any edge are
   * not nodes); a reference weighs the identifier's multiplier x the chat multiplier x sqrt(count)
   * toward each definer; a definition nobody references keeps a self edge of 0.1. The graph
   * without request multipliers is built once per change; a request multiplies the references
   * of its chat files (x50) and of its mentioned identifiers (x10). Deterministic.
   */
  compile(request: EdgeRequest): AiderGraph {
    this.base ??= this.compileBase();
    const { compiled, nodeIndex, identIndex } = this.base;
    const chat = [...request.chatFiles].map((path) => nodeIndex.get(path)).filter((u) => u !== undefined);
    const mentioned = [...request.mentionedIdents].map((ident) => identIndex.get(ident)).filter((i) => i !== undefined);
    if (chat.length === 0 && mentioned.length === 0) return compiled;
    const { refOffsets, refIdent } = compiled.graph;
    const refWeight = compiled.graph.refWeight.slice();
    for (const u of chat) for (let e = refOffsets[u]; e < refOffsets[u + 1]; e++) refWeight[e] *= EDGE_WEIGHTS.fromChatFile;
    if (mentioned.length > 0) {
      const wanted = new Uint8Array(compiled.idents.length);
      for (const i of mentioned) wanted[i] = 1;
      for (let e = 0; e < refIdent.length; e++) if (wanted[refIdent[e]]) refWeight[e] *= EDGE_WEIGHTS.mentionedIdent;
    }
    return { ...compiled, graph: { ...compiled.graph, refWeight } };
  }

  private compileBase(): BaseGraph {
    const noMentions = new Set<string>();
    const sorted = this.filePaths();
    const paths: string[] = [];
    for (const path of sorted) {
      const node = this.fileNode(path)!;
      if (node.defined.size > 0 || node.referencedSorted.some(([ident]) => this.definers.has(ident))) paths.push(path);
    }
    const index = new Map(paths.map((path, i) => [path, i]));

    const { index: identIndex, list: idents, id: identId } = interner();
    const identMul = new Map<string, number>();
    const multiplier = (ident: string): number => {
      let mul = identMul.get(ident);
      if (mul === undefined) {
        mul = identifierMultiplier(ident, this.definers.get(ident)?.size ?? 0, noMentions);
        identMul.set(ident, mul);
      }
      return mul;
    };

    const refOffsets = new Uint32Array(paths.length + 1);
    const selfOffsets = new Uint32Array(paths.length + 1);
    const refIdent: number[] = [];
    const refWeight: number[] = [];
    const selfIdent: number[] = [];
    const selfWeight: number[] = [];
    for (let u = 0; u < paths.length; u++) {
      const node = this.fileNode(paths[u])!;
      for (const [ident, count] of node.referencedSorted) {
        if (!this.definers.has(ident)) continue;
        refIdent.push(identId(ident));
        refWeight.push(multiplier(ident) * Math.sqrt(count));
      }
      refOffsets[u + 1] = refIdent.length;
      // A definition nobody references keeps a small self-edge so it can still rank.
      for (const ident of node.definedSorted) {
        if (this.referencers.has(ident)) continue;
        selfIdent.push(identId(ident));
        selfWeight.push(EDGE_WEIGHTS.unreferencedSelfEdge);
      }
      selfOffsets[u + 1] = selfIdent.length;
    }

    const defOffsets = new Uint32Array(idents.length + 1);
    const defNode: number[] = [];
    for (let i = 0; i < idents.length; i++) {
      // Identifiers only on self edges need no definer list: their edges are the self edges.
      if (this.referencers.has(idents[i])) {
        const nodes = [...this.definers.get(idents[i])!].map((path) => index.get(path)!).sort((a, b) => a - b);
        for (const node of nodes) defNode.push(node);
      }
      defOffsets[i + 1] = defNode.length;
    }
    const compiled: AiderGraph = {
      paths,
      idents,
      graph: {
        nodeCount: paths.length,
        identCount: idents.length,
        refOffsets,
        refIdent: Uint32Array.from(refIdent),
        refWeight: Float64Array.from(refWeight),
        defOffsets,
        defNode: Uint32Array.from(defNode),
        selfOffsets,
        selfIdent: Uint32Array.from(selfIdent),
        selfWeight: Float64Array.from(selfWeight),
      },
    };
    return { compiled, nodeIndex: index, identIndex };
  }

  /**
   * The graph of the 'repomap' ranking. Every file with tags is a node, linked or not. A reference
   * resolves to the definers in the referencing file's own folder when there are any (a Go package,
   * a sibling module), else to every definer, its weight (Aider's multipliers times the square root
   * of the count) split evenly among them rather than copied to each. Each link runs both ways:
   * a file is related to what it uses and to what uses it.
   */
  compileRelated(request: EdgeRequest): RelatedGraph {
    const base = (this.relatedBase ??= this.buildRelated());
    const mentioned = [...request.mentionedIdents].filter((ident) => base.identIndex.has(ident));
    if (mentioned.length === 0) return base.graph;
    // A request patches only the weights of the edges of the identifiers it mentions.
    const ids = new Set(mentioned.map((ident) => base.identIndex.get(ident)!));
    const weights = Float64Array.from(base.graph.csr.weights);
    const { edgeIdent } = base.graph;
    for (let e = 0; e < weights.length; e++) if (ids.has(edgeIdent[e])) weights[e] *= EDGE_WEIGHTS.mentionedIdent;
    return { ...base.graph, csr: { ...base.graph.csr, weights } };
  }

  /** The related graph without request multipliers, laid out once per state of the graph. */
  private buildRelated(): { graph: RelatedGraph; identIndex: Map<string, number> } {
    const paths = [...this.filePaths()];
    const index = new Map(paths.map((path, i) => [path, i]));
    const { index: identIndex, list: idents, id: identId } = interner();
    const none = new Set<string>();
    // Folders as numbers, and each identifier's definers as sorted node indices, computed once.
    const folderIds = new Map<string, number>();
    const folderOf = new Int32Array(paths.length);
    for (let u = 0; u < paths.length; u++) {
      const folder = paths[u].slice(0, paths[u].lastIndexOf('/') + 1);
      let id = folderIds.get(folder);
      if (id === undefined) folderIds.set(folder, (id = folderIds.size));
      folderOf[u] = id;
    }
    const definerNodes = new Map<string, Int32Array>();
    const nodesDefining = (ident: string, definers: Set<string>): Int32Array => {
      let nodes = definerNodes.get(ident);
      if (!nodes) {
        nodes = Int32Array.from([...definers].map((path) => index.get(path)!)).sort();
        definerNodes.set(ident, nodes);
      }
      return nodes;
    };
    const multipliers = new Map<string, number>();

    // Two passes over the references: the first counts each source's edges, the second writes
    // them in place (in the same order), so no edge list is built in between.
    const offsets = new Uint32Array(paths.length + 1);
    let edgeTargets = new Uint32Array(0);
    let weights = new Float64Array(0);
    let edgeIdent = new Uint32Array(0);
    let forward = new Uint8Array(0);
    let fill = new Uint32Array(0);
    const targets: number[] = [];
    for (const pass of ['count', 'write'] as const) {
      if (pass === 'write') {
        for (let u = 0; u < paths.length; u++) offsets[u + 1] += offsets[u];
        const edgeCount = offsets[paths.length];
        edgeTargets = new Uint32Array(edgeCount);
        weights = new Float64Array(edgeCount);
        edgeIdent = new Uint32Array(edgeCount);
        forward = new Uint8Array(edgeCount);
        fill = offsets.slice(0, paths.length);
      }
      const edge = (u: number, v: number, ident: number, weight: number, isForward: number) => {
        if (pass === 'count') {
          offsets[u + 1]++;
          return;
        }
        const slot = fill[u]++;
        edgeTargets[slot] = v;
        weights[slot] = weight;
        edgeIdent[slot] = ident;
        forward[slot] = isForward;
      };
      for (let u = 0; u < paths.length; u++) {
        const folder = folderOf[u];
        for (const [ident, count] of this.fileNode(paths[u])!.referencedSorted) {
          const definers = this.definers.get(ident);
          if (!definers) continue;
          const nodes = nodesDefining(ident, definers);
          let near = 0;
          let others = 0;
          for (const v of nodes) {
            if (v === u) continue;
            if (folderOf[v] === folder) near++;
            else others++;
          }
          if (near + others === 0) continue;
          const onlyNear = near > 0;
          // A name with many definers and none nearby says little about which one is meant: its
          // split weight is tiny and its links would outnumber all others. It links nothing.
          if ((onlyNear ? near : others) > RELATED_WEIGHTS.maxDefiners) continue;
          targets.length = 0;
          for (const v of nodes) if (v !== u && (!onlyNear || folderOf[v] === folder)) targets.push(v);
          const id = identId(ident);
          let mul = multipliers.get(ident);
          if (mul === undefined) multipliers.set(ident, (mul = identifierMultiplier(ident, definers.size, none)));
          const weight = (mul * Math.sqrt(count)) / targets.length;
          for (const v of targets) {
            edge(u, v, id, weight, 1);
            if (RELATED_WEIGHTS.reverse > 0) edge(v, u, id, weight * RELATED_WEIGHTS.reverse, 0);
          }
        }
      }
    }
    const graph = { paths, csr: { nodeCount: paths.length, offsets, targets: edgeTargets, weights }, edgeIdent, idents, forward };
    return { graph, identIndex };
  }

  /** The files that define `ident`, and those that reference it (with their counts). */
  namesOf(ident: string): { definers: ReadonlySet<string> | undefined; referencers: ReadonlyMap<string, number> | undefined } {
    return { definers: this.definers.get(ident), referencers: this.referencers.get(ident) };
  }
}

/**
 * The weights of this project's model (the 'repomap' ranking), chosen by `repomap eval` over a
 * dev set of public repositories (see the README).
 */
export const RELATED_WEIGHTS = {
  /** A link also runs from the definer back to the referencing file, with this share of its weight. */
  reverse: 1,
  /** A reference resolving to more definers than this links none of them. */
  maxDefiners: 10,
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

/** Numbers strings in order of first sight: `id` gives a string's number, `list` the strings by number. */
function interner(): { index: Map<string, number>; list: string[]; id: (value: string) => number } {
  const index = new Map<string, number>();
  const list: string[] = [];
  const id = (value: string): number => {
    let n = index.get(value);
    if (n === undefined) {
      n = list.length;
      list.push(value);
      index.set(value, n);
    }
    return n;
  };
  return { index, list, id };
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
