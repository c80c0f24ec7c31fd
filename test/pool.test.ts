import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createRunner } from '../src/indexer/pool.js';
import { buildMap } from '../src/map.js';
import { packageRoot } from '../src/paths.js';
import { copyFixture, indexOnce, runCli, tempDir } from './helpers.js';

/** The shop fixture plus every language fixture: all six grammars, and enough files for several batches. */
function multiLanguageRepo(parts = 80): string {
  const root = copyFixture('shop');
  for (let i = 0; i < parts; i++) {
    mkdirSync(join(root, 'gen'), { recursive: true });
    writeFileSync(join(root, 'gen', `part${i}.py`), `class Part${i}:\n    def run(self):\n        return helper_${(i + 1) % parts}()\n\n\ndef helper_${i}():\n    return Part${i}()\n`);
  }
  return root;
}

test('the pool, in-process extraction and a one-worker pass that moves to a thread give identical records', async () => {
  const root = multiLanguageRepo();
  const inProcess = await indexOnce({ root, cacheDir: tempDir(), workers: 1 });
  const pooled = await indexOnce({ root, cacheDir: tempDir(), workers: 2 });
  // Past 20 files, one worker parses the rest on a thread, which writes their tags itself.
  const moved = await indexOnce({ root, cacheDir: tempDir(), workers: 1, runnerOptions: { inThreadFiles: 20 } });
  assert.equal(pooled.stats.parsed, inProcess.stats.parsed);
  assert.ok(inProcess.stats.parsed > 80);
  for (const other of [pooled, moved]) {
    assert.deepEqual(other.records, inProcess.records);
    assert.deepEqual(other.skipped, inProcess.skipped);
  }
});

test('the pool and the one-worker runner parse a chunk of jobs before the next chunk is known', { timeout: 120_000 }, async () => {
  const root = multiLanguageRepo();
  const paths = Array.from({ length: 80 }, (_, i) => `gen/part${i}.py`);
  const jobs = paths.map((path) => ({ path, stat: { mtimeMs: 0, ctimeMs: 0, size: 100 } }));
  // One worker in this thread; one that moves to a thread in the middle of the first chunk; a pool.
  for (const [workers, inThreadFiles] of [[1, undefined], [1, 25], [2, undefined]] as const) {
    const runner = createRunner(workers, { inThreadFiles });
    let firstParsed!: () => void;
    const firstChunkParsed = new Promise<void>((resolve) => (firstParsed = resolve));
    // The second chunk is handed over only once the first is parsed: a runner that waited for every chunk would never finish.
    async function* chunks() {
      yield jobs.slice(0, 30);
      await firstChunkParsed;
      yield jobs.slice(30);
    }
    const delivered: Array<{ start: number; paths: string[] }> = [];
    let count = 0;
    try {
      await runner.stream(root, chunks(), { maxFileBytes: 1 << 20 }, (start, results) => {
        delivered.push({ start, paths: results.map((result) => (result.outcome === 'reused' ? '' : result.record.path)) });
        if ((count += results.length) === 30) firstParsed();
      });
    } finally {
      await runner.close();
    }
    // In job order, numbered as one list across the chunks, without gaps.
    assert.deepEqual(delivered.flatMap((batch) => batch.paths), paths, `workers ${workers}, ${inThreadFiles ?? 'all'} in this thread`);
    let next = 0;
    for (const batch of delivered) {
      assert.equal(batch.start, next);
      next += batch.paths.length;
    }
  }
});

test('the map is byte-identical whatever the number of workers', () => {
  const root = multiLanguageRepo();
  const outputs = [1, 2, 3].map((workers) => {
    const result = runCli(['map', root, '--cache-dir', tempDir(), '--workers', String(workers), '--tokens', '2048', '--format', 'json']);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  });
  assert.equal(outputs[1], outputs[0]);
  assert.equal(outputs[2], outputs[0]);
});

test('a one-worker pass parses its first files in this thread and the rest on one parse thread', async () => {
  const root = multiLanguageRepo();
  // A parse thread dies on the path (exitOn); this thread parses it like any other file.
  const died = (index: Awaited<ReturnType<typeof indexOnce>>) => index.skipped.filter((file) => file.path === 'gen/part79.py' && file.reason === 'parse failed');
  const moved = await indexOnce({ root, cacheDir: tempDir(), workers: 1, runnerOptions: { inThreadFiles: 20, exitOn: 'part79.py' } });
  assert.equal(died(moved).length, 1, 'a late file is parsed on the thread');
  assert.match(died(moved)[0].detail ?? '', /worker died/);
  const early = await indexOnce({ root, cacheDir: tempDir(), workers: 1, runnerOptions: { inThreadFiles: 1000, exitOn: 'part79.py' } });
  assert.equal(died(early).length, 0, 'a pass of fewer files starts no thread');
  assert.equal(early.stats.parsed, moved.stats.parsed);
});

test('files that kill workers are reported, each alone; the rest of their batches is indexed', () => {
  // Four of them in four batches: their batches die together with those queued beside them on the
  // same threads, and their retries kill threads that other files' retries share.
  const root = multiLanguageRepo(300);
  const poisons = [60, 120, 180, 240].map((i) => `gen/part${i}_poison.py`).sort();
  for (const path of poisons) writeFileSync(join(root, path), 'def poison():\n    pass\n');
  const result = runCli(['map', root, '--cache-dir', tempDir(), '--workers', '2', '--verbose', '--format', 'json'], {
    env: { REPOMAP_TEST_WORKER_EXIT_ON: 'poison' },
  });
  assert.equal(result.code, 0, result.stderr);
  const map = JSON.parse(result.stdout) as { skippedFiles: Array<{ path: string; reason: string; detail?: string }>; stats: { parsed: number } };
  const failed = map.skippedFiles.filter((file) => file.reason === 'parse failed');
  assert.deepEqual(failed.map((file) => file.path), poisons);
  for (const file of failed) assert.match(file.detail ?? '', /worker died/);
  assert.equal(map.stats.parsed, 300 + 9 + 4); // every file: 300 generated, 9 shop sources, and the poison files' records
  assert.match(result.stderr, /skipped gen\/part60_poison\.py: parse failed/);
});

test('a parse that runs over its time bound is reported as a timeout, in-process and on the pool', async () => {
  const root = tempDir();
  // 17 MB of Python takes far longer than the bound to parse; two lines take far less, however
  // loaded the machine (a bound of 1 ms timed out fine.py's query on a loaded one).
  const body = Array.from({ length: 200_000 }, (_, i) => `def function_${i}(a, b):\n    return [a + b for _ in range(${i})]\n`).join('');
  writeFileSync(join(root, 'slow.py'), body);
  writeFileSync(join(root, 'fine.py'), 'def fine():\n    pass\n');
  for (const workers of [1, 2]) {
    const index = await indexOnce({ root, cacheDir: tempDir(), workers, parseTimeoutMs: 100, maxFileBytes: 1 << 26 });
    assert.deepEqual(index.skipped.map((file) => [file.path, file.reason]), [['slow.py', 'parse timeout']]);
    assert.deepEqual(index.records.map((record) => record.path), ['fine.py']);
  }
});

test('a runner kept by the caller is reused across passes', async () => {
  const root = multiLanguageRepo();
  const runner = createRunner(2);
  try {
    const cacheDir = tempDir();
    const first = await indexOnce({ root, cacheDir, runner });
    const second = await indexOnce({ root, cacheDir, runner });
    assert.ok(first.stats.parsed > 0);
    assert.equal(second.stats.parsed, 0);
    const map = await buildMap({ root, cacheDir, runner, tokens: 512 });
    assert.equal(map.stats.parsed, 0);
  } finally {
    await runner.close();
  }
});

test('progress is drawn on a terminal only', () => {
  const root = multiLanguageRepo();
  const piped = runCli(['map', root, '--cache-dir', tempDir(), '--workers', '2']);
  assert.equal(piped.code, 0);
  assert.equal(piped.stderr, '', 'nothing on stderr when it is not a terminal');

  // `script` runs the CLI on a pseudo-terminal, as a user at a shell would.
  const cli = join(packageRoot, 'bin', 'repomap.js');
  const command = (extra: string) => `${process.execPath} ${cli} map ${root} --cache-dir ${tempDir()} --workers 2 ${extra} >/dev/null`;
  const tty = spawnSync('script', ['-qec', command(''), '/dev/null'], { encoding: 'utf8' });
  assert.equal(tty.status, 0, tty.stderr);
  assert.match(tty.stdout, /indexing \d+\/\d+ files, \d+ files\/s/);
  const quiet = spawnSync('script', ['-qec', command('--quiet'), '/dev/null'], { encoding: 'utf8' });
  assert.doesNotMatch(quiet.stdout, /indexing/);
});

test('a pool closed while its threads load grammars closes cleanly (a thread stopped in a native load would abort the process)', () => {
  const dist = join(packageRoot, 'dist', 'src');
  const script = `
    const { createRunner } = await import(${JSON.stringify(join(dist, 'indexer', 'pool.js'))});
    const { LANGUAGES } = await import(${JSON.stringify(join(dist, 'extract', 'languages.js'))});
    // A batch's worth of files of every language: each is loaded in each thread.
    const paths = LANGUAGES.flatMap((lang) => Array.from({ length: 64 }, (_, i) => 'file' + i + lang.extensions[0]));
    for (const delay of [0, 300, 500]) {
      const runner = createRunner(2);
      const warming = runner.warmUp(paths);
      await new Promise((resume) => setTimeout(resume, delay));
      await runner.close();
      await warming;
    }
    process.stdout.write('closed');
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(result.status, 0, `exit ${result.status} ${result.signal ?? ''}: ${result.stderr}`);
  assert.equal(result.stdout, 'closed');
});
