// C# import resolution, approximate: C# namespaces need not follow folders, but by convention
// they do, so `using A.B;` gives the .cs files of the folders whose path ends with A/B (a
// folder named `A.B`, as projects often are, counts as A/B). `using static A.B.C;` and
// `using X = A.B.C;` name a class: when no folder matches, the file C.cs in a folder ending A/B.
import type { FamilyResolver, ResolveContext } from './family.js';
import { Memo, baseOf, dirOf, endsWithSegments } from './files.js';

export function createDotnetResolver({ files }: ResolveContext): FamilyResolver {
  /** Last segment of a folder's path read as a namespace (dots as slashes) -> [that path, the folder]. */
  const folders = new Map<string, Array<[string, string]>>();
  for (const folder of files.folders()) {
    if (folder === '') continue;
    const asNamespace = folder.replace(/\./g, '/');
    const key = baseOf(asNamespace);
    const list = folders.get(key) ?? [];
    list.push([asNamespace, folder]);
    folders.set(key, list);
  }
  const results = new Memo<readonly string[]>();

  /** The folders whose path, dots read as slashes, ends with these namespace segments. */
  function namespaceFolders(segments: readonly string[]): string[] {
    const suffix = segments.join('/');
    return (folders.get(segments[segments.length - 1]) ?? []).filter(([path]) => endsWithSegments(path, suffix)).map(([, folder]) => folder);
  }

  function resolveOne(namespace: string): string[] {
    const segments = namespace.split('.').filter((segment) => segment !== '');
    if (segments.length === 0) return [];
    const inNamespace = namespaceFolders(segments).flatMap((folder) => files.filesIn(folder).filter((path) => path.endsWith('.cs')));
    if (inNamespace.length > 0 || segments.length < 2) return inNamespace;
    const parents = new Set(namespaceFolders(segments.slice(0, -1)));
    return files.named(`${segments[segments.length - 1]}.cs`).filter((path) => parents.has(dirOf(path)));
  }

  return {
    *resolve(_from, modules) {
      for (const namespace of modules) yield* results.get(namespace, () => resolveOne(namespace));
    },
  };
}
