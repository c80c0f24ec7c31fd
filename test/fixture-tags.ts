// Assertions on the tags of a language fixture (fixtures/lang/<lang>/...), shared by the tests of
// the first six languages (extract.test.ts) and of the others (languages.test.ts).
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareLanguage } from '../src/extract/extract.js';
import { indexFile } from '../src/extract/file.js';
import { languageForPath } from '../src/extract/languages.js';
import { packageRoot } from '../src/paths.js';
import { unpackRefs } from '../src/extract/refs.js';
import { type FileRecord, type FileTags, type RefTag, statOf } from '../src/records.js';

export const MAX_FILE_BYTES = 1 << 20;
export const LANG_FIXTURES = join(packageRoot, 'fixtures', 'lang');

export interface Fixture {
  tags: FileTags;
  /** The tags' references one by one, in file order. */
  refs: RefTag[];
  /** The fixture's lines, to find expected rows by their text. */
  source: string[];
  /** Row of the one line containing `needle`; fails when none or several lines contain it. */
  row(needle: string): number;
}

/** Indexes one file under `root` as a fresh file (no stored hash); fails when the outcome is 'reused'. */
export async function indexPath(root: string, relPath: string, maxFileBytes = MAX_FILE_BYTES): Promise<FileRecord> {
  const st = await stat(join(root, relPath));
  const lang = languageForPath(relPath);
  if (lang) await prepareLanguage(lang);
  const result = await indexFile(root, { path: relPath, stat: statOf(st) }, { maxFileBytes });
  if (result.outcome === 'reused') assert.fail('a file without a stored hash cannot be reused');
  return result.record;
}

/** Indexes fixtures/lang/<relPath>, which must not be skipped. */
export async function loadFixture(relPath: string): Promise<Fixture> {
  const record = await indexPath(LANG_FIXTURES, relPath);
  assert.equal(record.skip, null, `${relPath} was skipped: ${record.skip} ${record.detail ?? ''}`);
  assert.ok(record.tags);
  const source = (await readFile(join(LANG_FIXTURES, relPath), 'utf8')).split('\n');
  return {
    tags: record.tags,
    refs: unpackRefs(record.tags.refs),
    source,
    row(needle: string): number {
      const rows = source.flatMap((text, row) => (text.includes(needle) ? [row] : []));
      assert.equal(rows.length, 1, `expected exactly one line of ${relPath} to contain ${JSON.stringify(needle)}, found ${rows.length}`);
      return rows[0];
    },
  };
}

export type Expected = Array<[name: string, subkind: string, lineNeedle: string]>;

const byPosition = (a: [string, string, number], b: [string, string, number]) =>
  a[2] - b[2] || a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]);

/** The fixture's definitions are exactly `expected` (name, subkind and line). */
export function assertDefs(fx: Fixture, expected: Expected): void {
  const actual = fx.tags.defs.map((d): [string, string, number] => [d.name, d.subkind, d.line]).sort(byPosition);
  const wanted = expected.map(([name, subkind, needle]): [string, string, number] => [name, subkind, fx.row(needle)]);
  assert.deepEqual(actual, wanted.sort(byPosition));
}

/** Each expected reference is present (the fixtures hold more references than listed). */
export function assertRefs(fx: Fixture, expected: Expected): void {
  for (const [name, subkind, needle] of expected) {
    const line = fx.row(needle);
    const found = fx.refs.filter((r) => r.name === name && r.line === line).map((r) => r.subkind);
    assert.ok(
      found.includes(subkind),
      `reference ${name} (${subkind}) on line ${line} ${JSON.stringify(fx.source[line])}; found ${JSON.stringify(found)}`,
    );
  }
}

/** The only references to `name` on the needle's line have these subkinds (one per occurrence). */
export function assertRefsOnLine(fx: Fixture, name: string, needle: string, subkinds: string[]): void {
  const line = fx.row(needle);
  const found = fx.refs.filter((r) => r.name === name && r.line === line).map((r) => r.subkind);
  assert.deepEqual(found.sort(), [...subkinds].sort(), `references to ${name} on line ${line}`);
}

export function assertNoRef(fx: Fixture, name: string, why: string, subkind?: string): void {
  const found = fx.refs.filter((r) => r.name === name && (subkind === undefined || r.subkind === subkind));
  assert.deepEqual(found, [], `no reference to ${name} expected (${why})`);
}

/** The definition's enclosing scope rows are the needles' rows, and their text is stored as in the file. */
export function assertScopes(fx: Fixture, name: string, subkind: string, scopeNeedles: string[], defNeedle?: string): void {
  const defLine = defNeedle === undefined ? undefined : fx.row(defNeedle);
  const defs = fx.tags.defs.filter((d) => d.name === name && d.subkind === subkind && (defLine === undefined || d.line === defLine));
  assert.equal(defs.length, 1, `one ${subkind} ${name} expected, found ${defs.length}`);
  const rows = scopeNeedles.map((needle) => fx.row(needle));
  assert.deepEqual(defs[0].scopes, rows, `scopes of ${subkind} ${name}`);
  const lines = new Map(fx.tags.lines);
  for (const [i, row] of rows.entries()) {
    assert.ok(lines.get(row)?.includes(scopeNeedles[i]), `line ${row} stored as ${JSON.stringify(lines.get(row))}`);
    assert.equal(lines.get(row), fx.source[row].trimEnd());
  }
  assert.equal(lines.get(defs[0].line), fx.source[defs[0].line].trimEnd());
}

/**
 * No name node is both a definition and a reference. Tags carry no column, so a node is
 * approximated by (line, name); `sameLineUses` lists names that a line really both defines and uses.
 */
export function assertDefsAreNotRefs(fx: Fixture, sameLineUses: string[] = []): void {
  const refKeys = new Set(fx.refs.map((r) => `${r.line}:${r.name}`));
  const both = fx.tags.defs.filter((d) => refKeys.has(`${d.line}:${d.name}`) && !sameLineUses.includes(d.name));
  assert.deepEqual(both, []);
}
