// How deep a value from outside nests (a daemon request's params, an MCP message), measured
// without recursion: refused past a sane depth before anything recursive (JSON.stringify, a schema
// check, a deep copy) touches it and overflows the stack. JSON.parse itself does not recurse in V8:
// a line nested a million deep parses.

/** The deepest a request's params (or a tool call's) may nest: arrays and objects within each other. */
export const MAX_PARAMS_DEPTH = 64;

/**
 * Whether a parsed JSON value nests arrays and objects more than `max` deep: a scalar is 0 deep,
 * `[]` and `{}` 1, `[[1]]` 2. Stops at the first path past `max`: the work is bounded by the value's size.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(item)) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * Whether the JSON text in `bytes` nests more than `max` deep (as nestedDeeperThan counts), told
 * from its brackets outside strings, without parsing it: a cheap look at every line before a
 * parser that recurses sees it. Text that is not JSON gets some answer, and is refused or parsed
 * as it would have been.
 */
export function textDepthOver(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) depth--;
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
