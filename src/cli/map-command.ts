import { MAP_CONFIG_KEYS, configHelp, readProjectConfig, withProjectConfig } from '../config.js';
import { badRequest } from '../errors.js';
import { DEFAULT_MAX_FILE_BYTES } from '../indexer/indexer.js';
import { defaultWorkerCount } from '../indexer/pool.js';
import { buildMap, publicMap } from '../map.js';
import { resolveRoot } from '../paths.js';
import { printDetails } from './details.js';
import { type OptionSpec, folderOption, globsOption, integerOption, maxFileBytesOption, parseCommandArgs } from './args.js';
import { ALLOW_GRAMMAR_OPTION, allowGrammarHelp, allowGrammarsOf } from './start-options.js';
import { MAX_FILE_BYTES_LIMIT } from '../api/request.js';
import { progressReporter } from './progress.js';
import { REQUEST_HELP, REQUEST_OPTIONS, requestFromOptions } from './request-options.js';
import { emptyMapNote, textOutput } from '../render/output.js';
import { mapTestOptions } from '../test-hooks.js';

export const MAP_HELP = `Usage: repomap map [ROOT] [options]

Prints a ranked, token-budgeted map of the repository at ROOT (default: the current directory),
computed in this process. Tags are cached in LMDB, so a second run parses only what changed,
and a file another clone or work tree parsed is copied from the shared cache, by content
($XDG_CACHE_HOME/repomap/shared; REPOMAP_SHARED_CACHE=DIR sets it, set empty turns it off; with
--cache-dir it is used only when REPOMAP_SHARED_CACHE is set).

Options:
${REQUEST_HELP}  --cache-dir DIR      where the tag cache lives (default $XDG_CACHE_HOME/repomap/<hash of ROOT>)
  --exclude GLOB       leave out matching paths (repeatable): a glob without a slash matches names at
                       any depth (vendor, *.gen.ts), one with a slash paths from ROOT (src/gen/**,
                       ./vendor); an absolute path must be inside ROOT and is taken from it
                       ($PWD/vendor is ./vendor); a folder excludes what is in it
  --max-file-bytes N   skip files larger than N bytes (default ${DEFAULT_MAX_FILE_BYTES}, at most ${MAX_FILE_BYTES_LIMIT})
  --workers N          parse threads (default and most: the cores available, ${defaultWorkerCount()}); 1 parses
                       in this thread, and on one parse thread past 1,000 files
${allowGrammarHelp()}  --quiet              no progress line on stderr (it is shown only on a terminal anyway)
  --verbose            list skipped files, indexing counts, peak memory and the languages that
                       do not run natively (and why) on stderr (and the skipped files in JSON's
                       skippedFiles, as 'repomap query --verbose' does)
  -h, --help           show this help

${configHelp(MAP_CONFIG_KEYS)}`;

const MAP_OPTIONS = {
  ...REQUEST_OPTIONS,
  'cache-dir': { type: 'string' },
  exclude: { type: 'string', multiple: true },
  'max-file-bytes': { type: 'string' },
  workers: { type: 'string' },
  ...ALLOW_GRAMMAR_OPTION,
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
  if (positionals.length > 1) throw badRequest(`map takes one ROOT, got ${positionals.length}: ${positionals.join(' ')}`);
  const root = await resolveRoot(positionals[0] ?? '.');
  const { request, format } = requestFromOptions(values, root);
  const progress = progressReporter(process.stderr, !values.quiet);
  // Flags over the project config; the cores only when neither sets the workers.
  const options = withProjectConfig(
    {
      ...request,
      root,
      exclude: globsOption(values.exclude, 'exclude'),
      maxFileBytes: maxFileBytesOption(values['max-file-bytes']),
      workers: integerOption(values.workers, 'workers'),
      ...allowGrammarsOf(values),
    },
    readProjectConfig(root).config,
  );
  const map = await buildMap({
    ...options,
    projectConfig: false,
    workers: options.workers ?? defaultWorkerCount(),
    cacheDir: folderOption(values['cache-dir'], 'cache-dir'),
    onNotice: (message) => process.stderr.write(message + '\n'),
    onProgress: progress.update,
    // The pool test drives this command as a process: its fault injection comes in this way.
    ...mapTestOptions(process.env),
  });
  progress.finish();
  if (values.verbose) printDetails(map, { daemon: false });
  process.stdout.write(format === 'json' ? JSON.stringify(publicMap(map, { listSkipped: request.listSkipped === true }), null, 2) + '\n' : textOutput(map));
  if (map.text === '') process.stderr.write(`repomap: ${emptyMapNote(root, map)}\n`);
  return 0;
}
