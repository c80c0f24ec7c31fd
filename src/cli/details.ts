import type { IndexStats } from '../api/types.js';
import { escapeControls } from '../paths.js';
import type { GrammarFallback, SkippedFile } from '../api/types.js';

/** What --verbose reads of a map, in-process or from a daemon. */
export interface MapDetails {
  stats: IndexStats;
  tokens: number;
  budget: number;
  files: readonly unknown[];
  skippedFiles: readonly SkippedFile[];
  grammarFallbacks?: readonly GrammarFallback[];
}

/**
 * The --verbose lines, on stderr: the work counts (of this run, or of the daemon since it
 * started), the map's size, this process's peak memory when it did the work, the languages that
 * do not run natively where the map was made (and why), and every skipped file with its reason.
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
    ...[fallbackLine(map.grammarFallbacks ?? [])].flatMap((line) => (line ? [`repomap: ${line}`] : [])),
    ...map.skippedFiles.map((file) => `skipped ${escapeControls(file.path)}: ${file.reason}${file.detail ? ` (${escapeControls(file.detail)})` : ''}`),
  ];
  process.stderr.write(lines.join('\n') + '\n');
}

/**
 * The one line saying which languages fell back and why, by reason (the runtime's failure is every
 * language's): those on WebAssembly, then those left without a grammar; undefined when every
 * language runs natively.
 */
export function fallbackLine(fallbacks: readonly GrammarFallback[]): string | undefined {
  if (fallbacks.length === 0) return undefined;
  const reasons = [...new Set(fallbacks.map((fallback) => fallback.reason))];
  return reasons
    .map((reason) => {
      const ids = (runtime: GrammarFallback['runtime']) => fallbacks.filter((f) => f.reason === reason && f.runtime === runtime).map((f) => f.language);
      const wasm = ids('wasm');
      const none = ids('none');
      const parts = [...(wasm.length > 0 ? [`${wasm.join(', ')} on WebAssembly`] : []), ...(none.length > 0 ? [`${none.join(', ')} left out (no WebAssembly build)`] : [])];
      return `${reason}: ${parts.join(', ')}`;
    })
    .join('; ');
}
