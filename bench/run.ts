// repomap benchmark: floors (read, parse, parse+tags, ctags) and `repomap map` cold / warm / 1%-touched
// on one corpus, each figure as the median (min, max) of --runs runs. See bench/README.md.
//
//   npm run bench -- --corpus DIR [--runs 3] [--workers N] [--json FILE] [--gc-mb 1]
//
// The same file is also the floor child: `node --expose-gc dist/bench/run.js --floor KIND ...`,
// so that each floor runs in its own process (own peak RSS, no state carried between floors).

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bytesPerFile } from './per-file.js';

/** repomap's defaults for what it skips before parsing (src/indexer/indexer.ts, src/extract/file.ts). */
const MAX_FILE_BYTES = 1024 * 1024;
const MINIFIED_LINE_LENGTH = 2000;
const BINARY_SNIFF_BYTES = 8000;
/** Share of the source files changed for the "touch 1%" figure. */
const TOUCH_SHARE = 0.01;
const TOUCH_MARK = 'repomap bench touch';

const GNU_TIME = '/usr/bin/time';
const MiB = 1024 * 1024;

const packageRoot = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('bench: cannot find the package root');
    dir = up;
  }
  return dir;
})();
const BIN = join(packageRoot, 'bin', 'repomap.js');
const SELF = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------------------------------------
// Floor child
// ---------------------------------------------------------------------------------------------

type FloorKind = 'read' | 'parse' | 'tags';

interface FloorResult {
  kind: FloorKind;
  files: number;
  bytes: number;
  /** Wall time of the loop over the files (read + work + collections). */
  totalMs: number;
  /** Time spent reading and decoding files, inside the loop. */
  readMs: number;
  /** The floor: totalMs - readMs for parse and tags (it includes the forced collections), totalMs for read. */
  workMs: number;
  gcs: number;
  gcMs: number;
  maxRssKiB: number;
  failed: number;
  failures: Record<string, number>;
  defs: number;
  refs: number;
}

async function floorMain(kind: FloorKind, listFile: string, root: string, gcMb: number): Promise<void> {
  const paths = readFileSync(listFile, 'utf8').split('\0').filter((p) => p.length > 0);
  const gc = (globalThis as { gc?: () => void }).gc;
  const gcBytes = gcMb * MiB;
  const { languageForPath } = await import('../src/extract/languages.js');
  type Lang = NonNullable<ReturnType<typeof languageForPath>>;
  const langs = paths.map((p) => languageForPath(p));

  // Load grammars (and compile queries) before the clock starts: once per process, not per file.
  let work: (lang: Lang, text: string) => { ok: boolean; why?: string; defs?: number; refs?: number };
  if (kind === 'parse') {
    const { default: Parser } = await import('tree-sitter');
    const parsers = new Map<string, InstanceType<typeof Parser>>();
    const parserFor = (lang: Lang) => {
      let parser = parsers.get(lang.id);
      if (!parser) {
        if (lang.grammar.runtime !== 'native') throw new Error(`${lang.id}: the parse benchmark runs native grammars only`);
        parser = new Parser();
        parser.setLanguage(lang.grammar.load() as Parameters<typeof parser.setLanguage>[0]);
        parsers.set(lang.id, parser);
      }
      return parser;
    };
    work = (lang, text) => {
      const tree = parserFor(lang).parse(text);
      // Touch the root so the parse is not lazily skipped; then drop the tree (freed by GC).
      return tree.rootNode ? { ok: true } : { ok: false, why: 'no tree' };
    };
    for (const lang of langs) if (lang) parserFor(lang).parse('');
  } else if (kind === 'tags') {
    const { extractTags } = await import('../src/extract/extract.js');
    work = (lang, text) => {
      const result = extractTags(lang, text);
      return result.ok
        ? { ok: true, defs: result.tags.defs.length, refs: result.tags.refs.sites.length / 3 }
        : { ok: false, why: result.skip };
    };
    const warmed = new Set<string>();
    for (const lang of langs) if (lang && !warmed.has(lang.id)) (warmed.add(lang.id), extractTags(lang, ''));
  } else {
    work = () => ({ ok: true });
  }
  gc?.();

  const result: FloorResult = {
    kind, files: paths.length, bytes: 0, totalMs: 0, readMs: 0, workMs: 0, gcs: 0, gcMs: 0, maxRssKiB: 0,
    failed: 0, failures: {}, defs: 0, refs: 0,
  };
  let readNs = 0n;
  let gcNs = 0n;
  let sinceGc = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < paths.length; i++) {
    const r0 = process.hrtime.bigint();
    const buf = readFileSync(join(root, paths[i]));
    const text = buf.toString('utf8');
    readNs += process.hrtime.bigint() - r0;
    result.bytes += buf.length;
    const lang = langs[i];
    if (kind !== 'read' && lang) {
      let outcome;
      try {
        outcome = work(lang, text);
      } catch (err) {
        outcome = { ok: false, why: `threw: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
      }
      if (outcome.ok) {
        result.defs += outcome.defs ?? 0;
        result.refs += outcome.refs ?? 0;
      } else {
        result.failed++;
        const why = outcome.why ?? 'failed';
        result.failures[why] = (result.failures[why] ?? 0) + 1;
      }
      sinceGc += buf.length;
      if (gc && sinceGc >= gcBytes) {
        const g0 = process.hrtime.bigint();
        gc();
        // Trees are freed by finalizers, which run only once the loop yields to the event loop:
        // without this, a synchronous loop keeps every tree and RSS grows by GiBs.
        await new Promise((done) => setImmediate(done));
        gcNs += process.hrtime.bigint() - g0;
        result.gcs++;
        sinceGc = 0;
      }
    }
  }
  const totalNs = process.hrtime.bigint() - t0;
  result.totalMs = Number(totalNs) / 1e6;
  result.readMs = Number(readNs) / 1e6;
  result.gcMs = Number(gcNs) / 1e6;
  result.workMs = kind === 'read' ? result.totalMs : result.totalMs - result.readMs;
  result.maxRssKiB = process.resourceUsage().maxRSS;
  process.stdout.write(JSON.stringify(result) + '\n');
}

// ---------------------------------------------------------------------------------------------
// Orchestrator
// ---------------------------------------------------------------------------------------------

interface Child {
  code: number | null;
  signal: NodeJS.Signals | null;
  ms: number;
  stdout: string;
  stderr: string;
  /** Peak RSS in KiB from GNU time or from the process itself; undefined when unknown. */
  rssKiB?: number;
}

const haveGnuTime = existsSync(GNU_TIME);
/** Without GNU time, node children report their own peak RSS through this preload. */
const RSS_PRELOAD =
  'data:text/javascript,' +
  encodeURIComponent(
    'import{writeFileSync}from"node:fs";process.on("exit",()=>{try{writeFileSync(process.env.REPOMAP_BENCH_RSS_FILE,String(process.resourceUsage().maxRSS))}catch{}});',
  );

let scratch = '';

/** Runs a command to completion, timing it from spawn to exit and taking its peak RSS. */
function runChild(cmd: string, args: string[], options: { cwd?: string; node?: boolean } = {}): Promise<Child> {
  const rssFile = join(scratch, `rss-${process.hrtime.bigint()}`);
  let file = cmd;
  let argv = args;
  const env = { ...process.env };
  if (haveGnuTime) {
    file = GNU_TIME;
    argv = ['-f', '%M', '-o', rssFile, cmd, ...args];
  } else if (options.node) {
    argv = ['--import', RSS_PRELOAD, ...args];
    env.REPOMAP_BENCH_RSS_FILE = rssFile;
  }
  return new Promise((resolvePromise, reject) => {
    const t0 = performance.now();
    const child = spawn(file, argv, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const ms = performance.now() - t0;
      let rssKiB: number | undefined;
      if (existsSync(rssFile)) {
        // GNU time prints "Command exited with non-zero status N" before the figure: take the last line.
        const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
        const value = Number(lines[lines.length - 1]);
        if (Number.isFinite(value) && value > 0) rssKiB = value;
        rmSync(rssFile, { force: true });
      }
      resolvePromise({ code, signal, ms, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), rssKiB });
    });
  });
}

function git(corpus: string, args: string[]): string {
  const res = spawnSync('git', ['-C', corpus, '-c', 'core.quotepath=off', ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${corpus}: ${res.stderr.trim()}`);
  return res.stdout;
}

function duKiB(dir: string, apparent: boolean): number | undefined {
  const res = spawnSync('du', ['-sk', ...(apparent ? ['--apparent-size'] : []), dir], { encoding: 'utf8' });
  if (res.status !== 0) return undefined;
  const value = Number(res.stdout.split(/\s/)[0]);
  return Number.isFinite(value) ? value : undefined;
}

/** One figure measured once per run. */
interface Figure {
  key: string;
  label: string;
  /** 'B/file': bytes per source file, shown in KiB. */
  unit: 's' | 'MiB' | 'count' | 'B/file';
  values: number[];
}

class Figures {
  readonly list: Figure[] = [];
  private readonly byKey = new Map<string, Figure>();
  add(key: string, label: string, unit: Figure['unit'], value: number | undefined): void {
    if (value === undefined || !Number.isFinite(value)) return;
    let figure = this.byKey.get(key);
    if (!figure) {
      figure = { key, label, unit, values: [] };
      this.byKey.set(key, figure);
      this.list.push(figure);
    }
    figure.values.push(value);
  }
  get(key: string): Figure | undefined {
    return this.byKey.get(key);
  }
  median(key: string): number | undefined {
    const figure = this.byKey.get(key);
    return figure ? median(figure.values) : undefined;
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

interface RepomapRun extends Child {
  json?: {
    stats?: Record<string, unknown>;
    text?: string;
    tokens?: number;
    skipped?: Record<string, number>;
  };
  stats: Record<string, number>;
  textSha?: string;
  reportedRssMiB?: number;
}

/** A comment line in the file's language (by extension), appended by the touch step. */
function commentFor(path: string, run: number): string {
  const ext = extname(path).toLowerCase();
  const text = `${TOUCH_MARK} ${run}`;
  if (['.py', '.pyi', '.rb', '.rake', '.gemspec', '.ru', '.sh', '.bash', '.ex', '.exs'].includes(ext)) return `# ${text}`;
  if (['.hs', '.lua'].includes(ext)) return `-- ${text}`;
  if (ext === '.ml') return `(* ${text} *)`;
  return `// ${text}`;
}

interface Saved {
  path: string;
  content: Buffer;
  atimeNs: bigint;
  mtimeNs: bigint;
}

/** Files changed by the touch step, restored by restoreTouched (also on SIGINT/SIGTERM). */
let touched: Saved[] = [];

function setTime(abs: string, which: '-a' | '-m', ns: bigint): boolean {
  const s = ns / 1_000_000_000n;
  const frac = (ns % 1_000_000_000n).toString().padStart(9, '0');
  return spawnSync('touch', [which, '-d', `@${s}.${frac}`, abs]).status === 0;
}

function restoreTouched(corpus: string): void {
  for (const saved of touched) {
    const abs = join(corpus, saved.path);
    writeFileSync(abs, saved.content);
    // Nanosecond-exact with GNU touch; utimes (microsecond-ish) if touch is missing.
    if (!(setTime(abs, '-a', saved.atimeNs) && setTime(abs, '-m', saved.mtimeNs))) {
      utimesSync(abs, Number(saved.atimeNs) / 1e9, Number(saved.mtimeNs) / 1e9);
    }
  }
  touched = [];
}

/** Files per second per thread of a run over `files` that took `ms` on `threads` threads. */
function perWorkerRate(files: number, ms: number, threads: number): string {
  return `${(files / (ms / 1000) / threads).toFixed(0)} files/s`;
}

function fmtSeconds(ms: number): string {
  const s = ms / 1000;
  return s >= 100 ? s.toFixed(0) : s >= 10 ? s.toFixed(1) : s >= 1 ? s.toFixed(2) : s.toFixed(3);
}

function fmt(unit: Figure['unit'], value: number | undefined): string {
  if (value === undefined) return '-';
  if (unit === 's') return fmtSeconds(value);
  if (unit === 'MiB') return value >= 100 ? value.toFixed(0) : value.toFixed(1);
  if (unit === 'B/file') return (value / 1024).toFixed(1);
  return String(Math.round(value));
}

const USAGE = `usage: npm run bench -- --corpus DIR [--runs 3] [--workers N] [--json FILE] [--gc-mb 1]

  --corpus DIR   a git repository to measure (bench/build-corpus.sh builds one)
  --runs N       runs per figure; the table shows median, min and max (default 3)
  --workers N    worker count of the parallel cold run (default os.availableParallelism())
  --json FILE    also write every measured value as JSON
  --gc-mb N      in the parse floors, force a collection (and yield) every N MiB of source (default 1)
  --skip-ctags   leave out the ctags floor
  --floors-only  measure the floors only, no repomap run (for a corpus too large for repomap yet)
`;

async function benchMain(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      corpus: { type: 'string' },
      runs: { type: 'string' },
      workers: { type: 'string' },
      json: { type: 'string' },
      'gc-mb': { type: 'string' },
      'skip-ctags': { type: 'boolean' },
      'floors-only': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  // `npm run` changes to the package folder; relative paths are meant from where npm was started.
  const base = process.env.INIT_CWD ?? process.cwd();
  if (!values.corpus) {
    process.stderr.write(USAGE);
    return 2;
  }
  const positive = (value: string | undefined, name: string, fallback: number): number => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} takes a positive whole number, not '${value}'`);
    return n;
  };
  const corpus = resolve(base, values.corpus);
  const runs = positive(values.runs, 'runs', 3);
  const workersN = positive(values.workers, 'workers', os.availableParallelism());
  const gcMb = positive(values['gc-mb'], 'gc-mb', 1);
  const jsonFile = values.json ? resolve(base, values.json) : undefined;
  if (!existsSync(join(corpus, '.git'))) throw new Error(`${corpus} is not a git repository (build one with bench/build-corpus.sh)`);
  if (!existsSync(BIN) || !existsSync(join(packageRoot, 'dist', 'src', 'cli', 'main.js'))) {
    throw new Error(`${BIN} or dist/ is missing: build with 'npx tsc -p .' first`);
  }

  scratch = mkdtempSync(join(os.tmpdir(), 'repomap-bench-'));
  const onSignal = (signal: NodeJS.Signals) => {
    restoreTouched(corpus);
    rmSync(scratch, { recursive: true, force: true });
    process.stderr.write(`bench: ${signal}: touched files restored\n`);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
  const checks: Array<{ ok: boolean; what: string }> = [];
  const check = (ok: boolean, what: string) => {
    checks.push({ ok, what });
    if (!ok) log(`CHECK FAILED: ${what}`);
  };

  try {
    // --- corpus -----------------------------------------------------------------------------
    const commit = git(corpus, ['rev-parse', 'HEAD']).trim();
    const dirtyAtStart = git(corpus, ['status', '--porcelain']).trim();
    if (dirtyAtStart) log(`warning: the corpus has uncommitted changes:\n${dirtyAtStart.split('\n').slice(0, 5).join('\n')}`);
    // What repomap discovers: tracked plus untracked-not-ignored.
    const allFiles = git(corpus, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'])
      .split('\0')
      .filter((p) => p.length > 0);
    const uniqueFiles = [...new Set(allFiles)].sort();
    // Source files: those repomap has a grammar for (src/extract/languages.ts decides, as in repomap).
    const { languageForPath } = await import('../src/extract/languages.js');
    const languages: Record<string, number> = {};
    const sources = uniqueFiles.filter((p) => {
      const lang = languageForPath(p);
      if (lang) languages[lang.id] = (languages[lang.id] ?? 0) + 1;
      return lang !== undefined;
    });
    // The files repomap would parse: sources within its size limit, not binary, not minified.
    const eligible: string[] = [];
    const excluded: Record<string, number> = {};
    let sourceBytes = 0;
    let eligibleBytes = 0;
    for (const path of sources) {
      const abs = join(corpus, path);
      const info = statSync(abs, { throwIfNoEntry: false });
      if (!info?.isFile()) {
        excluded.missing = (excluded.missing ?? 0) + 1;
        continue;
      }
      sourceBytes += info.size;
      if (info.size > MAX_FILE_BYTES) {
        excluded['too large'] = (excluded['too large'] ?? 0) + 1;
        continue;
      }
      const buf = readFileSync(abs);
      if (buf.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
        excluded.binary = (excluded.binary ?? 0) + 1;
        continue;
      }
      const text = buf.toString('utf8');
      let longest = 0;
      for (let start = 0; ; ) {
        const end = text.indexOf('\n', start);
        longest = Math.max(longest, (end === -1 ? text.length : end) - start);
        if (end === -1) break;
        start = end + 1;
      }
      if (longest > MINIFIED_LINE_LENGTH) {
        excluded.minified = (excluded.minified ?? 0) + 1;
        continue;
      }
      eligible.push(path);
      eligibleBytes += buf.length;
    }
    const listFile = join(scratch, 'eligible.list');
    writeFileSync(listFile, eligible.join('\0'));
    const ctagsList = join(scratch, 'eligible.ctags-list');
    writeFileSync(ctagsList, eligible.join('\n') + '\n');

    const cpus = os.cpus();
    const machine = {
      cores: cpus.length,
      availableParallelism: os.availableParallelism(),
      model: cpus[0]?.model.trim() ?? 'unknown',
      totalMemGiB: os.totalmem() / 1024 ** 3,
      node: process.version,
      os: `${os.type()} ${os.release()} ${os.arch()}`,
    };
    const corpusInfo = {
      path: corpus,
      commit,
      files: uniqueFiles.length,
      sourceFiles: sources.length,
      languages,
      sourceMiB: sourceBytes / MiB,
      eligibleFiles: eligible.length,
      eligibleMiB: eligibleBytes / MiB,
      excluded,
      dirtyAtStart: dirtyAtStart.length > 0,
    };

    // --- what the CLI supports -------------------------------------------------------------------
    const help = spawnSync(process.execPath, [BIN, 'map', '--help'], { encoding: 'utf8' });
    const workersSupported = /--workers\b/.test(help.stdout ?? '');
    const parallel = workersSupported && workersN > 1;
    if (!workersSupported) log('repomap map has no --workers flag yet: measuring the in-process (1 worker) run only');
    const workerArgs = (n: number) => (workersSupported ? ['--workers', String(n)] : []);
    const ctagsAvailable = !values['skip-ctags'] && spawnSync('ctags', ['--version']).status === 0;
    log(
      `corpus ${corpus}: ${sources.length} source files (${eligible.length} parseable), ${(sourceBytes / MiB).toFixed(1)} MiB; ` +
        `runs ${runs}; workers ${parallel ? `1 and ${workersN}` : 1}; peak RSS from ${haveGnuTime ? 'GNU time' : 'the processes themselves'}`,
    );

    const figures = new Figures();
    const perRun: unknown[] = [];
    let statsKeys: string[] = [];
    let ctagsTags: number | undefined;
    let floorTags: { defs: number; refs: number; failed: number; failures: Record<string, number> } | undefined;

    // The parallel floor's shares: every Nth file, so each share has the same mix of languages.
    const shareFiles = Array.from({ length: workersN }, (_, k) => {
      const file = join(scratch, `eligible-${k}.list`);
      writeFileSync(file, eligible.filter((_, i) => i % workersN === k).join('\0'));
      return file;
    });

    const floor = async (kind: FloorKind, list = listFile): Promise<FloorResult> => {
      spawnSync('sync'); // as before each repomap run (below)
      const child = await runChild(
        process.execPath,
        ['--expose-gc', SELF, '--floor', kind, '--list', list, '--root', corpus, '--gc-mb', String(gcMb)],
        { node: true },
      );
      if (child.code !== 0) throw new Error(`floor ${kind} failed (${child.code ?? child.signal}): ${child.stderr.trim().slice(-2000)}`);
      const result = JSON.parse(child.stdout.trim().split('\n').pop() ?? '') as FloorResult;
      if (child.rssKiB) result.maxRssKiB = Math.max(result.maxRssKiB, child.rssKiB);
      return result;
    };

    const repomap = async (cacheDir: string, workers: number): Promise<RepomapRun> => {
      const args = [BIN, 'map', corpus, '--cache-dir', cacheDir, '--format', 'json', '--verbose', ...workerArgs(workers)];
      // Each run starts with the page cache's dirty pages written: a cold run writes 170 MB of
      // cache on the large corpus, whose writeback would otherwise run during the next one.
      spawnSync('sync');
      const child = await runChild(process.execPath, args, { node: true });
      const run: RepomapRun = { ...child, stats: {} };
      if (child.code !== 0) {
        throw new Error(
          `repomap ${args.slice(1).join(' ')} exited with ${child.code ?? child.signal}:\n${child.stderr.trim().split('\n').slice(-30).join('\n')}`,
        );
      }
      try {
        run.json = JSON.parse(child.stdout) as RepomapRun['json'];
      } catch {
        log('warning: repomap --format json did not print JSON');
      }
      for (const [key, value] of Object.entries(run.json?.stats ?? {})) if (typeof value === 'number') run.stats[key] = value;
      // Fall back to --verbose's line when the JSON has no stats.
      const line = /repomap: (\d+) files discovered; (\d+) parsed, (\d+) unchanged, (\d+) touched but unchanged/.exec(child.stderr);
      if (line && run.stats.parsed === undefined) {
        run.stats = { discovered: +line[1], parsed: +line[2], reusedByStat: +line[3], reusedByHash: +line[4] };
      }
      const rss = /repomap: peak RSS (\d+(?:\.\d+)?) MiB/.exec(child.stderr);
      if (rss) run.reportedRssMiB = Number(rss[1]);
      if (run.rssKiB === undefined && run.reportedRssMiB !== undefined) run.rssKiB = run.reportedRssMiB * 1024;
      if (typeof run.json?.text === 'string') run.textSha = createHash('sha1').update(run.json.text).digest('hex');
      statsKeys = Object.keys(run.stats);
      return run;
    };

    const recordRepomap = (key: string, label: string, run: RepomapRun) => {
      figures.add(`${key}.time`, label, 's', run.ms);
      figures.add(`${key}.rss`, `${label}: peak RSS`, 'MiB', run.rssKiB !== undefined ? run.rssKiB / 1024 : undefined);
      const perFile = run.rssKiB !== undefined ? bytesPerFile(run.rssKiB * 1024, sources.length) : undefined;
      figures.add(`${key}.rssPerFile`, `${label}: peak RSS per source file`, 'B/file', perFile);
      // Counts beyond the index stats (tags, edges) when the CLI reports them.
      for (const [name, value] of Object.entries(run.stats)) {
        if (/tag|def|ref|edge|ident|node/i.test(name)) figures.add(`${key}.count.${name}`, `${label}: ${name}`, 'count', value);
      }
    };

    // Prime the page cache, untimed: every run then reads from memory.
    await floor('read');

    for (let r = 1; r <= runs; r++) {
      const detail: Record<string, unknown> = { run: r };
      perRun.push(detail);

      // Floors, one child process each.
      for (const kind of ['read', 'parse', 'tags'] as const) {
        log(`run ${r}/${runs}: floor ${kind}`);
        const result = await floor(kind);
        detail[`floor.${kind}`] = result;
        const label = kind === 'read' ? 'floor: read files' : kind === 'parse' ? 'floor: parse, 1 thread' : 'floor: parse+tags, 1 thread';
        figures.add(`floor.${kind}.time`, label, 's', result.workMs);
        figures.add(`floor.${kind}.rss`, `${label}: peak RSS`, 'MiB', result.maxRssKiB / 1024);
        if (kind === 'tags') floorTags = { defs: result.defs, refs: result.refs, failed: result.failed, failures: result.failures };
        if (kind === 'parse' && result.failed > 0) check(false, `floor parse: ${result.failed} files failed (${JSON.stringify(result.failures)})`);
      }
      if (parallel) {
        // The same work split over N processes at once: what N cores give on this machine (they
        // share caches, memory bandwidth and, on a VM, the host), with no pool, messages or store.
        log(`run ${r}/${runs}: floor parse+tags, ${workersN} processes at once`);
        const shares = await Promise.all(shareFiles.map((list) => floor('tags', list)));
        const slowest = Math.max(...shares.map((share) => share.workMs));
        detail['floor.tagsParallel'] = shares;
        figures.add('floor.tagsParallel.time', `floor: parse+tags, ${workersN} processes at once`, 's', slowest);
      }
      if (ctagsAvailable) {
        log(`run ${r}/${runs}: floor ctags`);
        const tagsFile = join(scratch, 'ctags.out');
        const child = await runChild(
          'ctags',
          ['-f', tagsFile, '--langmap=TypeScript:+.mts.cts.tsx,JavaScript:+.cjs,Python:+.pyi', '-L', ctagsList],
          { cwd: corpus },
        );
        if (child.code !== 0) log(`warning: ctags exited with ${child.code ?? child.signal}: ${child.stderr.trim().slice(-500)}`);
        figures.add('floor.ctags.time', 'floor: ctags (1 thread)', 's', child.ms);
        figures.add('floor.ctags.rss', 'floor: ctags: peak RSS', 'MiB', child.rssKiB !== undefined ? child.rssKiB / 1024 : undefined);
        if (existsSync(tagsFile)) {
          ctagsTags = readFileSync(tagsFile, 'utf8').split('\n').filter((l) => l.length > 0 && !l.startsWith('!_')).length;
          rmSync(tagsFile, { force: true });
        }
        detail['floor.ctags'] = { ms: child.ms, rssKiB: child.rssKiB, tags: ctagsTags };
      }

      if (values['floors-only']) continue;
      // repomap runs; a failure (crash, wrong exit code) is a failed check, and the next run still happens.
      try {
        // repomap cold with 1 worker.
        const cache1 = mkdtempSync(join(scratch, 'cache-w1-'));
        log(`run ${r}/${runs}: repomap cold, 1 worker`);
        const cold1 = await repomap(cache1, 1);
        recordRepomap('cold.w1', 'repomap cold, 1 worker', cold1);
        figures.add('cold.w1.cache', 'cache size on disk (du)', 'MiB', (duKiB(cache1, false) ?? NaN) / 1024);
        figures.add('cold.w1.cacheApparent', 'cache size, apparent', 'MiB', (duKiB(cache1, true) ?? NaN) / 1024);
        detail['cold.w1'] = { ms: cold1.ms, rssKiB: cold1.rssKiB, reportedRssMiB: cold1.reportedRssMiB, stats: cold1.stats, textSha: cold1.textSha };
        check(cold1.stats.discovered === uniqueFiles.length, `cold: discovered ${cold1.stats.discovered} = git ls-files ${uniqueFiles.length}`);
        check(cold1.stats.parsed === eligible.length, `cold: parsed ${cold1.stats.parsed} = parseable source files ${eligible.length}`);

        // repomap cold with N workers; its cache then serves the warm and touch runs.
        let coldN = cold1;
        let cacheN = cache1;
        if (parallel) {
          rmSync(cache1, { recursive: true, force: true });
          cacheN = mkdtempSync(join(scratch, `cache-w${workersN}-`));
          log(`run ${r}/${runs}: repomap cold, ${workersN} workers`);
          coldN = await repomap(cacheN, workersN);
          recordRepomap(`cold.wN`, `repomap cold, ${workersN} workers`, coldN);
          figures.add('cold.wN.cache', `cache size on disk (du), ${workersN} workers`, 'MiB', (duKiB(cacheN, false) ?? NaN) / 1024);
          detail['cold.wN'] = { ms: coldN.ms, rssKiB: coldN.rssKiB, reportedRssMiB: coldN.reportedRssMiB, stats: coldN.stats, textSha: coldN.textSha };
          check(coldN.stats.parsed === cold1.stats.parsed, `cold: parsed with ${workersN} workers ${coldN.stats.parsed} = with 1 worker ${cold1.stats.parsed}`);
          check(coldN.textSha === cold1.textSha, `cold: the map with ${workersN} workers is byte-identical to the map with 1 worker`);
        }
        const w = parallel ? workersN : 1;

        // Warm: same cache, nothing changed.
        log(`run ${r}/${runs}: repomap warm`);
        const warm = await repomap(cacheN, w);
        recordRepomap('warm', `repomap warm, nothing changed (${w} worker${w > 1 ? 's' : ''})`, warm);
        detail.warm = { ms: warm.ms, rssKiB: warm.rssKiB, reportedRssMiB: warm.reportedRssMiB, stats: warm.stats, textSha: warm.textSha };
        check(warm.stats.parsed === 0, `warm: parsed ${warm.stats.parsed} = 0`);
        check(warm.stats.reusedByStat === sources.length, `warm: unchanged ${warm.stats.reusedByStat} = source files ${sources.length}`);
        check(warm.textSha === coldN.textSha, 'warm: the map is byte-identical to the cold map');

        // Touch 1% of the parseable files (content and mtime), evenly spread; restore exactly afterwards.
        // Neither a symbolic link nor a link's target: appending to either changes two indexed paths.
        const isLink = new Map(eligible.map((path) => [path, lstatSync(join(corpus, path)).isSymbolicLink()]));
        const linked = new Set(eligible.filter((path) => isLink.get(path)).map((path) => realpathSync(join(corpus, path))));
        const touchable = eligible.filter((path) => !isLink.get(path) && !linked.has(realpathSync(join(corpus, path))));
        const count = Math.max(1, Math.round(touchable.length * TOUCH_SHARE));
        const step = touchable.length / count;
        const chosen = Array.from({ length: count }, (_, i) => touchable[Math.floor(i * step)]);
        try {
          for (const path of chosen) {
            const abs = join(corpus, path);
            const info = statSync(abs, { bigint: true });
            touched.push({ path, content: readFileSync(abs), atimeNs: info.atimeNs, mtimeNs: info.mtimeNs });
            const content = touched[touched.length - 1].content;
            const newline = content.length > 0 && content[content.length - 1] !== 0x0a ? '\n' : '';
            appendFileSync(abs, `${newline}${commentFor(path, r)}\n`);
          }
          log(`run ${r}/${runs}: repomap after touching ${count} files`);
          const after = await repomap(cacheN, w);
          recordRepomap('touch', `repomap after touching 1% (${count} files)`, after);
          detail.touch = { files: count, ms: after.ms, rssKiB: after.rssKiB, reportedRssMiB: after.reportedRssMiB, stats: after.stats };
          check(after.stats.parsed === count, `touch: parsed ${after.stats.parsed} = touched ${count}`);
          check(after.stats.reusedByStat === sources.length - count, `touch: unchanged ${after.stats.reusedByStat} = ${sources.length - count}`);
        } finally {
          restoreTouched(corpus);
        }
        rmSync(cacheN, { recursive: true, force: true });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log(`run ${r}/${runs}: ${message}`);
        check(false, `run ${r}: ${message.split('\n')[0]}`);
        detail.error = message;
      }
    }

    const dirtyAtEnd = git(corpus, ['status', '--porcelain']).trim();
    check(dirtyAtEnd === dirtyAtStart, 'corpus: git status is the same after the bench as before');

    // --- report ---------------------------------------------------------------------------
    const tagsFloor = figures.median('floor.tags.time');
    const ratios: Record<string, number> = {};
    const ratioOf: Record<string, string> = {};
    if (tagsFloor) {
      const c1 = figures.median('cold.w1.time');
      if (c1) (ratios.cold1 = c1 / tagsFloor), (ratioOf['cold.w1.time'] = `${(c1 / tagsFloor).toFixed(2)} x floor`);
      const cN = figures.median('cold.wN.time');
      if (cN) (ratios.headline = cN / (tagsFloor / workersN)), (ratioOf['cold.wN.time'] = `${ratios.headline.toFixed(2)} x floor/${workersN}  << headline`);
      // Files per second per worker, beside the floor's (files per second of one thread).
      const floorRate = `floor ${perWorkerRate(eligible.length, tagsFloor, 1)}`;
      if (c1) ratioOf['cold.w1.time'] += `; ${perWorkerRate(eligible.length, c1, 1)} per worker (${floorRate})`;
      if (cN) ratioOf['cold.wN.time'] += `; ${perWorkerRate(eligible.length, cN, workersN)} per worker (${floorRate})`;
      else if (c1) (ratios.headline = c1 / tagsFloor), (ratioOf['cold.w1.time'] += '  << headline (1 worker only)');
      const tagsParallel = figures.median('floor.tagsParallel.time');
      if (tagsParallel) {
        ratios.parallelFloor = tagsParallel / (tagsFloor / workersN);
        ratioOf['floor.tagsParallel.time'] = `${ratios.parallelFloor.toFixed(2)} x floor/${workersN} (the slowest share)`;
        if (cN) (ratios.headlineParallel = cN / tagsParallel), (ratioOf['cold.wN.time'] += `; ${ratios.headlineParallel.toFixed(2)} x the parallel floor`);
      }
      const parse = figures.median('floor.parse.time');
      if (parse) ratioOf['floor.parse.time'] = `${(parse / tagsFloor).toFixed(2)} of parse+tags`;
      const ct = figures.median('floor.ctags.time');
      if (ct) (ratios.ctagsSpeedup = tagsFloor / ct), (ratioOf['floor.ctags.time'] = `parse+tags is ${(tagsFloor / ct).toFixed(1)} x slower`);
      const read = figures.median('floor.read.time');
      if (read) ratioOf['floor.read.time'] = `${(read / tagsFloor).toFixed(3)} of parse+tags`;
      const warmT = figures.median('warm.time');
      if (warmT && c1) ratioOf['warm.time'] = `${(warmT / (figures.median('cold.wN.time') ?? c1)).toFixed(3)} of cold`;
      ratioOf['floor.tags.time'] = perWorkerRate(eligible.length, tagsFloor, 1);
    }

    const lines: string[] = [];
    lines.push(
      `machine: ${machine.cores} cores (${machine.model}), ${machine.totalMemGiB.toFixed(1)} GiB, node ${machine.node}, ${machine.os}`,
    );
    lines.push(
      `corpus: ${corpus}  ${sources.length} source files (${eligible.length} parseable), ${(sourceBytes / MiB).toFixed(1)} MiB, commit ${commit.slice(0, 12)}`,
    );
    lines.push(
      `runs: ${runs}  ` +
        (values['floors-only']
          ? 'repomap: not run (--floors-only)  '
          : `workers: ${parallel ? `1 and ${workersN}` : `1 (${workersSupported ? `--workers ${workersN}` : 'repomap has no --workers yet'})`}  `) +
        `peak RSS: ${haveGnuTime ? 'GNU time' : 'process maxRSS'}  floors: in child processes, grammars preloaded, gc every ${gcMb} MiB; disk synced before each run`,
    );
    const header = ['figure', 'median', 'min', 'max', 'ratio / note'];
    const rows: string[][] = [];
    for (const figure of figures.list) {
      const unit = figure.unit === 's' ? ' s' : figure.unit === 'MiB' ? ' MiB' : figure.unit === 'B/file' ? ' KiB/file' : '';
      rows.push([
        figure.label + (unit ? ` (${unit.trim()})` : ''),
        fmt(figure.unit, median(figure.values)),
        fmt(figure.unit, Math.min(...figure.values)),
        fmt(figure.unit, Math.max(...figure.values)),
        ratioOf[figure.key] ?? '',
      ]);
    }
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
    const render = (row: string[]) =>
      row.map((cell, i) => (i === 0 || i === row.length - 1 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd();
    lines.push(render(header));
    for (const row of rows) lines.push(render(row));
    const countNote = figures.list.some((f) => f.unit === 'count') || values['floors-only']
      ? ''
      : `tags/edges: not in repomap's --format json stats (stats has: ${statsKeys.join(', ') || 'nothing'}); `;
    if (floorTags) {
      lines.push(
        `${countNote}floor parse+tags extracted ${floorTags.defs} defs, ${floorTags.refs} refs` +
          (floorTags.failed ? ` (${floorTags.failed} files not indexed: ${JSON.stringify(floorTags.failures)})` : '') +
          (ctagsTags !== undefined ? `; ctags: ${ctagsTags} tags` : ''),
      );
    }
    const failed = checks.filter((c) => !c.ok);
    const passedOnce = new Set(checks.filter((c) => c.ok).map((c) => c.what));
    lines.push(`checks: ${checks.length - failed.length}/${checks.length} passed` + (failed.length ? '' : ` (${passedOnce.size} distinct)`));
    for (const what of new Set(failed.map((c) => c.what))) lines.push(`  FAILED: ${what}`);
    process.stdout.write(lines.join('\n') + '\n');

    if (jsonFile) {
      const out = {
        date: new Date().toISOString(),
        machine,
        corpus: corpusInfo,
        runs,
        workers: { supported: workersSupported, measured: parallel ? [1, workersN] : [1] },
        rssSource: haveGnuTime ? 'gnu-time' : 'process',
        gcMb,
        figures: Object.fromEntries(
          figures.list.map((f) => [
            f.key,
            { label: f.label, unit: f.unit === 's' ? 'ms' : f.unit === 'B/file' ? 'bytes/file' : f.unit, values: f.values, median: median(f.values), min: Math.min(...f.values), max: Math.max(...f.values) },
          ]),
        ),
        ratios,
        floorTags,
        ctagsTags,
        checks,
        perRun,
      };
      writeFileSync(jsonFile, JSON.stringify(out, null, 2) + '\n');
      log(`wrote ${jsonFile}`);
    }
    return failed.length ? 1 : 0;
  } finally {
    restoreTouched(corpus);
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function entry(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--floor');
  if (at !== -1) {
    const { values } = parseArgs({
      args: argv,
      options: { floor: { type: 'string' }, list: { type: 'string' }, root: { type: 'string' }, 'gc-mb': { type: 'string' } },
      strict: true,
    });
    const kind = values.floor as FloorKind;
    if (!['read', 'parse', 'tags'].includes(kind) || !values.list || !values.root) throw new Error('bad floor arguments');
    await floorMain(kind, values.list, values.root, Number(values['gc-mb'] ?? 1));
    return;
  }
  try {
    process.exitCode = await benchMain(argv);
  } catch (err) {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}

await entry();
