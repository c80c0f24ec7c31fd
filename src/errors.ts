// The one error type the library throws on purpose, with a typed code saying whose the failure
// is. How a code travels as JSON-RPC is protocol.ts's table; how it ends a command is cli/'s.
// Any other error reaching a caller is a bug and keeps its stack.
import { constants as osConstants } from 'node:os';
import { getSystemErrorMap } from 'node:util';

/**
 * What went wrong, for a caller to act on:
 * - `bad-request`: the caller's input: an option, a request field, a path it names, the project config;
 * - `parse-error`, `invalid-request`, `unknown-method`: a JSON-RPC line that is not JSON, not a
 *   request, or asks for a method the daemon does not have (only a hand-written client sees these);
 * - `refused`: the environment is unsafe or taken: a runtime folder or socket another user could
 *   control, a cache folder that is a file or cannot be written, a daemon already serving the root;
 * - `daemon-unavailable`: no daemon could be started for the root;
 * - `connection-lost`: the daemon went away before it answered (a new connection may succeed);
 * - `internal`: anything else, no fault of the input (a damaged cache, a bug).
 */
export type ErrorCode =
  | 'bad-request'
  | 'parse-error'
  | 'invalid-request'
  | 'unknown-method'
  | 'refused'
  | 'daemon-unavailable'
  | 'connection-lost'
  | 'internal';

export class RepomapError extends Error {
  override name = 'RepomapError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A `bad-request` error: the caller's input is wrong, and the message names what. */
export function badRequest(message: string): RepomapError {
  return new RepomapError('bad-request', message);
}

/** The error as a RepomapError: itself, or `internal` carrying it as the cause. */
export function asRepomapError(err: unknown): RepomapError {
  return err instanceof RepomapError ? err : new RepomapError('internal', errorMessage(err), { cause: err });
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The error's stack, for a log: where a failure that is no fault of the input came from. */
export function errorStack(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/**
 * Whether an OS error says nothing is at the path: ENOENT, or ENOTDIR (a name on its way is a file,
 * not a folder). Any other failure (EACCES: a folder on its way this user may not search; ELOOP;
 * EIO) says the path cannot be reached, not that it is gone.
 */
export function isAbsent(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Why a symlink leads nowhere, from the error resolving it threw: its target is not there (or a
 * name on the way to it), or the links loop (ELOOP). Undefined for any other failure (EACCES: the
 * target is out of reach, not nowhere). The one rule for what the index skips as a 'broken symlink'
 * and what a request's file is refused as (see requestFilePath), so that the two say the same.
 */
export function leadsNowhere(err: unknown): 'its target does not exist' | 'a loop' | undefined {
  if (isAbsent(err)) return 'its target does not exist';
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ELOOP' ? 'a loop' : undefined;
}

/** An error's OS code (`EACCES`), or its message when it has none: what a skipped file's detail keeps. */
export function errorCode(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : errorMessage(err);
}

/**
 * An OS error code with the system's description of it (`EACCES: permission denied`), as Node's
 * messages begin (without the call and path they go on with: a message names the path in the
 * caller's words); the code alone when the system has none. For a code kept apart from its error
 * (a skipped file's detail) as for one just caught.
 */
export function describeOsCode(code: string): string {
  const errno = (osConstants.errno as Readonly<Record<string, number | undefined>>)[code];
  const description = errno === undefined ? undefined : getSystemErrorMap().get(-errno)?.[1];
  return description ? `${code}: ${description}` : code;
}

/** The most characters of a value an error message quotes (see quoted). */
export const MAX_QUOTED = 200;

/**
 * Text from outside (a config value, a path, a line of a file) as an error message quotes it: whole
 * when short, else its first MAX_QUOTED characters and how long it was, so a message stays one short
 * line whatever a repository or a caller put there.
 */
export function quoted(text: string, max = MAX_QUOTED): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** A value as JSON for an error message, cut as quoted cuts text (a value JSON cannot write is shown as String does). */
export function quotedJson(value: unknown, max = MAX_QUOTED): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    // Too deep, or a cycle (only an object or a list can be either): String recurses into a list too.
    text = Array.isArray(value) ? 'a list nested too deeply (or circular) to show' : 'an object nested too deeply (or circular) to show';
  }
  return quoted(text, max);
}
