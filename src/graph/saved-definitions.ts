// Each file's definitions as 32-bit name hashes (nameHash), in compressed rows by file number: what
// a saved related graph keeps so that a graph restored from it finds which files may define a name
// without reading every file's names from the store (see NameIndex.useSavedDefinitions).
import type { ColdDefinitions } from './cold-names.js';
import { nameHash } from './cold-names.js';
import type { DefinitionHashes } from './graph-types.js';
import type { DefinerFiles, FileNode } from './nodes.js';

/** The size of the bit filter of definersOf (128 KiB: it stays in the cache while millions of hashes are checked). */
const FILTER_BITS = 1 << 20;
const FILTER_MASK = FILTER_BITS - 1;

/**
 * Each file's definitions as hashes, the files in the order of `paths` (the numbering's:
 * FileNode.dense is a file's place there), from the definer rows and the cold definitions.
 * Undefined when `paths` is not the numbering: hashes that miss a file's definitions would hide it
 * as a definer.
 */
export function definitionHashes(definers: ReadonlyMap<string, DefinerFiles>, cold: ColdDefinitions, paths: readonly string[]): DefinitionHashes | undefined {
  let unnumbered = false;
  const numberOf = (node: FileNode) => {
    if (paths[node.dense] !== node.path) unnumbered = true;
    return node.dense;
  };
  // Twice over every definition, counting each file's and then placing them: no list of pairs is held.
  const offsets = new Uint32Array(paths.length + 1);
  const visitAll = (visit: (hash: number, file: number) => void) => {
    for (const [ident, entry] of definers) {
      const hash = nameHash(ident);
      if (entry instanceof Set) for (const node of entry) visit(hash, numberOf(node));
      else visit(hash, numberOf(entry));
    }
    // A cold definition moved back into the definer rows keeps its key there too: listed twice, it is read once.
    cold.forEachDefinition(numberOf, visit);
  };
  visitAll((_hash, file) => offsets[file + 1]++);
  if (unnumbered) return undefined;
  for (let file = 0; file < paths.length; file++) offsets[file + 1] += offsets[file];
  const hashes = new Uint32Array(offsets[paths.length]);
  const next = offsets.slice(0, paths.length);
  visitAll((hash, file) => (hashes[next[file]++] = hash));
  return { offsets, hashes };
}

/** Saved definition hashes with the file of each row (undefined for a path the graph no longer holds). */
export class SavedDefinitions {
  constructor(
    private readonly definitions: DefinitionHashes,
    private readonly nodes: ReadonlyArray<FileNode | undefined>,
  ) {}

  /** The files whose saved hashes hold one of `idents`'. */
  definersOf(idents: readonly string[]): Set<FileNode> {
    const wanted = new Set(idents.map(nameHash));
    // A bit per low 20 bits of a wanted hash: the scan of millions of hashes asks the set about a few.
    const filter = new Uint8Array(FILTER_BITS >>> 3);
    for (const hash of wanted) filter[(hash & FILTER_MASK) >>> 3] |= 1 << (hash & 7);
    const { offsets, hashes } = this.definitions;
    const { nodes } = this;
    const found = new Set<FileNode>();
    for (let file = 0; file < nodes.length; file++) {
      for (let k = offsets[file]; k < offsets[file + 1]; k++) {
        const hash = hashes[k];
        if ((filter[(hash & FILTER_MASK) >>> 3] & (1 << (hash & 7))) === 0 || !wanted.has(hash)) continue;
        const node = nodes[file];
        if (node) found.add(node);
        break;
      }
    }
    return found;
  }
}
