// Aider's graph (the 'aider' ranking), compiled from the name indexes: the graph without request
// multipliers once per change, then each request's chat files and mentions multiplied on a copy
// of its reference weights.
import { EDGE_WEIGHTS } from '../model.js';
import { type DefinerCache, allDefiners } from './definers.js';
import type { AiderGraph, EdgeRequest } from './graph-types.js';
import type { NameIndex } from './name-index.js';
import { type FileNode, Interner } from './nodes.js';

/** Aider's graph with no request multipliers, with its node and identifier numbers by name. */
export interface AiderBase {
  compiled: AiderGraph;
  nodeIndex: Map<string, number>;
  identNumbers: Interner;
}

/**
 * Aider's weighted graph without request multipliers, factored through identifiers: nodes are
 * the files (of `sorted`, every file by path) with a definition or a reference to a defined name
 * (as in Aider, files without any edge are not nodes); a reference weighs the identifier's
 * multiplier x sqrt(count) toward each definer; a definition nobody references keeps a self edge.
 */
export function compileAiderBase(index: NameIndex, sorted: readonly FileNode[], definerCache: DefinerCache): AiderBase {
  index.linkPending();
  const { definers, names } = index;
  const nodes = sorted.filter((node) => index.definesAny(node) || node.refIds.some((id) => definers.has(names.nameOf(id))));
  const paths = nodes.map((node) => node.path);
  const nodeIndex = new Map(paths.map((path, i) => [path, i]));

  const identNumbers = new Interner();
  const idents = identNumbers.list;
  const refOffsets = new Uint32Array(paths.length + 1);
  const selfOffsets = new Uint32Array(paths.length + 1);
  const refIdent: number[] = [];
  const refWeight: number[] = [];
  const selfIdent: number[] = [];
  const selfWeight: number[] = [];
  for (let u = 0; u < nodes.length; u++) {
    const { refIds, refCounts } = nodes[u];
    for (let k = 0; k < refIds.length; k++) {
      const ident = names.nameOf(refIds[k]);
      const count = refCounts[k];
      if (!definers.has(ident)) continue;
      refIdent.push(identNumbers.id(ident));
      refWeight.push(definerCache.multiplierOf(ident) * Math.sqrt(count));
    }
    refOffsets[u + 1] = refIdent.length;
    // Every name it defines, those no file references included (read from the store: see NameIndex.definedOf).
    for (const ident of index.definedOf(nodes[u])) {
      if (index.referencersOf(ident)) continue;
      selfIdent.push(identNumbers.id(ident));
      selfWeight.push(EDGE_WEIGHTS.unreferencedSelfEdge);
    }
    selfOffsets[u + 1] = selfIdent.length;
  }

  const defOffsets = new Uint32Array(idents.length + 1);
  const defNode: number[] = [];
  for (let i = 0; i < idents.length; i++) {
    // Identifiers only on self edges need no definer list: their edges are the self edges.
    if (index.referencersOf(idents[i])) {
      for (const node of allDefiners(definerCache.definersOf(idents[i])!)) defNode.push(nodeIndex.get(node.path)!);
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
  return { compiled, nodeIndex, identNumbers };
}

/**
 * The base graph for one request: the references of its chat files multiplied (fromChatFile), and
 * those of its mentioned identifiers (mentionedIdent), on a copy; the base itself when neither applies.
 */
export function weighAiderRequest(base: AiderBase, request: EdgeRequest): AiderGraph {
  const { compiled, nodeIndex, identNumbers } = base;
  const chat = [...request.chatFiles].map((path) => nodeIndex.get(path)).filter((u) => u !== undefined);
  const mentioned = [...identNumbers.numbersOf(request.mentionedIdents).values()];
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
