// The two baselines a map must beat to be worth its tokens. Each is a ranked list of source files,
// rendered by the map's own packer and renderer, with their definitions as a map shows them or as
// bare paths, so they are held to the same exact token accounting as the map.
import { comparePaths } from '../discover/discover.js';
import { type PackEntry, type PackResult, packMap } from '../pack/pack.js';
import type { TokenCounter } from '../pack/tokens.js';
import { nearestFirst } from '../rank/rank.js';
import type { Outline } from '../store/outline.js';
import type { FileNames } from '../records.js';

/**
 * Files of the chat file's folder first, then those of its parent folder, and so on up to the
 * root; within a level, shallower paths first, then by path. The chat file is left out.
 */
export function directoryOrder(chatFile: string, paths: readonly string[]): string[] {
  return nearestFirst([chatFile], paths.filter((path) => path !== chatFile));
}

/**
 * Files ranked by how many of the query names they contain (as a definition or a reference): the
 * mentioned identifiers, and the names the chat file imports or defines. Ties: more occurrences
 * first, then by path. Files containing none come last, by path.
 */
export function lexicalOrder(chatFile: string, mentions: readonly string[], namesByPath: ReadonlyMap<string, FileNames>): string[] {
  const query = new Set(mentions);
  const chat = namesByPath.get(chatFile);
  for (const name of chat?.defined ?? []) query.add(name);
  for (const name of chat?.imports ?? []) query.add(name);
  const scored: Array<{ path: string; distinct: number; occurrences: number }> = [];
  for (const [path, names] of namesByPath) {
    if (path === chatFile) continue;
    const found = new Map<string, number>();
    const count = (name: string, n: number) => {
      if (query.has(name)) found.set(name, (found.get(name) ?? 0) + n);
    };
    for (const name of names.defined) count(name, 1);
    names.referenced.forEach((name, i) => count(name, names.counts[i]));
    let occurrences = 0;
    for (const n of found.values()) occurrences += n;
    scored.push({ path, distinct: found.size, occurrences });
  }
  scored.sort((a, b) => b.distinct - a.distinct || b.occurrences - a.occurrences || comparePaths(a.path, b.path));
  return scored.map((entry) => entry.path);
}

/**
 * A ranked list of files packed to the budget by the map's packer: each file with its definitions
 * (in line order, as a map shows a file), or, with `bare`, as bare paths (the most files a budget
 * can name).
 */
export function packFileList(
  order: readonly string[],
  outlineOf: (path: string) => Outline | undefined,
  budget: number,
  countTokens: TokenCounter,
  bare = false,
): PackResult {
  const entries: PackEntry[] = [];
  for (const [i, path] of order.entries()) {
    const rank = order.length - i;
    const defs = bare ? [] : (outlineOf(path)?.defs() ?? []).sort((a, b) => a.line - b.line);
    if (defs.length === 0) entries.push({ path, rank });
    for (const def of defs) entries.push({ path, rank, def });
  }
  return packMap(entries, outlineOf, budget, countTokens, []);
}
