// The project config: `repomap.config.json` at the root, or the `repomap` key of the root's
// package.json. One schema and one normalisation, read by every command, the daemon (which reads
// it again when it changes) and the library. Light on purpose: the thin client loads it.
import { join } from 'node:path';
import { MAX_CONFIG_BYTES, parseJson, readBoundedText } from './bounded-read.js';
import { badRequest, quoted, quotedJson } from './errors.js';
import { escapeControls, resolveRoot, rootRelativeGlobs, shownQuoted } from './paths.js';
import { type LanguageConfig, checkLanguagesConfig } from './extract/user-languages.js';
import { ENCODINGS, MAX_FILE_BYTES_LIMIT, MAX_TOKENS } from './api/request.js';

export const CONFIG_FILE = 'repomap.config.json';

/** What a project config sets; a value given by a flag or a caller wins over it. */
export interface ProjectConfig {
  /** Globs of paths to leave out (as --exclude; an absolute one inside the root is taken from it). */
  exclude?: readonly string[];
  /** Globs of the files to index; when set, a file none matches is left out (as if excluded). */
  include?: readonly string[];
  /** The token budget of a map (as --tokens). */
  tokens?: number;
  /** The cap of the enlarged default budget (as --max-tokens). */
  maxTokens?: number;
  /** The tiktoken encoding (as --encoding). */
  encoding?: string;
  /** Parse threads (as --workers). */
  workers?: number;
  /** Files larger than this are skipped unread (as --max-file-bytes). */
  maxFileBytes?: number;
  /** A daemon exits after this many seconds without a request, 0 = never (as --idle-timeout). */
  idleTimeoutSeconds?: number;
  /** Languages the project adds, or built-in ones it changes, by id (see user-languages.ts). */
  languages?: Readonly<Record<string, LanguageConfig>>;
}

/** A project config and where it was read from (undefined: the root has none). */
export interface LoadedConfig {
  config: ProjectConfig;
  source?: string;
}

/**
 * What a key's value must be, which a message follows with the value given; `{ parts }` for a value
 * of many parts (`languages`): what it must be and which part is not, said without the whole value.
 */
type Check = (value: unknown) => string | { parts: string } | undefined;

/** The most globs `exclude` or `include` may list: each is matched against every path of the tree. */
export const MAX_GLOBS = 1000;

const globs: Check = (value) =>
  !Array.isArray(value) || !value.every((item) => typeof item === 'string' && item !== '') ? 'a list of glob strings' : value.length > MAX_GLOBS ? `a list of at most ${MAX_GLOBS} glob strings` : undefined;
const whole =
  (min: number, max = Number.MAX_SAFE_INTEGER): Check =>
  (value) =>
    typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
      ? undefined
      : min === 0
        ? 'a whole number of seconds, 0 or more'
        : `a positive whole number${max < Number.MAX_SAFE_INTEGER ? ` of at most ${max}` : ''}`;
const encoding: Check = (value) => (typeof value === 'string' && (ENCODINGS as readonly string[]).includes(value) ? undefined : `one of ${ENCODINGS.join(', ')}`);

/** The file's keys, what each must be, and the option it sets. */
/** A key of the config file (`idleTimeout` is the option idleTimeoutSeconds). */
export type ConfigKey = 'exclude' | 'include' | 'tokens' | 'maxTokens' | 'encoding' | 'workers' | 'maxFileBytes' | 'idleTimeout' | 'languages';

const KEYS: Readonly<Record<ConfigKey, { check: Check; option: keyof ProjectConfig }>> = {
  exclude: { check: globs, option: 'exclude' },
  include: { check: globs, option: 'include' },
  tokens: { check: whole(1, MAX_TOKENS), option: 'tokens' },
  maxTokens: { check: whole(1, MAX_TOKENS), option: 'maxTokens' },
  encoding: { check: encoding, option: 'encoding' },
  workers: { check: whole(1), option: 'workers' },
  maxFileBytes: { check: whole(1, MAX_FILE_BYTES_LIMIT), option: 'maxFileBytes' },
  idleTimeout: { check: whole(0), option: 'idleTimeoutSeconds' },
  languages: {
    check: (value) => {
      const wrong = checkLanguagesConfig(value);
      return wrong === undefined ? undefined : { parts: wrong };
    },
    option: 'languages',
  },
};

/**
 * The keys of an index and of the daemon that keeps it (`repomap start`, `restart`, `symbols`):
 * not those of a map's request (tokens, maxTokens, encoding), which a daemon applies to each map.
 */
export const INDEX_CONFIG_KEYS: readonly ConfigKey[] = ['exclude', 'include', 'workers', 'maxFileBytes', 'idleTimeout', 'languages'];

/** The keys of a map made in-process (`repomap map`): every key but the daemon's idle timeout. */
export const MAP_CONFIG_KEYS: readonly ConfigKey[] = ['exclude', 'include', 'tokens', 'maxTokens', 'encoding', 'workers', 'maxFileBytes', 'languages'];

/**
 * A help text's lines about the config, naming the keys the command reads (default: every key, as a
 * daemon reads them all): a key a command ignores is not listed as if it applied.
 */
export function configHelp(keys: readonly ConfigKey[] = Object.keys(KEYS) as ConfigKey[]): string {
  return `Options not given are taken from ROOT's project config, ${CONFIG_FILE} or the 'repomap' key of
its package.json (keys read here: ${keys.join(', ')}).
`;
}

/**
 * The one normalisation of a project config: an object of known keys with values of the right
 * type. Anything else is a one-line bad-request RepomapError naming the key and the file.
 */
export function parseProjectConfig(raw: unknown, source: string): ProjectConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest(`${source}: the config must be a JSON object`);
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const spec = Object.hasOwn(KEYS, key) ? KEYS[key as ConfigKey] : undefined;
    if (!spec) throw badRequest(`${source}: unknown key '${shownQuoted(key)}' (known: ${Object.keys(KEYS).join(', ')})`);
    const expected = spec.check(value);
    if (typeof expected === 'string') throw badRequest(`${source}: '${key}' must be ${expected}, not ${quotedJson(value)}`);
    if (expected) throw badRequest(`${source}: '${key}' must be ${expected.parts}`);
    config[spec.option] = Array.isArray(value) ? [...(value as string[])] : value;
  }
  return config as ProjectConfig;
}

/**
 * The root's project config: repomap.config.json if it exists, else the `repomap` key of its
 * package.json, else none. Both are read as readBounded reads (regular files of at most 1 MiB,
 * inside the root once symlinks are resolved); a file that cannot be read so, or is not JSON, is a
 * bad-request RepomapError naming it.
 */
export function readProjectConfig(root: string): LoadedConfig {
  const file = join(root, CONFIG_FILE);
  const own = readBoundedText(file, { maxBytes: MAX_CONFIG_BYTES, root });
  if (own !== undefined) return { config: withGlobsInRoot(root, parseProjectConfig(parseJson(own, file), file), file), source: file };
  const pkgFile = join(root, 'package.json');
  const pkg = readBoundedText(pkgFile, { maxBytes: MAX_CONFIG_BYTES, root });
  if (pkg === undefined) return { config: {} };
  let manifest: unknown;
  try {
    manifest = JSON.parse(pkg);
  } catch {
    return { config: {} }; // a broken package.json is the project's business, unless it holds our key
  }
  if (typeof manifest !== 'object' || manifest === null || !Object.hasOwn(manifest, 'repomap')) return { config: {} };
  const source = `${pkgFile} (key 'repomap')`;
  return { config: withGlobsInRoot(root, parseProjectConfig((manifest as Record<string, unknown>).repomap, source), source), source };
}

/**
 * The config, once its exclude and include globs are known to lie in the root (see
 * rootRelativeGlob): one outside it is a mistake of the file, said naming it when the file is read
 * (by a command before it starts a daemon, by a daemon before it applies a change), not later by a
 * matcher. The globs are kept as written; the matchers take them from the root.
 */
function withGlobsInRoot(root: string, config: ProjectConfig, source: string): ProjectConfig {
  for (const option of ['exclude', 'include'] as const) rootRelativeGlobs(root, config[option] ?? [], `${source}: ${option}`);
  return config;
}

/** Whether a changed path (relative to the root) can change the project config. */
export function isConfigPath(path: string): boolean {
  return path === CONFIG_FILE || path === 'package.json';
}

/** `given` with the config's values where it has none: a flag or a caller's option wins. */
export function withProjectConfig<T extends ProjectConfig>(given: T, config: ProjectConfig): T {
  const merged: ProjectConfig = { ...given };
  for (const key of Object.keys(config) as Array<keyof ProjectConfig>) {
    if (merged[key] === undefined) (merged as Record<string, unknown>)[key] = config[key];
  }
  return merged as T;
}

/** Options for a root, with its project config applied unless the caller says `projectConfig: false`. */
export async function applyProjectConfig<T extends ProjectConfig & { root: string; projectConfig?: boolean }>(options: T): Promise<T> {
  if (options.projectConfig === false) return options;
  return withProjectConfig(options, readProjectConfig(await resolveRoot(options.root)).config);
}

