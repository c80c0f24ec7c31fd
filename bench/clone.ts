// The second clone: `repomap map` on a fresh clone whose files another clone's cold run put in the
// shared tag cache, so nothing is parsed; timed against its floor (listing the files as discovery
// does and an lstat of each), with its peak RSS and that per source file.
//
//   node dist/bench/clone.js --repo DIR --shared-cache DIR [--clone DIR] [--runs 3] [--workers 2] [--json FILE]
//
// --shared-cache: a shared cache a cold run of DIR filled (`REPOMAP_SHARED_CACHE=S repomap map DIR
// --cache-dir C`); each run gets a fresh copy of it and an empty cache of its own. --clone: a clone
// of DIR to use (default: `git clone` into a scratch folder, removed at the end).

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { RepoMap } from '../src/api/types.js';
import { discoverFiles } from '../src/discover/discover.js';
import { statAll } from '../src/indexer/stat.js';
import { packageRoot } from '../src/paths.js';
import { bytesPerFile, formatRss } from './per-file.js';
import { trackedSourceFiles } from './source-files.js';

const BIN = join(packageRoot, 'bin', 'repomap.js');
const USAGE = 'usage: node dist/bench/clone.js --repo DIR --shared-cache DIR [--clone DIR] [--runs 3] [--workers 2] [--json FILE]\n';

const { values } = parseArgs({
  options: {
    repo: { type: 'string' },
    'shared-cache': { type: 'string' },
    clone: { type: 'string' },
    runs: { type: 'string', default: '3' },
    workers: { type: 'string', default: '2' },
    json: { type: 'string' },
  },
});
if (!values.repo || !values['shared-cache']) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const repo = resolve(values.repo);
const shared = resolve(values['shared-cache']);
const runs = Number(values.runs);
const scratch = mkdtempSync(join(os.tmpdir(), 'repomap-bench-clone-'));
const clone = values.clone ? resolve(values.clone) : join(scratch, 'clone');

interface Run {
  ms: number;
  peakBytes: number;
  peakBytesPerFile: number | undefined;
  parsed: number;
  textSha: string;
  floorMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/** One clone's first map: a fresh copy of the shared cache, an empty cache of its own. */
function cloneMap(run: number, sourceFiles: number): Omit<Run, 'floorMs'> {
  const sharedCopy = join(scratch, `shared-${run}`);
  const cache = join(scratch, `cache-${run}`);
  execFileSync('cp', ['-a', shared, sharedCopy]);
  spawnSync('sync');
  const rssFile = join(scratch, 'rss');
  const t0 = performance.now();
  const result = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', '-o', rssFile, process.execPath, BIN, 'map', clone, '--cache-dir', cache, '--workers', values.workers!, '--format', 'json', '--quiet'],
    { env: { ...process.env, REPOMAP_SHARED_CACHE: sharedCopy }, encoding: 'utf8', maxBuffer: 1 << 30 },
  );
  const ms = performance.now() - t0;
  if (result.status !== 0) throw new Error(`repomap map on the clone exited with ${result.status ?? result.signal}: ${result.stderr.slice(-2000)}`);
  const map = JSON.parse(result.stdout) as RepoMap;
  const peakBytes = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) * 1024;
  rmSync(sharedCopy, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
  return {
    ms,
    peakBytes,
    peakBytesPerFile: bytesPerFile(peakBytes, sourceFiles),
    parsed: map.stats.parsed,
    textSha: createHash('sha1').update(map.text).digest('hex'),
  };
}

async function main(): Promise<void> {
  if (!values.clone) execFileSync('git', ['clone', '-q', repo, clone]);
  const sourceFiles = trackedSourceFiles(clone).length;
  const results: Run[] = [];
  for (let r = 1; r <= runs; r++) {
    const t0 = performance.now();
    const { paths } = await discoverFiles(clone);
    await statAll(clone, paths);
    const floorMs = performance.now() - t0;
    const run = { ...cloneMap(r, sourceFiles), floorMs };
    results.push(run);
    process.stdout.write(
      `run ${r}: second clone ${(run.ms / 1000).toFixed(2)} s (floor ${(floorMs / 1000).toFixed(2)} s), peak RSS ${formatRss(run.peakBytes, sourceFiles)}, ${run.parsed} files parsed\n`,
    );
  }
  const summary = {
    sourceFiles,
    medianMs: median(results.map((r) => r.ms)),
    medianFloorMs: median(results.map((r) => r.floorMs)),
    medianPeakBytes: median(results.map((r) => r.peakBytes)),
    parsed: results.reduce((sum, r) => sum + r.parsed, 0),
    sameMap: new Set(results.map((r) => r.textSha)).size === 1,
  };
  process.stdout.write(
    `second clone (${sourceFiles} source files): median ${(summary.medianMs / 1000).toFixed(2)} s, ${(summary.medianMs / summary.medianFloorMs).toFixed(1)} x its floor ` +
      `(${(summary.medianFloorMs / 1000).toFixed(2)} s); peak RSS ${formatRss(summary.medianPeakBytes, sourceFiles)}; ` +
      `${summary.parsed} files parsed in all; ${summary.sameMap ? 'the same map every run' : 'THE MAPS DIFFER'}\n`,
  );
  if (values.json) writeFileSync(values.json, JSON.stringify({ repo, clone, workers: Number(values.workers), runs: results, summary }, null, 2) + '\n');
  if (!summary.sameMap) process.exitCode = 1;
}

try {
  await main();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
