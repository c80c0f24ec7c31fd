// The options that shape one map, shared by `repomap map` (in-process) and `repomap query`
// (through the daemon): derived from the request schema (api/request.ts), each field's option,
// its help line and its parsing. Light on purpose: the thin client loads it.
import { isAbsolute, relative, resolve } from 'node:path';
import { entryAt, pathFromRoot, requestFilePath, shellWord, shownPath } from '../paths.js';
import { badRequest, quoted } from '../errors.js';
import { type FieldSpec, MAP_REQUEST, type MapRequest, OPTION_NAMES, budgetFor } from '../api/request.js';
import { type OptionSpec, choiceOption, integerOption, secondsOption } from './args.js';

type RequestField = keyof typeof MAP_REQUEST;
type CliField = { [K in RequestField]: (typeof MAP_REQUEST)[K] extends { cli: object } ? K : never }[RequestField];
type FlagOf<K extends CliField> = (typeof MAP_REQUEST)[K]['cli']['flag'];
type CliSpec = FieldSpec & { cli: NonNullable<FieldSpec['cli']> };

/** A schema's fields that have an option, in its order (as the help lists them). */
function cliFields(schema: Readonly<Record<string, FieldSpec>>): string[] {
  return Object.keys(schema).filter((field) => schema[field].cli !== undefined);
}

/**
 * The option of a field: repeatable for a list, a flag for a boolean, a value otherwise. `--format`
 * (the markdown field) takes a value: it also chooses JSON output, which is no field.
 */
function optionOf(spec: CliSpec): OptionSpec[string] {
  if (spec.kind === 'strings') return { type: 'string', multiple: true };
  if (spec.kind === 'boolean' && spec.cli.flag !== 'format') return { type: 'boolean' };
  return { type: 'string' };
}

/** The options of a schema's fields, for parseCommandArgs. */
export function optionsOf(schema: Readonly<Record<string, FieldSpec>>): OptionSpec {
  return Object.fromEntries(cliFields(schema).map((field) => [schema[field].cli!.flag, optionOf(schema[field] as CliSpec)]));
}

/** Where an option's help starts, after `  --flag VALUE`. */
const HELP_COLUMN = 23;

/** The help lines of a schema's options. */
export function helpOf(schema: Readonly<Record<string, FieldSpec>>): string {
  return cliFields(schema)
    .map((field) => {
      const { flag, value, help } = schema[field].cli!;
      const [first, ...more] = help;
      const head = `  --${flag}${value ? ` ${value}` : ''}`.padEnd(HELP_COLUMN);
      return [head + first, ...more.map((line) => ' '.repeat(HELP_COLUMN) + line)].map((line) => line + '\n').join('');
    })
    .join('');
}

/** A field's value from its option's text, checked as its kind says (undefined: the option is not given). */
function fieldValue(spec: CliSpec, given: unknown): unknown {
  if (spec.kind === 'strings') return given ?? []; // lists are always given (empty: none)
  if (given === undefined || given === false) return undefined;
  switch (spec.kind) {
    case 'count':
      return integerOption(given as string, spec.cli.flag);
    case 'seconds':
      return secondsOption(given as string, spec.cli.flag);
    case 'choice':
      return choiceOption(given as string, spec.cli.flag, spec.choices ?? [], given as string);
    default:
      return given;
  }
}

/** The fields a schema's options give (by parseCommandArgs' values), each checked; `skip` are set by the caller. */
export function fieldsFromOptions(schema: Readonly<Record<string, FieldSpec>>, values: Readonly<Record<string, unknown>>, skip: readonly string[] = []): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const field of cliFields(schema)) {
    if (skip.includes(field)) continue;
    const value = fieldValue(schema[field] as CliSpec, values[schema[field].cli!.flag]);
    if (value !== undefined) fields[field] = value;
  }
  return fields;
}

export const REQUEST_OPTIONS = optionsOf(MAP_REQUEST) as {
  [K in CliField as FlagOf<K>]: K extends 'markdown' ? { type: 'string' } : (typeof MAP_REQUEST)[K]['kind'] extends 'strings' ? { type: 'string'; multiple: true } : (typeof MAP_REQUEST)[K]['kind'] extends 'boolean' ? { type: 'boolean' } : { type: 'string' };
};

export const REQUEST_HELP = helpOf(MAP_REQUEST);

type RequestValues = { [K in keyof typeof REQUEST_OPTIONS]?: (typeof REQUEST_OPTIONS)[K] extends { multiple: true } ? string[] : (typeof REQUEST_OPTIONS)[K] extends { type: 'boolean' } ? boolean : string };

/**
 * The request the options describe (`map`'s and `query`'s, --verbose included); chat files are
 * taken from the current directory or the root (see chatFilePath) and checked.
 */
export function requestFromOptions(values: RequestValues & { verbose?: boolean }, root: string): { request: MapRequest; format: 'text' | 'json' } {
  const chosen = choiceOption(values.format, 'format', ['text', 'markdown', 'json'] as const, 'text');
  const request: Record<string, unknown> = fieldsFromOptions(MAP_REQUEST, values, ['markdown']);
  if (chosen === 'markdown') request.markdown = true;
  // --verbose lists the skipped files (on stderr, and in JSON): the map's last line need not say it would.
  if (values.verbose) Object.assign(request, { listSkipped: true, verboseHint: false } satisfies MapRequest);
  request.chatFiles = (values.chat ?? []).map((file) => chatFilePath(root, file));
  budgetFor(request, OPTION_NAMES); // a bad budget is refused, naming its option, before any work (or a daemon) is started
  return { request, format: chosen === 'json' ? 'json' : 'text' };
}

/**
 * A chat file the command line names, from the current directory as a shell completes it; a
 * relative path that names nothing there is taken from the root when the root has it or the
 * current directory is outside the root (`repomap map ROOT --chat src/app.py` run from elsewhere).
 * Checked by requestFilePath. A symlink is there whatever it leads to (see entryAt): one that leads
 * nowhere or outside the root is taken where it is, for requestFilePath to say so, not said to be
 * missing from the other place.
 */
function chatFilePath(root: string, file: string): string {
  const outside = relative(root, process.cwd()).startsWith('..');
  const inCwd = entryAt(resolve(file)) !== undefined;
  const rootEntry = isAbsolute(file) ? undefined : entryAt(resolve(root, file));
  const inRoot = rootEntry !== undefined && (rootEntry.isFile() || rootEntry.isSymbolicLink());
  const fromRoot = !isAbsolute(file) && !inCwd && (outside || inRoot);
  // The current directory's file comes first; when it lies outside the root and the root has one
  // of that name, the error says how to name the root's.
  if (file !== '' && inCwd && inRoot && pathFromRoot(root, resolve(file)) === undefined) {
    throw badRequest(`chat file ${shownPath(file)} is ${shownPath(resolve(file))}, outside the repository root ${root}; for the root's, give --chat ${quoted(shellWord(resolve(root, file)))}`);
  }
  return requestFilePath(root, file, 'chat file', fromRoot ? root : process.cwd());
}
