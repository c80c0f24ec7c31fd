// What the rankings ask of a graph's paths, per request, answered from lookups built once per
// list of paths (a graph keeps its list until a file is added or removed): which node a path is,
// which nodes a name matches, how far a node's folder is from the chat files.

import { scratchUint32 } from './lent-arrays.js';

/**
 * Lookups over one sorted list of paths; node i is paths[i]. The lists hold ids, not node numbers:
 * a file added or removed moves the numbers of every node after it, and renumbering every list
 * after each new or deleted file would cost a map time in proportion to the repository, not to the
 * change. An id is a path's node number in the list the lookups were built from, or a number given
 * when the path came later; `nodeOfId` says where each is now.
 */
export interface PathIndex {
  ids: Map<string, number>;
  /** The node of each id in the current list (-1: its path is gone). */
  nodeOfId: Int32Array;
  /** Ids by file name, and by file name without its extension (with foldersByName, Aider's mention match: see nodesNamed). */
  byFileName: Map<string, number[]>;
  /** Folders by each of their names: a/b/ is under 'a' and 'b'. */
  foldersByName: Map<string, number[]>;
  /** Ids by subject name (see subjectName). */
  bySubject: Map<string, number[]>;
  /** Each node's folder, numbered; each folder's names, and the ids of its files. */
  folderOf: Uint32Array;
  folders: string[][];
  folderIds: Map<string, number>;
  folderNodes: number[][];
  /** Each node's path length in names (folders and the file), and the longest (at least: a patch keeps it when that path leaves). */
  depth: Uint16Array;
  maxDepth: number;
}

const indexes = new WeakMap<readonly string[], PathIndex>();
/** The last index built, and its paths: the next list usually differs from it by a file or two. */
let last: { paths: readonly string[]; index: PathIndex } | undefined;
/** More files added or removed than this since the last index: build anew. */
const MAX_PATCHED_CHANGES = 64;

export function pathIndex(paths: readonly string[]): PathIndex {
  let index = indexes.get(paths);
  if (!index) {
    const moves = last && numberMoves(last.paths, paths);
    // Ids of paths gone are not reused: past twice as many ids as paths, build anew.
    if (last && moves && last.index.nodeOfId.length + moves.added.length <= 2 * paths.length) {
      // Patched in place: the previous list is out of date (a graph's list changes when it does).
      index = patchPathIndex(last.index, last.paths, paths, moves);
      indexes.delete(last.paths);
    } else {
      index = buildPathIndex(paths);
    }
    indexes.set(paths, index);
    last = { paths, index };
  }
  return index;
}

/** The node of `path`, if it is one. */
export function nodeOfPath(index: PathIndex, path: string): number | undefined {
  const id = index.ids.get(path);
  return id === undefined ? undefined : index.nodeOfId[id];
}

/** The nodes of `ids`, ascending. */
export function nodesOfIds(index: PathIndex, ids: readonly number[]): number[] {
  const nodes = ids.map((id) => index.nodeOfId[id]);
  return nodes.sort((a, b) => a - b);
}

/** The nodes whose subject name (see subjectName) is `subject`, ascending. */
export function nodesOfSubject(index: PathIndex, subject: string): number[] {
  return nodesOfIds(index, index.bySubject.get(subject) ?? []);
}

/**
 * The nodes one of whose folder names or whose file name (with or without its extension) is
 * `name`, ascending; undefined when there are more than `max`. Folder names are looked up per
 * folder, not per file: a list per name of every file under it would hold each path once per
 * folder above it, and building those lists would be most of building the lookups.
 */
export function nodesNamed(index: PathIndex, name: string, max = Infinity): number[] | undefined {
  const byFile = index.byFileName.get(name) ?? [];
  const folders = index.foldersByName.get(name) ?? [];
  let inFolders = 0;
  for (const folder of folders) inFolders += index.folderNodes[folder].length;
  // A node is in one folder: those counted are distinct, as are the file matches.
  if (inFolders > max || byFile.length > max) return undefined;
  if (folders.length === 0) return nodesOfIds(index, byFile);
  const ids = new Set(byFile);
  for (const folder of folders) for (const id of index.folderNodes[folder]) ids.add(id);
  return ids.size > max ? undefined : nodesOfIds(index, [...ids]);
}

/** Lookups built from nothing (pathIndex patches the last ones when it can); exported for the tests. */
export function buildPathIndex(paths: readonly string[]): PathIndex {
  const index: PathIndex = {
    ids: new Map(),
    nodeOfId: Int32Array.from(paths, (_, i) => i),
    byFileName: new Map(),
    foldersByName: new Map(),
    bySubject: new Map(),
    folderOf: new Uint32Array(paths.length),
    folders: [],
    folderIds: new Map(),
    folderNodes: [],
    depth: new Uint16Array(paths.length),
    maxDepth: 0,
  };
  for (let i = 0; i < paths.length; i++) addPath(index, paths[i], i, i);
  return index;
}

/** Whether nodesNamed finds `path` by `name`: a folder of it, its file name, or its stem, is `name`. Without an index: for a few names, once. */
export function isPathNamed(path: string, name: string): boolean {
  const { slash, name: file, stem } = namesOfPath(path);
  return file === name || stem === name || path.slice(0, Math.max(slash, 0)).split('/').includes(name);
}

/** The names a path is listed under: its file name, its stem (if it has an extension) and its subject. */
function namesOfPath(path: string): { slash: number; name: string; stem: string | undefined; subject: string } {
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  return { slash, name, stem: dot > 0 ? name.slice(0, dot) : undefined, subject: subjectName(path) };
}

/** Puts node `i` (at `path`, with id `id`) into each lookup; lists get it at their end (ids ascending). */
function addPath(index: PathIndex, path: string, i: number, id: number): void {
  const { slash, name, stem, subject } = namesOfPath(path);
  index.ids.set(path, id);
  const folder = folderOfPath(index, path, slash);
  index.folderOf[i] = folder;
  index.folderNodes[folder].push(id);
  push(index.byFileName, name, id);
  if (stem !== undefined) push(index.byFileName, stem, id);
  push(index.bySubject, subject, id);
  index.depth[i] = Math.min(index.folders[folder].length + 1, 0xffff);
  index.maxDepth = Math.max(index.maxDepth, index.depth[i]);
}

/** Takes the path with id `id` out of each lookup (a folder keeps its number and names when its last file goes). */
function removePath(index: PathIndex, path: string, id: number): void {
  const { slash, name, stem, subject } = namesOfPath(path);
  index.ids.delete(path);
  drop(index.folderNodes[index.folderIds.get(folderKey(path, slash))!], id);
  dropFrom(index.byFileName, name, id);
  if (stem !== undefined) dropFrom(index.byFileName, stem, id);
  dropFrom(index.bySubject, subject, id);
}

/** A folder's key in folderIds: the path up to its last slash (at `slash`), '' at the root. */
function folderKey(path: string, slash: number): string {
  return slash < 0 ? '' : path.slice(0, slash);
}

/** The folder of `path` (its names up to `slash`), numbered when first met. */
function folderOfPath(index: PathIndex, path: string, slash: number): number {
  const key = folderKey(path, slash);
  let id = index.folderIds.get(key);
  if (id === undefined) {
    id = index.folders.length;
    const names = key === '' ? [] : key.split('/');
    index.folderIds.set(key, id);
    index.folders.push(names);
    index.folderNodes.push([]);
    for (const name of new Set(names)) push(index.foldersByName, name, id);
  }
  return id;
}

/**
 * How node numbers move from one sorted list to the next: the new number of each old node (-1:
 * gone), the old nodes gone, the new nodes, and the runs of old nodes that moved as one
 * ([from, to, by] triples): the per-node arrays are copied run by run.
 */
interface NumberMoves {
  newOf: Int32Array;
  removed: number[];
  added: number[];
  runs: number[];
}

/** The moves between two sorted lists, when few files came or went (undefined otherwise). */
function numberMoves(before: readonly string[], after: readonly string[]): NumberMoves | undefined {
  if (Math.abs(before.length - after.length) > MAX_PATCHED_CHANGES) return undefined;
  const newOf = new Int32Array(before.length).fill(-1);
  const moves: NumberMoves = { newOf, removed: [], added: [], runs: [] };
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    const from = i;
    while (i < before.length && j < after.length && before[i] === after[j]) newOf[i++] = j++;
    if (i > from) moves.runs.push(from, i, j - i);
    if (i < before.length && (j >= after.length || before[i] < after[j])) moves.removed.push(i++);
    else if (j < after.length) moves.added.push(j++);
    if (moves.removed.length + moves.added.length > MAX_PATCHED_CHANGES) return undefined;
  }
  return moves;
}

/**
 * `index` (of the previous list) brought to `paths` by the moves: the paths gone taken out of
 * their lists, the new ones put in with new ids, and the per-node arrays written again.
 */
function patchPathIndex(index: PathIndex, before: readonly string[], paths: readonly string[], moves: NumberMoves): PathIndex {
  const { newOf, removed, added, runs } = moves;
  const nodeOfId = new Int32Array(index.nodeOfId.length + added.length).fill(-1);
  for (let id = 0; id < index.nodeOfId.length; id++) {
    const old = index.nodeOfId[id];
    if (old >= 0) nodeOfId[id] = newOf[old];
  }
  for (const old of removed) removePath(index, before[old], index.ids.get(before[old])!);
  const patched = { ...index, nodeOfId, folderOf: new Uint32Array(paths.length), depth: new Uint16Array(paths.length) };
  for (let r = 0; r < runs.length; r += 3) {
    const [from, to, by] = [runs[r], runs[r + 1], runs[r + 2]];
    patched.folderOf.set(index.folderOf.subarray(from, to), from + by);
    patched.depth.set(index.depth.subarray(from, to), from + by);
  }
  let id = index.nodeOfId.length;
  for (const node of added) {
    nodeOfId[id] = node;
    addPath(patched, paths[node], node, id++);
  }
  return patched;
}

/**
 * The files that live beside `path` (in its folder) or share its subject name (its tests, or a
 * test's subject: see subjectName), `path` left out, in node order.
 */
export function neighboursOf(paths: readonly string[], path: string): string[] {
  const index = pathIndex(paths);
  const folder = index.folderIds.get(folderKey(path, path.lastIndexOf('/')));
  const ids = [...(folder === undefined ? [] : index.folderNodes[folder]), ...(index.bySubject.get(subjectName(path)) ?? [])];
  const nodes = [...new Set(nodesOfIds(index, ids))];
  return nodes.map((node) => paths[node]).filter((other) => other !== path);
}

/** A file's name without folders, extension(s) and test markers: test_app.py, app_test.go, app.spec.ts -> app. */
export function subjectName(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.indexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  return stem.replace(/^test_/, '').replace(/_tests?$/, '');
}

/**
 * Nodes by folder distance from the nearest of `from` (how many folders up the common ancestor
 * is), then shallower first, then by path (node order): a chat file's own folder first, then its
 * parent's, ... Nodes marked in `leftOut` are not ordered. A counting sort: linear. The order is
 * scratch memory (see lent-arrays.ts), good until the next call.
 */
export function folderOrder(from: readonly string[], paths: readonly string[], leftOut?: Uint8Array): Uint32Array {
  const { folderOf, folders, depth, maxDepth } = pathIndex(paths);
  const chatFolders = from.map((path) => path.split('/').slice(0, -1));
  // With no chat file every distance is the same; else it is at most the deepest chat folder's depth.
  const far = Math.max(0, ...chatFolders.map((chat) => chat.length)) + 1;
  const distance = new Uint32Array(folders.length);
  for (let f = 0; f < folders.length; f++) {
    const dirs = folders[f];
    let best = far;
    for (const chat of chatFolders) best = Math.min(best, chat.length - sharedDepth(dirs, chat));
    distance[f] = best;
  }
  const bucketOf = (i: number) => distance[folderOf[i]] * (maxDepth + 1) + depth[i];
  const starts = new Uint32Array((far + 1) * (maxDepth + 1) + 1);
  let count = 0;
  for (let i = 0; i < paths.length; i++) {
    if (leftOut?.[i]) continue;
    starts[bucketOf(i) + 1]++;
    count++;
  }
  for (let b = 1; b < starts.length; b++) starts[b] += starts[b - 1];
  const order = scratchUint32('folder order', count);
  for (let i = 0; i < paths.length; i++) if (!leftOut?.[i]) order[starts[bucketOf(i)]++] = i;
  return order;
}

/** How many leading folder names two folder paths share. */
export function sharedDepth(a: readonly string[], b: readonly string[]): number {
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return common;
}

/** Appends `value` to the list of `key` (made when missing). */
function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Takes `value` out of `list`. */
function drop(list: number[], value: number): void {
  const at = list.indexOf(value);
  if (at >= 0) list.splice(at, 1);
}

/** Takes `value` out of the list of `key`, and the list out of `map` once empty. */
function dropFrom(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (!list) return;
  drop(list, value);
  if (list.length === 0) map.delete(key);
}
