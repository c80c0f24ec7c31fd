import { INDEX_CONFIG_KEYS, configHelp } from '../config.js';
import { badRequest } from '../errors.js';
import { findSymbolsIn } from '../api/index.js';
import { connectSaying } from './daemon-commands.js';
import { resolveRoot } from '../paths.js';
import { DEFAULT_SYMBOL_LIMIT, renderSymbols } from '../symbols.js';
import { type SymbolAnswer } from '../api/types.js';
import { choiceOption, folderOption, globsOption, integerOption, parseCommandArgs } from './args.js';
import { fieldsFromOptions, helpOf, optionsOf } from './request-options.js';
import { ALLOW_GRAMMAR_OPTION, allowGrammarHelp, allowGrammarsOf } from './start-options.js';
import { SYMBOL_QUERY, type SymbolQuery } from '../api/request.js';

export const SYMBOLS_HELP = `Usage: repomap symbols NAME [ROOT] [options]

Where NAME is defined (path, line, kind, signature line, enclosing scopes) and where it is
referenced (path, line, the definition the line is in, the line's text). Definitions first, so that --limit keeps the main one:
NAME itself before longer names --prefix matches, code before tests, the most central file first
(by the PageRank of the map), then by path and line. Then references, the most central
referencing files first.

Options:
${helpOf(SYMBOL_QUERY)}  --format FMT         text (default) or json
  --daemon             ask ROOT's daemon (started if needed) instead of indexing in this process
  --cache-dir DIR      the tag cache (default $XDG_CACHE_HOME/repomap/<hash of ROOT>)
  --exclude GLOB       leave out matching paths (repeatable)
  --workers N          parse threads for the index (default and most: the cores available)
${allowGrammarHelp()}  -h, --help           show this help

${configHelp(INDEX_CONFIG_KEYS)}`;

export async function symbolsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('symbols', args, {
    ...optionsOf(SYMBOL_QUERY),
    format: { type: 'string' },
    daemon: { type: 'boolean' },
    'cache-dir': { type: 'string' },
    exclude: { type: 'string', multiple: true },
    workers: { type: 'string' },
    ...ALLOW_GRAMMAR_OPTION,
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(SYMBOLS_HELP);
    return 0;
  }
  const [name, dir, ...extra] = positionals;
  if (!name) throw badRequest("symbols needs a NAME (see 'repomap symbols --help')");
  if (extra.length > 0) throw badRequest(`symbols takes NAME and one ROOT, got also: ${extra.join(' ')}`);
  const format = choiceOption(values.format, 'format', ['text', 'json'] as const, 'text');
  const query: SymbolQuery = { prefix: false, limit: DEFAULT_SYMBOL_LIMIT, ...fieldsFromOptions(SYMBOL_QUERY, values), name };
  const cacheDir = folderOption(values['cache-dir'], 'cache-dir');
  const index = { cacheDir, exclude: globsOption(values.exclude, 'exclude'), workers: integerOption(values.workers, 'workers'), ...allowGrammarsOf(values) };
  let answer: SymbolAnswer;
  if (values.daemon) {
    const repo = await connectSaying(dir ?? '.', index);
    try {
      answer = await repo.symbols(query);
    } finally {
      repo.close();
    }
  } else {
    const root = await resolveRoot(dir ?? '.');
    answer = await findSymbolsIn({ root, ...index, ...query });
  }
  process.stdout.write(format === 'json' ? JSON.stringify(answer, null, 2) + '\n' : renderSymbols(answer));
  return 0;
}
