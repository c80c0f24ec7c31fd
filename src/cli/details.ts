import type { IndexStats } from '../api/types.js';
import { escapeControls } from '../paths.js';
import type { SkippedFile } from '../api/types.js';

/** What --verbose reads of a map, in-process or from a daemon. */
export interface MapDetails {
  stats: IndexStats;
  tokens: number;
  budget: number;
  files: readonly unknown[];
  skippedFiles: readonly SkippedFile[];
}

/**
 * The --verbose lines, on stderr: the work counts (of this run, or of the daemon since it
 * started), the map's size, this process's peak memory when it did the work, and every skipped
 * file with its reason.
 */
export function printDetails(map: MapDetails, { daemon }: { daemon: boolean }): void {
  const { discovered, parsed, reusedByStat, reusedByHash, reusedShared, published, removed, restoredGraphs, restoredSharedGraphs } = map.stats;
  const lines = [
    `repomap: ${daemon ? 'the daemon (since it started): ' : ''}${discovered} files discovered; ${parsed} parsed, ` +
      `${reusedByStat} unchanged, ${reusedByHash} touched but unchanged, ${reusedShared} from the shared cache, ${removed} removed from the cache` +
      (published > 0 ? `; ${published} published to the shared cache` : '') +
      (restoredGraphs > 0 ? `; related graph read from the ${restoredSharedGraphs > 0 ? 'shared ' : ''}cache` : ''),
    `repomap: map of ${map.tokens} tokens (budget ${map.budget}), ${map.files.length} files shown`,
    ...(daemon ? [] : [`repomap: peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`]),
    ...map.skippedFiles.map((file) => `skipped ${escapeControls(file.path)}: ${file.reason}${file.detail ? ` (${escapeControls(file.detail)})` : ''}`),
  ];
  process.stderr.write(lines.join('\n') + '\n');
}
