// PHP resolution: a `use`d class by composer.json's PSR-4 autoload prefixes (`App\` -> app/, so
// App\Models\User is app/Models/User.php), else the one file whose path ends with the longest
// part of its namespace path; a require/include path from the requiring file's folder, then the
// repository root, then the one file ending with it. PSR-0 and classmap autoloading are not read.
import { isTable, parseJsonc, stringsOf, tableAt } from './config.js';
import type { FamilyResolver, ResolveContext } from './family.js';
import { Memo, dirOf, joinPath, projectFilesNamed } from './files.js';

/** The class names a `use` names: `A\{B, C as D}` gives A\B and A\C; `function`/`const` dropped. */
export function expandPhpUse(text: string): string[] {
  const clean = text.replace(/^(?:function|const)\s+/, '').replace(/^\\/, '');
  const brace = clean.indexOf('{');
  if (brace < 0) return [clean.split(/\s+as\s+/i)[0].trim()];
  const prefix = clean.slice(0, brace);
  return clean
    .slice(brace + 1, clean.lastIndexOf('}'))
    .split(',')
    .map((item) => item.trim().replace(/^(?:function|const)\s+/, '').split(/\s+as\s+/i)[0])
    .filter((item) => item !== '')
    .map((item) => prefix + item);
}

export function createPhpResolver({ files, read }: ResolveContext): FamilyResolver {
  /** PSR-4 namespace prefixes (with their trailing \), longest first, with the folders they map to. */
  const prefixes: Array<[string, string[]]> = [];
  for (const path of projectFilesNamed(files, 'composer.json')) {
    const json = parseJsonc(read(path));
    for (const section of ['autoload', 'autoload-dev']) {
      const psr4 = tableAt(json, section, 'psr-4');
      if (!isTable(psr4)) continue;
      for (const [prefix, dirs] of Object.entries(psr4)) {
        const folders = stringsOf(dirs).map((dir) => joinPath(dirOf(path), dir)).filter((dir): dir is string => dir !== undefined);
        prefixes.push([prefix.replace(/^\\/, ''), folders]);
      }
    }
  }
  prefixes.sort((a, b) => b[0].length - a[0].length);
  const results = new Memo<readonly string[]>();

  function classFile(name: string): string | undefined {
    for (const [prefix, folders] of prefixes) {
      if (!name.startsWith(prefix)) continue;
      const rel = `${name.slice(prefix.length).replace(/\\/g, '/')}.php`;
      for (const folder of folders) {
        const path = joinPath(folder, rel);
        if (path !== undefined && files.has(path)) return path;
      }
    }
    // The longest part of the namespace path (down to Folder/Class.php) that one file ends with.
    const segments = name.split('\\');
    for (let k = 0; k <= Math.max(0, segments.length - 2); k++) {
      const found = files.withSuffix(`${segments.slice(k).join('/')}.php`);
      if (found.length === 1) return found[0];
      if (found.length > 1) return undefined;
    }
    return undefined;
  }

  function includedFile(folder: string, path: string): string | undefined {
    const relative = path.startsWith('./') || path.startsWith('../');
    for (const dir of relative ? [folder] : [folder, '']) {
      const candidate = joinPath(dir, path);
      if (candidate !== undefined && files.has(candidate)) return candidate;
    }
    return relative ? undefined : files.uniqueWithSuffix(path.replace(/^\/+/, ''));
  }

  function resolveOne(folder: string, specifier: string): readonly string[] {
    // A path (require/include) has a slash or a .php; a class name has neither, or a backslash.
    if (!specifier.includes('\\') && (specifier.includes('/') || specifier.endsWith('.php'))) {
      const found = includedFile(folder, specifier);
      return found ? [found] : [];
    }
    return expandPhpUse(specifier).map(classFile).filter((path): path is string => path !== undefined);
  }

  return {
    *resolve(from, modules) {
      const folder = dirOf(from);
      for (const specifier of modules) yield* results.get(`${folder}\0${specifier}`, () => resolveOne(folder, specifier));
    },
  };
}
