import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { get_encoding } from 'tiktoken';
import { DEFAULT_ENCODING, ENCODINGS, loadTokenizerHere, tokenCounter, wholeTextCounter } from '../src/pack/tokens.js';
import { seededRandom } from '../src/random.js';
import { ELIDED_MARK, SHOWN_MARK } from '../src/render/render.js';
import { packageRoot } from '../src/paths.js';

// Every tokenizer thread of this file signals its answer before it posts it, the order a caller
// may see them in anyway (a message crosses threads on its own schedule): counts must wait for it.
const EARLY = { signalEarly: true };

// Pieces chosen to sit at line ends and starts, where the line sums could go wrong.
const PIECES = [
  'src/app.ts:', '│export function run(a: number): string {', '⋮', '…', '', ' ', '  ', '\t', '{', '}', '});', ':', '::', '"',
  'x', 'value123', '12345', 'é', '日本語', '🙂', "'s", '<|endoftext|>', '\r', '```', '```ts', '//', '#', '  indented', '-->',
];

function randomText(random: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 12);
  for (let i = 0; i < count; i++) {
    let line = '';
    const parts = Math.floor(random() * 5);
    for (let p = 0; p < parts; p++) line += PIECES[Math.floor(random() * PIECES.length)];
    lines.push(line);
  }
  return lines.join('\n') + (random() < 0.5 ? '\n' : '');
}

test("the map's marks are one token each where a line starts, on the default and GPT-4o's encodings", () => {
  // The marks repeat on every shown line and every gap: a mark of several tokens (`⋮` is four
  // with its newline) would spend a sixth of a small map on punctuation.
  for (const name of [DEFAULT_ENCODING, 'o200k_base'] as const) {
    const encoding = get_encoding(name);
    try {
      const cost = (text: string) => encoding.encode(text).length;
      const shown = `src/app.ts:\n${SHOWN_MARK}export function run(a: number): string {\n`;
      assert.equal(cost(shown + ELIDED_MARK + '\n') - cost(shown), 1, name);
      assert.equal(cost(`${shown}${SHOWN_MARK}}\n`) - cost(shown), cost('}\n') + 1, name);
    } finally {
      encoding.free();
    }
  }
});

test('line-summed token counts equal whole-text counts on every encoding', () => {
  // Real text too: this repository's sources and README, whole.
  const texts = [readFileSync(join(packageRoot, 'README.md'), 'utf8')];
  for (const name of readdirSync(join(packageRoot, 'src'))) {
    if (name.endsWith('.ts')) texts.push(readFileSync(join(packageRoot, 'src', name), 'utf8'));
  }
  const random = seededRandom(7);
  for (let i = 0; i < 400; i++) texts.push(randomText(random));
  for (const encoding of ENCODINGS) {
    const summed = tokenCounter(encoding, EARLY);
    const whole = wholeTextCounter(get_encoding(encoding));
    for (const text of texts) assert.equal(summed(text), whole(text), `${encoding}: ${JSON.stringify(text.slice(0, 80))}`);
    // Memoised counts stay right when asked again.
    for (const text of texts.slice(0, 50)) assert.equal(summed(text), whole(text));
  }
});

test('a counter counts the same in its thread and once its tokenizer is loaded in this thread', async () => {
  const random = seededRandom(11);
  const texts = Array.from({ length: 200 }, () => randomText(random));
  const encoding = 'p50k_base';
  const summed = tokenCounter(encoding, EARLY);
  const whole = wholeTextCounter(get_encoding(encoding));
  for (const text of texts.slice(0, 100)) assert.equal(summed(text), whole(text), 'in its thread');
  await loadTokenizerHere(encoding);
  await loadTokenizerHere(encoding); // once moved, again is nothing to do
  assert.equal(tokenCounter(encoding, EARLY), summed, 'the same counter');
  for (const text of texts) assert.equal(summed(text), whole(text), `in this thread: ${JSON.stringify(text.slice(0, 80))}`);
});

test('many thousands of counts in the tokenizer thread, under load, each get their own answer', async () => {
  // Threads that keep the cores busy, so the tokenizer thread and this one are descheduled at any point.
  const busy = Array.from({ length: 3 }, () => new Worker('const end = Date.now() + 60000; while (Date.now() < end) {}', { eval: true }));
  try {
    const summed = tokenCounter('gpt2', EARLY);
    const whole = wholeTextCounter(get_encoding('gpt2'));
    for (let i = 0; i < 20_000; i++) {
      // Each text new to the counter: one round trip to the thread per call.
      const text = `const value${i} = compute(${i}, "${'x'.repeat(i % 7)}");\n`;
      assert.equal(summed(text), whole(text), `call ${i}`);
    }
  } finally {
    await Promise.all(busy.map((worker) => worker.terminate()));
  }
});
