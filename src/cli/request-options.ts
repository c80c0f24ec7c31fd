// The options that shape one map, shared by `repomap map` (in-process) and `repomap query`
// (through the daemon). Light on purpose: the thin client loads it.
import { requestFilePath } from '../paths.js';
import {
  DEFAULT_ENCODING,
  DEFAULT_MAX_TOKENS,
  DEFAULT_RANKING,
  DEFAULT_TOKENS,
  MAX_TOKENS,
  type MapRequest,
  NO_CHAT_MULTIPLIER,
  RANKINGS,
  budgetFor,
  secondsOption,
} from '../request.js';
import { type OptionSpec, choiceOption, integerOption } from './args.js';

export const REQUEST_OPTIONS = {
  chat: { type: 'string', multiple: true },
  mention: { type: 'string', multiple: true },
  message: { type: 'string' },
  tokens: { type: 'string' },
  'max-tokens': { type: 'string' },
  encoding: { type: 'string' },
  format: { type: 'string' },
  preamble: { type: 'boolean' },
  ranking: { type: 'string' },
  wait: { type: 'string' },
} satisfies OptionSpec;

export const REQUEST_HELP = `  --chat FILE          a file the model already has (repeatable): not shown; the map shows the code it
                       uses first, and ranks from it
  --mention IDENT      an identifier the user mentioned (repeatable): its definitions are shown first
  --message TEXT       the user's request; identifiers and file names are taken from it
  --tokens N           token budget, at most ${MAX_TOKENS}; given, it is the cap. Without it the budget is
                       ${DEFAULT_TOKENS}, x${NO_CHAT_MULTIPLIER} when no --chat is given, up to --max-tokens
  --max-tokens N       cap of that enlarged default budget (default ${DEFAULT_MAX_TOKENS})
  --encoding NAME      tiktoken encoding for counting (default ${DEFAULT_ENCODING})
  --format FMT         text (default), markdown (each file in a fenced block) or json
  --preamble           start the map with an instruction: these files are read-only summaries
  --ranking NAME       repomap (default: this project's model) or aider (Aider's, reproduced exactly)
  --wait SECS          while a first index is being built, answer after at most SECS seconds from the
                       files indexed by then, those the request needs (--chat files, their imports,
                       their folders, the files using their names) parsed first: a partial map,
                       marked so (a first line in text, "partial" in JSON). Default: wait for the
                       whole index
`;

interface RequestValues {
  chat?: string[];
  mention?: string[];
  message?: string;
  tokens?: string;
  'max-tokens'?: string;
  encoding?: string;
  format?: string;
  preamble?: boolean;
  ranking?: string;
  wait?: string;
}

/** The request the options describe; chat files are taken from the current directory and checked (see requestFilePath). */
export function requestFromOptions(values: RequestValues, root: string): { request: MapRequest; format: 'text' | 'json' } {
  const chosen = choiceOption(values.format, 'format', ['text', 'markdown', 'json'] as const, 'text');
  const format = chosen === 'json' ? 'json' : 'text';
  const chatFiles = (values.chat ?? []).map((file) => requestFilePath(root, file, 'chat file', process.cwd()));
  const request: MapRequest = {
    chatFiles,
    mentionedIdents: values.mention ?? [],
    ...(values.message !== undefined ? { message: values.message } : {}),
    ...(values.tokens !== undefined ? { tokens: integerOption(values.tokens, 'tokens') } : {}),
    ...(values['max-tokens'] !== undefined ? { maxTokens: integerOption(values['max-tokens'], 'max-tokens') } : {}),
    ...(values.encoding !== undefined ? { encoding: values.encoding } : {}),
    ...(values.preamble ? { preamble: true } : {}),
    ...(chosen === 'markdown' ? { markdown: true } : {}),
    ...(values.ranking !== undefined ? { ranking: choiceOption(values.ranking, 'ranking', RANKINGS, DEFAULT_RANKING) } : {}),
    ...(values.wait !== undefined ? { waitSeconds: secondsOption(values.wait, 'wait') } : {}),
  };
  budgetFor(request); // a bad budget is refused before any work (or a daemon) is started
  return { request, format };
}

