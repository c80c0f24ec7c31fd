// How a command ends for each error code: the one place error codes become exit statuses (for
// `repomap` and `repomapd` alike). The input's fault is 2; a daemon lost mid-answer or a failure
// that is no fault of the input is 1, as an uncaught error would be.
import type { ErrorCode } from '../errors.js';

const EXIT_STATUS: Readonly<Record<ErrorCode, number>> = {
  'bad-request': 2,
  'parse-error': 2,
  'invalid-request': 2,
  'unknown-method': 2,
  refused: 2,
  'daemon-unavailable': 2,
  'connection-lost': 1,
  internal: 1,
};

export function exitStatus(code: ErrorCode): number {
  return EXIT_STATUS[code];
}
