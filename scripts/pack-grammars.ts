// Run by `npm pack` (package.json's prepack): copies into dist/grammars/ what the native parsing
// needs at runtime (see src/extract/bundled.ts), so that the packed package has no grammar and no
// tree-sitter among its npm dependencies. Per package: its LICENSE, its binaries for the platforms
// in PACKED_PLATFORMS, named by platform, and the WebAssembly builds languages.ts falls back to.
// tree-sitter's own linux binaries are compiled here with libstdc++ linked in, in place of the
// prebuilt ones, which need a newer libstdc++ (GLIBCXX_3.4.31) than Debian 12 and Ubuntu 22.04
// have: for this machine's platform, and for the other linux architecture where Debian's cross
// compiler for it is installed, which also builds the grammars that publish no binary for it or
// one for another architecture. Without it, one line says what that platform gets instead.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { BUNDLE_DIR, PACKED_PLATFORMS, RUNTIME_PACKAGE, binaryName, hostPlatform } from '../src/extract/bundled.js';
import { LANGUAGES } from '../src/extract/languages.js';
import { packageRoot } from '../src/paths.js';
import { builtFor } from './binary-platform.js';

const require = createRequire(join(packageRoot, 'package.json'));

/** The newest symbol versions a linux binary built here may need: glibc 2.35 (Ubuntu 22.04), GCC 11's libstdc++. */
const MAX_GLIBC = [2, 35];
const MAX_GLIBCXX = [3, 4, 29];

/**
 * libstdc++'s std::random_device, linked in with the rest of libstdc++ and never called by
 * tree-sitter, refers to arc4random, which glibc has from 2.36 only: this hidden definition takes
 * its place, so the binary loads on glibc 2.35.
 */
const ARC4RANDOM_SHIM = `#include <sys/random.h>
unsigned int arc4random(void) { unsigned int value = 0; getentropy(&value, sizeof value); return value; }
`;

function fail(message: string): never {
  process.stderr.write(`pack-grammars: ${message}\n`);
  process.exit(1);
}

function run(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const result = spawnSync(cmd, args, { cwd: options.cwd, env: options.env ?? process.env, encoding: 'utf8', timeout: 900_000, maxBuffer: 64 << 20 });
  if (result.status !== 0) fail(`${cmd} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${(result.stdout ?? '') + (result.stderr ?? '')}`.slice(0, 8000));
  return result.stdout;
}

function installedDir(pkg: string): string {
  return dirname(require.resolve(`${pkg}/package.json`));
}

function version(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The one file in `dir` ending `.node`; undefined when `dir` is absent. */
function onlyBinary(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const binaries = readdirSync(dir).filter((name) => name.endsWith('.node'));
  if (binaries.length !== 1) fail(`expected one .node file in ${dir}, found ${binaries.length}`);
  return join(dir, binaries[0]);
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** Fails unless a linux binary needs no glibc or libstdc++ newer than MAX_GLIBC and MAX_GLIBCXX (read with `objdump`, the binary's architecture's). */
function checkSymbolVersions(binary: string, objdump: string): void {
  const needed = new Set(run(objdump, ['-T', binary]).match(/\bGLIBC(XX)?_[0-9.]+/g) ?? []);
  for (const tag of needed) {
    const [name, numbers] = tag.split('_');
    const limit = name === 'GLIBC' ? MAX_GLIBC : MAX_GLIBCXX;
    if (compareVersions(numbers.split('.').map(Number), limit) > 0) fail(`${binary} needs ${tag}, newer than ${name}_${limit.join('.')}: it would not load on Debian 12 or Ubuntu 22.04`);
  }
}

/** How portable binaries are linked (see portableBuild): part of their cache key, with the version, the shim and the compiler. */
const PORTABLE_LDFLAGS = '-static-libstdc++ -Wl,--gc-sections';

/**
 * How grammars (third-party C, their external scanners of uneven care) are compiled: without
 * strict aliasing, under which GCC 12 compiles tree-sitter-haskell's scanner for aarch64 into one
 * that corrupts the heap (at -O2 and up; the same code with this flag parses correctly).
 */
const GRAMMAR_CFLAGS = '-fno-strict-aliasing';

/** The GNU triples of Debian's cross compilers (package g++-TRIPLE), by Node's name of the architecture. */
const LINUX_TRIPLES: Readonly<Record<string, string>> = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };

/** The compilers and objdump that build binaries for a linux platform here: the host's own (unset: node-gyp's defaults), or a cross toolchain. */
interface Toolchain {
  platform: string;
  arch: string;
  /** The cross tools, by the variable node-gyp's make files read them from (CC, CXX, LINK, AR); empty for the host's. */
  cross: Record<string, string>;
  cc: string;
  objdump: string;
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, command)));
}

/** The toolchain for `platform`; undefined when it is not linux, or no cross compiler for it is on PATH. */
function toolchain(platform: string): Toolchain | undefined {
  const [os, arch] = platform.split('-');
  if (os !== 'linux') return undefined;
  if (platform === hostPlatform()) return { platform, arch, cross: {}, cc: 'cc', objdump: 'objdump' };
  const triple = LINUX_TRIPLES[arch];
  if (triple === undefined) return undefined;
  const cross = { CC: `${triple}-gcc`, CXX: `${triple}-g++`, LINK: `${triple}-g++`, AR: `${triple}-ar` };
  const objdump = `${triple}-objdump`;
  if (![...Object.values(cross), objdump].every(onPath)) return undefined;
  return { platform, arch, cross, cc: cross.CC, objdump };
}

/**
 * A package's addon compiled by node-gyp from the installed package's sources for the toolchain's
 * platform, with libstdc++ linked in and the arc4random shim, checked to load on glibc 2.35 with
 * no system libstdc++. Cached outside node_modules (which npm ci removes), under the user's cache
 * folder, by the package's name and version, the platform and a digest of how it is built.
 */
function portableBuild(pkg: string, sourceDir: string, tools: Toolchain): string {
  const cflags = pkg === RUNTIME_PACKAGE ? [] : [GRAMMAR_CFLAGS];
  const recipe = createHash('sha256').update([PORTABLE_LDFLAGS, ARC4RANDOM_SHIM, run(tools.cc, ['--version']), ...cflags].join('\0')).digest('hex').slice(0, 16);
  const cacheRoot = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const cached = join(cacheRoot, 'repomap-pack', `${pkg.replace(/^@/, '').replace('/', '+')}-${version(sourceDir)}-${tools.platform}-${recipe}.node`);
  if (existsSync(cached)) return cached;
  const nodeGyp = process.env.npm_config_node_gyp;
  if (!nodeGyp) fail('run through npm (npm pack, or npm run prepack): node-gyp is found through npm');
  const work = mkdtempSync(join(tmpdir(), 'repomap-addon-'));
  try {
    const tree = join(work, 'package');
    cpSync(sourceDir, tree, { recursive: true, filter: (path) => !['build', 'prebuilds'].includes(basename(path)) });
    writeFileSync(join(work, 'arc4random.c'), ARC4RANDOM_SHIM);
    run(tools.cc, ['-O2', '-fPIC', '-fvisibility=hidden', '-c', join(work, 'arc4random.c'), '-o', join(work, 'arc4random.o')]);
    const env = { ...process.env, ...tools.cross, LDFLAGS: `${PORTABLE_LDFLAGS} ${join(work, 'arc4random.o')}`, CFLAGS: cflags.join(' '), NODE_PATH: join(packageRoot, 'node_modules') };
    const arch = Object.keys(tools.cross).length > 0 ? ['--arch', tools.arch] : [];
    run(process.execPath, [nodeGyp, 'rebuild', '--jobs', '2', ...arch], { cwd: tree, env });
    const built = onlyBinary(join(tree, 'build', 'Release'))!;
    checkSymbolVersions(built, tools.objdump);
    if (/GLIBCXX_/.test(run(tools.objdump, ['-T', built]))) fail(`${built} still needs the system's libstdc++`);
    mkdirSync(dirname(cached), { recursive: true });
    copyFileSync(built, `${cached}.${process.pid}`);
    renameSync(`${cached}.${process.pid}`, cached);
    return cached;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Per platform: the packages packed with no binary for it (why), and the runtime's prebuilt binary packed in place of a portable one; main reports them. */
const shortfalls = new Map<string, { packages: Map<string, string>; runtime?: string }>();

function shortfall(platform: string) {
  return shortfalls.get(platform) ?? shortfalls.set(platform, { packages: new Map() }).get(platform)!;
}

/**
 * The binary packed for `platform`, or undefined. `shipped` is the package's own (its prebuilt
 * one, or what this clone's install compiled for this machine); it is replaced by portableBuild's
 * where `platform` is linux, this machine has a toolchain for it, and `shipped` is missing, built
 * for another architecture, or `portable` is asked for (the runtime, whose own needs a newer libstdc++).
 */
function binaryFor(pkg: string, from: string, platform: string, shipped: string | undefined, portable: boolean): string | undefined {
  const present = shipped !== undefined && existsSync(shipped);
  const fits = present && builtFor(shipped, platform);
  const tools = fits && !portable ? undefined : toolchain(platform);
  if (tools) return portableBuild(pkg, from, tools);
  if (present && !fits) shortfall(platform).packages.set(pkg, 'published for another architecture');
  else if (!present && platform.startsWith('linux-') && platform !== hostPlatform()) shortfall(platform).packages.set(pkg, 'none published');
  else if (fits && portable && platform.startsWith('linux-')) shortfall(platform).runtime = shipped;
  return fits ? shipped : undefined;
}

/** The newest libstdc++ symbol version a binary refers to (read from its bytes: no objdump for its architecture is needed). */
function newestGlibcxx(binary: string): string | undefined {
  const tags = readFileSync(binary, 'latin1').match(/GLIBCXX_[0-9.]+[0-9]/g) ?? [];
  return tags.map((tag) => tag.split('_')[1]).sort((a, b) => compareVersions(a.split('.').map(Number), b.split('.').map(Number))).pop();
}

/** One line per platform packed short: what it got, what that means, and (linux) how to have the portable binaries built. */
function shortfallLines(): string[] {
  return [...shortfalls].map(([platform, { packages, runtime }]) => {
    const triple = platform.startsWith('linux-') ? LINUX_TRIPLES[platform.split('-')[1]] : undefined;
    const newest = runtime ? newestGlibcxx(runtime) : undefined;
    const needs = newest && compareVersions(newest.split('.').map(Number), MAX_GLIBCXX) > 0 ? `, which needs GLIBCXX_${newest} (so on Debian 12 and Ubuntu 22.04 languages fall back to WebAssembly)` : '';
    const byReason = new Map<string, string[]>();
    for (const [pkg, reason] of packages) byReason.set(reason, [...(byReason.get(reason) ?? []), pkg]);
    const missing = [...byReason].map(([reason, pkgs]) => `${pkgs.join(', ')} (${reason})`).join('; ');
    const what = [runtime ? `tree-sitter's prebuilt binary${needs}` : undefined, missing ? `no binary of ${missing}` : undefined].filter(Boolean).join(', and ');
    const how = triple ? `. For portable ones put ${triple}-g++ on PATH (Debian, Ubuntu: apt-get install g++-${triple})` : '';
    return `pack-grammars: ${platform} gets ${what}${how}`;
  });
}

/** The package's LICENSE file, and its package.json (its name, version and license, which is all some packages state it in). */
function copyNotices(from: string, to: string): void {
  copyFileSync(join(from, 'package.json'), join(to, 'package.json'));
  const license = readdirSync(from).find((name) => /^licen[cs]e/i.test(name));
  if (license) copyFileSync(join(from, license), join(to, license));
}

/** The runtime: package.json, LICENSE, index.js loading its binary by path (not through node-gyp-build, which the pack leaves out), and the binaries. */
function packRuntime(staging: string): string[] {
  const from = installedDir(RUNTIME_PACKAGE);
  const to = join(staging, RUNTIME_PACKAGE);
  mkdirSync(to, { recursive: true });
  copyNotices(from, to);
  const byGypBuild = "require('node-gyp-build')(__dirname)";
  const index = readFileSync(join(from, 'index.js'), 'utf8');
  if (!index.includes(byGypBuild)) fail(`tree-sitter ${version(from)}'s index.js no longer loads its binary with ${byGypBuild}: update pack-grammars.ts`);
  writeFileSync(join(to, 'index.js'), index.replace(byGypBuild, 'require(`./prebuilds/${process.platform}-${process.arch}/tree-sitter.node`)'));
  const platforms: string[] = [];
  for (const platform of PACKED_PLATFORMS) {
    const binary = binaryFor(RUNTIME_PACKAGE, from, platform, join(from, 'prebuilds', platform, 'tree-sitter.node'), true);
    if (!binary) continue;
    mkdirSync(join(to, 'prebuilds', platform), { recursive: true });
    copyFileSync(binary, join(to, 'prebuilds', platform, 'tree-sitter.node'));
    platforms.push(platform);
  }
  return platforms;
}

/**
 * A grammar package: its native binaries and its WebAssembly files. The binaries are the package's
 * prebuilt ones; for a package that publishes none, the one this clone's install compiled, for
 * this platform, and portableBuild's for the other linux platforms a cross compiler is here for.
 */
function packGrammar(staging: string, pkg: string, native: boolean, wasmFiles: readonly string[]): string[] {
  const from = installedDir(pkg);
  const to = join(staging, pkg);
  mkdirSync(to, { recursive: true });
  copyNotices(from, to);
  const platforms: string[] = [];
  const prebuilt = existsSync(join(from, 'prebuilds'));
  for (const platform of native ? PACKED_PLATFORMS : []) {
    const shipped = prebuilt ? onlyBinary(join(from, 'prebuilds', platform)) : platform === hostPlatform() ? onlyBinary(join(from, 'build', 'Release')) : undefined;
    const binary = binaryFor(pkg, from, platform, shipped, false);
    if (!binary) continue;
    if (binary === shipped && !prebuilt && process.platform === 'linux') checkSymbolVersions(binary, 'objdump');
    copyFileSync(binary, join(to, binaryName(platform)));
    platforms.push(platform);
  }
  for (const file of wasmFiles) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(from, file), join(to, file));
  }
  return platforms;
}

function sizeOf(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
}

function main(): void {
  // Each grammar package once: whether its native binaries are packed, and its WebAssembly files that languages run on or fall back to.
  const packages = new Map<string, { native: boolean; files: Set<string> }>();
  const entry = (pkg: string) => packages.get(pkg) ?? packages.set(pkg, { native: false, files: new Set() }).get(pkg)!;
  for (const lang of LANGUAGES) {
    const grammar = lang.grammar;
    if (grammar.runtime === 'native') entry(grammar.package).native = true;
    const builds = grammar.runtime === 'native' ? (grammar.wasm ?? []) : grammar.runtime === 'wasm' ? [grammar] : [];
    for (const build of builds) if (build.inPackage) entry(build.package).files.add(build.inPackage);
  }
  // Written beside, then put in place: a test running from this dist/ meanwhile finds the old folder or the new one, whole.
  const staging = `${BUNDLE_DIR}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const lines = [`tree-sitter: ${packRuntime(staging).join(' ')}`];
  for (const [pkg, { native, files }] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
    const platforms = packGrammar(staging, pkg, native, [...files].sort());
    lines.push(`${pkg}: ${native ? platforms.join(' ') || 'no binary' : 'no native binary'}${files.size > 0 ? ` + ${files.size} wasm` : ''}`);
  }
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  renameSync(staging, BUNDLE_DIR);
  process.stdout.write(`${[...lines, ...shortfallLines()].join('\n')}\npack-grammars: ${packages.size} packages, ${(sizeOf(BUNDLE_DIR) / 2 ** 20).toFixed(1)} MiB in ${BUNDLE_DIR}\n`);
}

main();
