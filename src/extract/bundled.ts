// The native tree-sitter runtime and grammars packed into the package (dist/grammars/, written at
// pack time by scripts/pack-grammars.ts), so that an install has no grammar as an npm dependency:
// no peer range to resolve, no install script to allow. Each is loaded by path, for this platform;
// where the folder is absent (a clone, whose devDependencies hold the grammar packages) the
// installed npm packages serve instead.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';

const require = createRequire(import.meta.url);

/** The folder the pack writes: one subfolder per npm package, named as the package. */
export const BUNDLE_DIR = join(packageRoot, 'dist', 'grammars');

/** The npm package of the native runtime, packed in BUNDLE_DIR as `tree-sitter/`. */
export const RUNTIME_PACKAGE = 'tree-sitter';

/** The platforms whose native binaries the pack ships (`${process.platform}-${process.arch}`). */
export const PACKED_PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'] as const;

/** This process's platform, as binaries are named in a package's folder. */
export function hostPlatform(): string {
  return `${process.platform}-${process.arch}`;
}

/** A package's folder in the pack (its npm name, scope included). */
export function bundledPackageDir(pkg: string): string {
  return join(BUNDLE_DIR, pkg);
}

/** A grammar binary's file name in its package's folder: one per platform. */
export function binaryName(platform: string): string {
  return `${platform}.node`;
}

/**
 * The packed module of a package (the runtime's entry point, or a grammar's binary for this
 * platform), loaded; undefined when the package is not packed. Throws when it is packed without a
 * binary for this platform, or its binary does not load here.
 */
export function loadBundled(pkg: string): unknown {
  const dir = bundledPackageDir(pkg);
  if (!existsSync(dir)) return undefined;
  if (pkg === RUNTIME_PACKAGE) return require(join(dir, 'index.js'));
  const binary = join(dir, binaryName(hostPlatform()));
  if (!existsSync(binary)) throw new Error(`the package has no prebuilt binary of ${pkg} for ${hostPlatform()}`);
  return require(binary);
}

/** A file a grammar package ships (its WebAssembly build): the packed copy when there is one, else the installed package's. */
export function grammarPackageFile(pkg: string, file: string): string {
  const dir = bundledPackageDir(pkg);
  return existsSync(dir) ? join(dir, file) : require.resolve(`${pkg}/${file}`);
}
