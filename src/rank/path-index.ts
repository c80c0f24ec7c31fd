// What the rankings ask of a graph's paths, per request, answered from lookups built once per
// list of paths (a graph keeps its list until a file is added or removed): which node a path is,
// which nodes a name matches, how far a node's folder is from the chat files.

/** Lookups over one sorted list of paths; node i is paths[i]. */
export interface PathIndex {
  byPath: Map<string, number>;
  /** Nodes by file name, and by file name without its extension (with foldersByName, Aider's mention match: see nodesNamed). */
  byFileName: Map<string, number[]>;
  /** Folders by each of their names: a/b/ is under 'a' and 'b'. */
  foldersByName: Map<string, number[]>;
  /** Nodes by subject name (see subjectName). */
  bySubject: Map<string, number[]>;
  /** Each node's folder, numbered; each folder's names, and its nodes (ascending). */
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
    if (last && moves) {
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

/**
 * The nodes one of whose folder names or whose file name (with or without its extension) is
 * `name`, ascending; undefined when there are more than `max`. Folder names are looked up per
 * folder, not per file: a first index of the large corpus's 38,185 paths took 394 ms with a list
 * per name of every file under it, most of it in those lists.
 */
export function nodesNamed(index: PathIndex, name: string, max = Infinity): number[] | undefined {
  const byFile = index.byFileName.get(name) ?? [];
  const folders = index.foldersByName.get(name) ?? [];
  let inFolders = 0;
  for (const folder of folders) inFolders += index.folderNodes[folder].length;
  // A node is in one folder: those counted are distinct, as are the file matches.
  if (inFolders > max || byFile.length > max) return undefined;
  if (folders.length === 0) return byFile.slice();
  const nodes = new Set(byFile);
  for (const folder of folders) for (const node of index.folderNodes[folder]) nodes.add(node);
  return nodes.size > max ? undefined : [...nodes].sort((a, b) => a - b);
}

/** Lookups built from nothing (pathIndex patches the last ones when it can); exported for the tests. */
export function buildPathIndex(paths: readonly string[]): PathIndex {
  const index: PathIndex = {
    byPath: new Map(),
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
  for (let i = 0; i < paths.length; i++) addPath(index, paths[i], i);
  return index;
}

/** Puts node `i` (at `path`) into each lookup; lists get it at their end (and go into `touched`, when given). */
function addPath(index: PathIndex, path: string, i: number, touched?: Set<number[]>): void {
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  index.byPath.set(path, i);
  const folder = folderOfPath(index, path, slash);
  index.folderOf[i] = folder;
  index.folderNodes[folder].push(i);
  const byName = push(index.byFileName, name, i);
  const byStem = dot > 0 ? push(index.byFileName, name.slice(0, dot), i) : undefined;
  const bySubject = push(index.bySubject, subjectName(path), i);
  if (touched) {
    touched.add(byName).add(bySubject).add(index.folderNodes[folder]);
    if (byStem) touched.add(byStem);
  }
  index.depth[i] = Math.min(index.folders[folder].length + 1, 0xffff);
  index.maxDepth = Math.max(index.maxDepth, index.depth[i]);
}

/** The folder of `path` (its names up to `slash`), numbered when first met. */
function folderOfPath(index: PathIndex, path: string, slash: number): number {
  const key = slash < 0 ? '' : path.slice(0, slash);
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

/** How node numbers move from one sorted list to the next: the new number of each old node (-1: gone), and the new nodes. */
interface NumberMoves {
  newOf: Int32Array;
  added: number[];
}

/** The moves between two sorted lists, when few files came or went (undefined otherwise). */
function numberMoves(before: readonly string[], after: readonly string[]): NumberMoves | undefined {
  if (Math.abs(before.length - after.length) > MAX_PATCHED_CHANGES) return undefined;
  const newOf = new Int32Array(before.length).fill(-1);
  const added: number[] = [];
  let changes = 0;
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    if (i < before.length && j < after.length && before[i] === after[j]) newOf[i++] = j++;
    else if (j >= after.length || (i < before.length && before[i] < after[j])) (i++, changes++);
    else (added.push(j++), changes++);
    if (changes > MAX_PATCHED_CHANGES) return undefined;
  }
  return { newOf, added };
}

/** `index` (of the previous list) brought to `paths` by the moves: each lookup renumbered, the new paths put in. */
function patchPathIndex(index: PathIndex, before: readonly string[], paths: readonly string[], { newOf, added }: NumberMoves): PathIndex {
  // Nodes before the first file added or removed keep their numbers: only the rest move.
  let first = 0;
  while (first < newOf.length && newOf[first] === first) first++;
  for (let node = first; node < newOf.length; node++) {
    if (newOf[node] >= 0) index.byPath.set(before[node], newOf[node]);
    else index.byPath.delete(before[node]);
  }
  const renumber = (nodes: number[]) => {
    // Ascending: only a tail of each list moves.
    let k = nodes.length;
    while (k > 0 && nodes[k - 1] >= first) k--;
    let kept = k;
    for (; k < nodes.length; k++) if (newOf[nodes[k]] >= 0) nodes[kept++] = newOf[nodes[k]];
    nodes.length = kept;
  };
  for (const lists of [index.byFileName, index.bySubject]) {
    for (const [key, nodes] of lists) {
      renumber(nodes);
      if (nodes.length === 0) lists.delete(key);
    }
  }
  // A folder keeps its number (and its names) when its last file goes.
  for (const nodes of index.folderNodes) renumber(nodes);
  const patched = { ...index, folderOf: new Uint32Array(paths.length), depth: new Uint16Array(paths.length) };
  for (let old = 0; old < newOf.length; old++) {
    if (newOf[old] < 0) continue;
    patched.folderOf[newOf[old]] = index.folderOf[old];
    patched.depth[newOf[old]] = index.depth[old];
  }
  const touched = new Set<number[]>();
  for (const node of added) addPath(patched, paths[node], node, touched);
  // Lists in node order, as a fresh build makes them.
  for (const nodes of touched) nodes.sort((a, b) => a - b);
  return patched;
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
 * parent's, ... Nodes marked in `leftOut` are not ordered. A counting sort: linear.
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
  const order = new Uint32Array(count);
  for (let i = 0; i < paths.length; i++) if (!leftOut?.[i]) order[starts[bucketOf(i)]++] = i;
  return order;
}

/** How many leading folder names two folder paths share. */
export function sharedDepth(a: readonly string[], b: readonly string[]): number {
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return common;
}

/** Appends `value` to the list of `key` (made when missing); returns the list. */
function push(map: Map<string, number[]>, key: string, value: number): number[] {
  let list = map.get(key);
  if (list) list.push(value);
  else map.set(key, (list = [value]));
  return list;
}
