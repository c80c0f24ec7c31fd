// `repomap eval`: mine tasks from a repository's own history and score maps against them. For each
// task the parent commit is checked out in a scratch folder, the map is built from the chat file
// (the changed file with the most changed lines) and the commit message's identifiers, and the
// other changed files are the targets: how many of them does the map show, at each budget? Of
// the names the commit's added lines use from a few other files, how many does it show? And of the
// definitions its edits land in, in its other files, how many?
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RepomapError, badRequest } from '../errors.js';
import { acquireLock, releaseLock } from '../lock-file.js';
import { familyOfPath, languageForPath } from '../extract/languages.js';
import { ReferenceGraph } from '../graph/graph.js';
import { EMPTY_NAMES } from '../graph/nodes.js';
import { isMultiWordIdentifier } from '../graph/identifiers.js';
import { indexRepository, type RepoIndex } from '../indexer/indexer.js';
import { createRunner, type ParseRunner, workersNotice } from '../indexer/pool.js';
import { packedMap } from '../map.js';
import { makeFolder, resolveRoot, rootRelativeGlobs } from '../paths.js';
import { comparePaths } from '../discover/discover.js';
import { mentionedIdentifiers } from '../mentions.js';
import { DEFAULT_ENCODING, tokenCounter } from '../pack/tokens.js';
import { DEFAULT_RANKING, RANKINGS, type RankingName } from '../api/request.js';
import type { MapBlock } from '../render/render.js';
import type { FileNames } from '../records.js';
import { directoryOrder, lexicalOrder, packFileList } from './baselines.js';
import { type EvalTask, type TaskOptions, commitChanges, mineTasks, openRepo } from './git.js';
import { type EditSite, editScore, editSites } from './edit-sites.js';
import { isTestPath, isVendoredOrGenerated } from '../file-kinds.js';
import { ScratchCheckout } from './checkout.js';
import { type History, NO_HISTORY, readHistory } from '../history/co-changes.js';
import { TagStore } from '../store/store.js';

export const DEFAULT_BUDGETS: readonly number[] = [1024, 2048, 4096];
/** Baselines: files by folder distance or by shared names, shown with their definitions, or as bare paths (-paths). */
export const BASELINES = ['directory', 'lexical', 'directory-paths', 'lexical-paths'] as const;
export type BaselineName = (typeof BASELINES)[number];

/** What one ranker sees of a task: the parent's index and graph, and the request. */
export interface TaskContext {
  index: RepoIndex;
  graph: ReferenceGraph;
  /** The names of each indexed file (outlines: index.lookups.outlineOf). */
  namesByPath: ReadonlyMap<string, FileNames>;
  task: EvalTask;
  budget: number;
  encoding: string;
  /** The chat file's history up to the parent commit, as a map of the parent's checkout reads it. */
  history: History;
}

/** What a ranker shows: the map's blocks (a file and its shown lines), in map order, and the tokens used. */
export interface Shown {
  blocks: readonly MapBlock[];
  tokens: number;
}

/** Something that produces a map (or a baseline list) for a task. */
export interface Ranker {
  name: string;
  /** Whether it shows lines (definitions): a list of bare paths shows none, and API recall does not apply to it. */
  showsLines: boolean;
  /** Whether it maps with the chat file's history: a task's history is read only for such rankers (Aider's model and the baselines have none). */
  readsHistory: boolean;
  run(context: TaskContext): Shown;
}

/** A ranking of the engine, through packedMap exactly as `repomap map` computes it (a budget too small for any line scores an empty map). */
export function rankingRanker(ranking: RankingName): Ranker {
  const readsHistory = ranking !== 'aider';
  return {
    name: ranking,
    showsLines: true,
    readsHistory,
    run({ index, graph, task, budget, encoding, history }) {
      const map = packedMap(index, graph, {
        chatFiles: [task.chatFile],
        // The message's identifiers as a request gives them: its code (names of two words or
        // more) as mentions, its plain words as the words of a message (see packedMap).
        mentionedIdents: task.mentions.filter(isMultiWordIdentifier),
        message: task.mentions.filter((ident) => !isMultiWordIdentifier(ident)).join(' '),
        tokens: budget,
        encoding,
        ranking,
      }, readsHistory ? history : NO_HISTORY);
      return { blocks: map.files, tokens: map.tokens };
    },
  };
}

export function baselineRanker(name: BaselineName): Ranker {
  const bare = name.endsWith('-paths');
  return {
    name,
    showsLines: !bare,
    readsHistory: false,
    run({ index, namesByPath, task, budget, encoding }) {
      const order = name.startsWith('directory')
        ? directoryOrder(task.chatFile, [...namesByPath.keys()])
        : lexicalOrder(task.chatFile, task.mentions, namesByPath);
      const packed = packFileList(order, index.lookups.outlineOf, budget, tokenCounter(encoding), bare);
      return { blocks: packed.blocks, tokens: packed.tokens };
    },
  };
}

/** The rankers by name: the engine's rankings and the baselines. */
export function rankerByName(name: string): Ranker | undefined {
  if ((RANKINGS as readonly string[]).includes(name)) return rankingRanker(name as RankingName);
  if ((BASELINES as readonly string[]).includes(name)) return baselineRanker(name as BaselineName);
  return undefined;
}

export const DEFAULT_RANKERS: readonly string[] = [DEFAULT_RANKING, ...RANKINGS.filter((name) => name !== DEFAULT_RANKING), ...BASELINES];

export interface EvalOptions extends TaskOptions {
  root: string;
  /** The commit the window ends at (default HEAD). */
  rev?: string;
  budgets?: readonly number[];
  rankers?: readonly Ranker[];
  encoding?: string;
  /** Tag cache shared by all tasks (default: inside the scratch folder, removed at the end). */
  cacheDir?: string;
  workers?: number;
  maxFileBytes?: number;
  /** Native grammars the user allows a project's languages to load (see resolveLanguages). */
  allowGrammars?: readonly string[];
  /** Where the scratch folder is made (default: the system's temporary folder). */
  scratchBase?: string;
  onTask?: (done: number, total: number, task: EvalTask) => void;
  onNotice?: (message: string) => void;
}

/** How a ranker did on one task at one budget: its files, the needed names and the edit sites it shows. */
export type Score = FileScore & ApiScore & EditScore;

/** How the lines a ranker shows meet the task's edit sites (see edit-sites.ts). */
export interface EditScore {
  /** Share of the edit sites shown; null when the task has none or the ranker shows no lines (as apiRecall). */
  editRecall: number | null;
  /** The sites shown, as `path:line name` (1-based line). */
  shownSites: string[];
}

/** How the files a ranker shows meet the targets. */
export interface FileScore {
  /** Share of the targets the map shows. */
  recall: number;
  /** 1 when any target is shown. */
  hit: number;
  /** 1 / position (1-based, among the source files shown, in map order) of the first target shown; 0 when none is. */
  rr: number;
  tokens: number;
  /** Files shown. */
  files: number;
  /** Milliseconds to compute the map from the index. */
  ms: number;
  /** The targets shown. */
  found: string[];
}

/** How the lines a ranker shows meet the task's needed names. */
export interface ApiScore {
  /**
   * Share of the needed names shown; null when the task needs none (it is left out of the mean)
   * or the ranker shows no lines (Ranker.showsLines: API recall does not apply).
   */
  apiRecall: number | null;
  /** The needed names shown, each on a line under a file that defines it. */
  shownNames: string[];
}

/** A name the commit's added lines use and a few other files define: one the map should show. */
export interface NeededName {
  name: string;
  /** The files that define it (not tests, not vendored, of the chat file's language family), by path. */
  definers: string[];
}

/** Names shorter than this are not needed names: too many of them are common words. */
export const MIN_NEEDED_NAME_LENGTH = 5;
/** A name defined in more files than this is a common name (`handleError`), not an API to find. */
export const MAX_NEEDED_NAME_DEFINERS = 3;

export interface TaskResult {
  task: EvalTask;
  /** Milliseconds to bring the index up to date for this task's parent tree. */
  indexMs: number;
  /** Files parsed for this task (the others came from the tag cache). */
  parsed: number;
  /** Source files indexed. */
  indexed: number;
  /** The names the commit's added lines use from other files (see neededNames), by name. */
  needed: NeededName[];
  /** The definitions the commit's edits land in, in its other files (see editSites). */
  editSites: EditSite[];
  /** budget -> ranker -> score. */
  scores: Record<number, Record<string, Score>>;
}

export interface SummaryRow {
  budget: number;
  ranker: string;
  recall: number;
  /** Mean API recall over the tasks that need names; null when none does, or the ranker shows no lines. */
  apiRecall: number | null;
  /** Tasks that need names (the same for every row of a run). */
  apiTasks: number;
  /** Mean edit-site recall over the tasks that have edit sites; null when none has, or the ranker shows no lines. */
  editRecall: number | null;
  /** Tasks that have edit sites (the same for every row of a run). */
  editTasks: number;
  hit: number;
  mrr: number;
  tokens: number;
  files: number;
  ms: number;
}

export interface EvalReport {
  root: string;
  head: string;
  /** First-parent commits looked at, and how many of them make tasks. */
  window: number;
  candidates: number;
  seed: number;
  budgets: number[];
  rankers: string[];
  tasks: TaskResult[];
  summary: SummaryRow[];
  /** Wall time of the whole run, in seconds. */
  seconds: number;
}

/** Runs the evaluation: mines tasks, materialises each parent tree, scores every ranker at every budget. */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const started = performance.now();
  const root = await resolveRoot(options.root);
  // The maps are of checkouts elsewhere: the globs are taken from ROOT now (an absolute one is
  // ROOT's), so that they name the same paths in each checkout as in ROOT.
  const exclude = rootRelativeGlobs(root, options.exclude ?? [], 'exclude');
  const include = rootRelativeGlobs(root, options.include ?? [], 'include');
  const repo = await openRepo(root, options.rev);
  const budgets = [...(options.budgets ?? DEFAULT_BUDGETS)];
  const rankers = options.rankers ?? DEFAULT_RANKERS.map((name) => rankerByName(name)!);
  const encoding = options.encoding ?? DEFAULT_ENCODING;
  // An unknown encoding is a user error before any work; the first count also loads the encoder,
  // which must not be timed as part of the first map.
  tokenCounter(encoding)('repomap eval: warming the token counter up before the first map is timed\n'.repeat(64));
  const mined = await mineTasks(repo, { ...options, exclude, include });
  if (mined.tasks.length === 0) {
    // A table of zeros would read as a score. (A history of merges only has no first-parent
    // commits of its own to mine: rust-analyzer's, for one.)
    throw badRequest(
      `no tasks in ${root}: none of the last ${mined.window} first-parent commits is a non-merge commit changing 2 to 8 source files` +
        `${repo.prefix ? ` under ${repo.prefix}` : ''} (${mined.candidates} candidates); try a larger --commits window or another --rev`,
    );
  }
  // Oldest first: consecutive parents are close, so few files change between tasks.
  const tasks = [...mined.tasks].sort((a, b) => a.time - b.time);

  const scratch = await ScratchCheckout.create(repo.gitDir, options.scratchBase);
  let cacheLock: string | undefined;
  const cleanUp = () => {
    scratch.remove();
    if (cacheLock) releaseLock(cacheLock);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    cleanUp();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let runner: ParseRunner | undefined;
  let store: TagStore | undefined;
  try {
    // Two runs writing one tag cache from checkouts of different commits spoil each other's maps.
    if (options.cacheDir !== undefined) cacheLock = lockCache(options.cacheDir);
    const tooMany = workersNotice(options.workers);
    if (tooMany) options.onNotice?.(tooMany);
    runner = createRunner(options.workers ?? 1);
    store = TagStore.open(options.cacheDir ?? `${scratch.dir}/cache`, { onNotice: options.onNotice });
    const graph = new ReferenceGraph();
    const graphed = new Map<string, string>(); // path -> content hash of the tags in the graph
    const results: TaskResult[] = [];
    for (const [i, candidate] of tasks.entries()) {
      options.onTask?.(i, tasks.length, candidate);
      const changes = await commitChanges(repo, candidate.parent, candidate.commit);
      const indexStart = performance.now();
      await scratch.checkout(candidate.parent);
      const index = await indexRepository({
        // ROOT's folder of the parent tree, as the tasks' paths are (a task changes files there, so it exists).
        root: join(scratch.tree, repo.prefix),
        store,
        runner,
        exclude,
        include,
        maxFileBytes: options.maxFileBytes,
        allowGrammars: options.allowGrammars,
        onNotice: options.onNotice,
      });
      // The graph follows the tree file by file: only changed files move their edges.
      const namesByPath = new Map<string, FileNames>();
      for (const record of index.records) {
        // A record reused from the store comes without its names: the store has them.
        const names = record.names ?? store.names(record.path) ?? EMPTY_NAMES;
        namesByPath.set(record.path, names);
        if (graphed.get(record.path) !== record.hash) {
          graph.setFile(record.path, names);
          graphed.set(record.path, record.hash);
        }
      }
      for (const path of [...graphed.keys()]) {
        if (!namesByPath.has(path)) {
          graph.removeFile(path);
          graphed.delete(path);
        }
      }
      // Imports resolve over this tree's paths and project files: every edge is derived again,
      // here, so that the time it takes counts as indexing, not as the first ranking's map.
      graph.useImports(index.lookups.importsOf);
      graph.prepareRelated({ room: false });
      const indexMs = performance.now() - indexStart;
      // Files the parent tree's discovery leaves out (a .repomapignore, an .aiderignore) are no
      // part of the task: a target is not counted, and a task whose chat file is left out is dropped.
      const targets = candidate.targets.filter((path) => index.lookups.isKnown(path));
      if (!index.lookups.isKnown(candidate.chatFile) || targets.length === 0) {
        options.onNotice?.(`repomap eval: task ${candidate.commit.slice(0, 12)} dropped: discovery of its parent leaves out its chat file or every target`);
        continue;
      }
      const task = targets.length < candidate.targets.length ? { ...candidate, targets } : candidate;
      const needed = neededNames(changes.added, task.chatFile, namesByPath);
      const sites = editSites(task, changes.hunks, index.lookups.outlineOf);
      const history = rankers.some((ranker) => ranker.readsHistory)
        ? await readHistory({ cwd: scratch.tree, gitDir: repo.gitDir, rev: candidate.parent, prefix: repo.prefix }, [task.chatFile], (path) => graph.hasFile(path))
        : NO_HISTORY;

      const scores: Record<number, Record<string, Score>> = {};
      for (const budget of budgets) {
        scores[budget] = {};
        for (const ranker of rankers) {
          const t0 = performance.now();
          const shown = ranker.run({ index, graph, namesByPath, task, budget, encoding, history });
          const ms = performance.now() - t0;
          const paths = shown.blocks.map((block) => block.path);
          // A list of paths gets no API recall, not 0: a 0 would read as a score (and pull a mean down).
          const api: ApiScore = ranker.showsLines ? apiScore(needed, shown.blocks) : { apiRecall: null, shownNames: [] };
          const edit: EditScore = ranker.showsLines ? editScore(sites, shown.blocks) : { editRecall: null, shownSites: [] };
          scores[budget][ranker.name] = { ...score(task.targets, paths, shown.tokens, ms), ...api, ...edit };
        }
      }
      results.push({ task, indexMs, parsed: index.stats.parsed, indexed: index.records.length, needed, editSites: sites, scores });
    }
    if (tasks.length > 0) options.onTask?.(tasks.length, tasks.length, tasks[tasks.length - 1]);
    return {
      root,
      head: repo.head,
      window: mined.window,
      candidates: mined.candidates,
      seed: options.seed ?? 1,
      budgets,
      rankers: rankers.map((ranker) => ranker.name),
      tasks: results,
      summary: summarize(results, budgets, rankers.map((ranker) => ranker.name)),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await runner?.close();
    await store?.close();
    cleanUp();
  }
}

/** Takes `cacheDir`'s eval lock (the folder made if needed), or refuses when a live run holds it. */
function lockCache(cacheDir: string): string {
  makeFolder(cacheDir);
  const lock = join(cacheDir, 'eval.lock');
  const taken = acquireLock(lock);
  if (!taken.ok) throw new RepomapError('refused', `the tag cache ${cacheDir} is in use by another repomap eval (pid ${taken.holder}); give each run its own --cache-dir`);
  return lock;
}

/** Scores the files a map shows (in map order) against the targets. */
export function score(targets: readonly string[], shown: readonly string[], tokens: number, ms = 0): FileScore {
  const wanted = new Set(targets);
  const found = shown.filter((path) => wanted.has(path));
  // Positions count source files only: the READMEs and manifests a map names first are never targets.
  const first = shown.filter((path) => languageForPath(path) !== undefined).findIndex((path) => wanted.has(path));
  return {
    recall: targets.length > 0 ? found.length / targets.length : 0,
    hit: found.length > 0 ? 1 : 0,
    rr: first === -1 ? 0 : 1 / (first + 1),
    tokens,
    files: shown.length,
    ms,
    found,
  };
}

/**
 * The needed names of a task: the identifiers of its added lines that are of two words or more
 * (isMultiWordIdentifier) and at least MIN_NEEDED_NAME_LENGTH long, that the chat file does not
 * define, and that 1 to MAX_NEEDED_NAME_DEFINERS files of the parent tree define, counting only
 * files of the chat file's language family that are neither tests nor vendored. Sorted by name.
 */
export function neededNames(added: Iterable<string>, chatFile: string, namesByPath: ReadonlyMap<string, FileNames>): NeededName[] {
  const family = familyOfPath(chatFile);
  if (!family) return [];
  const candidates = new Set<string>();
  for (const name of added) if (name.length >= MIN_NEEDED_NAME_LENGTH && isMultiWordIdentifier(name)) candidates.add(name);
  for (const name of namesByPath.get(chatFile)?.defined ?? []) candidates.delete(name);
  const definers = new Map<string, string[]>();
  for (const [path, names] of namesByPath) {
    if (path === chatFile || isTestPath(path) || isVendoredOrGenerated(path)) continue;
    if (familyOfPath(path) !== family) continue;
    // FileNames.defined is distinct: a file is listed once per name.
    for (const name of names.defined) {
      if (!candidates.has(name)) continue;
      const list = definers.get(name);
      if (list) list.push(path);
      else definers.set(name, [path]);
    }
  }
  return [...definers]
    .filter(([, paths]) => paths.length <= MAX_NEEDED_NAME_DEFINERS)
    .map(([name, paths]) => ({ name, definers: paths.sort(comparePaths) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Scores the lines a map shows against the needed names: a name is shown when a shown line of one
 * of its definers has it as a whole word (as --message splits words), not as part of a longer one.
 */
export function apiScore(needed: readonly NeededName[], blocks: readonly MapBlock[]): ApiScore {
  const definerPaths = new Set(needed.flatMap((entry) => entry.definers));
  const wordsByPath = new Map<string, Set<string>>();
  for (const block of blocks) {
    if (!definerPaths.has(block.path)) continue;
    const words = wordsByPath.get(block.path) ?? new Set<string>();
    for (const { text } of block.lines) for (const word of mentionedIdentifiers(text)) words.add(word);
    wordsByPath.set(block.path, words);
  }
  const shownNames = needed.filter(({ name, definers }) => definers.some((path) => wordsByPath.get(path)?.has(name))).map(({ name }) => name);
  return { apiRecall: needed.length > 0 ? shownNames.length / needed.length : null, shownNames };
}

/** Means over the tasks, per budget and ranker (API recall: over the tasks that need names; edit-site recall: over those that have sites). */
export function summarize(results: readonly TaskResult[], budgets: readonly number[], rankers: readonly string[]): SummaryRow[] {
  const apiTasks = results.filter((result) => result.needed.length > 0).length;
  const editTasks = results.filter((result) => result.editSites.length > 0).length;
  const rows: SummaryRow[] = [];
  for (const budget of budgets) {
    for (const ranker of rankers) {
      const scores = results.map((result) => result.scores[budget][ranker]);
      const mean = (pick: (s: Score) => number) => (scores.length === 0 ? 0 : scores.reduce((sum, s) => sum + pick(s), 0) / scores.length);
      // A task's null (nothing to find, or a list of paths) is left out of the mean.
      const meanOf = (values: ReadonlyArray<number | null>) => {
        const known = values.filter((value): value is number => value !== null);
        return known.length === 0 ? null : known.reduce((sum, value) => sum + value, 0) / known.length;
      };
      rows.push({
        budget,
        ranker,
        recall: mean((s) => s.recall),
        apiRecall: meanOf(scores.map((s) => s.apiRecall)),
        apiTasks,
        editRecall: meanOf(scores.map((s) => s.editRecall)),
        editTasks,
        hit: mean((s) => s.hit),
        mrr: mean((s) => s.rr),
        tokens: mean((s) => s.tokens),
        files: mean((s) => s.files),
        ms: mean((s) => s.ms),
      });
    }
  }
  return rows;
}

/** The summary as a text table, one row per budget and ranker. */
export function formatReport(report: EvalReport): string {
  const head = report.head.slice(0, 12);
  const lines = [
    `repomap eval of ${report.root} at ${head}: ${report.tasks.length} tasks ` +
      `(of ${report.candidates} candidate commits in the last ${report.window} of the first-parent chain, seed ${report.seed})`,
    '',
  ];
  const header = ['budget', 'ranking', 'recall', 'API', 'edit', 'hit', 'MRR', 'files', 'tokens', 'ms'];
  const rows = report.summary.map((row) => [
    String(row.budget),
    row.ranker,
    row.recall.toFixed(3),
    row.apiRecall === null ? '-' : row.apiRecall.toFixed(3),
    row.editRecall === null ? '-' : row.editRecall.toFixed(3),
    row.hit.toFixed(3),
    row.mrr.toFixed(3),
    row.files.toFixed(1),
    row.tokens.toFixed(0),
    row.ms.toFixed(1),
  ]);
  const widths = header.map((title, c) => Math.max(title.length, ...rows.map((row) => row[c].length)));
  const format = (row: string[]) =>
    row.map((cell, c) => (c === 1 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd();
  lines.push(format(header));
  let previous = '';
  for (const row of rows) {
    if (previous && row[0] !== previous) lines.push('');
    previous = row[0];
    lines.push(format(row));
  }
  const apiTasks = report.tasks.filter((task) => task.needed.length > 0).length;
  const neededCount = report.tasks.reduce((sum, task) => sum + task.needed.length, 0);
  lines.push('', `API: recall of the names the added lines use from 1 to ${MAX_NEEDED_NAME_DEFINERS} other files, over the ${apiTasks} of ${report.tasks.length} tasks that use any (${neededCount} ${neededCount === 1 ? 'name' : 'names'})`);
  const editTasks = report.tasks.filter((task) => task.editSites.length > 0).length;
  const siteCount = report.tasks.reduce((sum, task) => sum + task.editSites.length, 0);
  lines.push(`edit: recall of the definitions the commit's edits land in, in its other files but tests, over the ${editTasks} of ${report.tasks.length} tasks that have any (${siteCount} ${siteCount === 1 ? 'site' : 'sites'})`);
  const indexSeconds = report.tasks.reduce((sum, task) => sum + task.indexMs, 0) / 1000;
  lines.push(`${report.seconds.toFixed(1)} s in all, ${indexSeconds.toFixed(1)} s of it checking out and indexing parent trees`);
  return lines.join('\n') + '\n';
}
