// Ruby require resolution: `require_relative 'x'` (kept as ./x) from the requiring file's folder;
// `require 'a/b'` in the nearest lib/ folder up from the requiring file (a gem's lib/, then the
// repository's), else the one file whose path ends with a/b.rb.
import type { FamilyResolver, ResolveContext } from './family.js';
import { Memo, dirOf, foldersUp, joinPath } from './files.js';

export function createRubyResolver({ files }: ResolveContext): FamilyResolver {
  const results = new Memo<string | undefined>();

  function resolveOne(folder: string, feature: string): string | undefined {
    const file = feature.endsWith('.rb') ? feature : `${feature}.rb`;
    if (file.startsWith('./') || file.startsWith('../')) {
      const path = joinPath(folder, file);
      return path !== undefined && files.has(path) ? path : undefined;
    }
    for (const dir of foldersUp(folder)) {
      const path = joinPath(dir, `lib/${file}`);
      if (path !== undefined && files.has(path)) return path;
    }
    return files.uniqueWithSuffix(file);
  }

  return {
    *resolve(from, features) {
      const folder = dirOf(from);
      for (const feature of features) {
        const found = results.get(`${folder}\0${feature}`, () => resolveOne(folder, feature));
        if (found) yield found;
      }
    },
  };
}
