// The repository's paths as import resolution looks them up: by exact path, by folder, and by
// path suffix. Built once per resolver; every lookup after that touches only the few paths that
// share a base name, never the whole list.
import { comparePaths } from '../discover/discover.js';

/** The folder of a root-relative path ('' for a file at the root). */
export function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** The last segment of a path. */
export function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * `rel` ('/'-separated, with `.` and `..` segments) taken from `folder`, normalized; undefined
 * when it climbs above the repository root.
 */
export function joinPath(folder: string, rel: string): string | undefined {
  const parts = folder === '' ? [] : folder.split('/');
  for (const segment of rel.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.join('/');
}

/** Whether `path` is `suffix` or ends with `/suffix`. */
export function endsWithSegments(path: string, suffix: string): boolean {
  return path === suffix || (path.endsWith(suffix) && path.charCodeAt(path.length - suffix.length - 1) === 47);
}

/** The folders from `folder` up to the root, nearest first ('' last). */
export function* foldersUp(folder: string): Generator<string> {
  let dir = folder;
  for (;;) {
    yield dir;
    if (dir === '') return;
    dir = dirOf(dir);
  }
}

const EMPTY: readonly string[] = [];

/** The repository's file paths, indexed for resolution. */
export class FileSet {
  private readonly all: ReadonlySet<string>;
  private readonly byFolder = new Map<string, string[]>();
  private readonly byBase = new Map<string, string[]>();
  private foldersByBase: Map<string, string[]> | undefined;
  private subfolders: Map<string, string[]> | undefined;

  constructor(paths: readonly string[]) {
    this.all = new Set(paths);
    for (const path of this.all) {
      push(this.byFolder, dirOf(path), path);
      push(this.byBase, baseOf(path), path);
    }
    // Every ancestor of a file is a folder, with or without files of its own.
    for (const folder of [...this.byFolder.keys()]) {
      for (const up of foldersUp(dirOf(folder))) {
        if (this.byFolder.has(up)) break;
        this.byFolder.set(up, []);
      }
    }
  }

  get paths(): ReadonlySet<string> {
    return this.all;
  }

  has(path: string): boolean {
    return this.all.has(path);
  }

  isFolder(folder: string): boolean {
    return this.byFolder.has(folder);
  }

  /** The files directly in `folder`. */
  filesIn(folder: string): readonly string[] {
    return this.byFolder.get(folder) ?? EMPTY;
  }

  /** The folders directly in `folder`. */
  foldersIn(folder: string): readonly string[] {
    if (!this.subfolders) {
      this.subfolders = new Map();
      for (const sub of this.byFolder.keys()) if (sub !== '') push(this.subfolders, dirOf(sub), sub);
    }
    return this.subfolders.get(folder) ?? EMPTY;
  }

  /** The files named `name` (a base name), anywhere. */
  named(name: string): readonly string[] {
    return this.byBase.get(name) ?? EMPTY;
  }

  /** The files whose path is `suffix` or ends with `/suffix`. */
  withSuffix(suffix: string): string[] {
    return this.named(baseOf(suffix)).filter((path) => endsWithSegments(path, suffix));
  }

  /** The folders whose path is `suffix` or ends with `/suffix`. */
  foldersWithSuffix(suffix: string): string[] {
    if (!this.foldersByBase) {
      this.foldersByBase = new Map();
      for (const folder of this.folders()) if (folder !== '') push(this.foldersByBase, baseOf(folder), folder);
    }
    return (this.foldersByBase.get(baseOf(suffix)) ?? []).filter((folder) => endsWithSegments(folder, suffix));
  }

  /** The one file whose path is `suffix` or ends with `/suffix`; undefined when none or several are. */
  uniqueWithSuffix(suffix: string): string | undefined {
    const found = this.withSuffix(suffix);
    return found.length === 1 ? found[0] : undefined;
  }

  /** Every folder that holds a file, and their ancestors ('' for the root). */
  folders(): Iterable<string> {
    return this.byFolder.keys();
  }

  /** The first of `candidates` that is a file. */
  first(candidates: Iterable<string>): string | undefined {
    for (const path of candidates) if (this.all.has(path)) return path;
    return undefined;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A cache of one computation per key, for results that depend only on the key. */
export class Memo<V> {
  private readonly values = new Map<string, V>();
  get(key: string, compute: () => V): V {
    let value = this.values.get(key);
    if (value === undefined && !this.values.has(key)) {
      value = compute();
      this.values.set(key, value);
    }
    return value as V;
  }
}

/** Repository files of a given name (package.json, go.mod, ...) outside node_modules, sorted. */
export function projectFilesNamed(files: FileSet, name: string): string[] {
  return files
    .named(name)
    .filter((path) => !path.split('/').includes('node_modules'))
    .sort();
}

/** `folders` ordered nearest to `to` first (the longest shared leading part), then by path. */
export function byNearness(folders: readonly string[], to: string): string[] {
  const shared = (a: string): number => {
    let i = 0;
    while (i < a.length && i < to.length && a[i] === to[i]) i++;
    return i;
  };
  return [...folders].sort((a, b) => shared(b) - shared(a) || comparePaths(a, b));
}
