import { type ProjectConfig, configHelp, readProjectConfig, withProjectConfig } from '../config.js';
import { MAX_FILE_BYTES_LIMIT, MAX_MESSAGE_CHARS, MAX_TOKENS, budgetFor } from '../api/request.js';
import { badRequest } from '../errors.js';
import { resolveRoot } from '../paths.js';
import { DEFAULT_BUDGETS, DEFAULT_RANKERS, type EvalReport, type Ranker, formatReport, rankerByName, runEval } from '../eval/eval.js';
import { DEFAULT_COMMITS, DEFAULT_TASKS } from '../eval/git.js';
import { DEFAULT_MAX_FILE_BYTES } from '../indexer/indexer.js';
import { defaultWorkerCount } from '../indexer/pool.js';
import { DEFAULT_ENCODING } from '../pack/tokens.js';
import { type OptionSpec, choiceOption, folderOption, globsOption, integerOption, isPositiveWholeNumber, maxFileBytesOption, parseCommandArgs } from './args.js';
import { ALLOW_GRAMMAR_OPTION, allowGrammarHelp, allowGrammarsOf } from './start-options.js';

export const EVAL_HELP = `Usage: repomap eval [ROOT] [options]

Scores the map against the repository's own history. Tasks are commits of the first-parent chain
that modify 2 to 8 source files; for each, the parent commit is checked out in a scratch folder
(outside ROOT, removed at the end), the map is built with the most-changed file as the chat file
and the commit message's identifiers as mentions (its plain words as a message's words; of a
message over a request's ${MAX_MESSAGE_CHARS} characters, those before the bound), and the other
changed files are the targets.
Reports, per budget and ranking, the recall of the targets among the files shown, the API recall
(of the names the commit's added lines use from 1 to 3 other files, those shown on a line of a
file defining them; '-' for the lists of paths, which show no line), the edit-site recall (of the
functions and types holding the first old line of each hunk of the commit in its other files
but tests, those whose name is on a line shown under their file; '-' likewise), the hit rate,
the reciprocal rank of the first target, files shown, tokens used and milliseconds per map. ROOT may be a
checkout, a subfolder of one (scored as a repository of its own: the commits' changes under it,
the map of it) or a bare repository (default: the current directory).

Options:
  --commits N          first-parent commits to mine (default ${DEFAULT_COMMITS})
  --tasks N            tasks sampled, spread over the window (default ${DEFAULT_TASKS})
  --seed N             seed of the sample (default 1)
  --rev REV            the commit the window ends at (default HEAD)
  --budgets LIST       token budgets, comma-separated, each at most ${MAX_TOKENS} (default ${DEFAULT_BUDGETS.join(',')})
  --ranking LIST       rankings and baselines to score, comma-separated
                       (default ${DEFAULT_RANKERS.join(',')})
  --exclude-tests      test files are neither the chat file nor targets
  --exclude GLOB       leave out matching paths, from tasks and maps (repeatable)
  --encoding NAME      tiktoken encoding for counting (default ${DEFAULT_ENCODING})
  --format FMT         text (default) or json (every task with its scores)
  --cache-dir DIR      keep the tag cache here across runs (default: inside the scratch folder);
                       one run at a time: a second run on the same folder is refused
  --max-file-bytes N   skip files larger than N bytes (default ${DEFAULT_MAX_FILE_BYTES}, at most ${MAX_FILE_BYTES_LIMIT})
  --workers N          parse threads (default and most: the cores available, ${defaultWorkerCount()})
${allowGrammarHelp()}  --quiet              no progress line on stderr (it is shown only on a terminal anyway)
  -h, --help           show this help

${configHelp(['exclude', 'include', 'encoding', 'workers', 'maxFileBytes', 'languages'])}`;

const EVAL_OPTIONS = {
  commits: { type: 'string' },
  tasks: { type: 'string' },
  seed: { type: 'string' },
  rev: { type: 'string' },
  budgets: { type: 'string' },
  ranking: { type: 'string' },
  'exclude-tests': { type: 'boolean' },
  exclude: { type: 'string', multiple: true },
  encoding: { type: 'string' },
  format: { type: 'string' },
  'cache-dir': { type: 'string' },
  'max-file-bytes': { type: 'string' },
  workers: { type: 'string' },
  ...ALLOW_GRAMMAR_OPTION,
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} satisfies OptionSpec;

export async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('eval', args, EVAL_OPTIONS);
  if (values.help) {
    process.stdout.write(EVAL_HELP);
    return 0;
  }
  if (positionals.length > 1) throw badRequest(`eval takes one ROOT, got ${positionals.length}: ${positionals.join(' ')}`);
  const format = choiceOption(values.format, 'format', ['text', 'json'] as const, 'text');
  const budgets = listOption(values.budgets, 'budgets', 'positive whole numbers', isPositiveWholeNumber).map(Number);
  // Each budget is a map's, checked now (not after the first checkout) by the map's own check, naming this option.
  for (const tokens of budgets) budgetFor({ tokens }, () => '--budgets');
  const rankers = listOption(values.ranking, 'ranking', 'rankings').map((name): Ranker => {
    const ranker = rankerByName(name);
    if (!ranker) throw badRequest(`--ranking: unknown ranking '${name}' (known: ${DEFAULT_RANKERS.join(', ')})`);
    return ranker;
  });
  if (new Set(rankers.map((ranker) => ranker.name)).size !== rankers.length) throw badRequest('--ranking names a ranking twice');

  const progress = evalProgress(process.stderr, !values.quiet);
  const root = positionals[0] ?? '.';
  // Flags over the project config of ROOT's work tree (a bare repository has none).
  const configured = withProjectConfig<ProjectConfig>(
    {
      exclude: globsOption(values.exclude, 'exclude'),
      encoding: values.encoding,
      maxFileBytes: maxFileBytesOption(values['max-file-bytes']),
      workers: integerOption(values.workers, 'workers'),
    },
    readProjectConfig(await resolveRoot(root)).config,
  );
  const report = await runEval({
    root,
    rev: values.rev,
    commits: integerOption(values.commits, 'commits'),
    tasks: integerOption(values.tasks, 'tasks'),
    seed: values.seed === undefined ? undefined : seedOption(values.seed),
    budgets: budgets.length > 0 ? budgets : undefined,
    rankers: rankers.length > 0 ? rankers : undefined,
    excludeTests: values['exclude-tests'] ?? false,
    exclude: configured.exclude ?? [],
    include: configured.include ?? [],
    encoding: configured.encoding,
    cacheDir: folderOption(values['cache-dir'], 'cache-dir'),
    maxFileBytes: configured.maxFileBytes,
    workers: configured.workers ?? defaultWorkerCount(),
    ...allowGrammarsOf(values),
    onTask: progress.update,
    onNotice: (message) => process.stderr.write(message + '\n'),
  });
  progress.finish();
  if (report.tasks.length === 0) process.stderr.write('repomap: no commit in the window makes a task (2 to 8 modified source files)\n');
  process.stdout.write(format === 'json' ? JSON.stringify(reportToJson(report), null, 2) + '\n' : formatReport(report));
  return 0;
}

/**
 * The items of a comma-separated option (`--budgets 1024,2048`), each of them `what` says and
 * `isItem` accepts; a mistake names the option, what it takes, and the item that is wrong.
 */
function listOption(value: string | undefined, name: string, what: string, isItem: (item: string) => boolean = () => true): string[] {
  if (value === undefined) return [];
  const takes = `--${name} takes a comma-separated list of ${what}`;
  const items = value.split(',').map((item) => item.trim());
  if (items.includes('')) throw badRequest(`${takes}, not '${value}' (an item is empty)`);
  const wrong = items.find((item) => !isItem(item));
  if (wrong !== undefined) throw badRequest(`${takes}, and '${wrong}' is not one`);
  return items;
}

function seedOption(value: string): number {
  if (!/^\d+$/.test(value)) throw badRequest(`--seed takes a whole number, not '${value}'`);
  return Number(value);
}

/** The report as data: the summary rows, then every task with its request and scores. */
export function reportToJson(report: EvalReport) {
  return {
    root: report.root,
    head: report.head,
    window: report.window,
    candidates: report.candidates,
    seed: report.seed,
    budgets: report.budgets,
    rankings: report.rankers,
    seconds: report.seconds,
    summary: report.summary,
    tasks: report.tasks.map(({ task, indexMs, parsed, indexed, needed, editSites, scores }) => ({
      commit: task.commit,
      parent: task.parent,
      subject: task.subject,
      chatFile: task.chatFile,
      targets: task.targets,
      mentions: task.mentions,
      needed,
      editSites,
      indexMs,
      parsed,
      indexed,
      scores,
    })),
  };
}

function evalProgress(stream: NodeJS.WriteStream, enabled: boolean) {
  if (!enabled || !stream.isTTY) return { update: () => {}, finish: () => {} };
  let drawn = false;
  return {
    update(done: number, total: number, task: { commit: string; subject: string }) {
      const line = `eval task ${Math.min(done + 1, total)}/${total}: ${task.commit.slice(0, 10)} ${task.subject}`;
      stream.write(`\r\x1b[K${line.slice(0, Math.max(20, (stream.columns ?? 80) - 1))}`);
      drawn = true;
    },
    finish() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}
