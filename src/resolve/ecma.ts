// TypeScript and JavaScript import resolution: relative specifiers with extension probing,
// tsconfig.json/jsconfig.json `baseUrl` and `paths` (through `extends`), and the repository's
// own workspace packages by their package.json name (exports, types, main; dist mapped to src).
import { type ConfigTable, type ConfigValue, isTable, parseJsonc, stringAt, stringsOf, tableAt } from './config.js';
import type { FamilyResolver, ResolveContext } from './family.js';
import { type FileSet, Memo, dirOf, foldersUp, joinPath, projectFilesNamed } from './files.js';

/** Extensions tried, in order, after a specifier written without one. */
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs'];
/** A specifier ending in a JavaScript extension may name the TypeScript source it compiles from. */
const SOURCE_FOR: ReadonlyArray<[string, readonly string[]]> = [
  ['.js', ['.ts', '.tsx', '.d.ts']],
  ['.jsx', ['.tsx']],
  ['.mjs', ['.mts', '.d.mts']],
  ['.cjs', ['.cts', '.d.cts']],
];
/** Leading folders of a package's build output, mapped back to its sources when not in the repository. */
const BUILD_FOLDERS = new Set(['dist', 'build', 'lib', 'out', 'esm', 'cjs', 'es', 'types']);
/** Conditions of an `exports` entry, in the order tried (the rest follow in written order). */
const CONDITIONS = ['types', 'import', 'module', 'default', 'require', 'node'];

/** Compiler options that affect resolution, with folders root-relative. */
interface Resolution {
  baseUrl?: string;
  paths?: { patterns: Map<string, string[]>; base: string };
}

interface WorkspacePackage {
  dir: string;
  manifest: ConfigTable;
}

/** The file a path written without (or with a JavaScript) extension names, or undefined. */
export function probeScript(files: FileSet, base: string): string | undefined {
  if (files.has(base)) return base;
  for (const [js, sources] of SOURCE_FOR) {
    if (base.endsWith(js)) {
      const stem = base.slice(0, -js.length);
      const found = files.first(sources.map((ext) => stem + ext));
      if (found) return found;
    }
  }
  const prefix = base === '' ? '' : `${base}/`;
  return (
    (base === '' ? undefined : files.first(EXTENSIONS.map((ext) => base + ext))) ??
    files.first(EXTENSIONS.map((ext) => `${prefix}index${ext}`))
  );
}

export function createEcmaResolver({ files, read }: ResolveContext): FamilyResolver {
  const configs = new Memo<Resolution>();
  const nearestConfig = new Memo<Resolution>();
  const results = new Memo<string | undefined>();
  const packages = new Map<string, WorkspacePackage>();
  // Shallower manifests first: a package's own name beats a fixture's copy deeper down.
  const manifests = projectFilesNamed(files, 'package.json').sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1));
  for (const path of manifests) {
    const manifest = parseJsonc(read(path));
    const name = isTable(manifest) ? stringAt(manifest, 'name') : undefined;
    if (isTable(manifest) && name && !packages.has(name)) packages.set(name, { dir: dirOf(path), manifest });
  }

  /** A tsconfig's resolution options, its `extends` chain applied (relative paths only). */
  function loadConfig(path: string, visiting: ReadonlySet<string> = new Set()): Resolution {
    return configs.get(path, () => {
      const json = parseJsonc(read(path));
      let merged: Resolution = {};
      for (const parent of stringsOf(isTable(json) ? json.extends : undefined)) {
        if (!parent.startsWith('.')) continue;
        let target = joinPath(dirOf(path), parent);
        if (target === undefined) continue;
        if (!target.endsWith('.json') && !files.has(target)) target += '.json';
        if (visiting.has(target) || !files.has(target)) continue;
        merged = { ...merged, ...loadConfig(target, new Set([...visiting, path])) };
      }
      const options = tableAt(json, 'compilerOptions');
      const baseUrl = stringAt(options, 'baseUrl');
      if (baseUrl !== undefined) merged.baseUrl = joinPath(dirOf(path), baseUrl);
      const paths = tableAt(options, 'paths');
      if (paths) {
        const patterns = new Map(Object.entries(paths).map(([pattern, targets]) => [pattern, stringsOf(targets)]));
        merged.paths = { patterns, base: dirOf(path) };
      }
      // `paths` are relative to baseUrl when one is set, wherever either was declared.
      if (merged.paths && merged.baseUrl !== undefined) merged.paths = { ...merged.paths, base: merged.baseUrl };
      return merged;
    });
  }

  function configFor(folder: string): Resolution {
    return nearestConfig.get(folder, () => {
      for (const dir of foldersUp(folder)) {
        const prefix = dir === '' ? '' : `${dir}/`;
        const path = files.first([`${prefix}tsconfig.json`, `${prefix}jsconfig.json`]);
        if (path) return loadConfig(path);
      }
      return {};
    });
  }

  function viaPaths(config: Resolution, specifier: string): string | undefined {
    if (!config.paths) return undefined;
    let best: { prefix: string; star: string; targets: string[] } | undefined;
    for (const [pattern, targets] of config.paths.patterns) {
      const star = pattern.indexOf('*');
      if (star < 0) {
        if (pattern === specifier) {
          best = { prefix: pattern, star: '', targets };
          break;
        }
        continue;
      }
      const prefix = pattern.slice(0, star);
      const suffix = pattern.slice(star + 1);
      if (specifier.length >= prefix.length + suffix.length && specifier.startsWith(prefix) && specifier.endsWith(suffix)) {
        // The pattern with the longest prefix wins, as in TypeScript.
        if (!best || prefix.length > best.prefix.length) {
          best = { prefix, star: specifier.slice(prefix.length, specifier.length - suffix.length), targets };
        }
      }
    }
    if (!best) return undefined;
    for (const target of best.targets) {
      const path = joinPath(config.paths.base, target.replace('*', best.star));
      const found = path === undefined ? undefined : probeScript(files, path);
      if (found) return found;
    }
    return undefined;
  }

  /** A package's file for a target its manifest names, or the source that target is built from. */
  function packageTarget(dir: string, target: string): string | undefined {
    const path = joinPath(dir, target);
    if (path === undefined) return undefined;
    const found = probeScript(files, path);
    if (found) return found;
    const rel = path.slice(dir === '' ? 0 : dir.length + 1).replace(/(\.d)?\.[mc]?[jt]sx?$/, '');
    const segments = rel.split('/');
    while (segments.length > 1 && BUILD_FOLDERS.has(segments[0])) segments.shift();
    const stem = segments.join('/');
    for (const candidate of [`src/${stem}`, stem]) {
      const source = joinPath(dir, candidate);
      const found = source === undefined ? undefined : probeScript(files, source);
      if (found) return found;
    }
    return undefined;
  }

  function viaPackage(specifier: string): string | undefined {
    const parts = specifier.split('/');
    const nameLength = specifier.startsWith('@') ? 2 : 1;
    const pkg = packages.get(parts.slice(0, nameLength).join('/'));
    if (!pkg) return undefined;
    const sub = parts.slice(nameLength).join('/');
    const exportsField = pkg.manifest.exports;
    const tryTargets = (targets: Iterable<string>): string | undefined => {
      for (const target of targets) {
        const found = packageTarget(pkg.dir, target);
        if (found) return found;
      }
      return undefined;
    };
    if (sub === '') {
      const fields = ['types', 'typings', 'module', 'main'].map((key) => stringAt(pkg.manifest, key)).filter(isString);
      return (
        tryTargets(conditionTargets(exportEntry(exportsField, '.'))) ??
        tryTargets(fields) ??
        tryTargets(['src/index', 'index'])
      );
    }
    return tryTargets(conditionTargets(exportEntry(exportsField, `./${sub}`))) ?? tryTargets([sub, `src/${sub}`]);
  }

  function resolveOne(folder: string, specifier: string): string | undefined {
    if (specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../')) {
      const path = joinPath(folder, specifier);
      return path === undefined ? undefined : probeScript(files, path);
    }
    if (specifier.startsWith('/') || /^[a-z]+:/.test(specifier)) return undefined; // node:fs, https://...
    const config = configFor(folder);
    const viaBase = config.baseUrl === undefined ? undefined : joinPath(config.baseUrl, specifier);
    return viaPaths(config, specifier) ?? (viaBase === undefined ? undefined : probeScript(files, viaBase)) ?? viaPackage(specifier);
  }

  return {
    *resolve(from, modules) {
      const folder = dirOf(from);
      for (const specifier of modules) {
        const found = results.get(`${folder}\0${specifier}`, () => resolveOne(folder, specifier));
        if (found) yield found;
      }
    },
  };
}

/** The entry of a package's `exports` for a subpath ('.' or './x'), wildcard patterns included. */
function exportEntry(exportsField: ConfigValue | undefined, subpath: string): ConfigValue | undefined {
  if (exportsField === undefined || exportsField === null) return undefined;
  if (!isTable(exportsField) || !Object.keys(exportsField).some((key) => key.startsWith('.'))) {
    return subpath === '.' ? exportsField : undefined;
  }
  if (subpath in exportsField) return exportsField[subpath];
  for (const [key, value] of Object.entries(exportsField)) {
    const star = key.indexOf('*');
    if (star < 0) continue;
    const prefix = key.slice(0, star);
    const suffix = key.slice(star + 1);
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= prefix.length + suffix.length) {
      const match = subpath.slice(prefix.length, subpath.length - suffix.length);
      return substitute(value, match);
    }
  }
  return undefined;
}

function substitute(value: ConfigValue, match: string): ConfigValue {
  if (typeof value === 'string') return value.replaceAll('*', match);
  if (Array.isArray(value)) return value.map((item) => substitute(item, match));
  if (isTable(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, match)]));
  return value;
}

/** The paths an exports entry may lead to: a string, an array's, or a conditions object's, by CONDITIONS. */
function conditionTargets(entry: ConfigValue | undefined): string[] {
  if (typeof entry === 'string') return [entry];
  if (Array.isArray(entry)) return entry.flatMap(conditionTargets);
  if (!isTable(entry)) return [];
  const keys = Object.keys(entry);
  const ordered = [...CONDITIONS.filter((key) => key in entry), ...keys.filter((key) => !CONDITIONS.includes(key))];
  return ordered.flatMap((key) => conditionTargets(entry[key]));
}

function depth(path: string): number {
  return path.split('/').length;
}

function isString(value: string | undefined): value is string {
  return value !== undefined;
}
