// The text search that puts a partial map's users ahead: nearest folders first, handed over batch by batch.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { filesUsing, folderDistance } from '../src/indexer/priority.js';
import { tempDir, writeTree } from './helpers.js';

test('folder distance counts the steps up to the shared folder and down again', () => {
  assert.equal(folderDistance('src/a', 'src/a'), 0);
  assert.equal(folderDistance('src/a', 'src/b'), 2);
  assert.equal(folderDistance('src/a', ''), 2);
  assert.equal(folderDistance('', 'far/x/y'), 3);
  assert.equal(folderDistance('src/a', 'src/a/deep'), 1);
  assert.equal(folderDistance('src/ab', 'src/a'), 2, 'folders are compared by name, not by prefix');
});

test('the users of the names are found from the chat file outwards, a batch at a time, the fuller users first in each', async () => {
  const root = tempDir();
  const files: Record<string, string> = {
    'src/a/chat.ts': 'export function alphaName() {}\nexport function betaName() {}\n',
    'src/a/near.ts': 'alphaName();\n',
    'src/a/near2.ts': 'alphaName(); betaName();\n',
    'src/b/partial.ts': 'alphaNameLonger();\n', // a longer word is not a use
    'src/b/sibling.ts': 'betaName();\n',
    'far/x/y/z.ts': 'alphaName(); betaName();\n',
    'docs/notes.md': 'alphaName\n', // no grammar: not a source file
  };
  writeTree(root, files);
  const paths = Object.keys(files).sort();
  const batches: string[][] = [];
  await filesUsing(root, paths, ['alphaName', 'betaName'], { near: ['src/a/chat.ts'], onFound: (users) => batches.push(users), batchFiles: 2 });
  assert.deepEqual(batches, [['src/a/near2.ts', 'src/a/near.ts'], ['src/b/sibling.ts'], ['far/x/y/z.ts']]);
});

test('an aborted search hands over nothing more', async () => {
  const root = tempDir();
  for (let i = 0; i < 6; i++) {
    mkdirSync(join(root, `m${i}`), { recursive: true });
    writeFileSync(join(root, `m${i}`, 'use.ts'), 'alphaName();\n');
  }
  const paths = Array.from({ length: 6 }, (_, i) => `m${i}/use.ts`);
  const stop = new AbortController();
  const batches: string[][] = [];
  await filesUsing(root, paths, ['alphaName'], {
    near: ['m0/chat.ts'],
    batchFiles: 2,
    signal: stop.signal,
    onFound: (users) => {
      batches.push(users);
      stop.abort();
    },
  });
  assert.deepEqual(batches, [['m0/use.ts', 'm1/use.ts']]);
});
