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
  /** Each node's path length in names (folders and the file), and the longest. */
  depth: Uint16Array;
  maxDepth: number;
}

const indexes = new WeakMap<readonly string[], PathIndex>();

export function pathIndex(paths: readonly string[]): PathIndex {
  let index = indexes.get(paths);
  if (!index) {
    index = buildPathIndex(paths);
    indexes.set(paths, index);
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

function buildPathIndex(paths: readonly string[]): PathIndex {
  // Facts of paths long gone are dropped now and then.
  if (factsOf.size > 2 * paths.length + 1024) factsOf.clear();
  const byPath = new Map<string, number>();
  const byPart = new Map<string, number[]>();
  const bySubject = new Map<string, number[]>();
  const folderIds = new Map<string, number>();
  const folders: string[][] = [];
  const folderOf = new Uint32Array(paths.length);
  const depth = new Uint16Array(paths.length);
  let maxDepth = 0;
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i];
    const facts = pathFacts(path);
    byPath.set(path, i);
    for (const key of facts.keys) push(byPart, key, i);
    push(bySubject, facts.subject, i);
    let id = folderIds.get(facts.folder);
    if (id === undefined) {
      folderIds.set(facts.folder, (id = folders.length));
      folders.push(facts.folder === '' ? [] : facts.folder.slice(0, -1).split('/'));
    }
    folderOf[i] = id;
    depth[i] = Math.min(facts.depth, 0xffff);
    maxDepth = Math.max(maxDepth, depth[i]);
  }
  return { byPath, byPart, bySubject, folderOf, folders, depth, maxDepth };
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
 * parent's, ... `include` picks the nodes to order (all when omitted). A counting sort: linear.
 */
export function folderOrder(from: readonly string[], paths: readonly string[], include?: (node: number) => boolean): Uint32Array {
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
    if (include && !include(i)) continue;
    starts[bucketOf(i) + 1]++;
    count++;
  }
  for (let b = 1; b < starts.length; b++) starts[b] += starts[b - 1];
  const order = new Uint32Array(count);
  for (let i = 0; i < paths.length; i++) if (!include || include(i)) order[starts[bucketOf(i)]++] = i;
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
