// C and C++ include resolution for `#include "x.h"`: relative to the including file's folder,
// then to the repository's folders named `include` (nearest first) and its root, then the one
// file whose path ends with the written path. System includes (<x.h>) are never captured.
import type { FamilyResolver, ResolveContext } from './family.js';
import { Memo, byNearness, dirOf, joinPath } from './files.js';

export function createCResolver({ files }: ResolveContext): FamilyResolver {
  const includeDirs = files.foldersWithSuffix('include');
  const results = new Memo<string | undefined>();

  function resolveOne(folder: string, include: string): string | undefined {
    for (const dir of [folder, ...byNearness(includeDirs, folder), '']) {
      const path = joinPath(dir, include);
      if (path !== undefined && files.has(path)) return path;
    }
    return files.uniqueWithSuffix(include.replace(/^(\.\.?\/)+/, ''));
  }

  return {
    *resolve(from, includes) {
      const folder = dirOf(from);
      for (const include of includes) {
        const found = results.get(`${folder}\0${include}`, () => resolveOne(folder, include));
        if (found) yield found;
      }
    },
  };
}
