// Go import resolution: an import path under a module of the repository (every go.mod's
// `module`, so go.work's members too) names a folder, and a package is every non-test .go file
// in it. A vendored copy (vendor/<path> beside a go.mod) counts as the repository's too.
import type { FamilyResolver, ResolveContext } from './family.js';
import { Memo, dirOf, foldersUp, joinPath, projectFilesNamed } from './files.js';

export function createGoResolver({ files, read }: ResolveContext): FamilyResolver {
  /** Module path -> the folder of its go.mod. */
  const modules = new Map<string, string>();
  const moduleDirs = new Set<string>();
  for (const path of projectFilesNamed(files, 'go.mod')) {
    const match = /^\s*module\s+"?([^\s"]+)"?/m.exec(read(path) ?? '');
    if (match && !modules.has(match[1])) modules.set(match[1], dirOf(path));
    moduleDirs.add(dirOf(path));
  }
  const results = new Memo<readonly string[]>();

  function packageFiles(folder: string): string[] {
    return files.filesIn(folder).filter((path) => path.endsWith('.go') && !path.endsWith('_test.go'));
  }

  function resolveOne(folder: string, importPath: string): readonly string[] {
    // The longest module path that the import path is in.
    for (let prefix = importPath; prefix !== ''; prefix = dirOf(prefix)) {
      const dir = modules.get(prefix);
      if (dir === undefined) continue;
      const target = joinPath(dir, importPath.slice(prefix.length + 1));
      return target === undefined ? [] : packageFiles(target);
    }
    // Vendored: the nearest module folder up from the importing file with vendor/<path>.
    for (const dir of foldersUp(folder)) {
      if (!moduleDirs.has(dir)) continue;
      const vendored = joinPath(dir, `vendor/${importPath}`);
      if (vendored !== undefined && files.isFolder(vendored)) return packageFiles(vendored);
    }
    return [];
  }

  return {
    *resolve(from, imports) {
      const folder = dirOf(from);
      for (const importPath of imports) yield* results.get(`${folder}\0${importPath}`, () => resolveOne(folder, importPath));
    },
  };
}
