// The chat files' users: the definitions in other files whose bodies use what the chat files
// define (their callers, the types that hold them), each shown as its signature with the line
// that uses the chat file's definition under it. A change to a file's API lands in its users: the
// functions a refactor has to touch are those that call what it changes.
//
// A reference means a chat file's definition when its file imports the chat file (through a
// package's index), sits in the chat file's folder (a Go package, sibling modules), or when few
// files of the family define the name. A user is ranked by how much of the chat files' API it
// uses, each name weighed by how surely it means the chat file's, by how few files define it, and
// by the request (a name it mentions, or one holding its words, first); then by its file's rank.
import { comparePaths } from '../discover/discover.js';
import { EDIT_SITE_KINDS } from '../eval/edit-sites.js';
import { getOrCreate } from '../graph/nodes.js';
import type { NameFiles } from '../graph/graph-types.js';
import { USERS_MODEL } from '../model.js';
import type { PackEntry } from '../pack/pack.js';
import type { RefTag } from '../records.js';
import type { Outline } from '../store/outline.js';
import { importsThroughBarrels } from './needed.js';
import { requestWords } from './request-words.js';

const { maxDefiners: MAX_DEFINERS, linkedDefiners: LINKED_DEFINERS, userFiles: USER_FILES, mentionBoost: MENTION_BOOST, folderCertainty: FOLDER, byNameCertainty: BY_NAME } = USERS_MODEL;

/** What finding users reads of the graph and the index. */
export interface UsersSources {
  /** The files defining and referencing each name. */
  namesOf: (idents: readonly string[]) => ReadonlyMap<string, NameFiles>;
  importsOf: (path: string) => readonly string[];
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
 * type of another file, innermost around the use) with the first line in it that uses a chat
 * file's definition. At most `limit` entries, from at most USERS_MODEL.userFiles files.
 */
export function usersEntries(sources: UsersSources, request: UsersRequest): PackEntry[] {
  const { chatFiles, foreign, rankOf } = request;
  // Each file's text read once (its import lines, then its use lines).
  const texts = new Map<string, readonly string[] | null>();
  const read = sources.linesOf;
  sources = { ...sources, linesOf: (path) => getOrCreate(texts, path, () => read(path) ?? null) ?? undefined };
  const chats = new Set(chatFiles);
  const chatFolders = new Set(chatFiles.map(folderOf));
  const family = (path: string) => !chats.has(path) && !foreign(path);
  const names = new Set<string>();
  for (const chat of chatFiles) {
    const outline = sources.outlineOf(chat);
    // Its API: functions and types (a field's or a local's name is read everywhere, and meant nowhere in particular).
    for (let i = 0; i < (outline?.defCount ?? 0); i++) if (EDIT_SITE_KINDS.has(outline!.defSubkind(i))) names.add(outline!.defName(i));
  }
  if (names.size === 0) return [];
  const named = sources.namesOf([...names].sort(comparePaths));
  // How much the request points at a name: a name it names, or the words it holds, each word by how few of the chat files' names hold it.
  const words = requestWords(request.mentionedIdents, names);
  const requestWeight = (ident: string) => (request.namedIdents.has(ident) ? MENTION_BOOST : words.boost(ident));

  // Each candidate file's names with their weights: certainty times the request's weight, over the
  // definers (a name many files define says less about which one a user means).
  const weightsOf = new Map<string, Map<string, number>>();
  const importsOf = new Map<string, ReadonlySet<string>>();
  const importedBy = (path: string) => getOrCreate(importsOf, path, () => importsThroughBarrels(path, sources.importsOf));
  for (const [ident, { definers, referencers }] of named) {
    const others = [...(definers ?? [])].filter((path) => !chats.has(path) && family(path));
    const count = others.length + 1;
    if (count > LINKED_DEFINERS) continue;
    const weight = requestWeight(ident) / count;
    for (const [path] of referencers ?? []) {
      if (!family(path)) continue;
      const imports = importedBy(path);
      const folder = folderOf(path);
      // Another definer in the user's own folder is the one it means (a Go package's name, unqualified).
      // One it imports may be an interface the chat file's class implements: the name alone decides then.
      const certainty = others.some((other) => folderOf(other) === folder)
        ? 0
        : chatFiles.some((chat) => imports.has(chat))
          ? 1
          : chatFolders.has(folder)
            ? FOLDER
            : count <= MAX_DEFINERS
              ? BY_NAME
              : 0;
      if (certainty > 0) getOrCreate(weightsOf, path, () => new Map()).set(ident, weight * certainty);
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
    // The first use in the body; a use on the signature (a parameter's type) is shown by it.
    const line = user.useLines.find((row) => row > def.signatureEnd);
    const text = line === undefined ? undefined : sources.linesOf(user.path)?.[line];
    entries.push({ path: user.path, rank: rankOf(user.path), def, ...(line === undefined || text === undefined ? {} : { use: { line, text } }) });
  }
  return entries;
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
