// What each language family's resolver is given and gives back: src/resolve/resolve.ts picks the
// family of the importing file and keeps only that family's files from the answer.
import type { FileSet } from './files.js';

/** What resolution reads of a repository: its files (root-relative, '/'-separated) and the text of a few project files. */
export interface ProjectFiles {
  paths: readonly string[];
  /** Text of a repository file (tsconfig.json, package.json, go.mod, Cargo.toml, pyproject.toml, setup.cfg, composer.json, go.work, jsconfig.json); undefined if absent/unreadable. */
  read(path: string): string | undefined;
}

/** The repository as a family resolver sees it: the indexed paths and the project files' text. */
export interface ResolveContext {
  files: FileSet;
  read(path: string): string | undefined;
}

/** One language family's resolution. Its tables are built when it is created. */
export interface FamilyResolver {
  /**
   * The files `from` imports through `modules`; `importedNames` are the names it imports
   * (FileNames.imports). May include `from` itself or files of other families: the caller drops them.
   */
  resolve(from: string, modules: readonly string[], importedNames: readonly string[]): Iterable<string>;
}
