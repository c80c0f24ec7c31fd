import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UserError } from '../errors.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** parseArgs, with its errors (unknown flag, missing value) turned into one-line user errors. */
export function parseCommandArgs<T extends OptionSpec>(command: string, args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true as const });
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new UserError(`${command}: ${message.replace(/\. To specify a positional argument.*$/, '')} (see 'repomap ${command} --help')`);
  }
}

export function integerOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) <= 0) throw new UserError(`--${name} takes a positive whole number, not '${value}'`);
  return Number(value);
}

export function choiceOption<T extends string>(value: string | undefined, name: string, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(choices as readonly string[]).includes(value)) {
    throw new UserError(`--${name} must be one of ${choices.join(', ')}, not '${value}'`);
  }
  return value as T;
}
