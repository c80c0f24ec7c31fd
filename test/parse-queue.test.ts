import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ParseQueue } from '../src/indexer/parse-queue.js';

test('a parse queue hands out each path once: wanted ones first, by rank, then the rest in order', async () => {
  const queue = new ParseQueue();
  queue.want(['c', 'x'], 1); // before the pass has its paths; x is none of them
  queue.fill(['a', 'b', 'c', 'd', 'e']);
  queue.want(['e', 'c'], 0);
  const settled = queue.whenSettled(['e', 'x']);
  assert.deepEqual(queue.take(2), ['e', 'c']);
  queue.want(['a', 'c'], 2); // c was taken already
  assert.deepEqual(queue.take(10), ['a', 'b', 'd']);
  assert.deepEqual(queue.take(10), []);
  let done = false;
  void settled.then(() => (done = true));
  queue.settle(['c']);
  await Promise.resolve();
  assert.equal(done, false, 'e has not settled');
  queue.settle(['e']);
  await settled;
  assert.deepEqual(queue.progress(), { indexedFiles: 2, files: 5 });
});

test('a finished pass wakes every waiter', async () => {
  const queue = new ParseQueue();
  const waiting = queue.whenSettled(['a']);
  queue.fill(['a']);
  queue.finish();
  await waiting;
});
