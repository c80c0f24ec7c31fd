// What a first index parses first when a map is asked for before it is complete: the files that
// map needs most, so that a map answered early from the files indexed so far (a partial map) is
// close to the complete one. See prioritize.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { comparePaths } from '../discover/discover.js';
import { familyOfPath, languageForPath } from '../extract/languages.js';
import { dirOf } from '../resolve/files.js';
import { ImportLookup } from '../resolve/imports.js';
import { type ImportResolver, createResolver } from '../resolve/resolve.js';
import type { ParseQueue } from './parse-queue.js';

/** Levels of imports followed from the chat files (their imports, those files' imports, ...). */
const IMPORT_LEVELS = 3;
/** The chat files' defined names searched for in the tree, at most (the longest first: they say more). */
const MAX_SCANNED_NAMES = 64;
/** Names shorter than this are not searched for (`i`, `id`, `ok` are everywhere). */
const MIN_SCANNED_NAME = 3;
/** Files read at once by the scan. */
const SCAN_CONCURRENCY = 8;
/**
 * Files scanned between two hand-overs of the users found: a large tree takes longer to scan than
 * a first map waits, so the users found near the chat files are parsed while the scan goes on.
 */
const SCAN_BATCH_FILES = 2048;
/** Files larger than this are not scanned (an index skips them anyway at its default limit). */
const MAX_SCANNED_BYTES = 1024 * 1024;

/** A file's names as an index knows them once it has settled (see ReferenceGraph.fileNames). */
export type NamesOf = (path: string) => { readonly defined: readonly string[]; readonly modules: readonly string[]; readonly imports: readonly string[] } | undefined;

export interface PriorityContext {
  /** Real path of the repository root. */
  root: string;
  /** Every discovered path, sorted (imports resolve among them, indexed or not). */
  paths: readonly string[];
  /** The order of the pass under way. */
  queue: ParseQueue;
  namesOf: NamesOf;
  /** Stops the work (a later stage is not started once aborted). */
  signal?: AbortSignal;
}

/** The stages of prioritize under way. */
export interface Prioritizing {
  /** Settles once the chat files and the files they import directly are indexed (or the pass is over). */
  core: Promise<void>;
  /** Settles once every stage is queued (not parsed). */
  queued: Promise<void>;
}

/** The stages' ranks in the pass's order (see ParseQueue.want): a lower rank is parsed first. */
const RANK = { chat: 0, imports: 1, folders: 2, users: 3, deeperImports: 4, importFolders: 5 } as const;

/**
 * Puts ahead in the pass what a map for these chat files needs most, in this order: the chat
 * files; the files they import, resolved as a map resolves them (src/resolve/); the other files
 * of the chat files' folders; the files that use the names the chat files define, found by
 * searching the text of the tree (no parse) from the chat files' folders outwards and queued
 * batch by batch as the search goes (see filesUsing); the files
 * those imported files import, up to IMPORT_LEVELS levels from the chat files; the other files of
 * the imported files' folders. Everything else keeps discovery's order after them. Imports are
 * read from the parsed files, so each level is queued once the one before has been parsed;
 * stages queued later still go ahead of the higher ranks queued earlier.
 */
export function prioritize(chatFiles: readonly string[], context: PriorityContext): Prioritizing {
  let coreDone!: () => void;
  const core = new Promise<void>((resolve) => (coreDone = resolve));
  const { queue, paths, signal } = context;
  queue.want(chatFiles, RANK.chat);
  const imports = followImports(chatFiles, context, coreDone).finally(coreDone);
  const users = (async () => {
    await queue.whenSettled(chatFiles);
    if (signal?.aborted) return;
    queue.want(filesInFolders(paths, chatFiles), RANK.folders);
    const names = scannedNames(chatFiles.flatMap((file) => context.namesOf(file)?.defined ?? []));
    if (names.length > 0) await filesUsing(context.root, paths, names, { near: chatFiles, onFound: (users) => queue.want(users, RANK.users), signal });
  })();
  return { core, queued: Promise.all([imports, users]).then(() => {}) };
}

/** Queues the imports of the chat files level by level, then the imported files' folders; `coreDone` once the first level is parsed. */
async function followImports(chatFiles: readonly string[], context: PriorityContext, coreDone: () => void): Promise<void> {
  const { queue, paths, signal } = context;
  const imports = new ImportLookup(context.root, paths, context.namesOf);
  let resolver: ImportResolver | undefined;
  // A C file's system includes too (<linux/list.h>): a map does not follow them, but they name the
  // headers that define what the file uses (resolved as `#include "..."` is, against the include folders).
  const importsOf = async (file: string): Promise<readonly string[]> => {
    const own = imports.importsOf(file);
    if (familyOfPath(file) !== 'c') return own;
    const system = systemIncludes(await readFile(join(context.root, file), 'latin1').catch(() => ''));
    if (system.length === 0) return own;
    resolver ??= createResolver({ paths, read: () => undefined });
    return [...own, ...resolver.resolve(file, system)];
  };
  const seen = new Set(chatFiles);
  const imported: string[] = [];
  let level = [...chatFiles];
  for (let depth = 0; depth <= IMPORT_LEVELS && level.length > 0; depth++) {
    await queue.whenSettled(level);
    if (depth === 1) coreDone();
    if (signal?.aborted || depth === IMPORT_LEVELS) break;
    const next: string[] = [];
    for (const file of level) {
      for (const dep of await importsOf(file)) {
        if (seen.has(dep)) continue;
        seen.add(dep);
        next.push(dep);
      }
    }
    queue.want(next, depth === 0 ? RANK.imports : RANK.deeperImports);
    imported.push(...next);
    level = next;
  }
  coreDone(); // when the loop ended before a second level (nothing imported)
  if (!signal?.aborted) queue.want(filesInFolders(paths, imported), RANK.importFolders);
}

/** The source files in the folders of `files` (not in their subfolders), in path order. */
function filesInFolders(paths: readonly string[], files: readonly string[]): string[] {
  const folders = new Set(files.map(dirOf));
  return paths.filter((path) => folders.has(dirOf(path)) && languageForPath(path) !== undefined);
}

/** The names worth searching for: long enough, each once, the longest first (ties by name), at most MAX_SCANNED_NAMES. */
function scannedNames(defined: readonly string[]): string[] {
  const names = [...new Set(defined)].filter((name) => name.length >= MIN_SCANNED_NAME);
  names.sort((a, b) => b.length - a.length || comparePaths(a, b));
  return names.slice(0, MAX_SCANNED_NAMES);
}

export interface ScanOptions {
  /** The files the scan starts near (not scanned themselves): the nearest folders are scanned first. */
  near: readonly string[];
  /** Takes the users found in each batch of scanned files, those using more of the names first, then the nearer. */
  onFound: (users: string[]) => void;
  signal?: AbortSignal;
  /** Files per batch (SCAN_BATCH_FILES). */
  batchFiles?: number;
}

/**
 * Finds the source files (other than `near`) whose text contains one of `names` as a whole word,
 * scanning the folders nearest to `near` first (see folderDistance) and handing over what each
 * batch finds. Read as Latin-1: identifiers searched for are matched byte for byte, and no file is
 * decoded as UTF-8.
 */
export async function filesUsing(root: string, paths: readonly string[], names: readonly string[], options: ScanOptions): Promise<void> {
  const { near, onFound, signal, batchFiles = SCAN_BATCH_FILES } = options;
  const pattern = new RegExp(`(?<![\\w$])(?:${names.map(escapeRegExp).join('|')})(?![\\w$])`, 'g');
  const exclude = new Set(near);
  const nearFolders = [...new Set(near.map(dirOf))];
  const candidates = paths
    .filter((path) => !exclude.has(path) && languageForPath(path) !== undefined)
    .map((path, at) => ({ path, distance: Math.min(...nearFolders.map((folder) => folderDistance(folder, dirOf(path)))), at }))
    .sort((a, b) => a.distance - b.distance || a.at - b.at);
  for (let start = 0; start < candidates.length && !signal?.aborted; start += batchFiles) {
    const batch = candidates.slice(start, start + batchFiles);
    const found: Array<{ path: string; count: number; order: number }> = [];
    let next = 0;
    const reader = async () => {
      while (next < batch.length && !signal?.aborted) {
        const order = next++;
        const { path } = batch[order];
        let text: string;
        try {
          const bytes = await readFile(join(root, path));
          if (bytes.length > MAX_SCANNED_BYTES) continue;
          text = bytes.toString('latin1');
        } catch {
          continue; // gone or unreadable: the index says what it is
        }
        const matched = new Set<string>();
        pattern.lastIndex = 0;
        for (let match = pattern.exec(text); match && matched.size < names.length; match = pattern.exec(text)) matched.add(match[0]);
        if (matched.size > 0) found.push({ path, count: matched.size, order });
      }
    };
    await Promise.all(Array.from({ length: SCAN_CONCURRENCY }, reader));
    if (found.length === 0 || signal?.aborted) continue;
    found.sort((a, b) => b.count - a.count || a.order - b.order);
    onFound(found.map((file) => file.path));
  }
}

/** Steps between two folders in the tree: up from `a` to the folder they share, then down to `b` (`''` is the root). */
export function folderDistance(a: string, b: string): number {
  const as = a === '' ? [] : a.split('/');
  const bs = b === '' ? [] : b.split('/');
  let shared = 0;
  while (shared < as.length && shared < bs.length && as[shared] === bs[shared]) shared++;
  return as.length - shared + (bs.length - shared);
}

/** The paths of a C file's `#include <...>` lines. */
function systemIncludes(text: string): string[] {
  return Array.from(text.matchAll(/^[ \t]*#[ \t]*include[ \t]*<([^>\n]+)>/gm), (match) => match[1]);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
