import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_MAX_FILE_BYTES } from '../index/indexer.js';
import { DEFAULT_MAX_TOKENS, DEFAULT_TOKENS, type RepoMap, buildMap, resolveRoot } from '../map.js';
import { DEFAULT_ENCODING } from '../pack/tokens.js';
import { toRootRelative } from '../paths.js';
import { UserError } from '../errors.js';
import { defaultWorkerCount } from '../index/pool.js';
import { type OptionSpec, choiceOption, integerOption, parseCommandArgs } from './args.js';
import { progressReporter } from './progress.js';

export const MAP_HELP = `Usage: repomap map [ROOT] [options]

Prints a ranked, token-budgeted map of the repository at ROOT (default: the current directory),
computed in this process. Tags are cached in LMDB, so a second run parses only what changed.

Options:
  --chat FILE          a file the model already has (repeatable): steers the ranking, not shown
  --mention IDENT      an identifier the user mentioned (repeatable)
  --message TEXT       the user's request; identifiers and file names are taken from it
  --tokens N           token budget (default ${DEFAULT_TOKENS}); x8 when no --chat is given, up to --max-tokens
  --max-tokens N       cap of the enlarged budget (default ${DEFAULT_MAX_TOKENS})
  --encoding NAME      tiktoken encoding for counting (default ${DEFAULT_ENCODING})
  --format FMT         text (default) or json
  --cache-dir DIR      where the tag cache lives (default $XDG_CACHE_HOME/repomap/<hash of ROOT>)
  --exclude GLOB       leave out matching paths (repeatable; a folder's name excludes what is in it)
  --max-file-bytes N   skip files larger than N bytes (default ${DEFAULT_MAX_FILE_BYTES})
  --workers N          parse threads (default: the cores available, ${defaultWorkerCount()}); 1 parses in-process
  --quiet              no progress line on stderr (it is shown only on a terminal anyway)
  --verbose            list skipped files, indexing counts and peak memory on stderr
  -h, --help           show this help
`;

export const MAP_OPTIONS = {
  chat: { type: 'string', multiple: true },
  mention: { type: 'string', multiple: true },
  message: { type: 'string' },
  tokens: { type: 'string' },
  'max-tokens': { type: 'string' },
  encoding: { type: 'string' },
  format: { type: 'string' },
  'cache-dir': { type: 'string' },
  exclude: { type: 'string', multiple: true },
  'max-file-bytes': { type: 'string' },
  workers: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies OptionSpec;

export async function mapCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('map', args, MAP_OPTIONS);
  if (values.help) {
    process.stdout.write(MAP_HELP);
    return 0;
  }
  if (positionals.length > 1) throw new UserError(`map takes one ROOT, got ${positionals.length}: ${positionals.join(' ')}`);
  const format = choiceOption(values.format, 'format', ['text', 'json'] as const, 'text');
  const root = await resolveRoot(positionals[0] ?? '.');
  const chatFiles = (values.chat ?? []).map((file) => {
    const rel = toRootRelative(root, file, process.cwd());
    if (!existsSync(resolve(root, rel))) throw new UserError(`chat file ${file} does not exist`);
    return rel;
  });

  const progress = progressReporter(process.stderr, !values.quiet);
  const map = await buildMap({
    root,
    chatFiles,
    mentionedIdents: values.mention ?? [],
    message: values.message,
    tokens: integerOption(values.tokens, 'tokens'),
    maxTokens: integerOption(values['max-tokens'], 'max-tokens'),
    encoding: values.encoding,
    cacheDir: values['cache-dir'] ? resolve(values['cache-dir']) : undefined,
    exclude: values.exclude ?? [],
    maxFileBytes: integerOption(values['max-file-bytes'], 'max-file-bytes'),
    workers: integerOption(values.workers, 'workers') ?? defaultWorkerCount(),
    onNotice: (message) => process.stderr.write(message + '\n'),
    onProgress: progress.update,
  });
  progress.finish();
  if (values.verbose) printDetails(map);
  process.stdout.write(format === 'json' ? JSON.stringify(mapToJson(map), null, 2) + '\n' : map.text);
  return 0;
}

/** The map as data: 1-based line numbers, as editors show them. */
export function mapToJson(map: RepoMap) {
  return {
    root: map.root,
    tokens: map.tokens,
    budget: map.budget,
    files: map.files.map((file) => ({
      path: file.path,
      rank: file.rank,
      lines: file.lines.map(({ line, text }) => ({ line: line + 1, text })),
    })),
    skipped: map.skipped,
    skippedFiles: map.skippedFiles,
    stats: map.stats,
    request: map.request,
    text: map.text,
  };
}

function printDetails(map: RepoMap): void {
  const { discovered, parsed, reusedByStat, reusedByHash, removed } = map.stats;
  const lines = [
    `repomap: ${discovered} files discovered; ${parsed} parsed, ${reusedByStat} unchanged, ` +
      `${reusedByHash} touched but unchanged, ${removed} removed from the cache`,
    `repomap: map of ${map.tokens} tokens (budget ${map.budget}), ${map.files.length} files shown`,
    `repomap: peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
    ...map.skippedFiles.map((file) => `skipped ${file.path}: ${file.reason}${file.detail ? ` (${file.detail})` : ''}`),
  ];
  process.stderr.write(lines.join('\n') + '\n');
}
