// The request schema: every field of a map request (and of a symbol query) written once, with its
// type, bounds and help. The CLI's request options and their help lines (cli/request-options.ts),
// the daemon's params validation (parseMapParams, parseSymbolParams), the MCP tools' input schemas
// (mcp/server.ts) and the MapRequest and SymbolQuery types are derived from it. A leaf: the thin
// client loads it, so it imports nothing heavy.
import { badRequest, quoted, quotedJson } from '../errors.js';

export const DEFAULT_TOKENS = 1024;
export const DEFAULT_MAX_TOKENS = 8192;
/** The largest budget a request may ask for (`tokens` and `maxTokens`): it bounds one request's work. */
export const MAX_TOKENS = 65536;
/** The largest `maxFileBytes` (64 MiB), as a flag, a config key or an option: a file is read whole, and parsed, in memory, on each parse thread. */
export const MAX_FILE_BYTES_LIMIT = 64 * 1024 * 1024;
/** The longest `message` a request may give, in characters: it bounds the words and identifiers taken from it (eval cuts a commit's message to it). */
export const MAX_MESSAGE_CHARS = 65536;
/** With no chat files the model knows nothing of the repository yet: the budget grows (Aider's map_mul_no_files). */
export const NO_CHAT_MULTIPLIER = 8;
export const DEFAULT_ENCODING = 'cl100k_base';
/** The tiktoken encodings a map can count with. */
export const ENCODINGS = ['cl100k_base', 'o200k_base', 'p50k_base', 'p50k_edit', 'r50k_base', 'gpt2'] as const;

/** The rankings a map can use: this project's (the default) and Aider's, reproduced exactly. */
export const RANKINGS = ['repomap', 'aider'] as const;
export type RankingName = (typeof RANKINGS)[number];
export const DEFAULT_RANKING: RankingName = 'repomap';

/** What a field holds; each kind has one check (FIELD_RULES) and one form in each derived schema. */
export type FieldKind = 'strings' | 'string' | 'count' | 'seconds' | 'boolean' | 'choice';
/** What a value is checked as: a request field's kinds, and those only the library's own options have (see api/options.ts). */
export type ValueKind = FieldKind | 'globs' | 'folder' | 'function' | 'whole seconds';

/** How a value is checked: its kind, and what the kind needs. */
export interface ValueSpec {
  kind: ValueKind;
  /** A `choice` field's values. */
  choices?: readonly string[];
  /** A `string` field that must be given, and not empty. */
  required?: true;
  /** A `count` field's largest value; a `string` field's most characters. */
  max?: number;
}

export interface FieldSpec extends ValueSpec {
  kind: FieldKind;
  /** What the field is, in a line: its documentation. */
  help: string;
  /** Its command-line option (`repomap map` and `query` for a map request, `repomap symbols` for a symbol query; none: no command sets it). */
  cli?: { flag: string; value?: string; help: readonly string[] };
  /** Its MCP tool argument (none: the tool does not take it). */
  mcp?: { name: string; help: string };
}

/**
 * The fields of a map request, in the order the CLI's help, the daemon's messages and the MCP
 * tool list them. Paths are relative to the root (or absolute, inside it).
 */
export const MAP_REQUEST = {
  chatFiles: {
    kind: 'strings',
    help: 'Files the model already has in full: the map shows first the code they use, and the ranking starts from them; they are not rendered.',
    cli: {
      flag: 'chat',
      value: 'FILE',
      help: ['a file the model already has (repeatable): not shown; the map shows the code it', 'uses first, and ranks from it (a path from the current directory, else from ROOT)'],
    },
    mcp: {
      name: 'chat_files',
      help: 'Paths (relative to the repository root) of files already in the conversation; they are not shown, but what they use ranks first.',
    },
  },
  mentionedFiles: {
    kind: 'strings',
    help: 'Files the user or the task mentions: they rank higher.',
    mcp: { name: 'mentioned_files', help: 'Paths the user or task mentions.' },
  },
  mentionedIdents: {
    kind: 'strings',
    help: 'Identifiers the user or the task mentions: their definitions are shown first.',
    cli: { flag: 'mention', value: 'IDENT', help: ['an identifier the user mentioned (repeatable): its definitions are shown first'] },
    mcp: { name: 'mentioned_identifiers', help: 'Function, class or variable names the task mentions.' },
  },
  message: {
    kind: 'string',
    max: MAX_MESSAGE_CHARS,
    help: `The user's request as free text, at most ${MAX_MESSAGE_CHARS} characters: identifiers and file names are taken from it.`,
    cli: { flag: 'message', value: 'TEXT', help: ["the user's request; identifiers and file names are taken from it", `(at most ${MAX_MESSAGE_CHARS} characters)`] },
    mcp: { name: 'message', help: `The user's request as free text (at most ${MAX_MESSAGE_CHARS} characters); identifiers and file names are taken from it.` },
  },
  tokens: {
    kind: 'count',
    max: MAX_TOKENS,
    help: `Token budget, at most ${MAX_TOKENS}. Given, it is the budget; left out, it is ${DEFAULT_TOKENS}, multiplied by ${NO_CHAT_MULTIPLIER} when there are no chat files, at most maxTokens.`,
    cli: {
      flag: 'tokens',
      value: 'N',
      help: [
        `token budget, at most ${MAX_TOKENS}; given, it is the cap. Without it the budget is`,
        `${DEFAULT_TOKENS}, x${NO_CHAT_MULTIPLIER} when no --chat is given, at most --max-tokens`,
      ],
    },
    // Given, it is the budget: the most the map may use.
    mcp: { name: 'max_tokens', help: `The most tokens the map may use (default ${DEFAULT_TOKENS} with chat_files, ${DEFAULT_MAX_TOKENS} without).` },
  },
  maxTokens: {
    kind: 'count',
    max: MAX_TOKENS,
    help: `The cap of the default budget, used when tokens is left out (default ${DEFAULT_MAX_TOKENS}), at most ${MAX_TOKENS}.`,
    cli: { flag: 'max-tokens', value: 'N', help: [`cap of that default budget (default ${DEFAULT_MAX_TOKENS})`] },
  },
  encoding: {
    // Checked by the tokenizer, which names the encodings it knows.
    kind: 'string',
    help: `The tiktoken encoding used to count tokens (default ${DEFAULT_ENCODING}).`,
    cli: { flag: 'encoding', value: 'NAME', help: [`tiktoken encoding for counting (default ${DEFAULT_ENCODING})`] },
  },
  markdown: {
    kind: 'boolean',
    help: "Put each file's lines in a fenced block (markdown), for chat UIs.",
    // The CLI's --format also chooses JSON output, which is no field of the request.
    cli: { flag: 'format', value: 'FMT', help: ['text (default), markdown (each file in a fenced block) or json'] },
  },
  preamble: {
    kind: 'boolean',
    help: 'Start the map with a short instruction that the files shown are read-only summaries.',
    cli: { flag: 'preamble', help: ['start the map with an instruction: these files are read-only summaries'] },
  },
  ranking: {
    kind: 'choice',
    choices: RANKINGS,
    help: `Which ranking model orders the map (default ${DEFAULT_RANKING}, this project's; aider reproduces Aider's).`,
    cli: { flag: 'ranking', value: 'NAME', help: ["repomap (default: this project's model) or aider (Aider's, reproduced exactly)"] },
  },
  waitSeconds: {
    kind: 'seconds',
    help:
      'While a first index is being built: answer after at most this many seconds from the files indexed by then, those the request ' +
      'needs parsed first (a partial map, marked so). Left out, the map waits for the whole index.',
    cli: {
      flag: 'wait',
      value: 'SECS',
      help: [
        'while a first index is being built, answer after at most SECS seconds from the',
        'files indexed by then, those the request needs (--chat files, their imports,',
        'their folders, the files using their names) parsed first: a partial map,',
        'marked so (a first line in text, "partial" in JSON). Default: wait for the',
        'whole index',
      ],
    },
  },
  listSkipped: {
    kind: 'boolean',
    help: 'List every skipped file in skippedFiles (default false: on a large repository it runs to thousands; the counts are always there).',
  },
  verboseHint: {
    kind: 'boolean',
    help: "Whether the map's last line (the skipped files by reason) ends saying --verbose lists them (default true; MCP answers have no flags).",
  },
} as const satisfies Record<string, FieldSpec>;

/** The fields of a symbol query (`repomap symbols`, the daemon's `symbols`, MCP's find_symbol). */
export const SYMBOL_QUERY = {
  name: {
    kind: 'string',
    required: true,
    help: 'The name to look up.',
    mcp: { name: 'name', help: 'The identifier to look up, e.g. authenticate or UserService.' },
  },
  prefix: {
    kind: 'boolean',
    help: 'Match names starting with `name` (ignoring case) instead of the exact name.',
    cli: { flag: 'prefix', help: ['match names starting with NAME, ignoring case'] },
    mcp: { name: 'prefix', help: 'Match names starting with name, ignoring case.' },
  },
  limit: {
    kind: 'count',
    help: 'At most this many definitions, and the references on at most this many lines (default 20): references of one name and kind on one line are one line, shown whole.',
    cli: { flag: 'limit', value: 'N', help: ['at most N definitions and N lines of references (default 20; the', 'references on one line are one line)'] },
    mcp: { name: 'limit', help: 'At most this many definitions, and this many lines of references (default 20; the references on one line are one line).' },
  },
} as const satisfies Record<string, FieldSpec>;

/** The value a field of this spec holds. */
type ValueOf<S> = S extends { kind: 'strings' }
  ? readonly string[]
  : S extends { kind: 'string' }
    ? string
    : S extends { kind: 'count' | 'seconds' }
      ? number
      : S extends { kind: 'boolean' }
        ? boolean
        : S extends { kind: 'choice'; choices: ReadonlyArray<infer C> }
          ? C
          : never;

type RequiredKeys<F> = { [K in keyof F]: F[K] extends { required: true } ? K : never }[keyof F];

/** The object a set of fields describes: each field optional unless `required`. */
export type FieldsOf<F> = { -readonly [K in Exclude<keyof F, RequiredKeys<F>>]?: ValueOf<F[K]> } & {
  -readonly [K in RequiredKeys<F>]: ValueOf<F[K]>;
};

/** What a map is asked for (see MAP_REQUEST for each field). */
export type MapRequest = FieldsOf<typeof MAP_REQUEST>;
/** What a symbol lookup is asked for (see SYMBOL_QUERY). */
export type SymbolQuery = FieldsOf<typeof SYMBOL_QUERY>;

/**
 * How a caller names the fields of a request: a message about a field names it as the caller
 * wrote it (a flag, an MCP argument, the field itself), so that the caller can find what to fix.
 * Every check below takes one; the schema holds each vocabulary (FieldSpec's `cli` and `mcp`).
 */
export type FieldNames = (field: string, spec: FieldSpec) => string;

/** The fields' own names: the daemon's params, the library's options. */
export const FIELD_NAMES: FieldNames = (field) => field;
/** The command line's options (`--tokens`); a field no option sets keeps its name. */
export const OPTION_NAMES: FieldNames = (field, spec) => (spec.cli ? `--${spec.cli.flag}` : field);
/** The MCP tools' arguments (`max_tokens`); a field no argument sets (the server's own) keeps its name. */
export const MCP_NAMES: FieldNames = (field, spec) => spec.mcp?.name ?? field;

/** A list of strings, none empty: an empty one names no file, identifier or glob (a mistake, not a request for nothing). */
const nonEmptyStrings = (v: unknown) => Array.isArray(v) && v.every((item) => typeof item === 'string' && item !== '');

/** Each kind's check, and what a value of it must be (the daemon's message says so). */
const FIELD_RULES: Record<ValueKind, [(value: unknown, spec: ValueSpec) => boolean, (spec: ValueSpec) => string]> = {
  strings: [nonEmptyStrings, () => 'a list of non-empty strings'],
  globs: [nonEmptyStrings, () => 'a list of globs (non-empty strings)'],
  // Empty, a folder would be the working one (or the default, taken as not given), without a word.
  folder: [(v) => typeof v === 'string' && v !== '', () => 'a folder (a non-empty string)'],
  function: [(v) => typeof v === 'function', () => 'a function'],
  'whole seconds': [(v) => typeof v === 'number' && Number.isInteger(v) && v >= 0, () => 'a whole number of seconds, 0 or more'],
  string: [(v, spec) => typeof v === 'string' && !(spec.required && v === ''), (spec) => (spec.required ? 'a non-empty string' : 'a string')],
  count: [(v) => typeof v === 'number' && Number.isInteger(v) && v > 0, () => 'a positive whole number'],
  seconds: [(v) => typeof v === 'number' && Number.isFinite(v) && v >= 0, () => 'a number of seconds, 0 or more'],
  boolean: [(v) => typeof v === 'boolean', () => 'true or false'],
  choice: [(v, spec) => typeof v === 'string' && (spec.choices ?? []).includes(v), (spec) => `one of ${(spec.choices ?? []).join(', ')}`],
};

/** Whether a value is one a field of this spec holds. */
function validValue(spec: ValueSpec, value: unknown): boolean {
  return FIELD_RULES[spec.kind][0](value, spec);
}

/** What a value of this spec must be, in words ("a positive whole number"). */
function expectedValue(spec: ValueSpec): string {
  return FIELD_RULES[spec.kind][1](spec);
}

/** A value as a message shows it: what the caller gave (-1, "3", ["a"]), one line, cut as quotedJson cuts it. */
function shownValue(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return quotedJson(value);
}

/** What checkFields checks, as its messages name it: the daemon's params, or a library function's options. */
export interface Checked {
  /** The whole object ("params"). */
  what: string;
  /** One of its properties no field has (its name cut as quoted cuts it): the message's start. */
  unknown: (key: string) => string;
}

const DAEMON_PARAMS: Checked = { what: 'params', unknown: (key) => `unknown param '${key}'` };

/**
 * Checks params field by field, as a request from outside this process (the daemon's socket, a
 * library caller's options) comes: an object, every field known (a typo does not pass silently),
 * each of its type, the required ones given. A bad-request RepomapError naming the field otherwise.
 */
export function checkFields<F extends Record<string, ValueSpec>>(params: unknown, fields: F, checked: Checked = DAEMON_PARAMS): FieldsOf<F> {
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) throw badRequest(`${checked.what} must be an object`);
  const given = (params ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    // Own fields only: a param named after an Object.prototype member (constructor, __proto__) is unknown too.
    if (!Object.hasOwn(fields, key)) throw badRequest(`${checked.unknown(quoted(key))} (known: ${Object.keys(fields).join(', ')})`);
  }
  checkValues(given, fields);
  return given as FieldsOf<F>;
}

/** Checks the values of the fields an object gives (its other properties are not looked at): the first wrong one is refused. */
function checkValues<S extends ValueSpec>(given: Readonly<Record<string, unknown>>, fields: Readonly<Record<string, S>>, names: (field: string, spec: S) => string = (field) => field): void {
  const [first] = valueErrors(given, fields, names);
  if (first !== undefined) throw badRequest(first);
}

/** What is wrong with each field an object gives, or leaves out when it is required, in the fields' order (see checkValues). */
export function valueErrors<S extends ValueSpec>(given: Readonly<Record<string, unknown>>, fields: Readonly<Record<string, S>>, names: (field: string, spec: S) => string): string[] {
  const errors: string[] = [];
  for (const [key, spec] of Object.entries(fields)) {
    const value = Object.hasOwn(given, key) ? given[key] : undefined;
    const wrong = value === undefined ? (spec.required ? `${names(key, spec)} must be ${expectedValue(spec)}` : undefined) : valueError(spec, value, names(key, spec));
    if (wrong !== undefined) errors.push(wrong);
  }
  return errors;
}

/** What is wrong with a value given for a field of this spec, named `name`; undefined when nothing is. */
function valueError(spec: ValueSpec, value: unknown, name: string): string | undefined {
  if (!validValue(spec, value)) return `${name} must be ${expectedValue(spec)}, not ${shownValue(value)}`;
  if (spec.max === undefined) return undefined;
  // A string's bound is on its length, and the message gives the length only: the text can be megabytes.
  if (typeof value === 'string') return value.length > spec.max ? `${name} must be at most ${spec.max} characters, not ${value.length}` : undefined;
  if ((value as number) > spec.max) return `${name} must be at most ${spec.max}, not ${shownValue(value)}`;
  return undefined;
}

/**
 * Text that is no caller's request but is taken as one (a commit message eval mines), cut to what a
 * request may give (MAX_MESSAGE_CHARS) at the end of a word: a request over the bound is refused,
 * such text is taken in part, the words and identifiers of a bounded text.
 */
export function messageWithinBound(text: string): string {
  if (text.length <= MAX_MESSAGE_CHARS) return text;
  const cut = text.slice(0, MAX_MESSAGE_CHARS + 1);
  // The word the bound falls in is left out whole (one cut in two would be a word the text does not have).
  const end = cut.search(/\s\S*$/u);
  return end > 0 ? cut.slice(0, end) : cut.slice(0, MAX_MESSAGE_CHARS);
}

/** The daemon's `map` params, checked (see checkFields). */
export function parseMapParams(params: unknown): MapRequest {
  return checkFields(params, MAP_REQUEST);
}

/** The daemon's `symbols` params, checked (see checkFields). */
export function parseSymbolParams(params: unknown): SymbolQuery {
  return checkFields(params, SYMBOL_QUERY);
}

/** A request, checked as the daemon checks its params; the options beside the request's fields are left alone. */
function checkMapRequest(options: MapRequest, names: FieldNames): void {
  checkValues(options as Readonly<Record<string, unknown>>, MAP_REQUEST, names);
}

/**
 * The bound of a request's wait in milliseconds (undefined: no bound), refused when it is no number
 * of seconds. Only the daemon and the library get here with a bad one (the command line checks
 * --wait as it reads it, and MCP sets its own): the field is named as they name it.
 */
export function waitBoundMs(waitSeconds: number | undefined): number | undefined {
  if (waitSeconds === undefined) return undefined;
  const spec = MAP_REQUEST.waitSeconds;
  if (!validValue(spec, waitSeconds)) throw badRequest(`waitSeconds must be ${expectedValue(spec)}, not ${String(waitSeconds)}`);
  return waitSeconds * 1000;
}

/**
 * The token budget of a request, once the request is checked (every path to a map comes here
 * first), a bad field named as `names` says. A budget the caller gives is the cap; the default
 * grows when there is no chat file, and maxTokens caps it either way.
 */
export function budgetFor(request: MapRequest, names: FieldNames = FIELD_NAMES): number {
  const tokens = tokenCount(request.tokens ?? DEFAULT_TOKENS, names('tokens', MAP_REQUEST.tokens));
  const maxTokens = tokenCount(request.maxTokens ?? DEFAULT_MAX_TOKENS, names('maxTokens', MAP_REQUEST.maxTokens));
  checkMapRequest(request, names);
  if (request.tokens !== undefined) return tokens;
  // The default, enlarged or not, never past maxTokens: a cap below the default makes a smaller map.
  const fallback = (request.chatFiles ?? []).length > 0 ? tokens : tokens * NO_CHAT_MULTIPLIER;
  return Math.min(fallback, maxTokens);
}

function tokenCount(value: number, name: string): number {
  const wrong = valueError(MAP_REQUEST.tokens, value, name);
  if (wrong !== undefined) throw badRequest(wrong);
  return value;
}
