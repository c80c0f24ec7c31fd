// The options that shape one map, shared by `repomap map` (in-process) and `repomap query`
// (through the daemon): derived from the request schema (api/request.ts), each field's option,
// its help line and its parsing. Light on purpose: the thin client loads it.
import { requestFilePath } from '../paths.js';
import { type FieldSpec, MAP_REQUEST, type MapRequest, budgetFor } from '../api/request.js';
import { type OptionSpec, choiceOption, integerOption, secondsOption } from './args.js';

type RequestField = keyof typeof MAP_REQUEST;
type CliField = { [K in RequestField]: (typeof MAP_REQUEST)[K] extends { cli: object } ? K : never }[RequestField];
type FlagOf<K extends CliField> = (typeof MAP_REQUEST)[K]['cli']['flag'];

/** The fields the CLI sets, and each one's option (in the schema's order, as the help lists them). */
const CLI_FIELDS = (Object.keys(MAP_REQUEST) as RequestField[]).filter((field): field is CliField => 'cli' in MAP_REQUEST[field]);
const specOf = (field: CliField): FieldSpec & { cli: NonNullable<FieldSpec['cli']> } => MAP_REQUEST[field];

/**
 * The option of a field: repeatable for a list, a flag for a boolean, a value otherwise. `--format`
 * (the markdown field) takes a value: it also chooses JSON output, which is no field.
 */
function optionOf(field: CliField): OptionSpec[string] {
  const { kind } = specOf(field);
  if (kind === 'strings') return { type: 'string', multiple: true };
  if (kind === 'boolean' && field !== 'markdown') return { type: 'boolean' };
  return { type: 'string' };
}

export const REQUEST_OPTIONS = Object.fromEntries(CLI_FIELDS.map((field) => [specOf(field).cli.flag, optionOf(field)])) as {
  [K in CliField as FlagOf<K>]: K extends 'markdown' ? { type: 'string' } : (typeof MAP_REQUEST)[K]['kind'] extends 'strings' ? { type: 'string'; multiple: true } : (typeof MAP_REQUEST)[K]['kind'] extends 'boolean' ? { type: 'boolean' } : { type: 'string' };
} satisfies OptionSpec;

/** Where an option's help starts, after `  --flag VALUE`. */
const HELP_COLUMN = 23;

export const REQUEST_HELP = CLI_FIELDS.map((field) => {
  const { flag, value, help } = specOf(field).cli;
  const [first, ...more] = help;
  const head = `  --${flag}${value ? ` ${value}` : ''}`.padEnd(HELP_COLUMN);
  return [head + first, ...more.map((line) => ' '.repeat(HELP_COLUMN) + line)].map((line) => line + '\n').join('');
}).join('');

type RequestValues = { [K in keyof typeof REQUEST_OPTIONS]?: (typeof REQUEST_OPTIONS)[K] extends { multiple: true } ? string[] : (typeof REQUEST_OPTIONS)[K] extends { type: 'boolean' } ? boolean : string };

/** A field's value from its option's text, checked as its kind says (undefined: the option is not given). */
function fieldValue(field: CliField, given: string | string[] | boolean | undefined): unknown {
  const spec = specOf(field);
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

/** The request the options describe; chat files are taken from the current directory and checked (see requestFilePath). */
export function requestFromOptions(values: RequestValues, root: string): { request: MapRequest; format: 'text' | 'json' } {
  const chosen = choiceOption(values.format, 'format', ['text', 'markdown', 'json'] as const, 'text');
  const request: Record<string, unknown> = {};
  for (const field of CLI_FIELDS) {
    const value = field === 'markdown' ? chosen === 'markdown' || undefined : fieldValue(field, values[specOf(field).cli.flag as keyof RequestValues]);
    if (value !== undefined) request[field] = value;
  }
  request.chatFiles = (values.chat ?? []).map((file) => requestFilePath(root, file, 'chat file', process.cwd()));
  budgetFor(request); // a bad budget is refused before any work (or a daemon) is started
  return { request, format: chosen === 'json' ? 'json' : 'text' };
}
