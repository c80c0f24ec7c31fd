// Lenient readers of the project files resolution consults: JSON with comments and trailing
// commas (tsconfig.json), the part of TOML that Cargo.toml and pyproject.toml use, and INI
// sections (setup.cfg). None throws: a file that cannot be read gives undefined or an empty table.

/** A parsed configuration value, as JSON or TOML give it. */
export type ConfigValue = string | number | boolean | null | ConfigValue[] | ConfigTable;
export interface ConfigTable {
  [key: string]: ConfigValue;
}

export function isTable(value: unknown): value is ConfigTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The table at `keys` under `value`, or undefined. */
export function tableAt(value: unknown, ...keys: string[]): ConfigTable | undefined {
  let at: unknown = value;
  for (const key of keys) at = isTable(at) ? at[key] : undefined;
  return isTable(at) ? at : undefined;
}

/** The string at `key`, or undefined. */
export function stringAt(table: ConfigTable | undefined, key: string): string | undefined {
  const value = table?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** A string or an array's strings, as a list. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** JSON read leniently: comments and trailing commas (as tsconfig.json allows) are dropped. */
export function parseJsonc(text: string | undefined): ConfigValue | undefined {
  if (text === undefined) return undefined;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j])) j++;
      if (text[j] !== '}' && text[j] !== ']') out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  try {
    return JSON.parse(out) as ConfigValue;
  } catch {
    return undefined;
  }
}

/**
 * TOML as Cargo.toml and pyproject.toml write it: [tables], [[arrays of tables]], dotted and
 * quoted keys, strings (basic, literal, multi-line), arrays over several lines, inline tables,
 * numbers and booleans (dates are kept as text). Whatever it cannot read ends the parse; the
 * table read so far is returned.
 */
export function parseToml(text: string | undefined): ConfigTable {
  const root: ConfigTable = {};
  if (text === undefined) return root;
  const reader = new TomlReader(text);
  let current = root;
  try {
    for (;;) {
      reader.skipSpace(true);
      if (reader.done()) break;
      if (reader.peek() === '[') {
        const array = reader.peek(1) === '[';
        reader.advance(array ? 2 : 1);
        const keys = reader.keyPath();
        reader.expect(array ? ']]' : ']');
        current = array ? appendTable(root, keys) : tableFor(root, keys);
      } else {
        const keys = reader.keyPath();
        reader.expect('=');
        const value = reader.value();
        tableFor(current, keys.slice(0, -1))[keys[keys.length - 1]] = value;
      }
    }
  } catch {
    // A construct outside the subset: keep what was read.
  }
  return root;
}

function tableFor(root: ConfigTable, keys: readonly string[]): ConfigTable {
  let table = root;
  for (const key of keys) {
    let next = table[key];
    if (Array.isArray(next)) next = next[next.length - 1];
    if (!isTable(next)) {
      next = {};
      table[key] = next;
    }
    table = next;
  }
  return table;
}

function appendTable(root: ConfigTable, keys: readonly string[]): ConfigTable {
  const parent = tableFor(root, keys.slice(0, -1));
  const key = keys[keys.length - 1];
  const list = Array.isArray(parent[key]) ? (parent[key] as ConfigValue[]) : [];
  const table: ConfigTable = {};
  list.push(table);
  parent[key] = list;
  return table;
}

class TomlReader {
  private at = 0;
  constructor(private readonly text: string) {}

  done(): boolean {
    return this.at >= this.text.length;
  }
  peek(offset = 0): string {
    return this.text[this.at + offset] ?? '';
  }
  advance(n: number): void {
    this.at += n;
  }
  expect(token: string): void {
    this.skipSpace(false);
    if (!this.text.startsWith(token, this.at)) throw new Error(`expected ${token}`);
    this.at += token.length;
  }

  /** Skips spaces and comments, and newlines too when `lines`. */
  skipSpace(lines: boolean): void {
    while (this.at < this.text.length) {
      const c = this.text[this.at];
      if (c === '#') {
        while (this.at < this.text.length && this.text[this.at] !== '\n') this.at++;
      } else if (c === ' ' || c === '\t' || c === '\r' || (lines && c === '\n')) this.at++;
      else break;
    }
  }

  keyPath(): string[] {
    const keys: string[] = [];
    for (;;) {
      this.skipSpace(false);
      const c = this.peek();
      if (c === '"' || c === "'") keys.push(this.string());
      else {
        const match = /^[A-Za-z0-9_-]+/.exec(this.text.slice(this.at, this.at + 200));
        if (!match) throw new Error('bad key');
        keys.push(match[0]);
        this.at += match[0].length;
      }
      this.skipSpace(false);
      if (this.peek() !== '.') return keys;
      this.at++;
    }
  }

  value(): ConfigValue {
    this.skipSpace(false);
    const c = this.peek();
    if (c === '"' || c === "'") return this.string();
    if (c === '[') {
      this.at++;
      const items: ConfigValue[] = [];
      for (;;) {
        this.skipSpace(true);
        if (this.peek() === ']') {
          this.at++;
          return items;
        }
        items.push(this.value());
        this.skipSpace(true);
        if (this.peek() === ',') this.at++;
      }
    }
    if (c === '{') {
      this.at++;
      const table: ConfigTable = {};
      for (;;) {
        this.skipSpace(false);
        if (this.peek() === '}') {
          this.at++;
          return table;
        }
        const keys = this.keyPath();
        this.expect('=');
        tableFor(table, keys.slice(0, -1))[keys[keys.length - 1]] = this.value();
        this.skipSpace(false);
        if (this.peek() === ',') this.at++;
      }
    }
    const match = /^[^,\]}\s#]+/.exec(this.text.slice(this.at, this.at + 100));
    if (!match) throw new Error('bad value');
    this.at += match[0].length;
    const word = match[0];
    if (word === 'true' || word === 'false') return word === 'true';
    const number = Number(word.replace(/_/g, ''));
    return Number.isNaN(number) ? word : number;
  }

  string(): string {
    const quote = this.peek();
    const triple = this.text.startsWith(quote.repeat(3), this.at);
    const close = triple ? quote.repeat(3) : quote;
    this.at += close.length;
    if (triple && this.peek() === '\n') this.at++;
    let out = '';
    while (!this.text.startsWith(close, this.at)) {
      if (this.done() || (!triple && this.peek() === '\n')) throw new Error('unterminated string');
      const c = this.text[this.at++];
      if (c === '\\' && quote === '"') {
        const e = this.text[this.at++];
        out += e === 'n' ? '\n' : e === 't' ? '\t' : e;
      } else out += c;
    }
    this.at += close.length;
    return out;
  }
}

/** The entries of one section of an INI file (setup.cfg); a value may continue on indented lines. */
export function iniSection(text: string | undefined, section: string): Map<string, string> {
  const entries = new Map<string, string>();
  if (text === undefined) return entries;
  let inSection = false;
  let lastKey: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (/^\s*[#;]/.test(line) || line.trim() === '') continue;
    const header = /^\[([^\]]+)\]/.exec(line);
    if (header) {
      inSection = header[1].trim() === section;
      lastKey = undefined;
      continue;
    }
    if (!inSection) continue;
    if (/^\s/.test(line) && lastKey !== undefined) {
      entries.set(lastKey, `${entries.get(lastKey)}\n${line.trim()}`);
      continue;
    }
    const eq = line.search(/[=:]/);
    if (eq < 0) continue;
    lastKey = line.slice(0, eq).trim();
    entries.set(lastKey, line.slice(eq + 1).trim());
  }
  return entries;
}
