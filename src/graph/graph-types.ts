// The shapes the reference graph hands out (the compiled graphs, a saved related graph, what a
// name's files are) and the related graph's internal record. Types only: every graph module and
// the rankings import them, and they import nothing of the graph.
import type { CsrGraph, FactoredGraph } from '../rank/pagerank.js';
import type { Interner } from './nodes.js';

/** Per-request inputs that change edge weights. */
export interface EdgeRequest {
  chatFiles: ReadonlySet<string>;
  mentionedIdents: ReadonlySet<string>;
}

/** The files that define a name, and those that reference it with their counts (see ReferenceGraph.namesOf). */
export interface NameFiles {
  definers: ReadonlySet<string> | undefined;
  referencers: Iterable<readonly [string, number]> | undefined;
}

/** Aider's graph of one request, factored through identifiers (see FactoredGraph). */
export interface AiderGraph {
  /** Node index -> path, sorted. */
  paths: string[];
  /** Identifier index -> identifier. */
  idents: string[];
  graph: FactoredGraph;
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

/** The graph of the 'repomap' ranking: forward (reference -> definition) and reverse edges. */
export interface RelatedGraph extends CompiledGraph {
  /** Per edge, 1 when it runs from a referencing file to a definer (the edges that rank definitions). */
  forward: Uint8Array;
  /** The same graph with the parallel edges between two files merged (weights summed): what PageRank walks. */
  walk: CsrGraph;
  /** Per edge of `csr`, its merged edge in `walk`. */
  walkSlot: Uint32Array;
  /** Per node, the summed weight of its forward edges (what a definition's share is divided by). */
  forwardTotal: Float64Array;
  /**
   * The PageRank of `walk` as it stands without a request's patch and without personalization
   * (rank.ts unpersonalizedRanks), when known before any request asked: a restored graph's.
   */
  walkRanks?: Float64Array;
  /**
   * True when a request's mentions multiplied some weights. The weights are patched in place and
   * stay so until the graph compiles the next request: use a view before asking for another.
   */
  patched?: boolean;
  /** When patched: runs `run` with the walk's weights as they were before the request's patch, then patches them again. */
  withoutPatch?: <T>(run: () => T) => T;
}

/** A related graph's own arrays, with what is derived from them when saved (the merged walk, the forward totals). */
export interface SavedRelated {
  /** Node index -> path, sorted (a graph that restores this keeps the list as its own). */
  paths: string[];
  /** Identifier number -> identifier. */
  idents: readonly string[];
  offsets: Uint32Array;
  targets: Uint32Array;
  weights: Float64Array;
  edgeIdent: Uint32Array;
  forward: Uint8Array;
  /** The unpersonalized PageRank of the merged walk, when saved with the arrays (see RelatedGraph.walkRanks). */
  walkRanks?: Float64Array;
  /**
   * The merged walk and the forward totals as derived from these arrays (RelatedGraph.walk, walkSlot
   * and forwardTotal), when saved with them: a restore takes them instead of deriving them again.
   */
  walkOffsets?: Uint32Array;
  walkTargets?: Uint32Array;
  walkWeights?: Float64Array;
  walkSlot?: Uint32Array;
  forwardTotal?: Float64Array;
  /**
   * True when each per-edge and walk array is a view of the start of an ArrayBuffer of its own,
   * the rest of which is room for the entries later changes add (see EdgeBuffers.adopt).
   */
  room?: boolean;
  /** Each file's definitions as hashes, the files those of `paths` (see NameIndex.definitionHashes): the offsets, then the hashes. */
  definitionOffsets?: Uint32Array;
  definitionHashes?: Uint32Array;
}

/** Each file's definitions as name hashes (nameHash): file f's are hashes[offsets[f], offsets[f + 1]). */
export interface DefinitionHashes {
  offsets: Uint32Array;
  hashes: Uint32Array;
}

/** The edges of each identifier (and the node each leaves), grouped by a counting sort. */
export interface EdgesByIdent {
  identOffsets: Uint32Array;
  identEdges: Uint32Array;
  edgeSource: Uint32Array;
}

/** The related graph without request multipliers, with what requests add to it. */
export interface RelatedBase {
  graph: RelatedGraph;
  /** The graph's identifiers by number (RelatedGraph.idents is its list). */
  identNumbers: Interner;
  /** The edges of each identifier, for requests that mention it; built by the first such request. */
  edgesByIdent?: EdgesByIdent;
  /** The weights the current request's patch replaced (at most one patch at a time). */
  patch?: Patch;
}

/** Weights saved before a request patched them, to be put back exactly. */
export interface Patch {
  size: number;
  edges: Uint32Array;
  edgeWeights: Float64Array;
  slots: Uint32Array;
  slotWeights: Float64Array;
  forwardCount: number;
  sources: Uint32Array;
  totals: Float64Array;
}
