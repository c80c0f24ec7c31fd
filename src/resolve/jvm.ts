// Java, Kotlin, Scala and Groovy import resolution by path suffix: `a.b.C` is a file ending
// a/b/C.java (.kt, .scala, .groovy), whichever source root it sits under; `a.b.*` (`a.b._`) the files of folders
// ending a/b. A name that is no file's (a Kotlin top-level function, a Scala object in a file
// named otherwise, a static member) falls back to its class's file, then to its package folder.
import type { FamilyResolver, ResolveContext } from './family.js';
import { Memo } from './files.js';

const SOURCE_EXTENSIONS = ['.java', '.kt', '.scala', '.groovy'];
const JVM_FILE = /\.(java|kt|kts|scala|sc|groovy)$/;
/** Package folders are matched from this many segments up: one (`util`) would match too widely. */
const MIN_PACKAGE_SEGMENTS = 2;

/**
 * The dotted names an import names: Scala's `a.b.{C, D => E}` gives a.b.C and a.b.D, `a.b.C, x.Y`
 * both, `a.b.C as D` a.b.C; wildcards (`*`, `_`) are kept as the last segment.
 */
export function expandJvmImport(text: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let start = 0;
  const take = (part: string): void => {
    const trimmed = part.trim();
    const brace = trimmed.indexOf('{');
    if (brace < 0) {
      const name = trimmed.split(/\s+(?:as|=>)\s+/)[0].replace(/\s+/g, '');
      if (name) names.push(name);
      return;
    }
    const prefix = trimmed.slice(0, brace).replace(/\s+/g, '');
    for (const item of trimmed.slice(brace + 1, trimmed.lastIndexOf('}')).split(',')) {
      const selector = item.trim().split(/\s*(?:=>|\bas\b)\s*/)[0];
      if (selector && selector !== 'given') names.push(prefix + selector);
    }
  };
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}') depth--;
    else if (text[i] === ',' && depth === 0) {
      take(text.slice(start, i));
      start = i + 1;
    }
  }
  take(text.slice(start));
  return names;
}

export function createJvmResolver({ files }: ResolveContext): FamilyResolver {
  const results = new Memo<readonly string[]>();

  function classFiles(segments: readonly string[]): string[] {
    const stem = segments.join('/');
    return SOURCE_EXTENSIONS.flatMap((ext) => files.withSuffix(stem + ext));
  }

  function packageFiles(segments: readonly string[]): string[] {
    if (segments.length < MIN_PACKAGE_SEGMENTS) return [];
    return files.foldersWithSuffix(segments.join('/')).flatMap((folder) => files.filesIn(folder).filter((path) => JVM_FILE.test(path)));
  }

  function resolveName(name: string): string[] {
    const segments = name.split('.');
    const last = segments[segments.length - 1];
    if (last === '*' || last === '_') {
      const pkg = segments.slice(0, -1);
      const inPackage = packageFiles(pkg);
      return inPackage.length > 0 ? inPackage : classFiles(pkg); // a static import of a class's members
    }
    // The longest prefix that is a class's file: a.b.C.m is a member of a.b.C.
    for (let k = segments.length; k >= Math.min(2, segments.length); k--) {
      const found = classFiles(segments.slice(0, k));
      if (found.length > 0) return found;
    }
    return packageFiles(segments.slice(0, -1));
  }

  return {
    *resolve(_from, modules) {
      for (const specifier of modules) {
        yield* results.get(specifier, () => expandJvmImport(specifier).flatMap(resolveName));
      }
    },
  };
}
