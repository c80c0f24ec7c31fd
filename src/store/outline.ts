import { escapeLineControls } from '../paths.js';
import type { DefTag, FileOutline } from '../records.js';

// Where things sit in an outline's numbers: a header, the subkinds' text ends, seven numbers per
// definition, two per stored line, then the scope lines of every definition in turn.
const LINE_COUNT = 0;
const DEF_COUNT = 1;
const LINE_ENTRIES = 2;
const SUBKIND_COUNT = 3;
const SCOPE_COUNT = 4;
const LANG_END = 5;
/** Where the stored lines' text starts (their ends are in their numbers). */
const LINES_TEXT = 6;
const HEADER = 7;
// A definition: its name's start and end in the text, its subkind's index, its line, its
// signature's last line, its extent's last line (NO_END when unknown), the end of its scopes (last:
// the next definition's scopes start there).
const DEF_FIELDS = 7;
/** A definition's extent's last line when it has none (DefTag.end undefined). */
const NO_END = -1;
// A stored line: its number and the end of its text.
const LINE_FIELDS = 2;
/** A byte order mark, which a file may start with (read as UTF-8, it is the first line's first character). */
const BOM = '\ufeff';
/** More lines than a file can have: a Map of a file's shown lines holds at most this many (V8's bound). */
const MAX_LINES = 1 << 24;

/**
 * A file's outline as the store keeps it and a map reads it: two strings, one of its numbers and
 * one of its text. The daemon keeps thousands of outlines between requests; as objects (one per
 * definition, its scopes and each stored line) they would be a large share of its heap's objects,
 * which each major collection marks. Numbers in typed arrays would be memory outside the heap, whose
 * growth brings on major collections of its own; a string is one object that marking does not
 * look into. Definitions are made into objects when asked for, and die young.
 */
export class Outline {
  private constructor(
    /** The numbers, each as two UTF-16 code units (the stored bytes read as UTF-16LE). */
    private readonly nums: string,
    private readonly text: string,
  ) {}

  /** The bytes the store keeps: the count of numbers, the numbers (32-bit, little-endian), the text in UTF-8. */
  static encode(outline: FileOutline): Buffer {
    const subkinds: string[] = [];
    const subkindIndex = new Map<string, number>();
    for (const def of outline.defs) {
      if (!subkindIndex.has(def.subkind)) {
        subkindIndex.set(def.subkind, subkinds.length);
        subkinds.push(def.subkind);
      }
    }
    const scopeCount = outline.defs.reduce((sum, def) => sum + def.scopes.length, 0);
    const nums = new Int32Array(HEADER + subkinds.length + DEF_FIELDS * outline.defs.length + LINE_FIELDS * outline.lines.length + scopeCount);
    const parts: string[] = [outline.lang];
    let end = outline.lang.length;
    nums[LINE_COUNT] = outline.lineCount;
    nums[DEF_COUNT] = outline.defs.length;
    nums[LINE_ENTRIES] = outline.lines.length;
    nums[SUBKIND_COUNT] = subkinds.length;
    nums[SCOPE_COUNT] = scopeCount;
    nums[LANG_END] = end;
    let at = HEADER;
    for (const subkind of subkinds) {
      parts.push(subkind);
      nums[at++] = end += subkind.length;
    }
    // A name defined twice (an overload, a method of several classes) is in the text once.
    const nameStart = new Map<string, number>();
    let scopeAt = nums.length - scopeCount;
    const scopesFrom = scopeAt;
    for (const def of outline.defs) {
      let start = nameStart.get(def.name);
      if (start === undefined) {
        start = end;
        nameStart.set(def.name, start);
        parts.push(def.name);
        end += def.name.length;
      }
      nums[at++] = start;
      nums[at++] = start + def.name.length;
      nums[at++] = subkindIndex.get(def.subkind)!;
      nums[at++] = def.line;
      nums[at++] = def.signatureEnd;
      nums[at++] = def.end ?? NO_END;
      for (const scope of def.scopes) nums[scopeAt++] = scope;
      nums[at++] = scopeAt - scopesFrom;
    }
    nums[LINES_TEXT] = end;
    for (const [line, text] of outline.lines) {
      parts.push(text);
      nums[at++] = line;
      nums[at++] = end += text.length;
    }
    const text = Buffer.from(parts.join(''), 'utf8');
    const bytes = Buffer.allocUnsafe(4 + nums.byteLength + text.length);
    bytes.writeInt32LE(nums.length, 0);
    for (let i = 0; i < nums.length; i++) bytes.writeInt32LE(nums[i], 4 + 4 * i);
    bytes.set(text, 4 + nums.byteLength);
    return bytes;
  }

  /**
   * Reads the bytes of encode (copying them: they may be the store's reused buffer, whose
   * `length` is what was read); throws on bytes that are not an outline (a corrupt store).
   */
  static decode(bytes: Uint8Array): Outline {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    const count = buffer.length >= 4 ? buffer.readInt32LE(0) : -1;
    if (count < HEADER || 4 + 4 * count > buffer.length) throw new Error('not an outline');
    const outline = new Outline(buffer.toString('utf16le', 4, 4 + 4 * count), buffer.toString('utf8', 4 + 4 * count));
    const counts = [outline.num(SUBKIND_COUNT), outline.num(DEF_COUNT), outline.num(LINE_ENTRIES), outline.num(SCOPE_COUNT)];
    const expected = HEADER + counts[0] + DEF_FIELDS * counts[1] + LINE_FIELDS * counts[2] + counts[3];
    if (counts.some((n) => n < 0) || expected !== count || !outline.isSound()) throw new Error('not an outline');
    return outline;
  }

  /**
   * Whether the numbers fit together, as encode writes them: text ends in order and inside the
   * text, subkinds that exist, lines inside the file, scope ends in order. A damaged store's value
   * whose counts happen to add up fails here instead of laying out a signature of millions of lines.
   */
  private isSound(): boolean {
    const lineCount = this.lineCount;
    const textLength = this.text.length;
    const subkinds = this.num(SUBKIND_COUNT);
    const scopes = this.num(SCOPE_COUNT);
    const inFile = (line: number) => line >= 0 && line <= lineCount;
    if (lineCount < 0 || lineCount > MAX_LINES) return false;
    let end = this.num(LANG_END);
    if (end < 0 || end > textLength) return false;
    for (let k = 0; k < subkinds; k++) {
      const next = this.num(HEADER + k);
      if (next < end || next > textLength) return false;
      end = next;
    }
    let scopesEnd = 0;
    for (let i = 0; i < this.defCount; i++) {
      const at = this.defAt(i);
      const nameStart = this.num(at);
      const nameEnd = this.num(at + 1);
      const subkind = this.num(at + 2);
      const line = this.num(at + 3);
      const signatureEnd = this.num(at + 4);
      const end = this.num(at + 5);
      const nextScopesEnd = this.num(at + 6);
      if (nameStart < 0 || nameEnd < nameStart || nameEnd > textLength || subkind < 0 || subkind >= subkinds) return false;
      if (!inFile(line) || signatureEnd < line || !inFile(signatureEnd) || nextScopesEnd < scopesEnd || nextScopesEnd > scopes) return false;
      if (end !== NO_END && (end < line || !inFile(end))) return false;
      scopesEnd = nextScopesEnd;
    }
    const scopesFrom = this.scopesFrom();
    for (let k = 0; k < scopes; k++) if (!inFile(this.num(scopesFrom + k))) return false;
    const linesFrom = this.linesFrom();
    end = this.num(LINES_TEXT);
    if (end < 0 || end > textLength) return false;
    for (let k = 0; k < this.num(LINE_ENTRIES); k++) {
      const next = this.num(linesFrom + LINE_FIELDS * k + 1);
      if (!inFile(this.num(linesFrom + LINE_FIELDS * k)) || next < end || next > textLength) return false;
      end = next;
    }
    return true;
  }

  /**
   * The outline an LMDB database of encoded outlines holds under `key`; none when it holds none, or
   * bytes that are not an outline (a corrupt value: the file is shown without tags).
   */
  static read(db: { getBinaryFast(key: string): Uint8Array | undefined }, key: string): Outline | undefined {
    // The fast read lends lmdb's buffer until the next read: decode copies what it keeps.
    const bytes = db.getBinaryFast(key);
    if (!bytes) return undefined;
    try {
      return Outline.decode(bytes);
    } catch {
      return undefined;
    }
  }

  /** An outline made from its object form (what extraction gives). */
  static of(outline: FileOutline): Outline {
    return Outline.decode(Outline.encode(outline));
  }

  /** The language's name. */
  get lang(): string {
    return this.text.slice(0, this.num(LANG_END));
  }

  /** Number of lines in the file, so rendering knows whether lines follow the last shown one. */
  get lineCount(): number {
    return this.num(LINE_COUNT);
  }

  get defCount(): number {
    return this.num(DEF_COUNT);
  }

  /** The definitions, in the order extraction gave them (new objects on each call). */
  defs(): DefTag[] {
    return Array.from({ length: this.defCount }, (_, i) => this.def(i));
  }

  /** Definition `i` (in extraction order) as an object (a new one on each call). */
  def(i: number): DefTag {
    const at = this.defAt(i);
    const scopesFrom = this.scopesFrom();
    const scopes: number[] = [];
    for (let k = scopesFrom + this.scopeStart(i); k < scopesFrom + this.num(at + 6); k++) scopes.push(this.num(k));
    const def: DefTag = { name: this.defName(i), subkind: this.defSubkind(i), line: this.num(at + 3), signatureEnd: this.num(at + 4), scopes };
    const end = this.defEnd(i);
    if (end !== undefined) def.end = end;
    return def;
  }

  /** The last line of definition `i`'s extent, if known (DefTag.end). */
  defEnd(i: number): number | undefined {
    const end = this.num(this.defAt(i) + 5);
    return end === NO_END ? undefined : end;
  }

  /**
   * The innermost definition whose extent holds the lines from `from` to `to` (0-based; one line
   * when they are equal), of a subkind `kinds` has when it is given: the one of the smallest
   * extent, the later one of two alike (an inner definition comes after the one it is in). -1
   * when none does. Extents nest (they are syntax nodes), so the smallest is the innermost.
   */
  innermostHolding(from: number, to: number, kinds?: ReadonlySet<string>): number {
    let best = -1;
    let bestSize = Infinity;
    for (let i = 0; i < this.defCount; i++) {
      const line = this.defLine(i);
      if (line > from) continue;
      const end = this.defEnd(i);
      if (end === undefined || end < to || end - line > bestSize) continue;
      if (kinds && !kinds.has(this.defSubkind(i))) continue;
      best = i;
      bestSize = end - line;
    }
    return best;
  }

  /** The name definition `i` defines. */
  defName(i: number): string {
    const at = this.defAt(i);
    return this.text.slice(this.num(at), this.num(at + 1));
  }

  /** The subkind of definition `i` (function, method, field, ...). */
  defSubkind(i: number): string {
    const subkind = this.num(this.defAt(i) + 2);
    const start = subkind === 0 ? this.num(LANG_END) : this.num(HEADER + subkind - 1);
    return this.text.slice(start, this.num(HEADER + subkind));
  }

  /** The line of definition `i`. */
  defLine(i: number): number {
    return this.num(this.defAt(i) + 3);
  }

  /** The line of scope `k` (from the outermost) of definition `i`: def(i).scopes[k], without making the object. */
  defScope(i: number, k: number): number {
    return this.num(this.scopesFrom() + this.scopeStart(i) + k);
  }

  /** Where the scope lines start among the numbers (they end the numbers). */
  private scopesFrom(): number {
    return this.nums.length / 2 - this.num(SCOPE_COUNT);
  }

  /** How many scopes enclose definition `i`. */
  defDepth(i: number): number {
    return this.num(this.defAt(i) + 6) - this.scopeStart(i);
  }

  /** Where definition `i`'s scopes start among all the scopes: where those of the one before end. */
  private scopeStart(i: number): number {
    return i === 0 ? 0 : this.num(this.defAt(i) - 1);
  }

  private num(i: number): number {
    return this.nums.charCodeAt(2 * i) | (this.nums.charCodeAt(2 * i + 1) << 16);
  }

  private defAt(i: number): number {
    return HEADER + this.num(SUBKIND_COUNT) + DEF_FIELDS * i;
  }

  /**
   * The text of a line a definition or scope names as it is shown, or '' for a line not stored:
   * its control characters escaped (escapeLineControls: tabs stay), a byte order mark that starts
   * the file dropped. Every shown source line is read here (the map's lines in every form, the
   * packer's and the layout's counts of them, `repomap symbols`' definitions), so what is counted is
   * what is shown; the store keeps the lines as the file has them.
   */
  lineText(line: number): string {
    const from = this.linesFrom();
    let low = 0;
    let high = this.num(LINE_ENTRIES) - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const at = this.num(from + LINE_FIELDS * mid);
      if (at === line) {
        const start = mid === 0 ? this.num(LINES_TEXT) : this.num(from + LINE_FIELDS * mid - 1);
        const text = this.text.slice(start, this.num(from + LINE_FIELDS * mid + 1));
        return escapeLineControls(line === 0 && text.startsWith(BOM) ? text.slice(BOM.length) : text);
      }
      if (at < line) low = mid + 1;
      else high = mid - 1;
    }
    return '';
  }

  private linesFrom(): number {
    return this.defAt(this.num(DEF_COUNT));
  }
}
