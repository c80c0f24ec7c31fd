// The one read of a small file repomap reads because a repository or the user names it (the project
// config, package.json for its `repomap` key, a tag query, a WebAssembly grammar, the user config), and
// the one parse of such a file's JSON: a regular file only
// (never a FIFO, a device or a socket, which could block or never end), opened without blocking,
// under a size cap, never more than the cap and one byte read, and, when a root is given, inside it
// once symlinks are resolved. Any failure is one bad-request line naming the file, never its content.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { RepomapError, badRequest, describeOsCode, errorCode, isAbsent, quoted } from './errors.js';
import { escapeControls, isInRoot, shownQuoted } from './paths.js';

/** The largest config or query file read (1 MiB): far above any real one. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export interface BoundedRead {
  /** The most bytes the file may hold. */
  maxBytes: number;
  /** Set: the file must resolve (after symlinks) inside this root, else it is refused unread. */
  root?: string;
  /** How a message names the file (default: its path). */
  name?: string;
}

/**
 * Reads `fd` from its position into `buffer`, growing it (doubled, the bytes kept) as it fills,
 * until the end or `limit` bytes: the buffer (a new one when it grew) and the bytes read. The one
 * read loop of whole files: a source file (read-ahead.ts) and a bounded read (below).
 */
export function readUpTo(fd: number, buffer: Buffer, limit = Infinity): { buffer: Buffer; length: number } {
  let length = 0;
  while (length < limit) {
    if (length === buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(1, Math.min(buffer.length * 2, limit)));
      buffer.copy(grown);
      buffer = grown;
    }
    const read = readSync(fd, buffer, length, Math.min(buffer.length, limit) - length, null);
    if (read === 0) break;
    length += read;
  }
  return { buffer, length };
}

/** A size as a message says it: in MiB when whole, else in bytes. */
function size(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}

/**
 * The file's bytes, read as the module's comment says; undefined when nothing is there (nor at the
 * end of a symlink: a link that leads nowhere is no file either).
 */
export function readBounded(file: string, { maxBytes, root, name = file }: BoundedRead): Buffer | undefined {
  const shown = shownQuoted(name);
  const failed = (err: unknown) => badRequest(`${shown}: cannot be read (${describeOsCode(errorCode(err))})`);
  let real: string;
  try {
    real = realpathSync(file);
  } catch (err) {
    if (isAbsent(err)) return undefined;
    throw failed(err);
  }
  if (root !== undefined && !isInRoot(root, real)) throw badRequest(`${shown}: leads outside the repository root ${root} (to ${shownQuoted(real)})`);
  let fd: number;
  try {
    // Non-blocking: a FIFO without a writer opens at once (and is refused below) instead of hanging.
    // Not following a link: the path is resolved already, one swapped in since is refused.
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    if (isAbsent(err)) return undefined;
    throw failed(err);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw badRequest(`${shown}: not a regular file`);
    if (info.size > maxBytes) throw badRequest(`${shown}: larger than ${size(maxBytes)} (${info.size} bytes)`);
    // One byte past the cap tells a file that grew since the stat.
    const { buffer, length } = readUpTo(fd, Buffer.allocUnsafe(info.size + 1), maxBytes + 1);
    if (length > maxBytes) throw badRequest(`${shown}: larger than ${size(maxBytes)}`);
    return buffer.subarray(0, length);
  } catch (err) {
    if (err instanceof RepomapError) throw err;
    throw failed(err);
  } finally {
    closeSync(fd);
  }
}

/** readBounded's bytes as UTF-8 text. */
export function readBoundedText(file: string, options: BoundedRead): string | undefined {
  return readBounded(file, options)?.toString('utf8');
}

/**
 * A JSON file's value; one that is not JSON is a bad-request RepomapError naming the file and
 * where, never quoting its text (JSON.parse's message does: `"root:x:0:0"...`), nor a stack (a
 * value nested past the stack's depth).
 */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (err instanceof RangeError) throw badRequest(`${file}: not valid JSON (nested too deeply)`);
    const position = /at position (\d+)/.exec((err as Error).message)?.[1];
    throw badRequest(`${file}: not valid JSON${position === undefined ? '' : ` (at ${lineAndColumn(text, Number(position))})`}`);
  }
}

/** "line L, column C" (1-based) of a character offset into a text. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}
