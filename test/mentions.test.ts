import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildMap } from '../src/map.js';
import { mentionedIdentifiers } from '../src/mentions.js';
import { copyFixture, tempDir } from './helpers.js';

test('a message mentions its words, not its stop words or words under 3 characters, unless written as code', () => {
  const words = (message: string) => [...mentionedIdentifiers(message)].sort();
  assert.deepEqual(words('make the packer faster in of.py'), ['faster', 'packer']);
  assert.deepEqual(words('fix the restock bug in inventory.py'), ['inventory', 'restock']);
  assert.deepEqual(words('make priceOf handle bulk orders'), ['bulk', 'handle', 'orders', 'priceOf']);
  // Code form: backticks, a dotted name, a call.
  assert.deepEqual(words('rename `of` and use io.Reader, then call ok() in db'), ['Reader', 'call', 'io', 'of', 'ok', 'rename']);
  assert.deepEqual(words('`make` the `the`'), ['make', 'the']);
});

test('--message stop words do not pull in files named after them', async () => {
  const root = copyFixture('shop');
  writeFileSync(join(root, 'src', 'of.ts'), 'export function ofNothing(): number {\n  return 0;\n}\n');
  const map = await buildMap({ root, cacheDir: tempDir(), chatFiles: ['src/checkout.ts'], message: 'make the discount of the cart work in py', tokens: 256 });
  assert.deepEqual(map.request.mentionedIdents, ['cart', 'discount']);
  assert.ok(!map.files.slice(0, 3).some((file) => file.path === 'src/of.ts'), map.files.map((file) => file.path).join(' '));
});
