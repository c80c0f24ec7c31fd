// A parse pool's start: the time from createRunner to threads that answered (warmUp with no
// languages), and the process's RSS before and after, the median of --runs fresh processes.
// Pointed at another build's dist/src (--dist), it measures that build: the same script for a
// before and after.
//
//   node dist/bench/worker-start.js [--dist DIR] [--workers 2] [--runs 5]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../src/paths.js';

const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: join(packageRoot, 'dist', 'src') },
    workers: { type: 'string', default: '2' },
    runs: { type: 'string', default: '5' },
    child: { type: 'boolean', default: false },
  },
});

if (values.child) {
  const { createRunner } = (await import(join(values.dist, 'index', 'pool.js'))) as typeof import('../src/indexer/pool.js');
  const rssBefore = process.memoryUsage().rss;
  const start = performance.now();
  const runner = createRunner(Number(values.workers));
  await runner.warmUp([]);
  const ms = performance.now() - start;
  const rssAfter = process.memoryUsage().rss;
  await runner.close();
  console.log(JSON.stringify({ ms, rssBefore, rssAfter }));
} else {
  const samples: Array<{ ms: number; rssBefore: number; rssAfter: number }> = [];
  for (let run = 0; run < Number(values.runs); run++) {
    const child = spawnSync(process.execPath, [process.argv[1], '--child', '--dist', values.dist, '--workers', values.workers], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    samples.push(JSON.parse(child.stdout) as (typeof samples)[number]);
  }
  const median = (pick: (s: (typeof samples)[number]) => number) => samples.map(pick).sort((a, b) => a - b)[Math.floor(samples.length / 2)];
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
  console.log(`${values.dist}: ${values.workers} workers ready in ${median((s) => s.ms).toFixed(0)} ms; RSS ${mb(median((s) => s.rssBefore))} MB before, ${mb(median((s) => s.rssAfter))} MB with the threads`);
}
