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

test('a plain word the message writes as code comes first, as a --mention does: a method of a mentioned file is shown, where its top-level definitions took the budget', async () => {
  const root = tempDir();
  const helpers = Array.from({ length: 80 }, (_, k) => `def helper_number_${k}(value: int, scale: int) -> int:\n    return value * scale\n\n`).join('');
  writeFileSync(join(root, 'ctx.py'), `${helpers}class AppContext:\n    def pop(self) -> None:\n        pass\n\n    def push(self) -> None:\n        pass\n`);
  writeFileSync(join(root, 'app.py'), 'from ctx import AppContext\n\n\ndef run() -> None:\n    AppContext().push()\n');
  // Other files, for the rest of the budget to name.
  for (let k = 0; k < 60; k++) writeFileSync(join(root, `mod_${k}.py`), `def other_function_${k}(value: int) -> int:\n    return value\n`);
  const cacheDir = tempDir();
  const showsPush = async (message: string) => /def push\(self\)/.test((await buildMap({ root, cacheDir, tokens: 200, message })).text);
  for (const message of ['Fix the bug in ctx.py where AppContext.push fails', 'Fix the bug in ctx.py where `push` fails', 'Fix ctx.py: push() fails']) {
    assert.ok(await showsPush(message), message);
  }
  // Not written as code, a plain word weighs as a mention but is not put first.
  assert.ok(!(await showsPush('Fix the bug in ctx.py where push fails')));
});
