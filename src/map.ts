import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { comparePaths } from './discover/discover.js';
import { ReferenceGraph } from './graph/graph.js';
import { isMultiWordIdentifier } from './graph/identifiers.js';
import { type SavedGraphFile, countRestored, graphInputsKey, publishRelatedGraph, readSavedGraph, restoreSavedGraph, saveGraphOrSay } from './graph/graph-file.js';
import { type IndexOptions, type RepoIndex, indexRepository, wroteTags } from './indexer/indexer.js';
import { identifiersInFile, identifiersWrittenAsCode, mentionedFiles, mentionedIdentifiers } from './mentions.js';
import { type PackEntries, type PackEntry, followedBy, packMap } from './pack/pack.js';
import { type TokenCounter, startTokenizer, tokenCounter } from './pack/tokens.js';
import { DEFAULT_ENCODING, type MapRequest, budgetFor, waitBoundMs } from './api/request.js';
import type { MapStats, PartialIndex, RepoMap } from './api/types.js';
import { type RankRequest, rankDefinitions, rankRelated, unpersonalizedRanks } from './rank/rank.js';
import { DEFAULT_RANKING } from './api/request.js';
import { depthTokens, entriesWithin, fileLimit, relatedEntries } from './rank/layout.js';
import { foreignTo, neededEntries } from './rank/needed.js';
import { usersEntries } from './rank/users.js';
import { coChangedEntries } from './rank/co-changed.js';
import { type History, NO_HISTORY, readHistory } from './history/co-changes.js';
import { readBoundedText } from './bounded-read.js';
import { boundedLine } from './extract/extract.js';
import { collectGarbage } from './extract/memory.js';
import { HISTORY_MODEL, USERS_MODEL } from './model.js';
import { isPathNamed, neighboursOf, pathIndex } from './rank/path-index.js';
import { type MapBlock, renderText } from './render/render.js';
import { defaultCacheDir, sharedCacheDir } from './store/cache-dir.js';
import { type StoreOptions, TagStore, isStoreFailure } from './store/store.js';
import type { DefTag } from './records.js';
import type { GrammarFallback, SkipReason, SkippedFile } from './api/types.js';
import { repositoryFallbacks } from './extract/native.js';
import { entryAt, escapeControls, escapeLineControls, pathFromRoot, requestFilePath, requestFilePaths, resolveRoot, unreadableFile } from './paths.js';
import { badRequest, quoted } from './errors.js';
import { applyProjectConfig } from './config.js';
import { excludeMatcher, leftOutMatcher } from './discover/discover.js';


/** A map as the engine makes it: its blocks as rendered, with 0-based lines (see publicMap for what callers get). */
export interface BuiltMap {
  root: string;
  text: string;
  /** Exact token count of `text`. */
  tokens: number;
  budget: number;
  /** Files in map order with their shown lines (0-based line numbers), PageRank, and the tokens each takes in the map. */
  files: Array<MapBlock & { tokens: number }>;
  /** Skipped files counted by reason, in a fixed order. */
  skipped: Partial<Record<SkipReason, number>>;
  skippedFiles: SkippedFile[];
  /** With `listSkipped`: the repository's languages that do not run natively here, and why (see repositoryFallbacks). */
  grammarFallbacks?: GrammarFallback[];
  stats: MapStats;
  request: { chatFiles: string[]; mentionedFiles: string[]; mentionedIdents: string[] };
  /** Set on a map made before the index was complete (see MapRequest.waitSeconds): how far it was. */
  partial?: PartialIndex;
}

export interface BuildMapOptions extends MapRequest, Omit<IndexOptions, 'root' | 'store'>, Pick<StoreOptions, 'sharedCacheDir'> {
  root: string;
  /** Where the tag store lives (default: $XDG_CACHE_HOME/repomap/<hash of the root>). */
  cacheDir?: string;
  /** Whether the root's project config (repomap.config.json) fills the options not given (default true). */
  projectConfig?: boolean;
}


/** An indexed repository, its graph and its open tag store (close it after the last map). */
export interface OpenRepository {
  index: RepoIndex;
  graph: ReferenceGraph;
  store: TagStore;
  /** The saved related graph, when asked for (see readSavedGraph). */
  savedGraph?: SavedGraphFile;
}

/** Indexes a repository (with the persistent cache) and builds its reference graph, in-process. */
export async function openRepository(options: BuildMapOptions, { readGraph = false } = {}): Promise<OpenRepository> {
  const root = await resolveRoot(options.root);
  // Discovery's matcher, built before the store opens: a glob it refuses (see rootRelativeGlob) makes no cache folder.
  leftOutMatcher(root, options);
  const shared = { sharedCacheDir: options.sharedCacheDir ?? sharedCacheDir(options.cacheDir !== undefined) };
  let store = TagStore.open(options.cacheDir ?? defaultCacheDir(root), { onNotice: options.onNotice, ...shared });
  // A store damaged where the checks at open do not look fails in the pass: moved aside and rebuilt, once.
  for (let attempt = 0; ; attempt++) {
    try {
      const graph = new ReferenceGraph((path) => store.names(path));
      const indexing = indexRepository({ ...options, root, store, graph, cacheDir: store.dir, sharedCacheDir: store.shared?.dir });
      // The map may need the saved graph: read while git lists the files.
      const savedGraph = readGraph ? readSavedGraphAhead(store.dir) : undefined;
      const index = await indexing;
      // What the pass wrote stays mapped, as much as the whole store after a first index, and so
      // do the last copies that publishing read (see indexRepository): let go before the graph is
      // built. A runner of the caller's keeps the store open, and the map with it.
      if (wroteTags(index.stats) && !options.runner) await store.releasePages();
      graph.useImports(index.lookups.importsOf);
      startTokenizer(options.encoding);
      return { index, graph, store, savedGraph: await savedGraph };
    } catch (err) {
      if (isStoreFailure(err) && attempt === 0 && !options.runner) {
        store = await TagStore.rebuild(store, err, { onNotice: options.onNotice });
        continue;
      }
      await store.close();
      throw err;
    }
  }
}

/**
 * The saved related graph, read while the files are listed (the thread would wait), and the
 * per-path lookups a map needs built over its paths meanwhile: a restored graph keeps that list,
 * so its first map finds them built instead of building them while the caller waits.
 */
export async function readSavedGraphAhead(dir: string): Promise<SavedGraphFile> {
  const file = await readSavedGraph(dir);
  if (typeof file !== 'string') pathIndex(file.saved.paths);
  return file;
}

/** Index (with the persistent cache) and map a repository in-process. */
export async function buildMap(given: BuildMapOptions): Promise<BuiltMap> {
  const options = await applyProjectConfig(given);
  // The 'repomap' ranking's graph is read from the cache when no file in it changed, and saved for next time when one did.
  const related = (options.ranking ?? DEFAULT_RANKING) !== 'aider';
  const waitMs = waitBoundMs(options.waitSeconds);
  const root = await resolveRoot(options.root);
  const named = requestFilePaths(root, [...(options.chatFiles ?? []), ...(options.mentionedFiles ?? [])]);
  const early = waitMs === undefined ? {} : { early: { files: named, boundMs: waitMs } };
  const { index, graph, store, savedGraph } = await openRepository({ ...options, ...early }, { readGraph: related });
  try {
    // A partial index's graph is neither restored nor saved: it lacks files.
    if (index.partial) return { ...mapFromIndex(index, graph, options), partial: index.partial };
    const history = readChatHistory(index, graph, options);
    if (related && savedGraph) await readyRelatedGraph({ index, graph, store, savedGraph }, options);
    return mapFromIndex(index, graph, options, await history);
  } finally {
    await store.close();
  }
}

/**
 * Gives an opened repository's graph its related graph: the saved one (the root's, else the
 * shared cache's) when it was built from these files, else built here, then saved and published
 * for the next run.
 */
export async function readyRelatedGraph(
  { index, graph, store, savedGraph }: OpenRepository & { savedGraph: SavedGraphFile },
  options: Pick<BuildMapOptions, 'runner' | 'onNotice'>,
): Promise<void> {
  const hashes = new Map(index.records.map((record) => [record.path, record.hash]));
  const hashOf = (path: string) => hashes.get(path);
  const inputsKey = graphInputsKey(index.lookups.projectKey(), store.languageSignatures());
  const sharedDir = store.shared?.dir;
  const restored = await restoreSavedGraph(graph, savedGraph, { rootDir: store.dir, sharedDir }, hashOf, inputsKey);
  if (restored === 'the cache' || restored === 'the shared cache') {
    countRestored(index.stats, restored);
    return;
  }
  // Linking reads every file's names from the store, whose pages then stay mapped, as much as
  // the whole store: let go of them before the edges and the arrays are built (as after a pass).
  if (graph.linkForRelated() && !options.runner) await store.releasePages();
  // A graph built here is saved before the map is laid out, which patches its weights in place:
  // saved beside the map, it would need copies of them, a hundred megabytes on the kernel at the
  // run's peak, for no gain in time (the write is a fraction of building the graph).
  graph.prepareRelated({ room: false });
  if (saveGraphOrSay(graph, store.dir, hashOf, inputsKey, options.onNotice) && sharedDir) publishRelatedGraph(graph, store.dir, sharedDir, hashOf, inputsKey, options.onNotice);
  // Saving leaves garbage (the header's JSON, the definition hashes, the ranks' vectors: 70 MB on a
  // kernel) that a plain collection keeps resident: let go of before the map adds its own on top.
  collectGarbage({ reduceMemory: true });
}

/**
 * Each file's PageRank with no personalization in the default ranking's related graph (the one a
 * map without chat files ranks by): how central it is to the whole repository. A file with no tags is no node: 0.
 */
export function centrality(graph: ReferenceGraph): Map<string, number> {
  const none = new Set<string>();
  const related = graph.compileRelated({ chatFiles: none, mentionedIdents: none });
  const ranks = unpersonalizedRanks(related);
  return new Map(related.paths.map((path, i) => [path, ranks[i]]));
}

/**
 * Ranked definitions ordered per token of budget: a shown definition costs at least a line (two
 * tokens or more), so four per token leaves room for definitions that share a shown line.
 */
const DEFINITIONS_PER_TOKEN = 4;

/**
 * The history of a request's chat files in the root's git repository (see readHistory), read for
 * the default ranking (by `read`: the daemon keeps them). None for a root outside git, for the
 * 'aider' ranking, and for a request without chat files.
 */
export function readChatHistory(
  index: RepoIndex,
  graph: ReferenceGraph,
  request: MapRequest & IndexedBy,
  read: (chatFiles: readonly string[], isSource: (path: string) => boolean) => Promise<History> = (chatFiles, isSource) => readHistory({ cwd: index.root }, chatFiles, isSource),
): Promise<History> {
  if ((request.ranking ?? DEFAULT_RANKING) === 'aider' || !request.chatFiles?.length) return Promise.resolve(NO_HISTORY);
  const chatFiles = request.chatFiles.map((path) => indexedFilePath(index, path, 'chat file', request));
  return read([...new Set(chatFiles)].sort(comparePaths), (path) => graph.hasFile(path));
}

/**
 * The map of an indexed repository for one request. The daemon calls this on its hot graph.
 * A map that would show no file when there are files to show answers nothing the caller asked:
 * such a budget is refused, naming the budget that shows a line (an empty map is left for a root
 * with nothing to show: see emptyMapNote).
 */
export function mapFromIndex(index: RepoIndex, graph: ReferenceGraph, request: MapRequest & IndexedBy, history: History = NO_HISTORY): BuiltMap {
  const { leastBudget, ...map } = packedMap(index, graph, request, history);
  if (leastBudget === undefined) return map;
  const tokens = (count: number) => `${count} ${count === 1 ? 'token' : 'tokens'}`;
  const preamble = request.preamble ? ' with the preamble' : '';
  throw badRequest(`no line of the map of ${escapeControls(index.root)} fits in ${tokens(map.budget)}${preamble}: ask for at least ${tokens(leastBudget)}`);
}

/**
 * mapFromIndex's map, left empty when no line fits the budget, with the fewest tokens that would
 * show one (see packMap): eval scores such a map as showing nothing, as it scores a baseline's.
 */
export function packedMap(index: RepoIndex, graph: ReferenceGraph, request: MapRequest & IndexedBy, history: History = NO_HISTORY): BuiltMap & { leastBudget?: number } {
  const budget = budgetFor(request);
  const countTokens = tokenCounter(request.encoding ?? DEFAULT_ENCODING);
  const { outlineOf } = index.lookups;
  const chatFiles = new Set((request.chatFiles ?? []).map((path) => indexedFilePath(index, path, 'chat file', request)));
  const mentionedIdents = new Set(request.mentionedIdents ?? []);
  // Names whose definitions the map shows first: every --mention, and the message's identifiers of
  // two words or more or written as code (`push()`, `AppContext.push`); a plain word of a message
  // ('value', 'stream') is as likely prose.
  const namedIdents = new Set(mentionedIdents);
  const mentioned = new Set((request.mentionedFiles ?? []).map((path) => indexedFilePath(index, path, 'mentioned file', request)));
  if (request.message) {
    const asCode = identifiersWrittenAsCode(request.message);
    for (const ident of mentionedIdentifiers(request.message)) {
      mentionedIdents.add(ident);
      if (isMultiWordIdentifier(ident) || asCode.has(ident)) namedIdents.add(ident);
    }
    for (const path of mentionedFiles(request.message, index.paths, chatFiles)) mentioned.add(path);
  }

  const rankRequest = { chatFiles, mentionedFiles: mentioned, mentionedIdents, namedIdents };
  const { important, skippedFiles, skipped } = notMapped(index, chatFiles);
  // A partial index may not have read the file that has the name yet: nothing is said of it then.
  const unmatched = index.partial ? undefined : unmatchedMentionNote(request.mentionedIdents ?? [], graph, index.paths);
  const footers = withNote(withNote(skipFooters(skipped, request.verboseHint ?? true), unmatched), history.problem && `(${history.problem})`);
  const layout = { index, graph, request: rankRequest, important, budget, countTokens, history };
  const { entries, placeOf } =
    (request.ranking ?? DEFAULT_RANKING) === 'aider' ? aiderEntries(layout) : relatedMapEntries({ ...layout, footer: footers[0] ?? '' });

  const style = { preamble: request.preamble, markdown: request.markdown };
  const packed = packMap(entries, outlineOf, budget, countTokens, footers, style, placeOf);
  // Lines are counted once each (see tokenCounter): a block's count costs no encoding.
  const files = packed.blocks.map((block) => ({ ...block, tokens: countTokens(renderText([block], '', { markdown: style.markdown })) }));
  return {
    root: index.root,
    text: packed.text,
    tokens: packed.tokens,
    budget,
    files,
    skipped,
    skippedFiles,
    ...(request.listSkipped ? { grammarFallbacks: repositoryFallbacks(index.paths) } : {}),
    stats: { ...index.stats, nodes: graph.fileCount, edges: graph.linkCount, unlinkedFiles: graph.pendingCount },
    request: {
      chatFiles: [...chatFiles].sort(comparePaths),
      mentionedFiles: [...mentioned].sort(comparePaths),
      mentionedIdents: [...mentionedIdents].sort(comparePaths),
    },
    ...(packed.leastBudget === undefined ? {} : { leastBudget: packed.leastBudget }),
  };
}

/** What laying out a map's candidates reads: the index and graph, the request understood, the important files, the budget. */
interface LayoutContext {
  index: RepoIndex;
  graph: ReferenceGraph;
  request: RankRequest;
  important: readonly string[];
  budget: number;
  countTokens: TokenCounter;
  /** The chat files' history: what past commits changed with them. */
  history: History;
}

/** A map's candidates in order, and where each file's block goes (map order when undefined: first appearance). */
interface MapEntries {
  entries: PackEntries;
  placeOf?: (path: string) => number;
}

/** Aider's layout: the important files, the ranked definitions, then every other file by rank. */
function aiderEntries({ index, graph, request, important, budget }: LayoutContext): MapEntries {
  const { chatFiles, mentionedIdents } = request;
  const candidates: PackEntry[] = [];
  const ranking = rankDefinitions(graph.compile({ chatFiles, mentionedIdents }), request, DEFINITIONS_PER_TOKEN * budget);
  const rankOf = (path: string) => ranking.fileRank.get(path) ?? 0;
  for (const path of important) candidates.push({ path, rank: rankOf(path) });
  const defsByName = new Map<string, Map<string, DefTag[]>>();
  for (const { path, ident } of ranking.definitions) {
    let byName = defsByName.get(path);
    if (!byName) {
      byName = new Map();
      for (const def of index.lookups.outlineOf(path)?.defs() ?? []) getOrPush(byName, def.name, def);
      defsByName.set(path, byName);
    }
    for (const def of byName.get(ident) ?? []) candidates.push({ path, rank: rankOf(path), def });
  }
  const byRank = index.records
    .filter((record) => !chatFiles.has(record.path))
    .map((record) => record.path)
    .sort((a, b) => rankOf(b) - rankOf(a) || comparePaths(a, b));
  for (const path of byRank) candidates.push({ path, rank: rankOf(path) });
  return { entries: candidates };
}

/**
 * This project's layout: the important files; the code the request's files use (needed.ts),
 * within its share of the budget; then breadth, the fused file order named first, then their
 * definitions. Files are shown in rank order, the important ones first.
 */
function relatedMapEntries({ index, graph, request, important, budget, countTokens, footer, history }: LayoutContext & { footer: string }): MapEntries {
  const { chatFiles, mentionedFiles, mentionedIdents, namedIdents } = request;
  const { outlineOf } = index.lookups;
  const limit = fileLimit(budget);
  const related = graph.compileRelated({ chatFiles, mentionedIdents });
  const ranking = rankRelated(related, request, graph, limit);
  const others = (function* () {
    for (const record of index.records) if (!chatFiles.has(record.path)) yield record.path;
  })();
  const layoutBudget = budget - countTokens(important.join('\n')) - countTokens(footer);
  const importantEntries = important.map((path) => ({ path, rank: ranking.rankOf(path) }));
  const from = [...chatFiles, ...mentionedFiles];
  const foreign = foreignTo(from);
  const needed = neededEntries(
    {
      fileNames: (path) => graph.fileNames(path),
      definersOf: (idents) => graph.definersOfAll(idents),
      importsOf: index.lookups.importsOf,
      neighboursOf: (path) => neighboursOf(related.paths, path),
      outlineOf,
      identifiersIn: (path) => identifiersInFile(join(index.root, path)),
    },
    // A shown definition takes a few tokens at the least: more entries than this never fit.
    { from, hidden: chatFiles, mentionedIdents, namedIdents: namedIdents ?? mentionedIdents, rankOf: ranking.rankOf, limit: Math.ceil(layoutBudget / 4), ranked: ranking.files },
  );
  // The chat files' users, within their share of the depth section and at least USERS_MODEL.leastTokens,
  // the part past the share taken from breadth; the code the request uses gets the rest.
  const depthBudget = depthTokens(layoutBudget);
  const usersShare = depthBudget * USERS_MODEL.share;
  const users = entriesWithin(
    usersEntries(
      {
        linksOf: ranking.linksOf,
        definersOf: (idents) => graph.definersOfAll(idents),
        outlineOf,
        refsOf: index.lookups.refsOf,
        linesOf: (path) => shownLinesOf(index.root, path),
      },
      { chatFiles: [...chatFiles], foreign, mentionedIdents, namedIdents: namedIdents ?? mentionedIdents, rankOf: ranking.rankOf, limit: Math.ceil(layoutBudget / 4) },
    ),
    Math.max(usersShare, Math.min(USERS_MODEL.leastTokens, layoutBudget * USERS_MODEL.leastTokensBound)),
    outlineOf,
    countTokens,
  );
  // What past commits changed with the chat files, within its share, taken from breadth: the
  // code the request uses keeps the rest of the depth section.
  const coChanged = entriesWithin(
    coChangedEntries(history.coChanges, outlineOf, { chatFiles, foreign, rankOf: ranking.rankOf, limit: Math.ceil(layoutBudget / 4) }),
    depthBudget * HISTORY_MODEL.share * Math.min(1, layoutBudget / HISTORY_MODEL.fullShareFrom),
    outlineOf,
    countTokens,
  );
  const uses = entriesWithin(needed, depthBudget - Math.min(users.tokens, usersShare), outlineOf, countTokens, layoutBudget);
  const depth = { entries: [...uses.entries, ...users.entries, ...coChanged.entries], tokens: uses.tokens + users.tokens + coChanged.tokens };
  const breadth = relatedEntries(ranking, others, outlineOf, layoutBudget - depth.tokens, countTokens, limit, {
    mentioned: mentionedIdents,
    isLate: foreign,
    namesOnly: depth.entries.length > 0,
  });
  const place = new Map<string, number>(important.map((path, i) => [path, i - important.length]));
  ranking.files.forEach((path, i) => place.set(path, i));
  return {
    entries: followedBy([...importantEntries, ...depth.entries], breadth),
    placeOf: (path) => place.get(path) ?? ranking.files.length,
  };
}

/** How the index was made, for telling why a file a request names is not in it. */
export interface IndexedBy {
  /** The --exclude globs of the index (with the project config's). */
  exclude?: readonly string[];
  /** The project config's include globs. */
  include?: readonly string[];
}

/**
 * A file a request names, checked (see requestFilePath) and in the index: a file discovery left
 * out (git ignores it, or --exclude), one too large to read, or one the pass could not read (its
 * permissions), is refused rather than dropped, since a map made as if it were not named, or not
 * read, would be the wrong map without a word. Checked here, on the index, so that every front end
 * (the CLI, the daemon, MCP, the library) refuses the same files with the same words.
 */
function indexedFilePath(index: RepoIndex, path: string, what: string, indexedBy: IndexedBy): string {
  const rel = requestFilePath(index.root, path, what);
  if (index.lookups.isKnown(rel)) {
    const skip = index.skipped.find((file) => file.path === rel);
    // Left out by a setting the caller can change: said, as an exclude glob is, not mapped as if read.
    if (skip?.reason === 'too large') throw badRequest(`${what} ${escapeControls(path)} is not indexed (${skip.detail ?? 'its size'}: over the --max-file-bytes limit; raise it to map the file)`);
    // Found by the pass, which could not read it (or, with a folder on its way out of reach, stat it).
    if (skip?.reason === 'unreadable') throw unreadableFile(what, path, skip.detail);
    return rel;
  }
  // A partial index of a tree still being listed (no file counted yet) cannot say: the file checked out above.
  if (index.partial?.files === 0) return rel;
  throw badRequest(`${what} ${escapeControls(path)} is not indexed (${whyNotListed(index.root, rel, indexedBy)})`);
}

/** Why discovery did not list a path of the root that requestFilePath found there. */
function whyNotListed(root: string, rel: string, indexedBy: IndexedBy): string {
  if (rel === '.git' || rel.startsWith('.git/')) return "inside git's own folder .git, which is never indexed";
  const linked = linkedFolderOf(root, rel);
  if (linked) return `reached through the folder symlink ${escapeControls(linked.folder)}, which discovery does not follow${linked.real ? `: name it ${escapeControls(linked.real)}` : ''}`;
  if (excludeMatcher(root, indexedBy.exclude ?? [])?.(rel)) return 'excluded by --exclude or the project config';
  if (leftOutMatcher(root, indexedBy)?.(rel)) return "not matched by the project config's include";
  return 'ignored by git or an ignore file: .gitignore, .repomapignore, .aiderignore';
}

/**
 * The first folder of `rel` (relative to the root) that is a symlink, with the file's path from the
 * root through real folders when it has one inside the root; undefined when every folder is real.
 */
function linkedFolderOf(root: string, rel: string): { folder: string; real: string | undefined } | undefined {
  const parts = rel.split('/');
  for (let k = 1; k < parts.length; k++) {
    const folder = parts.slice(0, k).join('/');
    if (!entryAt(join(root, folder))?.isSymbolicLink()) continue;
    let real: string | undefined;
    try {
      real = pathFromRoot(realpathSync(root), realpathSync(join(root, rel)));
    } catch {
      real = undefined;
    }
    return { folder, real };
  }
  return undefined;
}

const SKIP_ORDER: readonly SkipReason[] = [
  'no grammar',
  'grammar not allowed',
  'too large',
  'binary',
  'minified',
  'syntax errors',
  'parse failed',
  'parse timeout',
  'query timed out',
  'unreadable',
  'symlink outside root',
  'broken symlink',
  'not a regular file',
  'name not UTF-8',
];

/**
 * The files a map names first (the important files, less those `hidden`: a request's chat files)
 * and the skipped files it counts as not mapped: every skipped file but those it names, which are
 * shown by name whatever their grammar. The one rule for both a map's last line and the daemon's
 * status, so that the two counts agree.
 */
export function notMapped(
  index: Pick<RepoIndex, 'skipped' | 'lookups'>,
  hidden: ReadonlySet<string> = new Set(),
): { important: string[]; skippedFiles: SkippedFile[]; skipped: Partial<Record<SkipReason, number>> } {
  const { important: allImportant, skippedFiles: unhidden, skipped, paths } = skipsOf(index);
  const important = allImportant.filter((path) => !hidden.has(path));
  // A chat file without a grammar (README.md) is not left out: the model has it whole.
  if (![...hidden].some((path) => paths.has(path))) return { important, skippedFiles: unhidden, skipped: { ...skipped } };
  const skippedFiles = unhidden.filter((file) => !hidden.has(file.path));
  return { important, skippedFiles, skipped: countSkips(skippedFiles) };
}

/** What notMapped derives from an index before a request's chat files: once per index (a daemon's holds until the next change). */
const skipsByIndex = new WeakMap<readonly SkippedFile[], { important: readonly string[]; of: number; skippedFiles: SkippedFile[]; skipped: Partial<Record<SkipReason, number>>; paths: ReadonlySet<string> }>();

/** The index's skipped files but the important ones (shown anyway), counted by reason. */
function skipsOf(index: Pick<RepoIndex, 'skipped' | 'lookups'>) {
  const important = index.lookups.important();
  let skips = skipsByIndex.get(index.skipped);
  if (skips?.important !== important || skips.of !== index.skipped.length) {
    const shown = new Set(important);
    const skippedFiles = index.skipped.filter((file) => !shown.has(file.path));
    skips = { important, of: index.skipped.length, skippedFiles, skipped: countSkips(skippedFiles), paths: new Set(skippedFiles.map((file) => file.path)) };
    skipsByIndex.set(index.skipped, skips);
  }
  return skips;
}

function countSkips(skipped: readonly SkippedFile[]): Partial<Record<SkipReason, number>> {
  const byReason = new Map<SkipReason, number>();
  for (const { reason } of skipped) byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  const counts: Partial<Record<SkipReason, number>> = {};
  for (const reason of SKIP_ORDER) if (byReason.has(reason)) counts[reason] = byReason.get(reason);
  return counts;
}

/**
 * The map's last line, counting the skipped files, in its forms fullest first: by reason (ending
 * with the --verbose hint when `verboseHint`), then the count alone, for a budget the full line
 * would leave no file (see packMap). None when no file was skipped.
 */
export function skipFooters(counts: Partial<Record<SkipReason, number>>, verboseHint: boolean): string[] {
  const parts = SKIP_ORDER.filter((reason) => counts[reason]).map((reason) => `${counts[reason]} ${reason}`);
  if (parts.length === 0) return [];
  const total = SKIP_ORDER.reduce((sum, reason) => sum + (counts[reason] ?? 0), 0);
  const notMapped = `${total} ${total === 1 ? 'file' : 'files'} not mapped`;
  return [`(${notMapped}: ${parts.join(', ')}${verboseHint ? '; --verbose lists them' : ''})`, `(${notMapped})`];
}

/**
 * The line saying which identifiers the request mentions (mentionedIdents, not the message's
 * words) no indexed file defines or references and no path is named after (`mailer` steers to
 * mailer.ts: see nodesNamed), a typo most often: such a mention weighs nothing, and the map would
 * be the one made without it, without a word. Undefined when each is found.
 */
function unmatchedMentionNote(idents: readonly string[], graph: ReferenceGraph, paths: readonly string[]): string | undefined {
  if (idents.length === 0) return undefined;
  // namesOfAll scans the files not linked yet rather than linking them (namesOf would link every one first).
  const asked = [...new Set(idents)];
  const named = graph.namesOfAll(asked);
  const unmatched = asked.filter((ident) => {
    const { definers, referencers } = named.get(ident) ?? {};
    if ((definers?.size ?? 0) > 0 || [...(referencers ?? [])].length > 0) return false;
    return !paths.some((path) => isPathNamed(path, ident));
  });
  if (unmatched.length === 0) return undefined;
  const names = quoted(escapeControls(unmatched.map((ident) => `'${ident}'`).join(', ')));
  return `(no file defines or references the mentioned ${names}: check the spelling, or look it up by prefix)`;
}

/** The forms of the map's last lines with `note` first, then those without it (see packMap); the forms as they are when there is no note. */
function withNote(footers: readonly string[], note: string | undefined): string[] {
  if (note === undefined) return [...footers];
  return footers.length === 0 ? [note] : [...footers.map((footer) => `${note}\n${footer}`), ...footers];
}

/**
 * The map as callers get it (the library, the daemon's answer, `--format json`): the one place
 * its lines become 1-based. Without `listSkipped` the list of skipped files is left out (their
 * counts stay): on a large repository it runs to thousands of entries, a megabyte an answer.
 */
export function publicMap(map: BuiltMap, { listSkipped }: { listSkipped: boolean }): RepoMap {
  return {
    root: map.root,
    tokens: map.tokens,
    budget: map.budget,
    files: map.files.map((file) => ({
      path: file.path,
      rank: file.rank,
      tokens: file.tokens,
      lines: file.lines.map((shown) => ({ ...shown, line: shown.line + 1 })),
    })),
    skipped: map.skipped,
    skippedFiles: listSkipped ? map.skippedFiles : [],
    ...(listSkipped && map.grammarFallbacks ? { grammarFallbacks: map.grammarFallbacks } : {}),
    stats: map.stats,
    request: map.request,
    ...(map.partial ? { partial: map.partial } : {}),
    text: map.text,
  };
}

function getOrPush<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The largest file whose lines a map quotes as a use (as a request's file is scanned for its identifiers: see identifiersInFile). */
const MAX_QUOTED_FILE_BYTES = 1 << 20;

/**
 * A file's lines as a map shows an outline's (trailing space off, bounded, escaped), read bounded:
 * a regular file of at most MAX_QUOTED_FILE_BYTES inside the root; undefined otherwise (removed
 * since it was indexed, grown past the bound, replaced by a link out of the root).
 */
function shownLinesOf(root: string, path: string): string[] | undefined {
  let text: string | undefined;
  try {
    text = readBoundedText(join(root, path), { maxBytes: MAX_QUOTED_FILE_BYTES, root });
  } catch {
    return undefined;
  }
  return text?.split('\n').map((line) => escapeLineControls(boundedLine(line)));
}
