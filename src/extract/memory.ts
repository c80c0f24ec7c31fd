import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Native tree-sitter trees hold memory V8 does not count, so V8 sees no reason to collect them,
// and a thread parsing tens of thousands of files grows by gigabytes. A full collection every few
// MB of parsed source keeps a thread's resident memory flat, and costs little.
const COLLECT_EVERY_BYTES = 4 * 1024 * 1024;

const collect: (() => void) | undefined = (() => {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
})();

let sinceCollect = 0;

/** A full collection now, when the runtime allows it (see above); returns whether it ran. */
export function collectGarbage(): boolean {
  collect?.();
  return collect !== undefined;
}

/** Counts parsed source; collects garbage (and with it released trees) every few MB. */
export function noteParsedSource(bytes: number): void {
  sinceCollect += bytes;
  if (sinceCollect >= COLLECT_EVERY_BYTES && collect) {
    sinceCollect = 0;
    collect();
  }
}
