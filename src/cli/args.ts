import { resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { badRequest, errorMessage, quoted } from '../errors.js';
import { MAX_FILE_BYTES_LIMIT } from '../api/request.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/**
 * parseArgs, with its errors (unknown flag, missing value) turned into one-line user errors; an
 * unknown flag close to a known one is told which (`--tokns`: did you mean --tokens?), and a
 * value that looks like an option (`--tokens -5`, `--chat --workers 2`) is named. `command` is a
 * command of repomap's (`map`: its errors start with it), or a program of its own (`repomapd`:
 * which names itself when it prints them); either way the help pointed at is its own.
 */
export function parseCommandArgs<T extends OptionSpec>(command: string, args: string[], options: T) {
  const program = command.startsWith('repomap') ? command : `repomap ${command}`;
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true as const });
  } catch (err) {
    // Node's words, begun in lower case as every message of repomap's is (`unknown option '--x'`).
    let message = errorMessage(err).split('\n')[0].replace(/\. To specify a positional argument.*$/, '');
    message = message.charAt(0).toLowerCase() + message.slice(1);
    const ambiguous = /^option '([^' ]+)' argument is ambiguous/.exec(message)?.[1];
    if (ambiguous !== undefined) {
      // The occurrence followed by an option-like value (the option may be given more than once).
      const next = args[args.findIndex((arg, i) => arg === ambiguous && args[i + 1]?.startsWith('-')) + 1];
      message = `${ambiguous} needs a value, and '${next}' reads as an option (a value that starts with '-' is written ${ambiguous}=VALUE)`;
    }
    const unknown = /^unknown option '--([^'=]+)'/.exec(message)?.[1];
    const guess = unknown === undefined ? undefined : closest(unknown, Object.keys(options));
    const prefix = program === command ? '' : `${command}: `;
    throw badRequest(`${prefix}${message}${guess ? ` (did you mean --${guess}?)` : ''} (see '${program} --help')`);
  }
}

/**
 * The candidate nearest to a misspelt word, when it is near enough to be meant: at most 2 edits
 * (insertions, deletions, substitutions, transpositions), and fewer than a third of its length.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best !== undefined && bestDistance <= Math.min(2, Math.ceil(best.length / 3)) ? best : undefined;
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/** `--max-file-bytes`: a positive whole number, at most MAX_FILE_BYTES_LIMIT (as the config key and the library option). */
export function maxFileBytesOption(value: string | undefined): number | undefined {
  const bytes = integerOption(value, 'max-file-bytes');
  if (bytes !== undefined && bytes > MAX_FILE_BYTES_LIMIT) throw badRequest(`--max-file-bytes must be at most ${MAX_FILE_BYTES_LIMIT} (64 MiB), not ${bytes}`);
  return bytes;
}

export function integerOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!isPositiveWholeNumber(value)) throw badRequest(`--${name} takes a positive whole number, not '${quoted(value)}'`);
  return Number(value);
}

/** Whether an option's text is a positive whole number, written in digits alone (`1024`, not `1e3`, `+5` or `0`). */
export function isPositiveWholeNumber(value: string): boolean {
  return /^\d+$/.test(value) && Number(value) > 0;
}

export function choiceOption<T extends string>(value: string | undefined, name: string, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(choices as readonly string[]).includes(value)) {
    throw badRequest(`--${name} must be one of ${choices.join(', ')}, not '${quoted(value)}'`);
  }
  return value as T;
}

/** The globs a repeatable option gives (`--exclude`), refused when one is empty (a glob matches nothing then, and picomatch throws). */
export function globsOption(values: readonly string[] | undefined, name: string): string[] | undefined {
  if (values?.includes('')) throw badRequest(`--${name} takes a glob, not an empty string`);
  return values && [...values];
}

/** A folder an option gives (`--cache-dir`), absolute; refused when empty (taken as not given, it would use the default folder without a word). */
export function folderOption(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (value === '') throw badRequest(`--${name} takes a folder, not an empty string`);
  return resolve(value);
}

/** A daemon's `--idle-timeout`: whole seconds, 0 or more (0: never). */
export function idleTimeoutOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`--idle-timeout takes whole seconds, not '${quoted(value)}'`);
  return Number(value);
}

/** The seconds an option gives (`--wait 2.5`), refused unless a plain number, 0 or more. */
export function secondsOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value)) throw badRequest(`--${name} takes a number of seconds, 0 or more, not '${quoted(value)}'`);
  return Number(value);
}
