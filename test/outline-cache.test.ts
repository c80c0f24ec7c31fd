import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OutlineCache } from '../src/indexer/indexer.js';
import { seededRandom } from '../src/random.js';
import { Outline } from '../src/store/outline.js';
import type { DefTag, FileOutline } from '../src/records.js';

test('the outline cache reads each outline once, and past its limit drops the least recently used', () => {
  const reads: string[] = [];
  const cache = new OutlineCache((path) => {
    reads.push(path);
    return Outline.of({ lang: 'python', lineCount: path.length, defs: [], lines: [] });
  }, 3);
  for (const path of ['a', 'b', 'c', 'a']) cache.get(path);
  assert.deepEqual(reads, ['a', 'b', 'c'], 'a hit reads nothing');
  cache.get('d'); // the fourth: b, used longest ago, goes (a was used again after it)
  assert.equal(cache.size, 3);
  for (const path of ['a', 'c', 'd']) cache.get(path);
  assert.deepEqual(reads, ['a', 'b', 'c', 'd'], 'a, c and d were kept');
  cache.get('b');
  assert.deepEqual(reads, ['a', 'b', 'c', 'd', 'b'], 'b was read again');
  cache.forget('c');
  cache.get('c');
  assert.equal(reads.at(-1), 'c', 'a forgotten outline is read again');
});

test('the outline cache keeps no miss: an outline not readable yet (its commit to come) is read again', () => {
  let committed = false;
  const cache = new OutlineCache(() => (committed ? Outline.of({ lang: 'python', lineCount: 1, defs: [], lines: [] }) : undefined));
  assert.equal(cache.get('a'), undefined);
  assert.equal(cache.size, 0);
  committed = true;
  assert.equal(cache.get('a')?.lineCount, 1);
});

/** An outline of random definitions: repeated names, nested scopes, text beyond ASCII, lines with no definition. */
function randomOutline(rand: () => number): FileOutline {
  const words = ['run', 'Ünïcödé', '名前', 'emoji😀', '', 'x', 'a_rather_long_identifier_name', 'run'];
  const subkinds = ['function', 'class', 'method', 'constant'];
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
  const lineCount = 1 + Math.floor(rand() * 400);
  const defs: DefTag[] = [];
  const named = new Set<number>();
  for (let i = Math.floor(rand() * 30); i > 0; i--) {
    const line = Math.floor(rand() * lineCount);
    const scopes = Array.from({ length: Math.floor(rand() * 3) }, () => Math.floor(rand() * (line + 1))).sort((a, b) => a - b);
    const signatureEnd = Math.min(lineCount - 1, line + Math.floor(rand() * 3));
    const def: DefTag = { name: pick(words) + (rand() < 0.5 ? String(i) : ''), subkind: pick(subkinds), line, signatureEnd, scopes };
    // Half have an extent (DefTag.end), to a line of the file; the others have none.
    if (rand() < 0.5) def.end = signatureEnd + Math.floor(rand() * (lineCount - signatureEnd));
    defs.push(def);
    for (let row = line; row <= signatureEnd; row++) named.add(row);
    for (const scope of scopes) named.add(scope);
  }
  const lines = [...named].sort((a, b) => a - b).map((line): [number, string] => [line, rand() < 0.1 ? '' : `${pick(words)} ${line} ${pick(words)}`]);
  return { lang: pick(['python', 'typescript', 'go']), lineCount, defs, lines };
}

test('an outline keeps every definition and line through its bytes', () => {
  const rand = seededRandom(7);
  for (let round = 0; round < 200; round++) {
    const plain = randomOutline(rand);
    const outline = Outline.decode(Outline.encode(plain));
    assert.equal(outline.lang, plain.lang);
    assert.equal(outline.lineCount, plain.lineCount);
    assert.equal(outline.defCount, plain.defs.length);
    assert.deepEqual(outline.defs(), plain.defs);
    plain.defs.forEach((def, i) => {
      assert.equal(outline.defDepth(i), def.scopes.length);
      def.scopes.forEach((line, k) => assert.equal(outline.defScope(i, k), line, `definition ${i}, scope ${k}`));
    });
    for (const [line, text] of plain.lines) assert.equal(outline.lineText(line), text, `line ${line}`);
    const stored = new Set(plain.lines.map(([line]) => line));
    for (let line = -1; line <= plain.lineCount; line++) if (!stored.has(line)) assert.equal(outline.lineText(line), '', `line ${line} is not stored`);
  }
});

test('bytes that are not an outline are refused, not misread', () => {
  const bytes = Outline.encode(randomOutline(seededRandom(3)));
  assert.throws(() => Outline.decode(new Uint8Array(0)), /not an outline/);
  assert.throws(() => Outline.decode(bytes.subarray(0, 12)), /not an outline/, 'cut short');
  const wrongCount = Buffer.from(bytes);
  wrongCount.writeInt32LE(wrongCount.readInt32LE(4 + 4) + 1, 4 + 4); // one definition more than the numbers hold
  assert.throws(() => Outline.decode(wrongCount), /not an outline/);
  // A damaged store's value whose counts still add up: any one number far out of range (a line past
  // the file, a text end past the text, a subkind that is not there) is refused too.
  const count = bytes.readInt32LE(0);
  for (let i = 0; i < count; i++) {
    const damaged = Buffer.from(bytes);
    damaged.writeInt32LE(1 << 30, 4 + 4 * i);
    assert.throws(() => Outline.decode(damaged), /not an outline/, `number ${i} damaged`);
  }
});
