// The first map of a cold start: for chat files drawn with a fixed seed, a daemon starts on an
// empty cache and is asked at once for a map bounded by --wait; the answer (a partial map) is
// timed from the request and compared with the complete map of the same request (from a complete
// cache, --complete-cache): how many of the complete map's first 20 files it has.
//
//   node dist/bench/partial.js --repo DIR [--complete-cache DIR] [--trials 5] [--seed 7] [--wait 8] [--workers 2] [--json FILE]
//
// --complete-cache: a tag cache of DIR indexed in full (e.g. the cold bench's, or `repomap map DIR
// --cache-dir CACHE` run once); each complete map is made in-process from it (a warm run). Without
// it (a tree whose complete index is out of reach), the first maps are timed and not compared.

import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DaemonClient } from '../src/client/client.js';
import { daemonPaths } from '../src/daemon/runtime.js';
import type { RepoMap } from '../src/api/types.js';
import { packageRoot } from '../src/paths.js';
import { seededRandom } from '../src/random.js';
import { bytesPerFile, formatPerFile } from './per-file.js';
import { indexableSourceFiles } from './source-files.js';

const BIN = join(packageRoot, 'bin', 'repomap.js');
const DAEMON = join(packageRoot, 'bin', 'repomapd.js');
/** The head of a map compared: its first files. */
const HEAD = 20;
const USAGE = 'usage: node dist/bench/partial.js --repo DIR [--complete-cache DIR] [--trials 5] [--seed 7] [--wait 8] [--workers 2] [--json FILE]\n';

const { values } = parseArgs({
  options: {
    repo: { type: 'string' },
    'complete-cache': { type: 'string' },
    trials: { type: 'string', default: '5' },
    seed: { type: 'string', default: '7' },
    wait: { type: 'string', default: '8' },
    workers: { type: 'string', default: '2' },
    json: { type: 'string' },
  },
});
if (!values.repo) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const root = resolve(values.repo);
const completeCache = values['complete-cache'] === undefined ? undefined : resolve(values['complete-cache']);
const trials = Number(values.trials);
const waitSeconds = Number(values.wait);

interface Trial {
  chatFile: string;
  /** From the request to the answer. */
  answerMs: number;
  /** From the daemon's spawn to the answer. */
  fromStartMs: number;
  indexedFiles: number;
  files: number;
  /** Of the complete map's first HEAD files, how many the partial map's first HEAD has (without --complete-cache: not compared). */
  sharedHead?: number;
  /** The complete map's first HEAD files that the partial map's first HEAD lacks. */
  missedHead?: string[];
  peakRssMiB: number;
  /** The daemon's peak RSS (until its shutdown right after the answer) per file indexed by the answer. */
  peakBytesPerFile: number | undefined;
}


function head(map: RepoMap): string[] {
  return map.files.slice(0, HEAD).map((file) => file.path);
}

const call = DaemonClient.once;

/** The partial map of one cold start: a daemon on an empty cache, asked as soon as it listens. */
async function coldFirstMap(chatFile: string): Promise<{ map: RepoMap; answerMs: number; fromStartMs: number; peakRssMiB: number }> {
  const scratch = mkdtempSync(join(os.tmpdir(), 'repomap-bench-partial-'));
  const runtime = join(scratch, 'run');
  mkdirSync(runtime);
  chmodSync(runtime, 0o700);
  const socket = daemonPaths(root, join(runtime, 'repomap')).socket;
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M', process.execPath, DAEMON, root, '--foreground', '--workers', values.workers!, '--cache-dir', join(scratch, 'cache')], {
    env: { ...process.env, XDG_RUNTIME_DIR: runtime },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    for (;;) {
      try {
        await call(socket, 'status');
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const asked = performance.now();
    const map = await call<RepoMap>(socket, 'map', { chatFiles: [chatFile], waitSeconds });
    const answered = performance.now();
    await call(socket, 'shutdown').catch(() => {});
    await exited;
    const peakKiB = Number(/(\d+)\s*$/.exec(stderr.trim())?.[1] ?? 0);
    return { map, answerMs: answered - asked, fromStartMs: answered - started, peakRssMiB: peakKiB / 1024 };
  } finally {
    child.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  }
}

function completeMap(chatFile: string, completeCache: string): RepoMap {
  const result = spawnSync(process.execPath, [BIN, 'map', root, '--cache-dir', completeCache, '--chat', join(root, chatFile), '--format', 'json', '--quiet'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (result.status !== 0) throw new Error(`repomap map failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as RepoMap;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function main(): Promise<void> {
  const files = indexableSourceFiles(root);
  const rand = seededRandom(Number(values.seed));
  const chosen = Array.from({ length: trials }, () => files[Math.floor(rand() * files.length)]);
  const results: Trial[] = [];
  for (const chatFile of chosen) {
    const { map, answerMs, fromStartMs, peakRssMiB } = await coldFirstMap(chatFile);
    const full = completeCache === undefined ? undefined : new Set(head(completeMap(chatFile, completeCache)));
    const partialHead = new Set(head(map));
    const sharedHead = full && [...full].filter((path) => partialHead.has(path)).length;
    const missedHead = full && [...full].filter((path) => !partialHead.has(path));
    const indexedFiles = map.partial?.indexedFiles ?? map.stats.discovered;
    const peakBytesPerFile = bytesPerFile(peakRssMiB * 2 ** 20, indexedFiles);
    const trial = { chatFile, answerMs, fromStartMs, indexedFiles, files: map.partial?.files ?? map.stats.discovered, sharedHead, missedHead, peakRssMiB, peakBytesPerFile };
    results.push(trial);
    process.stdout.write(
      `${chatFile}: first map ${(answerMs / 1000).toFixed(1)} s after the request (${(fromStartMs / 1000).toFixed(1)} s after the spawn), ` +
        `${map.partial ? `partial, ${trial.indexedFiles} of ${trial.files} files indexed` : 'complete'}; ${full ? `${sharedHead} of the complete map's first ${HEAD} files` : 'not compared'}; peak RSS ${peakRssMiB.toFixed(0)} MiB (${formatPerFile(peakBytesPerFile)} indexed)\n`,
    );
  }
  const summary = {
    medianAnswerS: median(results.map((r) => r.answerMs)) / 1000,
    medianSharedHead: completeCache === undefined ? undefined : median(results.map((r) => r.sharedHead ?? 0)),
    minSharedHead: completeCache === undefined ? undefined : Math.min(...results.map((r) => r.sharedHead ?? 0)),
    medianPeakRssMiB: median(results.map((r) => r.peakRssMiB)),
  };
  process.stdout.write(
    `median first map ${summary.medianAnswerS.toFixed(1)} s after the request (target <= 10 s); ` +
      (completeCache ? `median ${summary.medianSharedHead} of ${HEAD} shared (target >= 16), min ${summary.minSharedHead}` : 'not compared with the complete maps') +
      `; median peak RSS ${summary.medianPeakRssMiB.toFixed(0)} MiB\n`,
  );
  if (values.json) writeFileSync(values.json, JSON.stringify({ root, waitSeconds, workers: Number(values.workers), seed: Number(values.seed), trials: results, summary }, null, 2) + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
