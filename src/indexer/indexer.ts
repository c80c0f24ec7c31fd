import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ImportLookup } from '../resolve/imports.js';
import { type DiscoverOptions, type UnreadReason, comparePaths, discoverFiles, leftOutMatcher } from '../discover/discover.js';
import { type FileJob, type FileStat, type IndexFileOptions, tooLargeRecord } from '../extract/file.js';
import { BUILTIN_LANGUAGES, type LanguageSet, type LanguageSpec, extensionOf } from '../extract/languages.js';
import { type LanguageConfig, type LanguageOverride, languageSet, refusedGrammarNotices, resolveLanguages } from '../extract/user-languages.js';
import { collectGarbage } from '../extract/memory.js';
import { checkQueries } from '../extract/query-check.js';
import type { StoredCopy, TagStore } from '../store/store.js';
import { GitBlobs, blobId } from './git-index.js';
import type { Outline } from '../store/outline.js';
import { type FileRecord, type RefTag, statMatches, statOf } from '../records.js';
import { referenceTags } from '../extract/refs.js';
import type { SkipReason, SkippedFile } from '../api/types.js';
import { importantFiles } from '../important.js';
import { type ParseRunner, type RunnerOptions, createRunner, workersNotice } from './pool.js';
import { STAT_CHUNK, isFileStat, statAll, statSkip, statTaken } from './stat.js';
import { ParseQueue } from './parse-queue.js';
import { type NamesOf, prioritize } from './priority.js';
import type { IndexStats, PartialIndex } from '../api/types.js';
import type { ReferenceGraph } from '../graph/graph.js';

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
/** A full garbage collection after this many files are parsed and taken into the graph. */
const COLLECT_EVERY_PARSED = 8000;
/** Stored records reused as they are are handed on this many at a time. */
const SETTLE_EVERY = 256;
/** Files a first index stats and hands to the parser at a time (a chunk queued for the parser is not reordered). */
const FIRST_INDEX_TAKE = 64;
/**
 * A pass that looked up this many files in the shared cache, and a publish of this many, lets go of
 * its map (see SharedTags.releasePages); a daemon's save looks up a file or two, and keeps it open.
 */
const SHARED_RELEASE_FROM = 1024;
/**
 * Publishing lets go of the root store's map before each this many copies it reads, when no other
 * thread has the store open (see Reconciler.publishShared): a few tens of MB of pages on the kernel.
 */
const PUBLISH_RELEASE_EVERY = 4096;

export interface ExtractSettings {
  maxFileBytes?: number;
  parseTimeoutMs?: number;
  /** Publishing lets go of the root store's map before each this many copies read, when it may (default PUBLISH_RELEASE_EVERY; tests make it small). */
  publishReleaseEvery?: number;
  /** The project config's languages (see resolveLanguages; .repomap/queries/ is read as well). */
  languages?: Readonly<Record<string, LanguageConfig>>;
  /** Native grammars the user allows the project config to load (beside the user config's; see resolveLanguages). */
  allowGrammars?: readonly string[];
  /** Receives one-line notices: a language whose grammar or query failed to load, once per pass. */
  onNotice?: (message: string) => void;
}

export interface IndexOptions extends DiscoverOptions, ExtractSettings {
  /** Real path of the repository root. */
  root: string;
  /** The repository's tag store (its owner closes it, after the last map: outlines are read from it), and with it the shared one, if any. */
  store: TagStore;
  /** Parse threads: 1 parses in this thread; more use a worker pool (default 1 here; the CLI defaults to the cores). */
  workers?: number;
  /** A runner to reuse (the daemon keeps one); when given, `workers` is ignored and the runner is not closed. */
  runner?: ParseRunner;
  /** Tests only: the options of the runner made here (see RunnerOptions). */
  runnerOptions?: RunnerOptions;
  /** Called as files needing work are done: done of total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * A graph to build as records come: each record's names go into it and its tags leave it (the
   * store keeps them), so a large repository's tags are never all held in memory.
   */
  graph?: ReferenceGraph;
  /**
   * Answer early (a first index): the pass puts ahead what a map for `files` needs (see
   * prioritize) and stops once `boundMs` has passed and those files are indexed, returning the
   * files indexed by then (RepoIndex.partial is set). Needs `graph` (the files' names are read from it).
   */
  early?: { files: readonly string[]; boundMs: number };
}


export interface RepoIndex {
  root: string;
  /** Every discovered path, sorted (source files and others alike). */
  paths: string[];
  /** Records of the indexed files, sorted by path (without their names and tags when a graph took them). */
  records: FileRecord[];
  skipped: SkippedFile[];
  stats: IndexStats;
  /** Lookups by path, kept up to date by whoever holds the index (the daemon). */
  lookups: IndexLookups;
  /** Set when the pass stopped early (IndexOptions.early): how far it was. */
  partial?: PartialIndex;
}

/** What a map asks of an index by path. */
export interface IndexLookups {
  /** Whether the path was discovered. */
  isKnown: (path: string) => boolean;
  /** The outline of an indexed file. */
  outlineOf: (path: string) => Outline | undefined;
  /** The important files among the paths (see importantFiles). */
  important: () => readonly string[];
  /** The repository files an indexed file imports, resolved (sorted; empty when none resolves). */
  importsOf: (path: string) => readonly string[];
  /** A digest of the project files that resolution reads (see ImportLookup.projectKey). */
  projectKey: () => string;
  /** The reference tags of an indexed file, with their lines (none when it has none, or is not indexed). */
  refsOf: (path: string) => readonly RefTag[];
}

/** What one path is after an update: its record, a skip without a record, or gone. */
export type PathState = { record: FileRecord } | { skip: SkippedFile } | { gone: true };

/** A file a pass parsed, to publish to the shared cache: its content key, and the stat of its stored record. */
interface Unpublished extends FileStat {
  path: string;
  key: string;
}

/** What a publish to the shared cache did: the files it published, and how many times the root store let go of its map meanwhile. */
export interface Published {
  files: number;
  releases: number;
}

export function emptyStats(): IndexStats {
  return { discovered: 0, leftOut: 0, parsed: 0, reusedByStat: 0, reusedByHash: 0, reusedShared: 0, published: 0, removed: 0, restoredGraphs: 0, restoredSharedGraphs: 0 };
}

/** Whether a pass wrote tags to the store (parsed files, or copied them from the shared cache): what it wrote stays mapped until the store lets go (TagStore.releasePages). */
export function wroteTags(stats: IndexStats): boolean {
  return stats.parsed + stats.reusedShared > 0;
}

/**
 * Brings paths up to date against the store: reuse what mtime and size vouch for, re-hash what
 * was touched, parse what changed (on the runner), and drop the records of files that are gone.
 * The CLI runs it once over the whole tree; the daemon runs it again on the paths that change.
 * What a pass parsed goes to the shared cache when its caller publishes it (publishShared): where
 * it can, once the runner's threads are closed, so that the store can let go of its map meanwhile.
 */
export class Reconciler {
  private extract: IndexFileOptions;
  /** The files the passes since the last publish parsed, in the order they were stat'ed (see publishShared). */
  private unpublished: Unpublished[] = [];
  private readonly publishReleaseEvery: number;
  private languages: LanguageSet;
  /** Whether the stored records were checked against the languages' signatures (see dropStaleLanguages). */
  private languagesChecked = false;
  private readonly onNotice: ((message: string) => void) | undefined;
  /** Git's index read ahead for the next pass (see readGitIndexAhead; null: none to be had). */
  private blobsAhead: GitBlobs | null | undefined;

  constructor(
    private readonly root: string,
    private readonly store: TagStore,
    private readonly runner: ParseRunner,
    /** `languageOverrides`: the languages resolved already (another reconciler's), not read again from the root. */
    settings: ExtractSettings & { onNotice?: (message: string) => void; languageOverrides?: readonly LanguageOverride[] } = {},
  ) {
    this.publishReleaseEvery = settings.publishReleaseEvery ?? PUBLISH_RELEASE_EVERY;
    this.onNotice = settings.onNotice;
    // A project query is checked in a child process (see checkQueries) when a pass first meets a file of its language (see checkQueriesOf).
    const overrides = settings.languageOverrides ?? resolveLanguages(root, settings.languages, settings.allowGrammars);
    // Said when the languages are read, not when another reconciler's are taken over.
    if (!settings.languageOverrides) for (const notice of refusedGrammarNotices(overrides)) this.onNotice?.(notice);
    this.languages = languageSet(overrides);
    this.extract = {
      maxFileBytes: settings.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      ...(overrides.length > 0 ? { languages: overrides } : {}),
      // Unset, the extraction's own default.
      ...(settings.parseTimeoutMs !== undefined ? { parseTimeoutMs: settings.parseTimeoutMs } : {}),
    };
  }

  /** The project's languages this reconciler parses with (see resolveLanguages), their queries checked as far as its passes met their files; none: the built-in ones as shipped. */
  get languageOverrides(): readonly LanguageOverride[] {
    return this.extract.languages ?? [];
  }

  /**
   * Reads git's index now for the next pass, which keys its files by it (a first index with a
   * shared cache looks up every file): a caller that lists the files meanwhile would wait for git.
   */
  readGitIndexAhead(): void {
    this.blobsAhead = GitBlobs.read(this.root) ?? null;
  }

  /**
   * The new state of each of `paths` (candidate files; those that no longer exist come back gone).
   * `onSettled` gets every state as it settles, in batches, each record after it is stored: a
   * caller can take them into its graph as they come instead of holding every one first. An
   * aborted `signal` stops the pass (it rejects); what was stored stays stored.
   */
  async update(
    paths: readonly string[],
    stats: IndexStats,
    onProgress?: (done: number, total: number) => void,
    onSettled?: (batch: ReadonlyMap<string, PathState>) => void,
    signal?: AbortSignal,
    unread?: ReadonlyMap<string, UnreadReason>,
    order: ParseQueue = new ParseQueue(),
  ): Promise<Map<string, PathState>> {
    const states = new Map<string, PathState>();
    // Whether the store held records when the pass began (before those of a changed language are
    // dropped): only then may a caller's graph hold a path of this pass already (see the shared hits below).
    const hadRecords = !this.store.isEmpty();
    if (!this.languagesChecked) this.dropStaleLanguages(stats);
    const { maxFileBytes } = this.extract;
    let batch = new Map<string, PathState>();
    const settle = (path: string, state: PathState) => {
      states.set(path, state);
      batch.set(path, state);
    };
    const flush = () => {
      if (batch.size > 0) onSettled?.(batch);
      order.settle(batch.keys());
      batch = new Map();
    };
    const sources: string[] = [];
    const languageIds = new Set<string>();
    for (const path of paths) {
      // A FIFO, socket or device discovery found, or a name that is not UTF-8, is never read (see Discovery.unread); one with a grammar's extension is found by its stat.
      const unreadFor = unread?.get(path);
      const lang = unreadFor ? undefined : this.languages.forPath(path);
      if (unreadFor) settle(path, { skip: { path, reason: unreadFor } });
      else if (lang) {
        sources.push(path);
        languageIds.add(lang.id);
      } else settle(path, { skip: { path, reason: 'no grammar' } });
    }
    this.checkQueriesOf(languageIds);
    // A first index parses everything: the workers load their grammars while the files are
    // stat'ed, and parse each chunk of files as soon as it is stat'ed. With records stored, the
    // parsing waits for the last stat, so that the graph takes every reused record before any
    // parsed one whatever the timing (its insertion order is the map's).
    const first = this.store.isEmpty();
    // With a shared cache, a first index may parse nothing (a second clone): the threads warm up at
    // the first file that must be parsed, not beside a pass that only looks files up, whose thread
    // they would slow (compiling a tag query takes a core for a while).
    let warmedUp = !first;
    const warmUp = () => {
      if (warmedUp) return;
      warmedUp = true;
      this.runner.warmUp(sources).catch(() => {}); // a failed warm-up only loses its head start: the parse loads what it needs and reports what fails
    };
    if (!this.store.shared) warmUp();
    order.fill(sources);
    // A first index takes its files a few at a time, so that files a request wants (see
    // prioritize) are stat'ed and handed to the parser next, ahead of the rest of the tree.
    const takeCount = first ? FIRST_INDEX_TAKE : STAT_CHUNK;
    const jobs: FileJob[] = [];
    const previousOf = new Map<string, FileRecord>();
    const gone: string[] = [];
    let statted = 0;
    const { root, store } = this;
    const { shared } = store;
    /** The git index's blob ids, read when first needed unless read ahead (null: none to be had). */
    let blobs = this.blobsAhead;
    this.blobsAhead = undefined;
    /**
     * A file's content key: its blob id, from git's index when git takes the file as unmodified (no
     * read), else computed from its content (as git would: the same key for the same content in
     * any root, tracked or not), with the language that parses it (see sharedKey). Undefined for
     * a file too large to index, or unreadable.
     */
    const contentKey = (path: string, info: FileStat): string | undefined => {
      const lang = this.languages.forPath(path);
      if (!lang) return undefined;
      let id = (blobs ??= GitBlobs.read(root) ?? null)?.unmodified(path, info);
      if (!id && info.size <= maxFileBytes) {
        try {
          id = blobId(readFileSync(join(root, path)));
        } catch {
          return undefined;
        }
      }
      return id && sharedKey(id, lang);
    };
    // A language that failed to load (a broken query) skips each of its files with the same detail:
    // said once a pass, whether its files were parsed now or their records reused.
    const failedLanguages = new Set<string>();
    const sayIfLanguageFailed = (record: FileRecord) => {
      if (record.skip !== 'no grammar' || !record.detail || failedLanguages.has(record.detail)) return;
      failedLanguages.add(record.detail);
      this.onNotice?.(`repomap: ${record.detail}; its files are left out as 'no grammar'`);
    };
    /** Files to parse whose content key is known, at the stat they are parsed at: their tags go to the shared cache once stored (see publishShared). */
    const publish = new Map<string, Unpublished>();
    let sharedLookups = 0;
    async function* jobChunks(): AsyncGenerator<FileJob[]> {
      let chunk: FileJob[] = [];
      for await (const { paths: taken, results: found } of statTaken(root, () => order.take(takeCount))) {
        for (let i = 0; i < found.length; i++) {
          const info = found[i];
          const path = taken[i];
          statted++;
          // Small batches: a record read whole is slimmed while it is young, before it costs a major GC.
          if (batch.size >= SETTLE_EVERY) {
            flush();
            // A turn of the event loop now and then: a daemon answers `status`, and a stop is heard.
            await new Promise((resume) => setImmediate(resume));
            signal?.throwIfAborted();
          }
          if (info === 'missing') {
            settle(path, { gone: true });
            if (!first && store.get(path)) gone.push(path);
            continue;
          }
          if (!isFileStat(info)) {
            settle(path, { skip: statSkip(path, info) });
            continue;
          }
          // A store empty when the pass began has no record of a path the pass has not written (each path comes once).
          const previous = first ? undefined : store.get(path);
          // A record whose size verdict the current maxFileBytes reverses is read again: a file
          // skipped as too large may fit now (a larger limit), and a parsed one may not. So is one
          // skipped as unreadable: a chmod that makes it readable changes neither mtime nor size.
          if (previous && statMatches(previous, info) && previous.skip !== 'unreadable' && (previous.skip === 'too large') === info.size > maxFileBytes) {
            stats.reusedByStat++;
            sayIfLanguageFailed(previous);
            settle(path, { record: previous });
            continue;
          }
          if (info.size > maxFileBytes) {
            // Skipped unread: no parse thread needed (a second clone that finds every other file
            // in the shared cache starts none).
            const record = tooLargeRecord({ path, stat: info });
            store.write(record);
            settle(path, { record });
            continue;
          }
          // A record without a hash (a file never read: too large, unreadable) is no content to compare.
          if (previous?.hash) previousOf.set(path, previous);
          else if (shared) {
            // A file new to this root, or never read here: another root may have parsed its content.
            const key = contentKey(path, info);
            if (key) sharedLookups++;
            const found = key && shared.record(key);
            if (found) {
              stats.reusedShared++;
              const record = store.writeReference(path, info, key, found);
              // A first index's record comes without its names, as a reused one does: a graph reads them
              // through the store when it needs them. A later pass's comes with them, as a parsed one
              // does: its path may be in a graph already under other tags (its language's query changed,
              // its records dropped), which a record without names would leave as they were.
              if (hadRecords && !found.skip) record.names = shared.names(key);
              settle(path, { record });
              continue;
            }
            if (key) publish.set(path, { path, key, ...statOf(info) });
          }
          warmUp();
          const job = { path, stat: info, ...(previous?.hash ? { previousHash: previous.hash } : {}) };
          jobs.push(job);
          chunk.push(job);
        }
        flush();
        if (first && chunk.length > 0) {
          yield chunk;
          chunk = [];
        }
      }
      onProgress?.(done, total());
      if (chunk.length > 0) yield chunk;
    }

    let done = 0;
    // In a first index, each file still to stat counts as one to parse.
    const total = () => jobs.length + (first ? sources.length - statted : 0);
    if (first) onProgress?.(0, total());
    try {
      await this.runner.stream(root, jobChunks(), this.extract, (start, results) => {
        signal?.throwIfAborted();
        for (let i = 0; i < results.length; i++) {
          const result = results[i];
          const { path, stat: info } = jobs[start + i];
          let record: FileRecord;
          if (result.outcome === 'reused') {
            stats.reusedByHash++;
            record = { ...previousOf.get(path)!, ...statOf(info) };
          } else {
            if (result.outcome === 'parsed') stats.parsed++;
            record = result.record;
            sayIfLanguageFailed(record);
          }
          // Encoded now, before a caller's graph takes its names away; its tags were written where it was parsed.
          this.store.write(record);
          settle(path, { record });
        }
        // Settled at once: names taken while they are young cost no major collection.
        flush();
        onProgress?.((done += results.length), total());
      }, this.store);
      flush(); // the paths without a grammar, when no file was stat'ed
    } finally {
      order.finish(); // whoever waits for paths hears of the end, also of a stopped pass
    }
    await this.store.flushed();
    for (const [path, file] of publish) {
      const state = states.get(path);
      if (state && 'record' in state && isShared(state.record)) this.unpublished.push(file);
    }
    if (shared && sharedLookups >= SHARED_RELEASE_FROM) await shared.releasePages();
    this.store.remove(gone);
    stats.removed += gone.length;
    return states;
  }

  /**
   * Checks the project queries of these languages that are not checked yet (see checkQueries),
   * before a file of theirs is parsed or looked up: the threads compile only a checked query. A
   * check changes no language's extensions or signature, so what the pass found stands.
   */
  private checkQueriesOf(ids: ReadonlySet<string>): void {
    const overrides = this.extract.languages;
    if (!overrides) return;
    const checked = checkQueries(overrides, ids, this.onNotice);
    if (checked.every((override, i) => override === overrides[i])) return;
    this.languages = languageSet(checked);
    this.extract = { ...this.extract, languages: checked };
  }

  /**
   * Publishes to the shared cache what the passes since the last publish parsed: each file's stored
   * copy under the content key it was looked up by, unless the file changed since its stat (its
   * tags would not be its key's) or a later pass stored it again. The copies are read from the
   * store, whose pages then stay mapped, as much as the whole store after a first index. So, when
   * `mayReleaseStore` (no other thread has the store open: the runner's threads are closed; see
   * TagStore.releasePages), the store lets go of its map before the first copy and before each
   * publishReleaseEvery copies read after it. A publish that fails or stops part-way (an aborted
   * `signal`) loses cache entries only: each root's store stays complete on its own. The published
   * files are counted in `stats`.
   */
  async publishShared(stats: IndexStats, mayReleaseStore: boolean, signal?: AbortSignal): Promise<Published> {
    const pending = this.unpublished;
    this.unpublished = [];
    const { root, store } = this;
    const { shared } = store;
    if (!shared || pending.length === 0) return { files: 0, releases: 0 };
    const releaseEvery = mayReleaseStore ? this.publishReleaseEvery : undefined;
    let files = 0;
    let releases = 0;
    async function* copies(): AsyncGenerator<[string, StoredCopy]> {
      let read = 0;
      for (const file of pending) {
        if (signal?.aborted) return;
        // Changed between its stat and its read, the file's tags are not the blob's: its mtime tells.
        const now = statSync(join(root, file.path), { throwIfNoEntry: false });
        if (!now || !statMatches(file, now)) continue;
        if (releaseEvery !== undefined && read % releaseEvery === 0) {
          await store.releasePages();
          releases++;
        }
        read++;
        const copy = store.storedCopy(file.path, file);
        if (!copy) continue;
        files++;
        yield [file.key, copy];
      }
    }
    await shared.putAll(copies());
    if (files >= SHARED_RELEASE_FROM) await shared.releasePages();
    stats.published += files;
    return { files, releases };
  }

  /**
   * The tag cache never mixes the results of two queries (or grammars, or extension mappings) for
   * one language: the store notes which language and query signature each extension was parsed
   * with, and the records of the extensions whose entry changed since are dropped (parsed again).
   */
  private dropStaleLanguages(stats: IndexStats): void {
    const signatures = (set: LanguageSet) => {
      const map: Record<string, string> = {};
      for (const lang of set.list) for (const ext of lang.extensions) map[ext] = `${lang.id}:${lang.signature}`;
      return map;
    };
    const current = signatures(this.languages);
    // A store from before signatures were noted was parsed with the built-in languages.
    const stored = this.store.languageSignatures() ?? signatures(BUILTIN_LANGUAGES);
    const changed = new Set([...Object.keys(current), ...Object.keys(stored)].filter((ext) => current[ext] !== stored[ext]));
    if (changed.size > 0 && !this.store.isEmpty()) {
      const stale = this.store.paths().filter((path) => changed.has(extensionOf(path)));
      this.store.remove(stale);
      stats.removed += stale.length;
    }
    if (changed.size > 0 || this.store.languageSignatures() === undefined) this.store.setLanguageSignatures(current);
    this.languagesChecked = true;
  }

  /**
   * Drops the stored records of paths without a record in `states`, an update's states of every
   * discovered path (what is left over: files deleted while nobody watched), except those of the
   * paths `leftOut` matches: files this pass's exclude and include globs leave out are not gone,
   * and a later pass without those globs reuses their records (a stat still vouches for each). Nor
   * are files out of reach (see isUnreached): their records stay for when they can be read again.
   * After an update the store holds a record for each state with one, so as many stored records as
   * those (and the few of files out of reach) means that none is left over, which a count tells
   * without reading every stored path (a cost every warm start would otherwise pay).
   */
  prune(states: ReadonlyMap<string, PathState>, stats: IndexStats, leftOut: ((path: string) => boolean) | null): void {
    let records = 0;
    for (const [path, state] of states) if ('record' in state || (isUnreached(state) && this.store.get(path))) records++;
    if (this.store.count() === records) return;
    const removed = this.store.paths().filter((path) => {
      const state = states.get(path);
      return state ? !('record' in state) && !isUnreached(state) : !leftOut?.(path);
    });
    this.store.remove(removed);
    stats.removed += removed.length;
  }
}

/**
 * Discover, then bring the store up to date: reuse what is unchanged, parse what changed (on
 * the pool), drop what is gone; then publish what was parsed to the shared cache. Returns the
 * records the graph is built from.
 */
export async function indexRepository(options: IndexOptions): Promise<RepoIndex> {
  const { root, store } = options;
  const tooMany = options.runner ? undefined : workersNotice(options.workers);
  if (tooMany) options.onNotice?.(tooMany);
  const runner = options.runner ?? createRunner(options.workers ?? 1, options.runnerOptions);
  let reconciler: Reconciler;
  let index: RepoIndex;
  try {
    reconciler = new Reconciler(root, store, runner, options);
    const listing = discoverFiles(root, options);
    // While git lists the files: a first index's threads start, as it will parse; with a shared
    // cache it may parse nothing (they start at the first file it must parse, see Reconciler.update),
    // and it looks up every file by its key from git's index, which is read now instead.
    if (store.isEmpty()) {
      if (store.shared) reconciler.readGitIndexAhead();
      else runner.warmUp([]).catch(() => {}); // only a head start: threads that fail to start fail the parse, which reports it
    }
    const discovery = await listing;
    const stats = emptyStats();
    stats.discovered = discovery.paths.length;
    stats.leftOut = discovery.leftOut;
    const { graph, early } = options;
    let parsedAtCollect = 0;
    const order = new ParseQueue();
    const settled = new Map<string, PathState>();
    const stopEarly = early && graph ? startEarly(root, discovery.paths, order, graph, store, early) : undefined;
    let states: Map<string, PathState>;
    try {
      states = await reconciler.update(
        discovery.paths,
        stats,
        options.onProgress,
        (batch) => {
          if (stopEarly) for (const [path, state] of batch) settled.set(path, state);
          if (!graph) return;
          for (const state of batch.values()) if ('record' in state) graph.takeRecord(state.record);
          // V8 sees no hurry to collect the parsed records' garbage, which would raise a cold index's
          // peak towards the heap's bound. A pass that parses nothing leaves none of it, and a
          // collection would only cost it time.
          if (stats.parsed - parsedAtCollect >= COLLECT_EVERY_PARSED) {
            parsedAtCollect = stats.parsed;
            collectGarbage();
          }
        },
        stopEarly?.signal,
        discovery.unread,
        order,
      );
    } catch (err) {
      if (!stopEarly?.signal.aborted) throw err;
      // Stopped at the bound: what settled is the index (each record stored as it came). Nothing is published.
      await store.flushed();
      const { records, skipped } = splitStates(settled);
      const paths = [...settled.keys()].filter((path) => !('gone' in settled.get(path)!)).sort(comparePaths);
      const partial = order.progress();
      return { root, paths, records, skipped, stats, lookups: storeLookups(root, store, paths, records, graph), partial };
    } finally {
      stopEarly?.cancel();
    }
    reconciler.prune(states, stats, leftOutMatcher(root, options));
    const paths = discovery.paths.filter((path) => !('gone' in states.get(path)!));
    const { records, skipped } = splitStates(states);
    index = { root, paths, records, skipped, stats, lookups: storeLookups(root, store, paths, records, graph) };
  } finally {
    if (!options.runner) await runner.close();
  }
  // Published once the pool made here is closed: its threads held the store open, and with them
  // gone the store can let go of its map as publishing reads it. A caller's runner keeps the store
  // open, and the map with it.
  await reconciler.publishShared(index.stats, !options.runner);
  return index;
}

/**
 * Starts putting ahead what a map for `early.files` needs, and a timer that stops the pass once
 * the bound has passed and those files and their imports are indexed (the signal aborts);
 * `cancel` when the pass ends.
 */
function startEarly(root: string, paths: readonly string[], order: ParseQueue, graph: ReferenceGraph, store: TagStore, early: NonNullable<IndexOptions['early']>) {
  const stop = new AbortController();
  const files = early.files.filter((path) => paths.includes(path));
  const { core, queued } = prioritize(files, { root, paths, queue: order, namesOf: namesForImports(store, graph), signal: stop.signal });
  // A failed read of the tree leaves the order as it was: the map is only less focused.
  queued.catch(() => {});
  const timer = setTimeout(() => void core.then(() => stop.abort()), early.boundMs);
  return { signal: stop.signal, cancel: () => clearTimeout(timer) };
}

/**
 * A file's names as import resolution reads them (its modules, and a barrel's re-exports): from the
 * graph that holds them when there is one (not decoded again from the store), else from the store.
 * The graph keeps no node for a file that defines and references nothing (a barrel of `export *
 * from` lines), and resolution follows such files: their names are read from the store.
 */
export function namesForImports(store: Pick<TagStore, 'names'>, graph?: ReferenceGraph): NamesOf {
  return graph ? (file) => (graph.hasFile(file) ? graph.fileNames(file) : store.names(file)) : (file) => store.names(file);
}

/** Lookups over a finished index, with outlines read from the store (each once). */
function storeLookups(root: string, store: TagStore, paths: readonly string[], records: readonly FileRecord[], graph?: ReferenceGraph): IndexLookups {
  const known = new Set(paths);
  const indexed = new Set(records.map((record) => record.path));
  const outlines = new OutlineCache((path) => store.outline(path));
  let important: string[] | undefined;
  let imports: ImportLookup | undefined;
  const importLookup = () => (imports ??= new ImportLookup(root, paths, namesForImports(store, graph)));
  return {
    isKnown: (path) => known.has(path),
    outlineOf: (path) => (indexed.has(path) ? outlines.get(path) : undefined),
    important: () => (important ??= importantFiles(paths)),
    importsOf: (path) => importLookup().importsOf(path),
    projectKey: () => importLookup().projectKey(),
    refsOf: (path) => (indexed.has(path) ? referenceTags(store, path, () => (graph ? graph.fileNames(path).referenced : (store.names(path)?.referenced ?? []))) : []),
  };
}

/** Outlines read from the store, each once until forgotten; past `limit` kept, the least recently used goes. */
export class OutlineCache {
  /**
   * In order of last use, oldest first (a Map keeps insertion order: a use moves the entry to the
   * end). Outlines only: a read that found none (a value not readable yet, or corrupt) is made again.
   */
  private readonly kept = new Map<string, Outline>();

  constructor(
    private readonly read: (path: string) => Outline | undefined,
    private readonly limit = Infinity,
  ) {}

  get(path: string): Outline | undefined {
    const kept = this.kept.get(path);
    if (kept) {
      this.kept.delete(path);
      this.kept.set(path, kept);
      return kept;
    }
    const outline = this.read(path);
    if (!outline) return undefined;
    if (this.kept.size >= this.limit) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(path, outline);
    return outline;
  }

  /** How many outlines are kept. */
  get size(): number {
    return this.kept.size;
  }

  /** Drops a path's outline (its file changed). */
  forget(path: string): void {
    this.kept.delete(path);
  }
}

/** Records with tags, and skips (a record's skip or a skip before any record), both sorted by path (as they come, when `inOrder`). */
export function splitStates(states: Iterable<[string, PathState]>, inOrder = false): { records: FileRecord[]; skipped: SkippedFile[] } {
  const records: FileRecord[] = [];
  const skipped: SkippedFile[] = [];
  for (const [, state] of states) {
    if ('skip' in state) skipped.push(state.skip);
    else if ('record' in state) {
      const { record } = state;
      if (record.skip) skipped.push({ path: record.path, reason: record.skip, ...(record.detail ? { detail: record.detail } : {}) });
      else records.push(record);
    }
  }
  if (!inOrder) {
    records.sort((a, b) => comparePaths(a.path, b.path));
    skipped.sort((a, b) => comparePaths(a.path, b.path));
  }
  return { records, skipped };
}

/**
 * Whether a path's state is a skip its stat made for a path out of reach (see Unreachable): such
 * a path is not gone, and keeps its stored record. (A file the pass could not read is skipped as
 * unreadable by its record, which it stores.)
 */
function isUnreached(state: PathState): boolean {
  return 'skip' in state && state.skip.reason === 'unreadable';
}

/** Skips that the content alone decides (not the size limit, the parse timeout or a worker's death): shared like tags. */
const CONTENT_SKIPS: ReadonlySet<SkipReason> = new Set(['binary', 'minified', 'syntax errors']);

/** Whether a read file's record goes to the shared cache: parsed with tags, or skipped for its content (see CONTENT_SKIPS). */
function isShared(record: FileRecord): boolean {
  return !record.skip || CONTENT_SKIPS.has(record.skip);
}

/**
 * Of `paths`, those whose file is gone, or whose stat no longer matches its record (`recordOf`),
 * or, for a path without a record (a file without a grammar, a `.gitignore`), that was modified
 * at `sinceMs` or later: what an update would not reuse.
 */
export async function outOfDate(
  root: string,
  paths: readonly string[],
  recordOf: (path: string) => FileRecord | undefined,
  sinceMs: number,
): Promise<string[]> {
  const found = await statAll(root, paths);
  return paths.filter((path, i) => {
    const info = found[i];
    if (info === 'missing') return true;
    const record = recordOf(path);
    if (!isFileStat(info)) return record !== undefined;
    return record ? !statMatches(record, info) : info.mtimeMs >= sinceMs;
  });
}

/**
 * A file's key in the shared cache: its content's blob id, and the language that parses it with its
 * query's signature (the same bytes in a.ts and a.js, or under another project's query, have other tags).
 */
export function sharedKey(blobId: string, lang: LanguageSpec): string {
  return lang.signature ? `${blobId} ${lang.id} ${lang.signature}` : `${blobId} ${lang.id}`;
}
