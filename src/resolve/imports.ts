// The imports of an index's files, resolved when first asked for and kept: what a map's layout
// and ranking read (IndexLookups.importsOf). One lookup serves one list of paths and one state of
// the project files; whoever holds the index makes a new one when either changes.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type ImportResolver, createResolver, isProjectFile } from './resolve.js';

/** Project files larger than this are not read (a tsconfig.json or go.mod is a few KB). */
const MAX_PROJECT_FILE_BYTES = 1 << 20;

export class ImportLookup {
  private resolver: ImportResolver | undefined;
  private readonly resolved = new Map<string, readonly string[]>();
  private key: string | undefined;

  constructor(
    private readonly root: string,
    /** The repository's paths, sorted (not changed while this lookup is in use). */
    private readonly paths: readonly string[],
    private readonly namesOf: (path: string) => { readonly modules: readonly string[]; readonly imports: readonly string[] } | undefined,
  ) {}

  /** The repository files `path` imports: sorted, each once; empty when it imports none of them. */
  importsOf(path: string): readonly string[] {
    let files = this.resolved.get(path);
    if (!files) {
      const names = this.namesOf(path);
      files = names && names.modules.length > 0 ? this.resolverNow().resolve(path, names.modules, names.imports) : [];
      this.resolved.set(path, files);
    }
    return files;
  }

  /**
   * A digest of the project files among the paths (what resolution reads besides the paths): a
   * saved related graph is good only for the same (see restoreRelatedGraph).
   */
  projectKey(): string {
    if (this.key === undefined) {
      const hash = createHash('sha1');
      for (const path of this.paths) if (isProjectFile(path)) hash.update(`${path}\0${readProjectFile(this.root, path) ?? ''}\0`);
      this.key = hash.digest('hex');
    }
    return this.key;
  }

  /** Forgets what `path` imports (its modules changed). */
  forget(path: string): void {
    this.resolved.delete(path);
  }

  private resolverNow(): ImportResolver {
    return (this.resolver ??= createResolver({ paths: this.paths, read: (path) => readProjectFile(this.root, path) }));
  }
}

/** A project file's text; undefined when it cannot be read or is too large to be one. */
function readProjectFile(root: string, path: string): string | undefined {
  const file = join(root, path);
  try {
    if (statSync(file).size > MAX_PROJECT_FILE_BYTES) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined; // absent or unreadable: resolution goes on without it
  }
}
