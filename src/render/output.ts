// A map's text as a command or a tool prints it: the partial-map line, and what is said when a root
// has nothing to map. Imports no code: the thin client loads it.
import type { MapStats, PartialIndex } from '../api/types.js';

/** The line that starts a partial map's text output: what it is made of, and that a later one is complete. */
export function partialNote({ indexedFiles, files }: PartialIndex): string {
  const done = files === 0 ? 'its files are still being listed' : `${indexedFiles} of ${files} source files indexed`;
  return `(partial map: the index is still being built, ${done}; ask again for the complete map)\n`;
}

/**
 * What is said instead of an empty map: a partial map with no file indexed yet, the root has no
 * file to map (an empty repository or folder, every file left out by the exclude and include
 * globs, or none with a grammar), or every file it indexes is a chat file. Only these make an empty map: a budget too small for any line of a map with files
 * to show is refused (mapFromIndex).
 */
export function emptyMapNote(
  root: string,
  { stats, request, partial }: { stats: MapStats; request: { chatFiles: readonly string[] }; partial?: PartialIndex },
): string {
  if (partial) return `nothing indexed yet in ${root}: ask again for the map`;
  // The chat files are in the chat, not in the map: when they are every file, more tokens show nothing.
  if (request.chatFiles.length > 0 && stats.nodes <= request.chatFiles.length) return `nothing else to map in ${root}: every file it indexes is a chat file`;
  // Nothing discovered but what the globs left out: those are every file, said (not an empty tree).
  if (stats.discovered === 0 && stats.leftOut > 0) return `nothing to map in ${root}: the exclude or include globs leave out every one of its ${stats.leftOut} files`;
  if (stats.discovered > 0) return `nothing to map in ${root}: none of its ${stats.discovered} files is indexed (no grammar, too large, binary: the line counting them does not fit the budget)`;
  return `nothing to map in ${root}: it has no files to index`;
}

/** A map as text output: a partial map starts with the line that says so. */
export function textOutput(map: { text: string; partial?: PartialIndex }): string {
  return (map.partial ? partialNote(map.partial) : '') + map.text;
}
