// repomapd benchmark: map latency on a warm daemon, save-to-map latency, client start-up, daemon
// memory, warm restart; compared in the same run with `repomap map` in-process.
//
//   npm run bench:daemon -- --repo DIR [--requests 200] [--saves 20] [--workers N] [--cache-dir DIR] [--save-timeout 10] [--json FILE]
//
// --cache-dir reuses a tag cache (a large corpus then skips its cold index: the first start is warm).

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DaemonClient } from '../src/client/client.js';
import type { DaemonStatus } from '../src/api/types.js';
import { daemonPaths } from '../src/daemon/runtime.js';
import { discoverFiles } from '../src/discover/discover.js';
import { statAll } from '../src/indexer/stat.js';
import type { RepoMap } from '../src/api/types.js';
import { packageRoot } from '../src/paths.js';
import { seededRandom } from '../src/random.js';
import { bytesPerFile, formatRss, processMemory } from './per-file.js';
import { indexableSourceFiles } from './source-files.js';

const BIN = join(packageRoot, 'bin', 'repomap.js');
const DAEMON = join(packageRoot, 'bin', 'repomapd.js');

const USAGE = 'usage: npm run bench:daemon -- --repo DIR [--requests 200] [--saves 20] [--workers N] [--cache-dir DIR] [--save-timeout 10] [--json FILE]\n';
let values: ReturnType<typeof parseOptions>;
try {
  values = parseOptions();
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  process.exit(2);
}

function parseOptions() {
  return parseArgs({
    options: {
      repo: { type: 'string' },
      requests: { type: 'string', default: '200' },
      saves: { type: 'string', default: '20' },
      workers: { type: 'string', default: String(os.availableParallelism()) },
      'cache-dir': { type: 'string' },
      json: { type: 'string' },
      'save-timeout': { type: 'string', default: '10' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
}

if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (!values.repo) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const root = resolve(values.repo);
const requests = Number(values.requests);
const saves = Number(values.saves);
const workers = Number(values.workers);
/** Seconds a save may take to show in a map before the bench fails. */
const saveTimeoutS = Number(values['save-timeout']);

const scratch = mkdtempSync(join(os.tmpdir(), 'repomap-bench-daemon-'));
const runtime = join(scratch, 'run');
const cacheDir = values['cache-dir'] ? resolve(values['cache-dir']) : join(scratch, 'cache');
const env = { ...process.env, XDG_RUNTIME_DIR: runtime };
const socket = daemonPaths(root, join(runtime, 'repomap')).socket;


/** Warm restarts timed (and runs of their floor). */
const WARM_RESTARTS = 3;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), min: sorted[0], max: sorted[sorted.length - 1], n: ms.length };
};

const seconds = (s: { p50: number; min: number; max: number }) =>
  `${(s.p50 / 1000).toFixed(2)} s (${(s.min / 1000).toFixed(2)}-${(s.max / 1000).toFixed(2)})`;

const call = <T>(method: string, params?: object): Promise<T> => DaemonClient.once<T>(socket, method, params);

async function startDaemon(): Promise<{ readyMs: number; exited: Promise<void>; pid: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [DAEMON, root, '--workers', String(workers), '--cache-dir', cacheDir, '--idle-timeout', '0'], {
    env,
    stdio: 'ignore',
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  for (;;) {
    try {
      await call('map', { tokens: 64, chatFiles: [] });
      return { readyMs: performance.now() - started, exited, pid: child.pid ?? 0 };
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** Milliseconds until the daemon's watcher follows the tree (its crawl runs after the first map). */
async function untilWatching(): Promise<number> {
  const from = performance.now();
  while (!(await call<DaemonStatus>('status')).watching) await new Promise((r) => setTimeout(r, 50));
  return performance.now() - from;
}


async function main(): Promise<void> {
  mkdirPrivate(runtime);
  const files = indexableSourceFiles(root);
  const rand = seededRandom(42);
  const pick = () => files[Math.floor(rand() * files.length)];

  const cold = await startDaemon();
  const afterCold = await call<DaemonStatus>('status');
  // Steady state from here: the watcher starts after the first map and crawls the tree meanwhile.
  const watchingMs = cold.readyMs + (await untilWatching());
  const afterWatching = await call<DaemonStatus>('status');

  // Map latency: one connection, as an agent's client would keep; varied chat files and mentions.
  const client = await DaemonClient.connect(socket);
  const latencies: number[] = [];
  const idents = ['init', 'parse', 'config', 'error', 'handler', 'request', 'build', 'test'];
  for (let i = 0; i < requests; i++) {
    const params = { chatFiles: [pick(), ...(i % 3 === 0 ? [pick()] : [])], mentionedIdents: [idents[i % idents.length]], tokens: 1024 };
    const t0 = performance.now();
    await client.request<RepoMap>('map', params);
    latencies.push(performance.now() - t0);
  }
  client.close();

  // Save to map: save a file with a new definition and ask until the map shows it, named in the
  // request so that the definition ranks first whatever the budget, with a chat file as an agent
  // has one. Two kinds of save: an edit of an existing Python file (rewritten, then put back),
  // and a new file (then removed).
  const chatFile = files[0];
  const measureSave = async (path: string, write: (name: string) => void, undo: () => void, i: number): Promise<number> => {
    const name = `repomap_bench_saved_${i}_${process.pid}`;
    const t0 = performance.now();
    write(name);
    try {
      for (;;) {
        const map = await call<RepoMap>('map', { chatFiles: [chatFile], mentionedFiles: [path], tokens: 256 });
        if (map.text.includes(name)) return performance.now() - t0;
        if (performance.now() - t0 > saveTimeoutS * 1000) throw new Error(`save of ${path} not reflected in ${saveTimeoutS} s`);
      }
    } finally {
      undo();
      // Let the undo settle before the next save, so each measures one change.
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  const pythonFiles = files.filter((path) => path.endsWith('.py'));
  const editLatencies: number[] = [];
  for (let i = 0; i < saves && pythonFiles.length > 0; i++) {
    const path = pythonFiles[Math.floor(rand() * pythonFiles.length)];
    const abs = join(root, path);
    const original = readFileSync(abs);
    editLatencies.push(await measureSave(path, (name) => writeFileSync(abs, `def ${name}():\n    pass\n`), () => writeFileSync(abs, original), i));
  }
  const saveLatencies: number[] = [];
  const dirs = [...new Set(files.map((path) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '')))];
  for (let i = 0; i < saves; i++) {
    const dir = dirs[Math.floor(rand() * dirs.length)];
    const path = `${dir ? `${dir}/` : ''}repomap_bench_new_${i}_${process.pid}.py`;
    const abs = join(root, path);
    saveLatencies.push(await measureSave(path, (name) => writeFileSync(abs, `def ${name}():\n    pass\n`), () => rmSync(abs, { force: true }), i));
  }

  // Client start-up: the thin client asking for status, against `node -e 0` as the floor.
  const clientRuns: number[] = [];
  const nodeRuns: number[] = [];
  for (let i = 0; i < 10; i++) {
    let t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    nodeRuns.push(performance.now() - t0);
    t0 = performance.now();
    spawnSync(process.execPath, [BIN, 'status', root], { env });
    clientRuns.push(performance.now() - t0);
  }
  const queryRuns: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, [BIN, 'query', root, '--chat', pick(), '--tokens', '1024'], { env, cwd: root });
    queryRuns.push(performance.now() - t0);
  }

  // The first daemon's peak over everything above (VmHWM), and what it holds once the requests and
  // saves are over; both per file it indexed.
  const settled = await call<DaemonStatus>('status');
  const memory = processMemory(cold.pid);
  const perFile = (bytes: number | undefined) => (bytes === undefined ? undefined : bytesPerFile(bytes, settled.indexed));

  // Warm restart: stop, start again with nothing changed (three times; the first also until it watches).
  await call('shutdown');
  await cold.exited;
  const warmStarts: number[] = [];
  let warmParsed = 0;
  let warmWatchingMs = 0;
  for (let i = 0; i < WARM_RESTARTS; i++) {
    const warm = await startDaemon();
    warmStarts.push(warm.readyMs);
    warmParsed += (await call<DaemonStatus>('status')).parsed;
    if (i === 0) warmWatchingMs = warm.readyMs + (await untilWatching());
    await call('shutdown');
    await warm.exited;
  }

  // The floor of a warm start: what it cannot skip, listing the files as discovery does and an
  // lstat of each (in this process, whose code is compiled by now: a daemon's start also loads its own).
  const floorRuns: number[] = [];
  for (let i = 0; i < WARM_RESTARTS; i++) {
    const t0 = performance.now();
    const { paths } = await discoverFiles(root);
    await statAll(root, paths);
    floorRuns.push(performance.now() - t0);
  }

  // The same map in-process, warm cache, for comparison.
  const inProcess: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, [BIN, 'map', root, '--cache-dir', cacheDir, '--workers', String(workers), '--chat', pick(), '--tokens', '1024', '--quiet'], { cwd: root });
    inProcess.push(performance.now() - t0);
  }

  const report = {
    machine: { cores: os.cpus().length, model: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    repo: { root, sourceFiles: files.length, commit: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim() },
    workers,
    coldStartMs: cold.readyMs,
    rssAfterColdMiB: afterCold.memory.rssBytes / 2 ** 20,
    rssAfterColdBytesPerFile: bytesPerFile(afterCold.memory.rssBytes, afterCold.indexed),
    watchingMs,
    rssWatchingMiB: afterWatching.memory.rssBytes / 2 ** 20,
    rssWatchingBytesPerFile: bytesPerFile(afterWatching.memory.rssBytes, afterWatching.indexed),
    indexed: afterCold.indexed,
    /** The first daemon's peak RSS over the start, the requests and the saves (VmHWM; undefined without /proc). */
    peakMiB: memory && memory.peakBytes / 2 ** 20,
    peakBytesPerFile: perFile(memory?.peakBytes),
    /** Its RSS once the requests and saves are over. */
    settledMiB: settled.memory.rssBytes / 2 ** 20,
    settledBytesPerFile: perFile(settled.memory.rssBytes),
    settledIndexed: settled.indexed,
    mapLatencyMs: summary(latencies),
    editToMapMs: summary(editLatencies),
    saveToMapMs: summary(saveLatencies),
    // Each save in order: a slow first save is told apart from a slow tail.
    editSamplesMs: editLatencies.map(Math.round),
    saveSamplesMs: saveLatencies.map(Math.round),
    clientStatusMs: summary(clientRuns),
    nodeStartupMs: summary(nodeRuns),
    queryCommandMs: summary(queryRuns),
    warmStartMs: summary(warmStarts),
    warmStartParsed: warmParsed,
    warmStartFloorMs: summary(floorRuns),
    warmWatchingMs,
    inProcessWarmMapMs: summary(inProcess),
  };
  const f = (n: number | undefined) => (n === undefined ? 'n/a' : n.toFixed(1)).padStart(9);
  const lines = [
    `machine: ${report.machine.cores} cores (${report.machine.model}), ${report.machine.memoryGiB} GiB, node ${report.machine.node}`,
    `repo: ${root} (${files.length} source files, ${report.repo.commit.slice(0, 12)}), ${workers} workers`,
    '',
    `${'figure'.padEnd(40)}${'p50'.padStart(9)}${'p95'.padStart(9)}${'min'.padStart(9)}${'max'.padStart(9)}`,
    ...(
      [
        ['map request, warm daemon (ms)', report.mapLatencyMs],
        ['edit a file -> map (ms)', report.editToMapMs],
        ['new file -> map (ms)', report.saveToMapMs],
        ['repomap status, client start-up (ms)', report.clientStatusMs],
        ['node -e 0, floor (ms)', report.nodeStartupMs],
        ['repomap query, whole command (ms)', report.queryCommandMs],
        ['repomap map in-process, warm (ms)', report.inProcessWarmMapMs],
      ] as const
    ).map(([name, s]) => `${name.padEnd(40)}${f(s.p50)}${f(s.p95)}${f(s.min)}${f(s.max)}`),
    '',
    `${values['cache-dir'] ? 'first start (given cache)' : 'cold start'} to first map: ${(report.coldStartMs / 1000).toFixed(1)} s, ${report.indexed} files indexed, RSS after it ${formatRss(afterCold.memory.rssBytes, afterCold.indexed)}`,
    `  watching ${(watchingMs / 1000).toFixed(1)} s after the start, RSS then ${formatRss(afterWatching.memory.rssBytes, afterWatching.indexed)}`,
    `  peak over the start, the requests and the saves ${memory ? formatRss(memory.peakBytes, settled.indexed) : 'n/a (no /proc)'}; settled after them ${formatRss(settled.memory.rssBytes, settled.indexed)}; ${settled.indexed} files indexed`,
    `warm restart to first map: ${seconds(report.warmStartMs)} (${WARM_RESTARTS} restarts, ${report.warmStartParsed} files parsed in all); watching after ${(warmWatchingMs / 1000).toFixed(2)} s`,
    `  floor, listing the files and an lstat of each: ${seconds(report.warmStartFloorMs)}; the restart ${(report.warmStartMs.p50 / report.warmStartFloorMs.p50).toFixed(2)} x the floor`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  if (values.json) writeFileSync(values.json, JSON.stringify(report, null, 2) + '\n');
}

function mkdirPrivate(dir: string): void {
  execFileSync('mkdir', ['-p', dir]);
  chmodSync(dir, 0o700);
}

try {
  await main();
} finally {
  if (existsSync(socket)) await call('shutdown').catch(() => {});
  rmSync(scratch, { recursive: true, force: true });
}
