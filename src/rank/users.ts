// The chat files' users: the definitions in other files whose bodies use what the chat files
// define (their callers, the types that hold them), each shown by its first line, the best by its
// signature with the line that uses the chat file's definition under it. A change to a file's API lands in its
// users: the functions a refactor has to touch are those that call what it changes.
//
// The users are the files the related graph links to a chat file's functions and types (its
// resolution: imports first, then the folder, then by name among few definers; never two language
// families), and those it links to the same name in a file the chat file uses (an interface its
// class implements, a base class whose method it overrides). A user is ranked by how much of the
// chat files' API it uses: the links' weights, times the request's weight of each name (a name it
// names, or one holding its words), and of the user's own name; then by its file's rank.
//
// When the chat files are tests, a change they test lands in their subject: the file of code they
// use most, whose functions and types are shown by their first lines in its place.
import { comparePaths } from '../discover/discover.js';
import { EDIT_SITE_KINDS } from '../eval/edit-sites.js';
import { isTestPath } from '../file-kinds.js';
import { getOrCreate } from '../graph/nodes.js';
import { USERS_MODEL } from '../model.js';
import { byFirstLine, type PackEntry } from '../pack/pack.js';
import type { RefTag } from '../records.js';
import type { Outline } from '../store/outline.js';
import type { FileLink } from './rank.js';
import { requestWords } from './request-words.js';

const { userFiles: USER_FILES, mentionBoost: MENTION_BOOST, throughShared: THROUGH_SHARED, useLines: USE_LINES } = USERS_MODEL;

/** What finding users reads of the graph and the index. */
export interface UsersSources {
  /** A file's links in the related graph (see RelatedRanking.linksOf). */
  linksOf: (path: string) => readonly FileLink[];
  /** The files defining each of `idents`. */
  definersOf: (idents: readonly string[]) => ReadonlyMap<string, ReadonlySet<string> | undefined>;
  outlineOf: (path: string) => Outline | undefined;
  /** A file's reference tags, with their lines. */
  refsOf: (path: string) => readonly RefTag[];
  /** Lines of a file's text by 0-based number, as a map shows them (bounded, escaped); undefined when it cannot be read. */
  linesOf: (path: string) => readonly string[] | undefined;
}

export interface UsersRequest {
  /** The files whose users are shown (the chat files). */
  chatFiles: readonly string[];
  /** Files never shown as users: foreign to the request (tests, unless it is about one; other language families). */
  foreign: (path: string) => boolean;
  /** The identifiers the request mentions, and those of them it names as code or as names of two words or more (see packedMap). */
  mentionedIdents: ReadonlySet<string>;
  namedIdents: ReadonlySet<string>;
  rankOf: (path: string) => number;
  /** Entries enough to fill the section's share: the list stops there. */
  limit: number;
}

/** A definition of another file whose body uses chat-file names. */
interface User {
  path: string;
  index: number;
  score: number;
  /** The lines in it that use one of them, in order. */
  useLines: number[];
}

/**
 * The chat files' users as pack entries, best first: each a definition (a function, method or
 * type of another file, innermost around the use), the first USERS_MODEL.useLines of them with
 * the first line in it that uses a chat file's definition. At most `limit` entries, from at most
 * USERS_MODEL.userFiles files.
 */
export function usersEntries(sources: UsersSources, request: UsersRequest): PackEntry[] {
  const { chatFiles, foreign, rankOf } = request;
  const chats = new Set(chatFiles);
  const shown = (path: string) => !chats.has(path) && !foreign(path);
  // Each file's text read once (its import lines, then its use lines).
  const texts = new Map<string, readonly string[] | null>();
  const read = sources.linesOf;
  sources = { ...sources, linesOf: (path) => getOrCreate(texts, path, () => read(path) ?? null) ?? undefined };
  // A test's definitions have no users that a change lands in: its subject's definitions instead.
  if (chatFiles.length > 0 && chatFiles.every(isTestPath)) return subjectEntries(sources, request);
  // The chat files' API: functions and types (a field's or a local's name is read everywhere, and meant nowhere in particular).
  const names = new Set<string>();
  for (const chat of chatFiles) {
    const outline = sources.outlineOf(chat);
    for (let i = 0; i < (outline?.defCount ?? 0); i++) if (EDIT_SITE_KINDS.has(outline!.defSubkind(i))) names.add(outline!.defName(i));
  }
  if (names.size === 0) return [];
  const requestWeight = requestWeightAmong(request, names);

  // Each user file's names with their weights: the links into the chat files, and, at a share, into
  // the files they use that define the same name.
  const weightsOf = new Map<string, Map<string, number>>();
  const addLinks = (links: readonly FileLink[], share: number) => {
    for (const { path, ident, weight, forward } of links) {
      if (forward || !names.has(ident) || !shown(path)) continue;
      const weights = getOrCreate(weightsOf, path, () => new Map<string, number>());
      weights.set(ident, (weights.get(ident) ?? 0) + weight * share * requestWeight(ident));
    }
  };
  const used = new Set<string>();
  for (const chat of chatFiles) {
    const links = sources.linksOf(chat);
    addLinks(links, 1);
    for (const link of links) if (link.forward && !chats.has(link.path)) used.add(link.path);
  }
  // The files it uses that define one of its names too, from the graph's name index (not their outlines: a chat file uses hundreds).
  const sharing = new Set<string>();
  for (const definers of sources.definersOf([...names].sort(comparePaths)).values()) for (const path of definers ?? []) if (used.has(path)) sharing.add(path);
  for (const path of [...sharing].sort(comparePaths)) addLinks(sources.linksOf(path), THROUGH_SHARED);
  // A Go package's names are in scope unqualified: a user whose package defines the name means its own.
  const goNames = new Set<string>();
  for (const [path, weights] of weightsOf) if (path.endsWith('.go')) for (const ident of weights.keys()) goNames.add(ident);
  if (goNames.size > 0) {
    const definers = sources.definersOf([...goNames].sort(comparePaths));
    for (const [path, weights] of weightsOf) {
      if (!path.endsWith('.go')) continue;
      const folder = folderOf(path);
      for (const ident of [...weights.keys()]) if ([...(definers.get(ident) ?? [])].some((other) => !chats.has(other) && folderOf(other) === folder)) weights.delete(ident);
      if (weights.size === 0) weightsOf.delete(path);
    }
  }
  const total = (weights: ReadonlyMap<string, number>) => [...weights.values()].reduce((sum, w) => sum + w, 0);
  const files = [...weightsOf]
    .map(([path, weights]) => ({ path, weights, score: total(weights) }))
    .sort((a, b) => b.score - a.score || rankOf(b.path) - rankOf(a.path) || comparePaths(a.path, b.path))
    .slice(0, USER_FILES);

  const users: User[] = [];
  for (const { path, weights } of files) users.push(...usersIn(path, weights, sources, requestWeight));
  users.sort((a, b) => b.score - a.score || rankOf(b.path) - rankOf(a.path) || comparePaths(a.path, b.path) || a.index - b.index);

  const entries: PackEntry[] = [];
  for (const user of users) {
    if (entries.length >= request.limit) break;
    const outline = sources.outlineOf(user.path);
    if (!outline) continue;
    const def = outline.def(user.index);
    // The best users' first use in the body (a use on the signature, a parameter's type, is shown by
    // it); the others by their first lines alone: a site is found by its name, and a use line, or
    // a signature over several lines, costs as much as another user.
    const line = entries.length < USE_LINES ? user.useLines.find((row) => row > def.signatureEnd) : undefined;
    const text = line === undefined ? undefined : sources.linesOf(user.path)?.[line];
    entries.push(line === undefined || text === undefined ? { path: user.path, rank: rankOf(user.path), def: byFirstLine(def) } : { path: user.path, rank: rankOf(user.path), def, use: { line, text } });
  }
  return entries;
}

/**
 * How much the request points at a name of `pool`: USERS_MODEL.mentionBoost for one it names, else
 * the boost of the words it holds, each word by how few of the pool's names hold it.
 */
function requestWeightAmong(request: UsersRequest, pool: Iterable<string>): (ident: string) => number {
  const words = requestWords(request.mentionedIdents, pool);
  return (ident) => (request.namedIdents.has(ident) ? MENTION_BOOST : words.boost(ident));
}

/** `NAME as ALIAS` in an import (TypeScript, Python, Rust): the file calls the chat file's NAME as ALIAS. */
const ALIAS = /^\s*as\s+([\p{L}_$][\p{L}\p{N}_$]*)/u;

/**
 * The definitions of `path` whose bodies reference the names of `weights` (or their import
 * aliases), each scored by the weights of the distinct names it uses, times the request's weight
 * of its own name.
 */
function usersIn(path: string, weights: ReadonlyMap<string, number>, sources: UsersSources, requestWeight: (ident: string) => number): User[] {
  const outline = sources.outlineOf(path);
  if (!outline) return [];
  const refs = sources.refsOf(path);
  // An import that renames a chat file's name: its uses are under the new name.
  const meant = new Map<string, string>();
  for (const ref of refs) {
    if (ref.subkind !== 'import' || !weights.has(ref.name)) continue;
    meant.set(ref.name, ref.name);
    const line = sources.linesOf(path)?.[ref.line] ?? '';
    for (let at = line.indexOf(ref.name); at >= 0; at = line.indexOf(ref.name, at + 1)) {
      const alias = ALIAS.exec(line.slice(at + ref.name.length))?.[1];
      if (alias && !weights.has(alias)) meant.set(alias, ref.name);
    }
  }
  const byDefinition = new Map<number, { names: Set<string>; useLines: number[] }>();
  for (const ref of refs) {
    if (ref.subkind === 'import') continue;
    const ident = weights.has(ref.name) ? ref.name : meant.get(ref.name);
    if (ident === undefined) continue;
    const i = outline.innermostHolding(ref.line, ref.line, EDIT_SITE_KINDS);
    if (i < 0) continue;
    const found = getOrCreate(byDefinition, i, () => ({ names: new Set<string>(), useLines: [] }));
    found.names.add(ident);
    found.useLines.push(ref.line);
  }
  return [...byDefinition].map(([index, { names, useLines }]) => {
    let score = 0;
    for (const ident of names) score += weights.get(ident)!;
    return { path, index, useLines: useLines.sort((a, b) => a - b), score: score * requestWeight(outline.defName(index)) };
  });
}

function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/') + 1);
}

/**
 * A test's change lands in what it tests: its subject, the file of code (not a test) its links
 * weigh most on, shown by the first lines of its functions and types: those whose names hold the
 * request's words first, then in the file's order.
 */
function subjectEntries(sources: UsersSources, request: UsersRequest): PackEntry[] {
  const { chatFiles, rankOf } = request;
  const weightOf = new Map<string, number>();
  for (const chat of chatFiles) {
    for (const { path, weight, forward } of sources.linksOf(chat)) {
      if (forward && !chatFiles.includes(path) && !isTestPath(path) && !request.foreign(path)) weightOf.set(path, (weightOf.get(path) ?? 0) + weight);
    }
  }
  const [subject] = [...weightOf].sort((a, b) => b[1] - a[1] || comparePaths(a[0], b[0]))[0] ?? [];
  const outline = subject === undefined ? undefined : sources.outlineOf(subject);
  if (subject === undefined || !outline) return [];
  const indexes: number[] = [];
  for (let i = 0; i < outline.defCount; i++) if (EDIT_SITE_KINDS.has(outline.defSubkind(i))) indexes.push(i);
  const requestWeight = requestWeightAmong(request, indexes.map((i) => outline.defName(i)));
  const boost = indexes.map((i) => requestWeight(outline.defName(i)));
  const order = indexes.map((_, k) => k).sort((a, b) => boost[b] - boost[a] || outline.defLine(indexes[a]) - outline.defLine(indexes[b]));
  return order.slice(0, request.limit).map((k) => ({ path: subject, rank: rankOf(subject), def: byFirstLine(outline.def(indexes[k])) }));
}
