// A child process of src/indexer/process-pool.ts: parses the batches its parent sends, one at a
// time, with the extraction a thread runs (src/extract/file.ts), and sends each file's result as
// soon as it has it, so that the parent knows which file it is on. It ends with its parent: at
// once when the channel closes while it waits, and, when it is stuck in native code (where it
// reads no message), by a watchdog thread that kills it once its parent is gone (the parent kills
// it first whenever it can).
import { Worker } from 'node:worker_threads';
import { preloadLanguages } from '../src/extract/extract.js';
import { indexFiles } from '../src/extract/file.js';
import { languageSet } from '../src/extract/user-languages.js';
import type { ProcessReply } from '../src/indexer/process-pool.js';
import type { BatchTask } from '../src/indexer/worker-protocol.js';

const WATCHDOG = `const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL'); }, 1000);`;
new Worker(WATCHDOG, { eval: true }).unref();

const reply = (message: ProcessReply) => process.send?.(message);

async function extract(task: BatchTask): Promise<void> {
  // The languages first, under the parent's bound on a start, so that each file's bound is its own.
  const languages = languageSet(task.options.languages);
  await preloadLanguages([...new Set(task.jobs.flatMap((job) => languages.forPath(job.path) ?? []))]);
  reply({ ready: true });
  for (const job of task.jobs) {
    // Fault injection for the tests (see RunnerOptions.exitOn and stallOn), at the file itself.
    if (task.exitOn && job.path.includes(task.exitOn)) process.exit(70);
    if (task.stallOn && job.path.includes(task.stallOn)) for (;;);
    await indexFiles(task.root, [job], task.options, (_, result) => reply({ result }));
  }
  reply({ done: true });
}

process.on('message', (task: BatchTask) => void extract(task));
process.on('disconnect', () => process.exit(0));
