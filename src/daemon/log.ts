// The daemon's log: timestamped lines to a bounded file, or to stderr in the foreground.
import { appendFileSync, closeSync, openSync, renameSync, statSync } from 'node:fs';
import { RepomapError, errorMessage } from '../errors.js';
import { dirname, join } from 'node:path';
import { makeFolder } from '../paths.js';

/** The daemon's log file in its cache folder (unless it runs in the foreground: see createLog). */
export function daemonLogFile(cacheDir: string): string {
  return join(cacheDir, 'daemon.log');
}

/** The log file's size past which it is moved to `<file>.1` (replacing the one there) and started anew. */
export const LOG_MAX_BYTES = 10 * 1024 * 1024;

/**
 * A log function writing timestamped lines to a file (created with its folder), or to stderr. The
 * file is bounded: past `maxBytes` it becomes `<file>.1` and a new one starts, so a daemon that
 * runs for weeks keeps at most twice that. A file that cannot be written at the start is a
 * 'refused' error naming it; a line that cannot be written later (a full disk) is lost, and the
 * daemon goes on serving: its log is no reason to stop answering.
 */
export function createLog(file: string | undefined, maxBytes = LOG_MAX_BYTES): (line: string) => void {
  // A foreground daemon whose terminal or pipe went away goes on serving; its log lines are lost.
  // (Unhandled, the write error would be logged, to stderr again: an endless loop.)
  if (!file) {
    process.stderr.on('error', () => {});
    return (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
  }
  makeFolder(dirname(file));
  try {
    closeSync(openSync(file, 'a'));
  } catch (err) {
    throw new RepomapError('refused', `daemon log ${file} cannot be written: ${errorMessage(err)}`);
  }
  let size = statSync(file).size;
  return (line) => {
    const stamped = `${new Date().toISOString()} ${line}\n`;
    const bytes = Buffer.byteLength(stamped);
    try {
      if (size > 0 && size + bytes > maxBytes) {
        renameSync(file, `${file}.1`);
        size = 0;
      }
      appendFileSync(file, stamped);
      size += bytes;
    } catch {
      // lost (see above)
    }
  };
}
