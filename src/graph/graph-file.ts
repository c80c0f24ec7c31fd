import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, fsyncSync, linkSync, openSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { STORE_FORMAT } from '../store/store.js';
import { errorMessage } from '../errors.js';
import { makeFolder } from '../paths.js';
import { unpersonalizedRanks } from '../rank/rank.js';
import { EDGE_WEIGHTS, RELATED_MODEL, RELATED_WEIGHTS } from '../model.js';
import { withRoom } from './edge-buffers.js';
import type { ReferenceGraph } from './graph.js';
import type { SavedRelated } from './graph-types.js';
import type { IndexStats } from '../api/types.js';

/**
 * The related graph saved between runs, next to the tag store: a warm start reads it instead of
 * deriving every file's edges. It is a cache: it holds the content hash of each file it was built
 * from, and is used only when every one matches (and the weights and formats are this code's);
 * anything else, a missing, torn or foreign file included, means building the graph as usual.
 *
 * Layout: a magic line, the header's length (u32), the header (JSON: key, paths, hashes, idents,
 * the edge and definition counts, the arrays' CRC-32), zeros to a multiple of 8, then the arrays
 * (ARRAYS, the f64 ones first). Each array is read into a buffer of its own, those a change
 * patches (see EdgeBuffers) with room after them for the edges later changes add.
 */
const MAGIC = Buffer.from('repomap related graph\n');
const FILE_NAME = 'related-graph.bin';
/** Bump when the layout or the meaning of the arrays changes (the way the ranks are computed included). */
const GRAPH_FILE_FORMAT = 8;
const KEY = JSON.stringify({ format: GRAPH_FILE_FORMAT, store: STORE_FORMAT, edges: EDGE_WEIGHTS, related: RELATED_WEIGHTS, damping: RELATED_MODEL.damping });

interface Header {
  key: string;
  /** What the project files (tsconfig.json, go.mod, ...) and the languages were when it was built (see graphInputsKey). */
  project: string;
  paths: string[];
  hashes: string[];
  idents: string[];
  edges: number;
  /** How many definition hashes there are (see NameIndex.definitionHashes); null when none were saved. */
  definitions: number | null;
  /** How many entries the merged walk has (see RelatedGraph.walk); null when it was not saved. */
  walkEntries: number | null;
  /** CRC-32 of the arrays' bytes: a file whose arrays changed after it was written is not read. */
  checksum: number;
}

type ArrayName = Exclude<keyof SavedRelated, 'paths' | 'idents' | 'room'>;

/** The counts an array's length follows: edges, nodes, definition hashes and walk entries (null: none saved). */
interface Counts {
  e: number;
  n: number;
  d: number | null;
  w: number | null;
}

/**
 * The arrays in file order, each with its element size and its length. The walk's unpersonalized
 * ranks are saved (else a warm start's first map computes them), and so are the merged walk and
 * the forward totals: deriving them again costs a start more than reading them (their pages are
 * faulted in by the read, on libuv's threads, not by the main thread writing fresh arrays).
 */
const ARRAYS: ReadonlyArray<{ name: ArrayName; bytes: 8 | 4 | 1; length: (counts: Counts) => number; patched?: true }> = [
  { name: 'weights', bytes: 8, length: ({ e }) => e, patched: true },
  { name: 'walkRanks', bytes: 8, length: ({ n }) => n },
  { name: 'walkWeights', bytes: 8, length: ({ w }) => w ?? 0, patched: true },
  { name: 'forwardTotal', bytes: 8, length: ({ n, w }) => (w === null ? 0 : n) },
  { name: 'offsets', bytes: 4, length: ({ n }) => n + 1 },
  { name: 'targets', bytes: 4, length: ({ e }) => e, patched: true },
  { name: 'edgeIdent', bytes: 4, length: ({ e }) => e, patched: true },
  { name: 'definitionOffsets', bytes: 4, length: ({ n, d }) => (d === null ? 0 : n + 1) },
  { name: 'definitionHashes', bytes: 4, length: ({ d }) => d ?? 0 },
  { name: 'walkOffsets', bytes: 4, length: ({ n, w }) => (w === null ? 0 : n + 1) },
  { name: 'walkTargets', bytes: 4, length: ({ w }) => w ?? 0, patched: true },
  { name: 'walkSlot', bytes: 4, length: ({ e, w }) => (w === null ? 0 : e), patched: true },
  { name: 'forward', bytes: 1, length: ({ e }) => e, patched: true },
];
/** The arrays of the walk: all saved, or none. */
const WALK: ReadonlyArray<ArrayName> = ['walkOffsets', 'walkTargets', 'walkWeights', 'walkSlot', 'forwardTotal'];

const NO_REQUEST = { chatFiles: new Set<string>(), mentionedIdents: new Set<string>() };
/** The bytes of an array not saved. */
const NONE = new Uint8Array(0);

/**
 * What a saved related graph depends on besides its files' contents and this code: the project
 * files that resolution reads (`projectKey`, see ImportLookup.projectKey) and the languages whose
 * tags it was built from (`languages`: extension to language and query signature, see
 * TagStore.languageSignatures): a changed query changes the edges of files whose contents did not.
 * The saves and restores below take it as their `inputsKey`.
 */
export function graphInputsKey(projectKey: string, languages: Readonly<Record<string, string>> | undefined): string {
  const digest = createHash('sha1').update(projectKey);
  for (const [extension, signature] of Object.entries(languages ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) digest.update(`\0${extension}\0${signature}`);
  return digest.digest('hex');
}

/** Content hash of an indexed file, by path (undefined: not indexed). */
export type HashOf = (path: string) => string | undefined;

/**
 * Writes the graph's related graph to `dir` (to a temporary file, flushed, then renamed: a crash
 * leaves the old file or the new one). Returns false when there is nothing current to save.
 */
export function saveRelatedGraph(graph: ReferenceGraph, dir: string, hashOf: HashOf, inputsKey: string): boolean {
  const parts = fileParts(graph, hashOf, inputsKey);
  if (!parts) return false;
  const target = join(dir, FILE_NAME);
  const temporary = `${target}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    try {
      for (const part of parts) writeSync(fd, part);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
  return true;
}

/** The file's bytes for the graph's related graph as it stands, in parts; undefined when there is nothing current to save. */
function fileParts(graph: ReferenceGraph, hashOf: HashOf, inputsKey: string): Uint8Array[] | undefined {
  const related = graph.savedRelated();
  if (!related) return undefined;
  // The ranks of the graph as it stands (the walk is the same whether merged anew or patched change by change).
  const saved = { ...related, walkRanks: unpersonalizedRanks(graph.compileRelated(NO_REQUEST)) };
  const hashes: string[] = [];
  for (const path of saved.paths) {
    const hash = hashOf(path);
    if (hash === undefined) return undefined; // not every node has a record: nothing to vouch for it with
    hashes.push(hash);
  }
  const arrays = ARRAYS.map(({ name }) => {
    const array = saved[name] ?? NONE;
    return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  });
  let checksum = 0;
  for (const bytes of arrays) checksum = crc32(bytes, checksum);
  const header: Header = {
    key: KEY,
    project: inputsKey,
    paths: [...saved.paths],
    hashes,
    idents: [...saved.idents],
    edges: saved.targets.length,
    definitions: saved.definitionHashes?.length ?? null,
    walkEntries: saved.walkTargets?.length ?? null,
    checksum,
  };
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  const padding = Buffer.alloc(pad(MAGIC.length + 4 + json.length));
  return [MAGIC, length, json, padding, ...arrays];
}

/** saveRelatedGraph, with a failure (a full disk, a read-only cache) told to `say` rather than thrown: the graph is only a cache. */
export function saveGraphOrSay(graph: ReferenceGraph, dir: string, hashOf: HashOf, inputsKey: string, say?: (message: string) => void): boolean {
  try {
    return saveRelatedGraph(graph, dir, hashOf, inputsKey);
  } catch (err) {
    sayUnsaved(dir, err, say);
    return false;
  }
}

function sayUnsaved(dir: string, err: unknown, say?: (message: string) => void): void {
  say?.(`repomap: could not save the related graph to ${dir} (${errorMessage(err)})`);
}

/** The shared cache's folder of related graphs (see publishRelatedGraph). */
const SHARED_GRAPHS_DIR = 'graphs';
/** Graphs the shared cache keeps, the most recently published or used: each is tens to hundreds of megabytes. */
const SHARED_GRAPHS_KEPT = 4;

/**
 * Where the shared cache keeps the related graph of the graph's files as they are: named by a
 * digest of this code's graph key, the graph's inputs (see graphInputsKey), and its paths and
 * content hashes, which another clone of the same tree computes alike (two versions of repomap, or
 * two roots whose queries differ, keep a file each). The digest only finds the file: it is
 * checked as the root's own is (restoreRelatedGraph).
 */
function sharedGraphFile(sharedDir: string, graph: ReferenceGraph, hashOf: HashOf, inputsKey: string): string {
  const digest = createHash('sha1').update(`${KEY}\0${inputsKey}\n`);
  for (const path of graph.filePaths()) digest.update(`${path}\0${hashOf(path) ?? ''}\n`);
  return join(sharedDir, SHARED_GRAPHS_DIR, `${digest.digest('hex')}.bin`);
}

/**
 * Gives `to` the content of `from` by way of a temporary name beside it, so that a reader finds the
 * old file or the whole new one: a hard link where the file system allows one (no copy of a graph
 * of a hundred megabytes), else a copy. Sharing the inode is safe: a graph file is never written
 * in place, only replaced by a rename (saveRelatedGraph, this), which leaves the other name's file as it was.
 */
function placeWhole(from: string, to: string): void {
  const temporary = `${to}.${process.pid}.tmp`;
  try {
    try {
      linkSync(from, temporary);
    } catch {
      copyFileSync(from, temporary); // another file system, or one without hard links
    }
    renameSync(temporary, to);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}

/**
 * Places the related graph the root's cache holds (`rootDir`: saved from `graph` as it stands) in
 * the shared cache (see placeWhole), where a clone of the same tree finds it (restoreSharedGraph) instead of
 * building its own; the shared cache keeps the SHARED_GRAPHS_KEPT most recent. A failure is told
 * to `say`: the shared graph is only a cache.
 */
export function publishRelatedGraph(graph: ReferenceGraph, rootDir: string, sharedDir: string, hashOf: HashOf, inputsKey: string, say?: (message: string) => void): boolean {
  try {
    const target = sharedGraphFile(sharedDir, graph, hashOf, inputsKey);
    const graphs = join(sharedDir, SHARED_GRAPHS_DIR);
    makeFolder(graphs, 0o700);
    placeWhole(join(rootDir, FILE_NAME), target);
    const byAge = readdirSync(graphs)
      .filter((name) => name.endsWith('.bin'))
      .map((name) => ({ file: join(graphs, name), mtime: statSync(join(graphs, name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime || a.file.localeCompare(b.file));
    for (const { file } of byAge.slice(SHARED_GRAPHS_KEPT)) if (file !== target) rmSync(file, { force: true });
    return true;
  } catch (err) {
    say?.(`repomap: could not publish the related graph to ${sharedDir} (${errorMessage(err)})`);
    return false;
  }
}

/** Where a restored graph came from: the root's own cache, or the shared one. */
export type RestoredFrom = 'the cache' | 'the shared cache';

/** Counts a restored graph in a pass's work counts, by where it came from. */
export function countRestored(stats: IndexStats, from: RestoredFrom): void {
  stats.restoredGraphs++;
  if (from === 'the shared cache') stats.restoredSharedGraphs++;
}

/**
 * Gives `graph` the root's saved related graph (`own`, read from `rootDir`), else the one another
 * clone of the same files published to the shared cache (`sharedDir`, when one is used). Returns
 * where it came from, or why neither was used (the root's own reason).
 */
export async function restoreSavedGraph(
  graph: ReferenceGraph,
  own: SavedGraphFile,
  { rootDir, sharedDir }: { rootDir: string; sharedDir?: string | undefined },
  hashOf: HashOf,
  inputsKey: string,
): Promise<RestoredFrom | Exclude<RestoreOutcome, 'restored'>> {
  const outcome = restoreRelatedGraph(graph, own, hashOf, inputsKey);
  if (outcome === 'restored') return 'the cache';
  if (sharedDir && (await restoreSharedGraph(graph, rootDir, sharedDir, hashOf, inputsKey)) === 'restored') return 'the shared cache';
  return outcome;
}

/**
 * Gives `graph` the related graph another clone of the same files published to the shared cache
 * (see publishRelatedGraph), checked as the root's own is, and places it in the root's cache
 * (`rootDir`, see placeWhole) for the next start. 'none saved' when the shared cache has none for these files.
 */
async function restoreSharedGraph(graph: ReferenceGraph, rootDir: string, sharedDir: string, hashOf: HashOf, inputsKey: string): Promise<RestoreOutcome> {
  const file = sharedGraphFile(sharedDir, graph, hashOf, inputsKey);
  const read = await readGraphFile(file);
  if (read === 'none saved') return read;
  const outcome = restoreRelatedGraph(graph, read, hashOf, inputsKey);
  if (outcome !== 'restored') return outcome;
  try {
    // Used: kept ahead of the graphs not used since (see publishRelatedGraph).
    const now = new Date();
    utimesSync(file, now, now);
    placeWhole(file, join(rootDir, FILE_NAME));
  } catch {
    // The root's next start looks in the shared cache again.
  }
  return outcome;
}

/** Why a saved graph was not used, or 'restored'. */
export type RestoreOutcome = 'restored' | 'none saved' | 'unreadable' | 'out of date';

/** A saved related graph read and parsed, not yet checked against the files; or why there is none. */
export type SavedGraphFile = { header: Header; saved: SavedRelated } | 'none saved' | 'unreadable';

/**
 * Reads the saved related graph of `dir`. Apart from restoreRelatedGraph, so that a start reads
 * it (tens of megabytes for a large repository) while git lists the files; and on libuv's threads,
 * which take the page faults of filling the arrays off the main thread.
 */
export function readSavedGraph(dir: string): Promise<SavedGraphFile> {
  return readGraphFile(join(dir, FILE_NAME));
}

/** A graph file read and parsed; 'none saved' when there is no regular file to read there (a FIFO would block the read for ever). */
async function readGraphFile(path: string): Promise<SavedGraphFile> {
  let handle: FileHandle;
  try {
    if (!(await lstat(path)).isFile()) return 'none saved';
    handle = await open(path, 'r');
  } catch {
    return 'none saved';
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return 'none saved';
    return (await readGraph(handle, stat.size)) ?? 'unreadable';
  } catch {
    return 'unreadable';
  } finally {
    await handle.close().catch(() => {});
  }
}

/** Reads `bytes.length` bytes at `position`; false when the file ends first. */
async function readFully(handle: FileHandle, bytes: Uint8Array, position: number): Promise<boolean> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesRead } = await handle.read(bytes, done, Math.min(bytes.length - done, 2 ** 30), position + done);
    if (bytesRead === 0) return false;
    done += bytesRead;
  }
  return true;
}

/** The graph of an open graph file of `size` bytes; undefined when it is not one of this layout, or its arrays' checksum fails. */
async function readGraph(handle: FileHandle, size: number): Promise<{ header: Header; saved: SavedRelated } | undefined> {
  const head = Buffer.alloc(MAGIC.length + 4);
  if (size < head.length || !(await readFully(handle, head, 0)) || !head.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const jsonLength = head.readUInt32LE(MAGIC.length);
  const jsonStart = head.length;
  if (jsonStart + jsonLength > size) return undefined;
  const json = Buffer.alloc(jsonLength);
  if (!(await readFully(handle, json, jsonStart))) return undefined;
  let header: Header;
  try {
    header = JSON.parse(json.toString('utf8')) as Header;
  } catch {
    return undefined;
  }
  const { paths, hashes, idents, edges, definitions, walkEntries, checksum } = header;
  if (!Array.isArray(paths) || !Array.isArray(hashes) || !Array.isArray(idents) || hashes.length !== paths.length) return undefined;
  if (!Number.isInteger(edges) || edges < 0) return undefined;
  if (definitions !== null && (!Number.isInteger(definitions) || definitions < 0)) return undefined;
  if (walkEntries !== null && (!Number.isInteger(walkEntries) || walkEntries < 0)) return undefined;
  const counts: Counts = { e: edges, n: paths.length, d: definitions, w: walkEntries };
  const start = jsonStart + jsonLength + pad(jsonStart + jsonLength);
  let at = start;
  for (const { bytes, length } of ARRAYS) at += bytes * length(counts);
  if (at !== size) return undefined;
  // Each array in a buffer of its own: one a change patches grows there, and lets go of its old
  // buffer alone (in one buffer, any array still in use would hold every other's bytes).
  const arrays: Record<string, Float64Array | Uint32Array | Uint8Array> = {};
  let sum = 0;
  at = start;
  for (const { name, bytes, length, patched } of ARRAYS) {
    const count = length(counts);
    const room = patched ? withRoom(count) : count;
    const array = bytes === 8 ? new Float64Array(room) : bytes === 4 ? new Uint32Array(room) : new Uint8Array(room);
    const view = new Uint8Array(array.buffer, 0, bytes * count);
    if (!(await readFully(handle, view, at))) return undefined;
    sum = crc32(view, sum);
    arrays[name] = array.subarray(0, count);
    at += bytes * count;
  }
  if (sum !== checksum) return undefined;
  if (definitions === null) {
    delete arrays.definitionOffsets;
    delete arrays.definitionHashes;
  } else if (arrays.definitionOffsets[counts.n] !== definitions) return undefined;
  if (walkEntries === null) for (const name of WALK) delete arrays[name];
  return { header, saved: { paths, idents, ...arrays, room: true } as unknown as SavedRelated };
}

/**
 * Gives the graph (all of whose files are in, and whose related graph was never built) the saved
 * related graph when it was built from the same files with the same contents, and the same
 * project files and languages (`inputsKey`, see graphInputsKey).
 */
export function restoreRelatedGraph(graph: ReferenceGraph, file: SavedGraphFile, hashOf: HashOf, inputsKey: string): RestoreOutcome {
  if (typeof file === 'string') return file;
  const { header, saved } = file;
  if (header.key !== KEY || header.project !== inputsKey) return 'out of date';
  for (let i = 0; i < header.paths.length; i++) if (hashOf(header.paths[i]) !== header.hashes[i]) return 'out of date';
  return graph.restoreRelated(saved) ? 'restored' : 'out of date';
}

/** Zero bytes that bring `length` to a multiple of 8. */
function pad(length: number): number {
  return (8 - (length % 8)) % 8;
}
