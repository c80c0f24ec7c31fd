// The MCP server's input, line by line, before the SDK's stdio transport reads it: blank lines
// dropped, and lines the SDK must not see refused with a JSON-RPC error: one longer than
// MAX_LINE_BYTES (the SDK's buffer would overflow at 10 MiB and close the transport, ending the
// server without a word), and one nested past MAX_PARAMS_DEPTH (its parse and checks recurse).
import { Transform } from 'node:stream';
import { MAX_PARAMS_DEPTH, nestedDeeperThan, textDepthOver } from '../json-depth.js';

/** The longest input line (its bytes, the newline not counted): the daemon takes requests of 1 MiB at most, and no MCP message needs more than a few. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** Bytes kept of the start and of the end of a line too long to keep, to read its id from. */
const ID_BYTES = 256;

/** A JSON-RPC error answering a refused line: its id when it could be read, else null. */
export interface LineRefusal {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

const LF = 0x0a;
/** The bytes a blank line may hold besides its newline: JSON's whitespace. */
const BLANK_BYTES: ReadonlySet<number> = new Set([0x20, 0x09, 0x0d]);
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

/**
 * The input stream's lines as the SDK's transport is to read them: a blank line (empty, or JSON's
 * whitespace only) is dropped, as the daemon ignores one (the SDK would answer it with a parse
 * error); a line over MAX_LINE_BYTES, or one nested deeper than a message with params of
 * MAX_PARAMS_DEPTH, is dropped and `refuse` is called with the error that answers it. Every other
 * line passes through unchanged, its bytes as they came, one line at a time (at most MAX_LINE_BYTES
 * are held: the line under way).
 */
export function inputLines(refuse: (refusal: LineRefusal) => void): Transform {
  let line: Buffer[] = []; // the current line's bytes so far, from earlier chunks
  let length = 0;
  let blank = true;
  // Past MAX_LINE_BYTES: the line's first bytes, a window of its last ones, and its length.
  let head: Buffer | undefined;
  let tail = Buffer.alloc(0);
  const take = (part: Buffer) => {
    length += part.length;
    blank &&= part.every((byte) => BLANK_BYTES.has(byte));
    if (head) tail = Buffer.concat([tail, part]).subarray(-ID_BYTES);
    else if (length <= MAX_LINE_BYTES) line.push(part);
    else {
      const whole = Buffer.concat([...line, part]);
      head = whole.subarray(0, ID_BYTES);
      tail = whole.subarray(-ID_BYTES);
      line = [];
    }
  };
  /** The line ended (its newline with it, or the input's end): passed on, or dropped. */
  const end = (stream: Transform, newline: Buffer) => {
    const refusal = head ? overLong(length, head, tail) : blank ? null : tooDeep(Buffer.concat(line));
    if (refusal) refuse(refusal);
    else if (!blank) stream.push(Buffer.concat([...line, newline]));
    line = [];
    length = 0;
    blank = true;
    head = undefined;
    tail = Buffer.alloc(0);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let from = 0;
      for (let newline = chunk.indexOf(LF, from); newline !== -1; newline = chunk.indexOf(LF, from)) {
        take(chunk.subarray(from, newline));
        end(this, chunk.subarray(newline, newline + 1));
        from = newline + 1;
      }
      if (from < chunk.length) take(chunk.subarray(from));
      done();
    },
    flush(done) {
      if (length > 0) end(this, Buffer.alloc(0));
      done();
    },
  });
}

function overLong(length: number, head: Buffer, tail: Buffer): LineRefusal {
  return refusal(idAtEnds(head.toString('utf8'), tail.toString('utf8')), INVALID_REQUEST, `invalid request: a line of ${length} bytes, over the limit of ${MAX_LINE_BYTES}`);
}

/**
 * The refusal of a line nested deeper than a message whose params nest MAX_PARAMS_DEPTH deep; null
 * for any other line. Brackets are counted first (a line that passes is not parsed here); the
 * line that fails is parsed (V8's JSON.parse does not recurse) to tell its id and where it nests.
 */
function tooDeep(bytes: Buffer): LineRefusal | null {
  if (!textDepthOver(bytes, MAX_PARAMS_DEPTH + 1)) return null;
  let message: unknown;
  try {
    message = JSON.parse(bytes.toString('utf8'));
  } catch {
    return null; // not JSON: the SDK answers its parse error
  }
  const fields = typeof message === 'object' && message !== null && !Array.isArray(message) ? (message as Record<string, unknown>) : {};
  const id = typeof fields.id === 'string' || typeof fields.id === 'number' ? fields.id : null;
  if (nestedDeeperThan(fields.params, MAX_PARAMS_DEPTH)) return refusal(id, INVALID_PARAMS, `invalid params: params nested deeper than ${MAX_PARAMS_DEPTH} levels`);
  if (!nestedDeeperThan(message, MAX_PARAMS_DEPTH + 1)) return null;
  return refusal(id, INVALID_REQUEST, `invalid request: a message nested deeper than ${MAX_PARAMS_DEPTH + 1} levels`);
}

function refusal(id: LineRefusal['id'], code: number, message: string): LineRefusal {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** An id as JSON writes it: a number, or a string. */
const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** The message's first member, or the one after `"jsonrpc": "2.0"`, is its id (as most clients write a request). */
const ID_AT_HEAD = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}\s*[,}]`);
/** The message's last member is its id (as the SDK's clients write a request): one brace closes the line after it. */
const ID_AT_TAIL = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

/**
 * The id of a line too long to parse, read where a request's writer puts it: first (after
 * `"jsonrpc"`) or last. Null when neither end shows one: JSON-RPC then answers with id null.
 */
function idAtEnds(head: string, tail: string): LineRefusal['id'] {
  const found = ID_AT_HEAD.exec(head) ?? ID_AT_TAIL.exec(tail);
  if (!found) return null;
  try {
    return JSON.parse(found[1]) as string | number;
  } catch {
    return null;
  }
}
