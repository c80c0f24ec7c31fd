// What the rankings ask of a graph's paths, per request, answered from lookups built once per
// list of paths (a graph keeps its list until a file is added or removed): which node a path is,
// which nodes a name matches, how far a node's folder is from the chat files.

/** Lookups over one sorted list of paths; node i is paths[i]. */
export interface PathIndex {
  byPath: Map<string, number>;
  /** Nodes by each folder name and file name of their path, and by the file name without its extension (Aider's mention match). */
  byPart: Map<string, number[]>;
  /** Nodes by subject name (see subjectName). */
  bySubject: Map<string, number[]>;
  /** Each node's folder, numbered, and each folder's names. */
  folderOf: Uint32Array;
  folders: string[][];
  folderIds: Map<string, number>;
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

/** What a path contributes to an index, computed once per path (an index is rebuilt when a file is added or removed). */
interface PathFacts {
  keys: string[];
  subject: string;
  folder: string;
  depth: number;
}

const factsOf = new Map<string, PathFacts>();

function pathFacts(path: string): PathFacts {
  let facts = factsOf.get(path);
  if (!facts) {
    const parts = path.split('/');
    const basename = parts[parts.length - 1];
    const dot = basename.lastIndexOf('.');
    const keys = new Set(parts);
    if (dot > 0) keys.add(basename.slice(0, dot));
    facts = { keys: [...keys], subject: subjectName(path), folder: path.slice(0, path.length - basename.length), depth: parts.length };
    factsOf.set(path, facts);
  }
  return facts;
}

/** Lookups built from nothing (pathIndex patches the last ones when it can); exported for the tests. */
export function buildPathIndex(paths: readonly string[]): PathIndex {
  // Facts of paths long gone are dropped now and then.
  if (factsOf.size > 2 * paths.length + 1024) factsOf.clear();
  const index: PathIndex = {
    byPath: new Map(),
    byPart: new Map(),
    bySubject: new Map(),
    folderOf: new Uint32Array(paths.length),
    folders: [],
    folderIds: new Map(),
    depth: new Uint16Array(paths.length),
    maxDepth: 0,
  };
  for (let i = 0; i < paths.length; i++) addPath(index, paths[i], i);
  return index;
}

/** Puts node `i` (at `path`) into each lookup; lists get it at their end. */
function addPath(index: PathIndex, path: string, i: number): void {
  const facts = pathFacts(path);
  index.byPath.set(path, i);
  for (const key of facts.keys) push(index.byPart, key, i);
  push(index.bySubject, facts.subject, i);
  let id = index.folderIds.get(facts.folder);
  if (id === undefined) {
    index.folderIds.set(facts.folder, (id = index.folders.length));
    index.folders.push(facts.folder === '' ? [] : facts.folder.slice(0, -1).split('/'));
  }
  index.folderOf[i] = id;
  index.depth[i] = Math.min(facts.depth, 0xffff);
  index.maxDepth = Math.max(index.maxDepth, index.depth[i]);
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
  for (const lists of [index.byPart, index.bySubject]) {
    for (const [key, nodes] of lists) {
      // Ascending: only a tail of each list moves.
      let k = nodes.length;
      while (k > 0 && nodes[k - 1] >= first) k--;
      if (k === nodes.length) continue;
      let kept = k;
      for (; k < nodes.length; k++) if (newOf[nodes[k]] >= 0) nodes[kept++] = newOf[nodes[k]];
      nodes.length = kept;
      if (kept === 0) lists.delete(key);
    }
  }
  const patched = { ...index, folderOf: new Uint32Array(paths.length), depth: new Uint16Array(paths.length) };
  for (let old = 0; old < newOf.length; old++) {
    if (newOf[old] < 0) continue;
    patched.folderOf[newOf[old]] = index.folderOf[old];
    patched.depth[newOf[old]] = index.depth[old];
  }
  for (const node of added) addPath(patched, paths[node], node);
  // Lists in node order, as a fresh build makes them.
  for (const node of added) {
    const facts = pathFacts(paths[node]);
    for (const key of facts.keys) patched.byPart.get(key)!.sort((a, b) => a - b);
    patched.bySubject.get(facts.subject)!.sort((a, b) => a - b);
  }
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

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
