// A map's text as a command or a tool prints it: the partial-map line, and what is said when a root
// has nothing to map. Imports no code: the thin client loads it.
import type { MapStats, PartialIndex } from '../api/types.js';

/** The line that starts a partial map's text output: what it is made of, and that a later one is complete. */
export function partialNote({ indexedFiles, files }: PartialIndex): string {
  return `(partial map: the index is still being built, ${indexedFiles} of ${files} source files indexed; ask again for the complete map)\n`;
}

/**
 * What is said instead of an empty map: the root has no file to map (an empty repository or
 * folder), every file it indexes is a chat file, or the budget is too small for the map's first line.
 */
export function emptyMapNote(root: string, { budget, stats, request }: { budget: number; stats: MapStats; request: { chatFiles: readonly string[] } }): string {
  const indexed = stats.parsed + stats.reusedByStat + stats.reusedByHash + stats.reusedShared;
  if (indexed === 0) return `nothing to map in ${root}: it has no files to index`;
  // The chat files are in the chat, not in the map: when they are every file, more tokens show nothing.
  if (stats.nodes <= request.chatFiles.length) return `nothing else to map in ${root}: every file it indexes is a chat file`;
  return `no line of the map of ${root} fits in ${budget} tokens: ask for more tokens`;
}

/** A map as text output: a partial map starts with the line that says so. */
export function textOutput(map: { text: string; partial?: PartialIndex }): string {
  return (map.partial ? partialNote(map.partial) : '') + map.text;
}
