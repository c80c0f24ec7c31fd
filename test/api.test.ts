// The library's two paths, in this process (buildMap) and through a daemon (connect().map),
// answer a request alike: one result shape, 1-based lines, the same typed errors.
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type MapRequest, RepomapError, buildMap, connect } from '../src/api/index.js';
import { stopDaemon } from '../src/cli/daemon-commands.js';
import { copyFixture, tempDir } from './helpers.js';

test('buildMap and a daemon answer the same request with the same map, its lines 1-based', async () => {
  const root = copyFixture('shop');
  writeFileSync(join(root, 'notes.zz'), 'no grammar reads this\n');
  const runtime = tempDir('repomap-run-');
  chmodSync(runtime, 0o700);
  const previous = process.env.XDG_RUNTIME_DIR;
  process.env.XDG_RUNTIME_DIR = runtime;
  try {
    const requests: MapRequest[] = [
      { chatFiles: ['src/checkout.ts'], mentionedIdents: ['Cart'], tokens: 600, listSkipped: true },
      { message: 'the pricing of a cart', ranking: 'aider', markdown: true },
      {},
    ];
    const repo = await connect(root, { cacheDir: tempDir(), workers: 1 });
    try {
      for (const request of requests) {
        const { stats: _local, ...local } = await buildMap({ root, cacheDir: tempDir(), workers: 1, ...request });
        const { stats: _remote, ...remote } = await repo.map(request);
        assert.deepEqual(remote, local, JSON.stringify(request));
        assert.ok(local.files.some((file) => file.lines.length > 0));
        for (const file of local.files) {
          const lines = readFileSync(join(root, file.path), 'utf8').split('\n');
          for (const shown of file.lines) assert.equal(lines[shown.line - 1], shown.text, `${file.path}:${shown.line}`);
        }
      }
      // Skipped files are counted always, listed only when asked (listSkipped), on both paths.
      const listed = await buildMap({ root, cacheDir: tempDir(), workers: 1, listSkipped: true });
      assert.deepEqual(listed.skippedFiles, [{ path: 'notes.zz', reason: 'no grammar' }]);
      const counted = await buildMap({ root, cacheDir: tempDir(), workers: 1 });
      assert.deepEqual([counted.skipped, counted.skippedFiles], [{ 'no grammar': 1 }, []]);

      const refused = (err: unknown) => err instanceof RepomapError && err.code === 'bad-request' && /ranking must be one of repomap, aider/.test(err.message);
      const bad = { ranking: 'random' } as unknown as MapRequest;
      await assert.rejects(buildMap({ root, cacheDir: tempDir(), ...bad }), refused);
      await assert.rejects(repo.map(bad), refused);
      // A request over the daemon's line limit is refused before it is sent; the connection goes on.
      await assert.rejects(repo.map({ message: 'word '.repeat(250_000) }), (err: unknown) => err instanceof RepomapError && err.code === 'bad-request' && /over the daemon's limit of 1048576/.test(err.message));
      assert.ok((await repo.status()).files > 0);
      // Closed by the caller: a call made then says so, not that the daemon went away.
      const pending = repo.status();
      repo.close();
      await assert.rejects(pending, /closed by this client/);
      await assert.rejects(repo.status(), /closed by this client/);
      await assert.rejects(buildMap({ root, cacheDir: '' }), (err: unknown) => err instanceof RepomapError && err.code === 'bad-request' && /cacheDir must be a folder/.test(err.message));
    } finally {
      repo.close();
      await stopDaemon(root);
    }
  } finally {
    if (previous === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = previous;
  }
});
