// Python import resolution: dotted modules under the repository's source roots (the importing
// file's own root, the repository root, src/, the roots pyproject.toml and setup.cfg name, and as a fallback
// the folders holding a top-level package of that name), relative imports from the importing
// file's package, and the submodules `from pkg import mod` names.
import { iniSection, isTable, parseToml, stringAt, stringsOf, tableAt } from './config.js';
import type { FamilyResolver, ResolveContext } from './family.js';
import { type FileSet, Memo, baseOf, byNearness, dirOf, joinPath, projectFilesNamed } from './files.js';

/** A module found: its file (a module or a package's __init__), and the package folder if it is one. */
interface Found {
  files: string[];
  packageDir?: string;
}

const NOT_FOUND: Found = { files: [] };

export function createPythonResolver({ files, read }: ResolveContext): FamilyResolver {
  const roots = configuredRoots(files, read);
  const topLevel = topLevelPackages(files);
  const results = new Memo<Found>();
  const submodules = new Memo<Map<string, string[]>>();

  /** A package's submodules by name: its module files, and its subpackages' __init__ files. */
  function submodulesOf(packageDir: string): Map<string, string[]> {
    const subs = new Map<string, string[]>();
    for (const path of files.filesIn(packageDir)) {
      if (!isPython(path)) continue;
      const name = baseOf(path).replace(/\.pyi?$/, '');
      if (name !== '__init__' && !subs.has(name)) subs.set(name, moduleAt(packageDir, [name])?.files ?? []);
    }
    for (const folder of files.foldersIn(packageDir)) {
      const name = baseOf(folder);
      if (!subs.has(name)) {
        const found = moduleAt(packageDir, [name]);
        if (found && found.files.length > 0) subs.set(name, found.files);
      }
    }
    return subs;
  }

  /** The module `segments` names under `root`: a package (its __init__) before a module file. */
  function moduleAt(root: string, segments: readonly string[]): Found | undefined {
    const base = joinPath(root, segments.join('/'));
    if (base === undefined || base === '') return undefined;
    const init = files.first([`${base}/__init__.py`, `${base}/__init__.pyi`]);
    if (init) return { files: [init], packageDir: base };
    const file = files.first([`${base}.py`, `${base}.pyi`]);
    if (file) return { files: [file] };
    // A namespace package (no __init__): a folder of Python files.
    if (files.filesIn(base).some(isPython)) return { files: [], packageDir: base };
    return undefined;
  }

  function resolveOne(folder: string, specifier: string): Found {
    const dots = /^\.*/.exec(specifier)![0].length;
    const segments = specifier.slice(dots).split('.').filter((segment) => segment !== '');
    if (dots > 0) {
      let start: string | undefined = folder;
      for (let up = 1; up < dots && start !== undefined; up++) start = start === '' ? undefined : dirOf(start);
      if (start === undefined) return NOT_FOUND;
      if (segments.length === 0) {
        const init = files.first([`${start}/__init__.py`, `${start}/__init__.pyi`]);
        return { files: init ? [init] : [], packageDir: start };
      }
      return moduleAt(start, segments) ?? NOT_FOUND;
    }
    if (segments.length === 0) return NOT_FOUND;
    const fallback = byNearness(topLevel.get(segments[0]) ?? [], folder);
    for (const root of new Set([ownRoot(files, folder), ...roots, ...fallback])) {
      const found = moduleAt(root, segments);
      if (found) return found;
    }
    return NOT_FOUND;
  }

  return {
    *resolve(from, modules, importedNames) {
      const folder = dirOf(from);
      for (const specifier of modules) {
        const found = results.get(`${folder}\0${specifier}`, () => resolveOne(folder, specifier));
        yield* found.files;
        // `from pkg import mod` imports pkg/mod.py when mod is a submodule, not a name in pkg.
        if (found.packageDir === undefined) continue;
        // Each package's submodules are listed once; a file's many imported names are only looked up in them.
        const subs = submodules.get(found.packageDir, () => submodulesOf(found.packageDir!));
        if (subs.size === 0) continue;
        for (const name of importedNames) {
          const sub = subs.get(name);
          if (sub) yield* sub;
        }
      }
    },
  };
}

function isPython(path: string): boolean {
  return path.endsWith('.py') || path.endsWith('.pyi');
}

/** The folder above the outermost package holding `folder` (the folder itself outside a package). */
function ownRoot(files: FileSet, folder: string): string {
  let root = folder;
  while (root !== '' && files.first([`${root}/__init__.py`, `${root}/__init__.pyi`])) root = dirOf(root);
  return root;
}

/** Top-level package name -> the folders that hold it (a package whose parent is not one). */
function topLevelPackages(files: FileSet): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const init of [...files.named('__init__.py'), ...files.named('__init__.pyi')]) {
    const pkg = dirOf(init);
    if (pkg === '') continue;
    const parent = dirOf(pkg);
    if (parent !== '' && files.first([`${parent}/__init__.py`, `${parent}/__init__.pyi`])) continue;
    const list = byName.get(baseOf(pkg)) ?? [];
    if (!list.includes(parent)) list.push(parent);
    byName.set(baseOf(pkg), list);
  }
  return byName;
}

/** The repository root, src/, and the source roots pyproject.toml and setup.cfg files name. */
function configuredRoots(files: FileSet, read: (path: string) => string | undefined): string[] {
  const roots = ['', 'src'];
  const add = (dir: string, rel: string) => {
    const root = joinPath(dir, rel);
    if (root !== undefined && !roots.includes(root)) roots.push(root);
  };
  for (const path of projectFilesNamed(files, 'pyproject.toml')) {
    const dir = dirOf(path);
    const toml = parseToml(read(path));
    const setuptools = tableAt(toml, 'tool', 'setuptools');
    for (const where of stringsOf(tableAt(setuptools, 'packages', 'find')?.where)) add(dir, where);
    const packageDir = tableAt(setuptools, 'package-dir');
    for (const [name, target] of Object.entries(packageDir ?? {})) {
      if (typeof target !== 'string') continue;
      // "" = "src" makes src a root; "pkg" = "lib/pkg" puts pkg's root at lib.
      if (name === '') add(dir, target);
      else if (baseOf(target) === name.split('.').pop()) add(dir, dirOf(target));
    }
    const poetry = tableAt(toml, 'tool', 'poetry');
    for (const entry of Array.isArray(poetry?.packages) ? poetry.packages : []) {
      if (isTable(entry)) add(dir, stringAt(entry, 'from') ?? '.');
    }
    for (const pkg of stringsOf(tableAt(toml, 'tool', 'hatch', 'build', 'targets', 'wheel')?.packages)) add(dir, dirOf(pkg));
    add(dir, '.');
  }
  for (const path of projectFilesNamed(files, 'setup.cfg')) {
    const dir = dirOf(path);
    const text = read(path);
    for (const line of (iniSection(text, 'options').get('package_dir') ?? '').split('\n')) {
      const eq = line.indexOf('=');
      if (eq >= 0 && line.slice(0, eq).trim() === '') add(dir, line.slice(eq + 1).trim());
    }
    const where = iniSection(text, 'options.packages.find').get('where');
    if (where) add(dir, where);
    add(dir, '.');
  }
  return roots;
}
