// The Piscina worker: turns a batch of files into results with the same extraction code the
// engine runs in-process. Grammars and queries load lazily, once per thread.
import { preloadLanguages } from '../src/extract/extract.js';
import { type FileResult, indexFiles } from '../src/extract/file.js';
import type { BatchTask } from '../src/indexer/worker-protocol.js';
import { languageById } from '../src/extract/languages.js';
import { attachedStore, storeTags } from '../src/indexer/tag-writer.js';

export default async function extractBatch(task: BatchTask): Promise<FileResult[]> {
  if (task.preload) {
    await preloadLanguages(task.preload.flatMap((id) => languageById(id) ?? []));
    // A warm-up with a store readies its writes too, for the first save's commit.
    if (task.tagsTo) await attachedStore(task.tagsTo).warmWrites();
  }
  const results: FileResult[] = [];
  // Fault injection for the tests (see RunnerOptions.exitOn).
  const { exitOn, hangOn } = task;
  if (exitOn && task.jobs.some((job) => job.path.includes(exitOn))) process.exit(70);
  if (hangOn && task.jobs.some((job) => job.path.includes(hangOn))) for (;;); // never returns
  await indexFiles(task.root, task.jobs, task.options, (_, result) => results.push(result));
  if (task.tagsTo) {
    const store = attachedStore(task.tagsTo);
    storeTags(results, store);
    // Committed before the records go back: the caller writes a record only after its tags.
    await store.flushed();
  }
  return results;
}
