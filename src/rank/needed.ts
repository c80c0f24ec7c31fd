// The code a change needs: for the files the request names (the chat files first), the
// definitions their references resolve to (the callees, the types, the base classes they use) and
// those their peers use (the files beside them, the best ranked), then the rest of the types they
// use, then the public API of the modules they import. A model that edits a file writes calls to
// what it uses; these signatures come before the breadth of the rest of the map.
//
// A reference resolves, in this order, to the definitions in the files its file imports, then in
// its own folder (a Go package, sibling modules), then by name across the repository when few
// files define the name; only to files of the same language family, and to tests only when the
// referencing file is itself a test.
import { comparePaths } from '../discover/discover.js';
import { familyOfPath } from '../extract/languages.js';
import { isTestPath } from '../file-kinds.js';
import { identifierMultiplier, isMultiWordIdentifier } from '../graph/identifiers.js';
import { getOrCreate } from '../graph/nodes.js';
import { EDGE_WEIGHTS, NEEDED_MODEL } from '../model.js';
import type { PackEntry } from '../pack/pack.js';
import type { Outline } from '../store/outline.js';
import { identifierWords, requestWords } from './request-words.js';

const {
  maxNameDefiners: MAX_NAME_DEFINERS,
  maxDefinitionsPerName: MAX_DEFINITIONS_PER_NAME,
  unusedName: UNUSED_NAME,
  wordMatchFiles: WORD_MATCH_FILES,
  peerFolderFiles: PEER_FOLDER_FILES,
  peerRankedFiles: PEER_RANKED_FILES,
  peerMinUsers: PEER_MIN_USERS,
  rankedApiFiles: RANKED_API_FILES,
  otherDefiners: OTHER_DEFINERS,
} = NEEDED_MODEL;

/** What resolution reads of the graph and the index. */
export interface NeededSources {
  /** The names a file defines, and those it references with their counts (parallel arrays). */
  fileNames: (path: string) => { defined: readonly string[]; referenced: readonly string[]; counts: ArrayLike<number> };
  /** The files defining each of `idents`. */
  definersOf: (idents: readonly string[]) => Map<string, ReadonlySet<string> | undefined>;
  /** The repository files a file imports (resolved, sorted). */
  importsOf: (path: string) => readonly string[];
  /** The files beside a file: its folder (a Go package, sibling modules), its tests or its subject (see neighboursOf). */
  neighboursOf: (path: string) => readonly string[];
  outlineOf: (path: string) => Outline | undefined;
  /**
   * The identifiers written in a file's text, with their counts: a request's file uses names its
   * tagged references miss (a Go struct literal's keys, a constant read as `views.X`, a Python
   * attribute). Absent, only the tagged references count.
   */
  identifiersIn?: (path: string) => ReadonlyMap<string, number>;
}

export interface NeededRequest {
  /**
   * The files the definitions are needed for, most important first (chat files, then named
   * files). Those not hidden (the named files) are shown themselves: their top-level definitions
   * come right after the mentioned ones.
   */
  from: readonly string[];
  /** Files never shown (the chat files: the model has them). */
  hidden: ReadonlySet<string>;
  /** The identifiers the request mentions: each weighs as Aider weighs a mention. */
  mentionedIdents: ReadonlySet<string>;
  /** Those of them whose definitions come first (see packedMap). */
  namedIdents: ReadonlySet<string>;
  rankOf: (path: string) => number;
  /** Entries enough to fill the depth section's budget: the list stops there. */
  limit: number;
  /** The related files best ranked first (not only those the request's files import or sit beside). */
  ranked: readonly string[];
}

/** A definition to show: definition `index` of `path`'s outline. */
interface Shown {
  path: string;
  outline: Outline;
  index: number;
}

/** One needed name, resolved to the files that define it. */
interface Need {
  ident: string;
  score: number;
  files: readonly string[];
  /** One definition of files[0] (by its index): one the request's files do not use yet, whose name shares a word with the request. */
  index?: number;
}


/**
 * The needed definitions as pack entries, best first: the mentioned names' definitions; the named
 * files' own top-level definitions; the names the request's files use (by Aider's identifier
 * weight times the square root of the uses, surer resolution first), mixed with the definitions
 * nearby that the request's words name in part and the names their peers use; then the other
 * members of the types those show; then the top-level definitions of the modules they import and
 * of the files best ranked for them, and of the files beside them. At most `limit` entries.
 */
export function neededEntries(sources: NeededSources, request: NeededRequest): PackEntry[] {
  const { from, hidden, mentionedIdents } = request;
  const own = new Set<string>();
  const uses = new Map<string, { count: number; users: string[] }>();
  for (const path of from) {
    const names = sources.fileNames(path);
    // A name a chat file defines is there for the model already.
    if (hidden.has(path)) for (const name of names.defined) own.add(name);
    names.referenced.forEach((ident, k) => {
      const use = uses.get(ident);
      if (use) {
        use.count += names.counts[k];
        use.users.push(path);
      } else uses.set(ident, { count: names.counts[k], users: [path] });
    });
  }
  // Names of two words or more written in the files but not tagged as references; a single word
  // (`name`, `value`) read in a text is too often a local to stand for another file's definition.
  const untagged = new Set<string>();
  for (const path of from) {
    for (const [ident, count] of sources.identifiersIn?.(path) ?? []) {
      if (uses.has(ident) && !untagged.has(ident)) continue;
      if (!isMultiWordIdentifier(ident)) continue;
      const use = uses.get(ident);
      if (use) {
        use.count += count;
        use.users.push(path);
      } else {
        uses.set(ident, { count, users: [path] });
        untagged.add(ident);
      }
    }
  }
  const wanted = [...new Set([...mentionedIdents, ...uses.keys()])].filter((ident) => mentionedIdents.has(ident) || !own.has(ident)).sort(comparePaths);
  const foreign = foreignTo(from);
  const aboutTests = from.some(isTestPath);
  const shownFile = (path: string) => !hidden.has(path) && !foreign(path);
  const imported = new Map(from.map((path) => [path, importsThroughBarrels(path, sources.importsOf)]));
  const near = new Set([...imported.values()].flatMap((set) => [...set]));
  const beside = new Set(from.flatMap(sources.neighboursOf));
  // The request's files' peers: the files beside them (the first by path), then the best ranked.
  const peers = [...new Set([...[...beside].sort(comparePaths).slice(0, PEER_FOLDER_FILES), ...request.ranked.slice(0, PEER_RANKED_FILES)])].filter(shownFile);
  const peerUses = namesUsedBy(peers, sources, (ident) => uses.has(ident) || own.has(ident) || mentionedIdents.has(ident));
  // One look-up for both: a map whose index links names lazily scans the files once per look-up.
  const definers = sources.definersOf([...wanted, ...peerUses.keys()]);

  // The files whose definitions the request's words may name though the request's files do not use them yet.
  const wordFiles = mentionedIdents.size > 0 ? firstOf([near, beside, request.ranked], shownFile, WORD_MATCH_FILES) : [];
  const wordOutlines = wordFiles.map((path) => ({ path, outline: sources.outlineOf(path) }));
  // A word weighs by how few of the names at hand hold it: those the files use, those their peers
  // use, those defined in the files the words are matched in.
  const pool = [...wanted, ...peerUses.keys()];
  for (const { outline } of wordOutlines) for (let i = 0; i < (outline?.defCount ?? 0); i++) pool.push(outline!.defName(i));
  const words = requestWords(mentionedIdents, pool);
  const wordBoost = words.boost;
  // A plain word of a message (not a --mention, nor a word of a named identifier) is likelier prose
  // than a name: a name equal to it weighs as a mention by how specific the word is, and a name
  // only common plain words point at never comes before a name the files use.
  const namedWords = new Set([...request.namedIdents].flatMap(identifierWords));
  const plainOnly = (ident: string) => !identifierWords(ident).some((word) => namedWords.has(word));
  const mentionWeight = (ident: string) => {
    if (request.namedIdents.has(ident) || !mentionedIdents.has(ident)) return 1;
    return 1 + (EDGE_WEIGHTS.mentionedIdent - 1) * words.specificity(ident);
  };
  /**
   * The files a name's users mean (see resolveName), and the name's weight: Aider's weight of the
   * name times the square root of its uses, times how sure the resolution is, times one more for
   * each of the request's words it holds. None when no file of it may be shown, or too many define it.
   */
  const resolveNeed = (ident: string, users: readonly string[], useCount: number) => {
    const all = definers.get(ident);
    if (!all) return undefined;
    const resolved = resolveName(all, users, imported, shownFile);
    if (!resolved) return undefined;
    const { files, tier } = resolved;
    return { files, weight: nameWeight(ident, all.size, request.namedIdents) * mentionWeight(ident) * Math.sqrt(useCount) * certainty(tier, files.length) * wordBoost(ident) };
  };
  const needs: Need[] = [];
  /**
   * A name's definitions: of several files its users may mean, the best ranked first at the
   * name's weight, and the others, each a guess, at NEEDED_MODEL.otherDefiners of it. A mentioned
   * name shows all of them at once.
   */
  const pushNeed = (ident: string, score: number, files: readonly string[]) => {
    if (files.length === 1 || score === Infinity) {
      needs.push({ ident, score, files });
      return;
    }
    const [best, ...others] = [...files].sort((a, b) => request.rankOf(b) - request.rankOf(a) || comparePaths(a, b));
    needs.push({ ident, score, files: [best] }, { ident, score: score * OTHER_DEFINERS, files: others });
  };
  for (const ident of wanted) {
    const use = uses.get(ident);
    const need = resolveNeed(ident, use?.users ?? [], use?.count ?? 1);
    // Mentioned names first.
    if (need) pushNeed(ident, request.namedIdents.has(ident) ? Infinity : need.weight, need.files);
  }
  // The definitions the request's words name in part (`stream` in `ListStream`) that its files do
  // not use yet: what a change may start to use, in the modules imported, beside, or ranked first.
  // Below every name the files use (a common plain word's), else at its own weight.
  let called = Infinity;
  for (const need of needs) if (need.score !== Infinity) called = Math.min(called, need.score);
  const belowCalled = called === Infinity ? Infinity : called * NEEDED_MODEL.belowCalled;
  if (words.any) {
    for (const { path, outline } of wordOutlines) {
      if (!outline) continue;
      const relation = certainty(near.has(path) ? IMPORTED : beside.has(path) ? SAME_FOLDER : BY_NAME, 1);
      for (let i = 0; i < outline.defCount; i++) {
        const ident = outline.defName(i);
        if (uses.has(ident) || own.has(ident) || mentionedIdents.has(ident) || ident.startsWith('_')) continue;
        const boost = wordBoost(ident);
        if (boost === 1 || (!aboutTests && inTestScope(outline, i))) continue;
        const score = nameWeight(ident, 1, request.namedIdents) * mentionWeight(ident) * relation * boost * UNUSED_NAME;
        const common = plainOnly(ident) && words.specificity(ident) < NEEDED_MODEL.commonWord;
        needs.push({ ident, score: common ? Math.min(score, belowCalled) : score, files: [path], index: i });
      }
    }
  }
  // The names the peers use and the request's files do not yet: code next to a file, or about the
  // same things, is written with the same API, so what several peers call a change may start to.
  for (const [ident, users] of peerUses) {
    const need = resolveNeed(ident, from, users);
    if (need) pushNeed(ident, need.weight * UNUSED_NAME, need.files);
  }
  needs.sort((a, b) => b.score - a.score || comparePaths(a.ident, b.ident));

  const entries: PackEntry[] = [];
  const shown = new Set<string>();
  const add = (path: string, outline: Outline, i: number) => {
    const key = `${path}\0${i}`;
    if (shown.has(key)) return;
    shown.add(key);
    entries.push({ path, rank: request.rankOf(path), def: outline.def(i) });
  };
  const full = () => entries.length >= request.limit;
  /**
   * Each group's lists in turn, one definition of each list per turn (a group after the one
   * before it is done); false once the list is full. A list is read when its turn first comes.
   */
  const showInTurns = (groups: ReadonlyArray<ReadonlyArray<() => Iterator<Shown>>>): boolean => {
    for (const group of groups) {
      const lists: Array<Iterator<Shown> | undefined> = group.map(() => undefined);
      for (let more = true; more; ) {
        more = false;
        for (let k = 0; k < group.length; k++) {
          if (full()) return false;
          const next = (lists[k] ??= group[k]()).next();
          if (next.done) continue;
          add(next.value.path, next.value.outline, next.value.index);
          more = true;
        }
      }
    }
    return true;
  };
  /** Each group's files' top-level definitions, file by file in turn (but those `skip` says no to). */
  const showApis = (groups: ReadonlyArray<readonly string[]>, skip: (path: string, ident: string) => boolean = () => false): boolean =>
    showInTurns(
      groups.map((files) =>
        // Outlines read as the turns reach them: a Go package's folder may hold hundreds of files.
        files.map((path) => () => definitionsOf(path, (outline, i) => outline.defDepth(i) === 0 && !outline.defName(i).startsWith('_') && !skip(path, outline.defName(i)))),
      ),
    );
  /** A file's definitions that `keep` takes, in order, read when first asked for. */
  function* definitionsOf(path: string, keep: (outline: Outline, i: number) => boolean): Iterator<Shown> {
    const outline = sources.outlineOf(path);
    if (!outline) return;
    for (let index = 0; index < outline.defCount; index++) if (keep(outline, index)) yield { path, outline, index };
  }
  /**
   * The other members of the types whose lines the list shows so far (a class, struct, interface
   * or impl, by a member or by its header), type by type in turn: a change that calls one method of
   * a type often starts to call another.
   */
  const showMembers = (skip: (path: string, ident: string) => boolean): boolean => {
    const types = new Map<string, { path: string; line: number; depth: number }>();
    const addType = (path: string, line: number, depth: number) => {
      const key = `${path}\0${line}`;
      // A function's scope holds its locals, not an API.
      if (types.has(key) || opensFunction(sources.outlineOf(path), line)) return;
      types.set(key, { path, line, depth });
    };
    for (const { path, def } of entries) {
      if (!def) continue;
      // The type a member is shown in, and the definition itself when it is a type shown by its header.
      if (def.scopes.length > 0) addType(path, def.scopes[def.scopes.length - 1], def.scopes.length - 1);
      addType(path, def.line, def.scopes.length);
    }
    const isMember = (type: { path: string; line: number; depth: number }) => (outline: Outline, i: number) =>
      outline.defDepth(i) === type.depth + 1 &&
      outline.defScope(i, type.depth) === type.line &&
      !outline.defName(i).startsWith('_') &&
      !skip(type.path, outline.defName(i)) &&
      (aboutTests || !inTestScope(outline, i));
    return showInTurns([[...types.values()].map((type) => () => definitionsOf(type.path, isMember(type)))]);
  };
  /** The definitions each need resolves to, in turn; false once the list is full. */
  const showNeeds = (list: readonly Need[]): boolean => {
    for (const { ident, files, index } of list) {
      if (index !== undefined) {
        const outline = sources.outlineOf(files[0]);
        if (!outline) continue;
        if (full()) return false;
        add(files[0], outline, index);
        continue;
      }
      // A tagged reference (the request's files', or their peers') is a call or a type: it means
      // the method. A name only the text writes (an object key, a field read), or only a mention, keeps the file's order.
      const tagged = (uses.has(ident) && !untagged.has(ident)) || peerUses.has(ident);
      for (const path of files) {
        const outline = sources.outlineOf(path);
        if (!outline) continue;
        const named = definitionsNamed(outline, ident, (i) => aboutTests || !inTestScope(outline, i), tagged);
        for (const i of named.slice(0, MAX_DEFINITIONS_PER_NAME)) {
          if (full()) return false;
          add(path, outline, i);
        }
      }
    }
    return true;
  };
  // The mentioned names' definitions, the named files' own API, the names the request's files use.
  const named = from.filter((path) => !hidden.has(path));
  const mentionedNeeds = needs.filter((need) => need.score === Infinity);
  const usedNeeds = needs.filter((need) => need.score !== Infinity);
  // A name the request's files use is shown where it resolves, not in another file that defines it too.
  const resolvedTo = new Map<string, Set<string>>();
  for (const { ident, files } of needs) for (const path of files) getOrCreate(resolvedTo, ident, () => new Set()).add(path);
  const elsewhere = (path: string, ident: string) => uses.has(ident) && !resolvedTo.get(ident)?.has(path);
  if (!showNeeds(mentionedNeeds) || !showApis([named]) || !showNeeds(usedNeeds) || !showMembers(elsewhere)) return entries;
  // Then the API the change may start to use: the top-level definitions of the imported modules and
  // of the best-ranked files, then those of the files beside the request's files, file by file in
  // turn, best-ranked first.
  const byRank = (paths: Iterable<string>) => [...new Set(paths)].filter(shownFile).sort((a, b) => request.rankOf(b) - request.rankOf(a) || comparePaths(a, b));
  const modules = byRank([...near, ...request.ranked.slice(0, RANKED_API_FILES)]);
  const listed = new Set(modules);
  const neighbours = byRank(beside).filter((path) => !listed.has(path));
  showApis([modules, neighbours], elsewhere);
  return entries;
}

/** The first `count` distinct paths of `lists`, in order, that `take` takes. */
function firstOf(lists: ReadonlyArray<Iterable<string>>, take: (path: string) => boolean, count: number): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  for (const list of lists) {
    for (const path of list) {
      if (found.length === count) return found;
      if (seen.has(path)) continue;
      seen.add(path);
      if (take(path)) found.push(path);
    }
  }
  return found;
}

/**
 * The names of two words or more that at least NEEDED_MODEL.peerMinUsers of `files` reference and
 * `known` does not hold, each with how many of them do, by name.
 */
function namesUsedBy(files: readonly string[], sources: NeededSources, known: (ident: string) => boolean): Map<string, number> {
  const users = new Map<string, number>();
  for (const path of files) {
    for (const ident of sources.fileNames(path).referenced) {
      if (!known(ident) && isMultiWordIdentifier(ident)) users.set(ident, (users.get(ident) ?? 0) + 1);
    }
  }
  return new Map([...users].filter(([, count]) => count >= PEER_MIN_USERS).sort(([a], [b]) => comparePaths(a, b)));
}

/**
 * Aider's multiplier of a name, with every name of two words or more counted as a long compound
 * one: in a file's own references `urlRE` or `isBuild` says which definition is meant as surely
 * as `createDebugger` does.
 */
function nameWeight(ident: string, definerCount: number, mentioned: ReadonlySet<string>): number {
  const weight = identifierMultiplier(ident, definerCount, mentioned);
  const short = ident.length < EDGE_WEIGHTS.compoundMinLength;
  return short && isMultiWordIdentifier(ident) ? weight * EDGE_WEIGHTS.compoundIdent : weight;
}

/**
 * Files foreign to a request about `files`: tests, unless one of them is a test, and files of a
 * language family none of them is in. None without files.
 */
export function foreignTo(files: readonly string[]): (path: string) => boolean {
  if (files.length === 0) return () => false;
  const aboutTests = files.some(isTestPath);
  const families = new Set(files.map(familyOfPath));
  return (path) => (!aboutTests && isTestPath(path)) || !families.has(familyOfPath(path));
}

/** A module that mostly gathers others' exports (`export * from`, `from .x import y`): index.ts, __init__.py, mod.rs, lib.rs. */
const BARREL = /(^|\/)(index\.[cm]?[jt]sx?|__init__\.pyi?|mod\.rs|lib\.rs)$/;

/**
 * The files `path` imports, and those its imported barrels import: a name imported from a
 * package's index is defined in the module the index re-exports it from.
 */
function importsThroughBarrels(path: string, importsOf: (path: string) => readonly string[]): Set<string> {
  const files = new Set(importsOf(path));
  // A Set iterates what is added while it runs: a barrel a barrel imports is followed in turn.
  for (const file of files) if (BARREL.test(file)) for (const next of importsOf(file)) if (next !== path) files.add(next);
  return files;
}

const FUNCTION_KINDS: ReadonlySet<string> = new Set(['function', 'method']);

/** Whether a function or method is defined on `line` of the outline. */
function opensFunction(outline: Outline | undefined, line: number): boolean {
  if (!outline) return false;
  for (let i = 0; i < outline.defCount; i++) if (outline.defLine(i) === line && FUNCTION_KINDS.has(outline.def(i).subkind)) return true;
  return false;
}

/** A scope line that opens tests inside a code file: Rust's `mod tests`, a Python `class TestX`. */
const TEST_SCOPE = /^\s*(?:(?:pub(?:\([^)]*\))?\s+)?mod\s+tests?\b|class\s+Test)/;

/** Whether definition `i` sits inside a test scope of its file. */
function inTestScope(outline: Outline, i: number): boolean {
  return outline.def(i).scopes.some((line) => TEST_SCOPE.test(outline.lineText(line)));
}

const IMPORTED = 0;
const SAME_FOLDER = 1;
const BY_NAME = 2;

/**
 * How surely a need's files are the ones its users mean: an import or the user's folder says so; a
 * name defined in one file of the family can mean only that one; among several, each is a guess.
 */
function certainty(tier: number, fileCount: number): number {
  if (tier === IMPORTED) return NEEDED_MODEL.importedCertainty;
  return (tier === SAME_FOLDER ? NEEDED_MODEL.folderCertainty : NEEDED_MODEL.byNameCertainty) / Math.sqrt(fileCount);
}

/**
 * The definitions of `ident` in a file that `keep` takes, by index, in the file's order; with
 * `fieldsLast`, a field after the others. A tagged reference is a call or a type, never a field
 * read, so of a struct's `is_shutdown: bool` and its `fn is_shutdown(&self)` a call means the method.
 */
function definitionsNamed(outline: Outline, ident: string, keep: (i: number) => boolean, fieldsLast: boolean): number[] {
  const found: number[] = [];
  const fields: number[] = [];
  for (let i = 0; i < outline.defCount; i++) {
    if (outline.defName(i) !== ident || !keep(i)) continue;
    (fieldsLast && outline.defSubkind(i) === 'field' ? fields : found).push(i);
  }
  return found.concat(fields);
}

/**
 * The definers a name's users mean, of those `shown` takes, by path: those they import, else those
 * in a user's folder, else all of them (BY_NAME). Undefined when there are none, or more than
 * NEEDED_MODEL.maxNameDefiners: a name many files define, even among those imported, says too
 * little about which is meant. The imports are looked up first, and the other definers counted only
 * up to that bound: a name such as `init` has thousands of definers and a file imports a few dozen.
 */
function resolveName(
  definers: ReadonlySet<string>,
  users: readonly string[],
  imported: ReadonlyMap<string, ReadonlySet<string>>,
  shown: (path: string) => boolean,
): { files: string[]; tier: number } | undefined {
  const resolved = (files: string[], tier: number) =>
    files.length === 0 || files.length > MAX_NAME_DEFINERS ? undefined : { files: files.sort(comparePaths), tier };
  const viaImport = new Set<string>();
  for (const user of users) for (const path of imported.get(user) ?? []) if (definers.has(path) && shown(path)) viaImport.add(path);
  if (viaImport.size > 0) return resolved([...viaImport], IMPORTED);
  const inUsersFolder = inFolderOf(users);
  const near: string[] = [];
  // The others, while they may still be few enough: past the bound they matter only if none is near.
  const others: string[] = [];
  for (const path of definers) {
    if (inUsersFolder(path)) {
      if (shown(path)) near.push(path);
    } else if (others.length <= MAX_NAME_DEFINERS && shown(path)) others.push(path);
  }
  return near.length > 0 ? resolved(near, SAME_FOLDER) : resolved(others, BY_NAME);
}

/** Whether a path lies directly in the folder of one of `files` (tested on the text: no folder string made per path). */
function inFolderOf(files: readonly string[]): (path: string) => boolean {
  const prefixes = [...new Set(files.map((file) => file.slice(0, file.lastIndexOf('/') + 1)))];
  return (path) => prefixes.some((prefix) => path.startsWith(prefix) && path.indexOf('/', prefix.length) < 0);
}
