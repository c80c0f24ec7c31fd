// A map's text as a command or a tool prints it: the partial-map line, and what is said when a root
// has nothing to map. Imports nothing: the thin client loads it.
import type { PartialIndex } from '../api/types.js';

/** The line that starts a partial map's text output: what it is made of, and that a later one is complete. */
export function partialNote({ indexedFiles, files }: PartialIndex): string {
  return `(partial map: the index is still being built, ${indexedFiles} of ${files} source files indexed; ask again for the complete map)\n`;
}

/** What is said instead of a map when a root has no file to map (an empty repository or folder). */
export function nothingToMap(root: string): string {
  return `nothing to map in ${root}: it has no files to index`;
}

/** A map as text output: a partial map starts with the line that says so. */
export function textOutput(map: { text: string; partial?: PartialIndex }): string {
  return (map.partial ? partialNote(map.partial) : '') + map.text;
}
