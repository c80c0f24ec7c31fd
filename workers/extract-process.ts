// A child process of src/indexer/process-pool.ts: runs the batches its parent sends, one at a time,
// with the extraction a thread runs (workers/extract-worker.ts), and sends each one's results back.
// It ends with its parent: at once when the channel closes while it waits, and, when it is stuck
// in native code (where it reads no message), by a watchdog thread that kills it once its parent
// is gone (the parent kills it first whenever it can).
import { Worker } from 'node:worker_threads';
import { errorMessage } from '../src/errors.js';
import type { ProcessReply } from '../src/indexer/process-pool.js';
import type { BatchTask } from '../src/indexer/worker-protocol.js';
import extractBatch from './extract-worker.js';

const WATCHDOG = `const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL'); }, 1000);`;
new Worker(WATCHDOG, { eval: true }).unref();

const reply = (message: ProcessReply) => process.send?.(message);
process.on('message', (task: BatchTask) => {
  extractBatch(task).then(
    (results) => reply({ results }),
    (err: unknown) => reply({ error: errorMessage(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
