// The blob ids of a work tree's tracked files, read from git's index file (one read of the index,
// none of the files): the content key under which another clone's tags are found (see SharedTags).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { FileStat } from '../records.js';
import { gitArgs } from '../git-args.js';

interface IndexEntry {
  blob: string;
  mtimeMs: number;
  ctimeMs: number;
  size: number;
}

/** The tracked files of a root with what git's index says of them, and when the index was written. */
export class GitBlobs {
  private constructor(
    private readonly entries: ReadonlyMap<string, IndexEntry>,
    /** The index file's mtime: a file modified at that time or later may differ from its entry ("racy"). */
    private readonly indexMtimeMs: number,
  ) {}

  /**
   * The blob ids of the root's tracked files (paths relative to the root, which may be a folder
   * of the work tree); undefined outside git, or for an index this reader does not read (version
   * 4, split or sparse indexes): the content keys are then not known without reading the files.
   */
  static read(root: string): GitBlobs | undefined {
    const found = spawnSync('git', gitArgs(['rev-parse', '--show-prefix', '--git-path', 'index']), { cwd: root, encoding: 'utf8' });
    if (found.status !== 0) return undefined;
    const [prefix, indexPath] = found.stdout.split('\n');
    const file = isAbsolute(indexPath) ? indexPath : join(root, indexPath);
    try {
      const entries = parseIndex(readFileSync(file), prefix);
      return entries && new GitBlobs(entries, statSync(file).mtimeMs);
    } catch {
      return undefined; // no index yet (a repository without a commit), or unreadable
    }
  }

  /**
   * The blob id of a tracked file whose stat matches its index entry (size, and mtime and ctime to
   * the millisecond) and was not modified as late as the index was written: git itself takes such
   * a file as unmodified. Undefined for any other file.
   */
  unmodified(path: string, stat: FileStat): string | undefined {
    const entry = this.entries.get(path);
    if (!entry || entry.size !== stat.size || Math.floor(entry.mtimeMs) !== Math.floor(stat.mtimeMs)) return undefined;
    if (Math.floor(entry.ctimeMs) !== Math.floor(stat.ctimeMs)) return undefined;
    return stat.mtimeMs < this.indexMtimeMs ? entry.blob : undefined;
  }
}

/** Entries of an index file of version 2 or 3 under `prefix`, by path relative to it; undefined for others. */
function parseIndex(data: Buffer, prefix: string): Map<string, IndexEntry> | undefined {
  if (data.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = data.readUInt32BE(4);
  if (version !== 2 && version !== 3) return undefined;
  const count = data.readUInt32BE(8);
  const entries = new Map<string, IndexEntry>();
  let at = 12;
  for (let i = 0; i < count; i++) {
    const ctimeMs = data.readUInt32BE(at) * 1000 + data.readUInt32BE(at + 4) / 1e6;
    const mtimeMs = data.readUInt32BE(at + 8) * 1000 + data.readUInt32BE(at + 12) / 1e6;
    const mode = data.readUInt32BE(at + 24);
    const size = data.readUInt32BE(at + 36);
    const blob = data.toString('hex', at + 40, at + 60);
    const flags = data.readUInt16BE(at + 60);
    const extended = (flags & 0x4000) !== 0;
    // Skip-worktree (0x4000) and intent-to-add (0x2000) entries hold no blob of the file on disk.
    const noBlob = extended && (data.readUInt16BE(at + 62) & 0x6000) !== 0;
    const nameStart = at + 62 + (extended ? 2 : 0);
    const nameEnd = data.indexOf(0, nameStart);
    const path = data.toString('utf8', nameStart, nameEnd);
    // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
    at += Math.floor((nameEnd - at + 8) / 8) * 8;
    const stage = (flags >> 12) & 0x3;
    const regularFile = (mode & 0o170000) === 0o100000;
    if (stage !== 0 || !regularFile || noBlob || !path.startsWith(prefix)) continue;
    entries.set(path.slice(prefix.length), { blob, mtimeMs, ctimeMs, size });
  }
  return entries;
}

/** Git's blob id of a content (what `git hash-object` prints). */
export function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}
