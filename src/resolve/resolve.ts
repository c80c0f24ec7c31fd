// Import resolution: the repository files a file imports, from the module specifiers its source
// writes (FileNames.modules). One resolver per language family, each created on first use with
// its lookup tables; see docs/resolution.md for what each one resolves and how.
import { familyOfPath } from '../extract/languages.js';
import { createCResolver } from './c.js';
import { createDotnetResolver } from './dotnet.js';
import { createEcmaResolver } from './ecma.js';
import type { FamilyResolver, ProjectFiles, ResolveContext } from './family.js';
import { FileSet, baseOf } from './files.js';
import { createGoResolver } from './go.js';
import { createJvmResolver } from './jvm.js';
import { createPhpResolver } from './php.js';
import { createPythonResolver } from './python.js';
import { createRubyResolver } from './ruby.js';
import { createRustResolver } from './rust.js';


export interface ImportResolver {
  /**
   * The repository files that the file `from` imports through `modules` (its FileNames.modules):
   * sorted, each once, never `from` itself, only files of `from`'s language family.
   * `importedNames` (its FileNames.imports) lets Python's `from pkg import mod` find the
   * submodule pkg/mod.py, which the module list alone (`pkg`) does not name; other families
   * ignore it.
   */
  resolve(from: string, modules: readonly string[], importedNames?: readonly string[]): string[];
}

const FAMILIES: Record<string, (context: ResolveContext) => FamilyResolver> = {
  ecma: createEcmaResolver,
  python: createPythonResolver,
  go: createGoResolver,
  rust: createRustResolver,
  jvm: createJvmResolver,
  dotnet: createDotnetResolver,
  c: createCResolver,
  ruby: createRubyResolver,
  php: createPhpResolver,
};

export function createResolver(project: ProjectFiles): ImportResolver {
  const context: ResolveContext = { files: new FileSet(project.paths), read: (path) => project.read(path) };
  const created = new Map<string, FamilyResolver>();
  return {
    resolve(from, modules, importedNames = []) {
      const family = familyOfPath(from);
      const create = family === undefined ? undefined : FAMILIES[family];
      if (!create || modules.length === 0) return [];
      let resolver = created.get(family!);
      if (!resolver) {
        resolver = create(context);
        created.set(family!, resolver);
      }
      const found = new Set<string>();
      for (const path of resolver.resolve(from, modules, importedNames)) {
        if (path !== from && familyOfPath(path) === family) found.add(path);
      }
      return [...found].sort();
    },
  };
}

const PROJECT_FILE_NAMES = new Set([
  'package.json',
  'go.mod',
  'go.work',
  'Cargo.toml',
  'pyproject.toml',
  'setup.cfg',
  'composer.json',
]);

/** The project files whose change can change a resolution (tsconfig.json, package.json, go.mod, Cargo.toml, ...): the daemon re-resolves when one changes. */
export function isProjectFile(path: string): boolean {
  const name = baseOf(path);
  // tsconfig.json and the files it extends (tsconfig.base.json, tsconfig.app.json), jsconfig.json.
  return PROJECT_FILE_NAMES.has(name) || /^(?:tsconfig|jsconfig)(?:\..+)?\.json$/.test(name);
}
