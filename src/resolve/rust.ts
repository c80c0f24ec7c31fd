// Rust import resolution over the module tree of files: `mod a;` names a.rs or a/mod.rs beside
// (or below) the declaring file, and a `use` path walks from the crate root (crate::), the
// current module (self::, or a child module named first), its parents (super::) or a workspace
// crate's root (its Cargo.toml name) along module files, as far as its segments are module files.
// `#[path = "..."]` attributes are not read.
import { parseToml, stringAt, tableAt } from './config.js';
import type { FamilyResolver, ResolveContext } from './family.js';
import { Memo, baseOf, dirOf, foldersUp, joinPath, projectFilesNamed } from './files.js';

/** File names whose submodules live in the file's own folder (not in a folder named after it). */
const FOLDER_MODULES = new Set(['mod.rs', 'lib.rs', 'main.rs']);

/** The module paths a `use` argument names: `a::{B, c::D}` gives [a, B] and [a, c, D]. */
export function expandUseTree(text: string): string[][] {
  const tokens = text.match(/::|[{},*]|[A-Za-z_][A-Za-z0-9_#]*|\S/g) ?? [];
  const paths: string[][] = [];
  let i = 0;
  const tree = (prefix: readonly string[]): void => {
    const path = [...prefix];
    if (tokens[i] === '::') {
      path.push(''); // ::name is an external crate
      i++;
    }
    for (;;) {
      const token = tokens[i];
      if (token === '{') {
        i++;
        while (i < tokens.length && tokens[i] !== '}') {
          const before = i;
          tree(path);
          if (tokens[i] === ',') i++;
          if (i === before) i++; // not a tree: skip the token rather than loop
        }
        i++;
        return;
      }
      if (token === undefined || !/^[A-Za-z_]/.test(token)) {
        if (token === '*') i++;
        if (path.length > 0) paths.push(path);
        return;
      }
      i++;
      // `self` inside a list stands for the list's prefix.
      if (!(token === 'self' && path.length > 0)) path.push(token);
      if (tokens[i] === '::') {
        i++;
        continue;
      }
      if (tokens[i] === 'as') i += 2;
      paths.push(path);
      return;
    }
  };
  tree([]);
  return paths;
}

export function createRustResolver({ files, read }: ResolveContext): FamilyResolver {
  /** Crate name (as `use` writes it) -> its root file. */
  const crateByName = new Map<string, string>();
  /** Folder of a Cargo.toml -> its crate's root file. */
  const crateByDir = new Map<string, string>();
  /** Folder of a crate root file -> that file (lib.rs before main.rs). */
  const rootByFolder = new Map<string, string>();
  for (const path of projectFilesNamed(files, 'Cargo.toml')) {
    const dir = dirOf(path);
    const toml = parseToml(read(path));
    const lib = tableAt(toml, 'lib');
    const libPath = stringAt(lib, 'path');
    const candidates = [libPath === undefined ? undefined : joinPath(dir, libPath), joinPath(dir, 'src/lib.rs'), joinPath(dir, 'src/main.rs')];
    const root = files.first(candidates.filter((path): path is string => path !== undefined));
    if (root === undefined) continue;
    crateByDir.set(dir, root);
    if (!rootByFolder.has(dirOf(root))) rootByFolder.set(dirOf(root), root);
    const name = stringAt(lib, 'name') ?? stringAt(tableAt(toml, 'package'), 'name');
    if (name && !crateByName.has(name.replace(/-/g, '_'))) crateByName.set(name.replace(/-/g, '_'), root);
  }
  const crateRoots = new Memo<string | undefined>();

  /** The root file of the crate holding a file: that of the nearest Cargo.toml up. */
  function crateRootOf(file: string): string | undefined {
    return crateRoots.get(dirOf(file), () => {
      for (const dir of foldersUp(dirOf(file))) {
        const root = crateByDir.get(dir);
        if (root !== undefined) return root;
      }
      return undefined;
    });
  }

  /** The folder holding a module file's submodules. */
  function childFolder(file: string): string {
    return FOLDER_MODULES.has(baseOf(file)) || crateRootOf(file) === file ? dirOf(file) : file.slice(0, -'.rs'.length);
  }

  /** The file of the module whose submodules live in `folder`. */
  function moduleFileOf(folder: string): string | undefined {
    return files.first([`${folder}/mod.rs`, `${folder}.rs`]) ?? rootByFolder.get(folder);
  }

  function child(folder: string, name: string): string | undefined {
    const prefix = folder === '' ? '' : `${folder}/`;
    return files.first([`${prefix}${name}.rs`, `${prefix}${name}/mod.rs`]);
  }

  /** The deepest module file along `segments` from the module of `file` (`file` when none is). */
  function walk(file: string, segments: readonly string[]): string {
    let at = file;
    for (const segment of segments) {
      const next = child(childFolder(at), segment);
      if (next === undefined) break;
      at = next;
    }
    return at;
  }

  function resolvePath(from: string, segments: readonly string[]): string | undefined {
    const [first, ...rest] = segments;
    if (first === 'crate') {
      const root = crateRootOf(from);
      return root === undefined ? undefined : walk(root, rest);
    }
    if (first === 'self') return walk(from, rest);
    if (first === 'super') {
      let folder = childFolder(from);
      let i = 0;
      while (segments[i] === 'super') {
        folder = dirOf(folder);
        i++;
      }
      const parent = moduleFileOf(folder);
      return parent === undefined ? undefined : walk(parent, segments.slice(i));
    }
    if (first === '') {
      const root = crateByName.get(rest[0]);
      return root === undefined ? undefined : walk(root, rest.slice(1));
    }
    // A child module of the current one, else a crate of the workspace; else outside (std, crates.io).
    if (child(childFolder(from), first) !== undefined) return walk(from, segments);
    const root = crateByName.get(first);
    return root === undefined ? undefined : walk(root, rest);
  }

  return {
    *resolve(from, modules) {
      for (const specifier of modules) {
        if (specifier.startsWith('mod ')) {
          const found = child(childFolder(from), specifier.slice('mod '.length));
          if (found) yield found;
          continue;
        }
        for (const path of expandUseTree(specifier)) {
          const found = resolvePath(from, path);
          if (found) yield found;
        }
      }
    },
  };
}
