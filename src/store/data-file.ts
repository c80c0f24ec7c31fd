// An LMDB store's data file as repomap checks it around LMDB, which trusts it and maps it: its meta
// pages and size before LMDB opens it (garbage crashes the process with SIGSEGV, a truncated file
// with SIGBUS), its identity and size while it is open (a file cut under a running process), and a
// damaged store moved aside. The per-root store (store.ts) and the shared one (shared.ts) both use it.
import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { RepomapError, errorMessage } from '../errors.js';

/**
 * Moves a damaged store's folder aside to `<folder>.damaged` (the one moved before is dropped),
 * kept for a look and never read; one that cannot be moved is removed. Returns what was done, as
 * a notice says it; throws a 'refused' RepomapError when the store can be neither moved nor
 * removed (no new one can be made in its place). `what` names the store in that error.
 */
export function moveAside(folder: string, what: string): string {
  const aside = `${folder}.damaged`;
  try {
    rmSync(aside, { force: true, recursive: true });
    renameSync(folder, aside);
    return `moved aside to ${aside}`;
  } catch (moveError) {
    try {
      rmSync(folder, { force: true, recursive: true });
    } catch (removeError) {
      throw new RepomapError('refused', `${what} at ${folder} is damaged and can be neither moved aside nor removed (${errorMessage(removeError)}); remove it by hand`);
    }
    return `removed (it could not be moved aside: ${errorMessage(moveError)})`;
  }
}

const LMDB_MAGIC = 0xbeefc0de;
/**
 * Offsets in a meta page of lmdb-js's LMDB (its pages start with a 24-byte header): the magic
 * number, the page size (in the free database's record) and the last page used; `size` is what is read.
 */
const META = { magic: 24, pageSize: 48, lastPage: 144, size: 160 } as const;

/**
 * LMDB trusts its file: a data file with garbage meta pages crashes the process on open, and one
 * shorter than its meta pages say (truncated) crashes it with SIGBUS when a missing page is read.
 * Check both meta pages (magic number, page size) and the file's size against the last page they
 * name first, so such a file is rebuilt instead.
 */
export function checkDataFile(file: string): void {
  if (!existsSync(file)) return;
  const fd = openSync(file, 'r');
  try {
    const { size, named, lastPage, pageSize } = namedSize(fd);
    if (size < named) throw new Error(`truncated file: ${size} bytes, its meta pages name page ${lastPage} of ${pageSize} bytes`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Extends a data file to the last page its meta pages name. LMDB does not write the pages that a
 * transaction dirtied and freed again (its loose pages: mdb_page_flush skips them), and frees
 * them at the commit: a commit whose last allocated pages are such leaves the file shorter than
 * its meta pages say, with nothing in the missing pages, and checkDataFile would take it for a
 * truncated file at the next open. Only inside a write transaction (no writer of any process
 * allocates those pages meanwhile), and only ever growing the file: the pages added are zeros
 * that nothing references.
 */
export function coverNamedPages(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    const { size, named } = namedSize(fd);
    if (size < named) ftruncateSync(fd, named);
  } finally {
    closeSync(fd);
  }
}

/**
 * A data file's size and the size its meta pages name (the larger of the two's last page, plus
 * one, in pages: either may be the one in use, since LMDB takes the one with the higher
 * transaction id); throws for garbage meta pages or a file shorter than both of them.
 */
function namedSize(fd: number): { size: number; named: number; lastPage: bigint; pageSize: number } {
  const size = fstatSync(fd).size;
  const meta = Buffer.alloc(META.size);
  if (readSync(fd, meta, 0, META.size, 0) < META.size || meta.readUInt32LE(META.magic) !== LMDB_MAGIC) throw new Error('bad LMDB header');
  const pageSize = meta.readUInt32LE(META.pageSize);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0 || size < 2 * pageSize) {
    throw new Error('bad LMDB page size or truncated file');
  }
  let lastPage = meta.readBigUInt64LE(META.lastPage);
  if (readSync(fd, meta, 0, META.size, pageSize) < META.size || meta.readUInt32LE(META.magic) !== LMDB_MAGIC) throw new Error('bad LMDB header');
  const second = meta.readBigUInt64LE(META.lastPage);
  if (second > lastPage) lastPage = second;
  return { size, named: Number((lastPage + 1n) * BigInt(pageSize)), lastPage, pageSize };
}

/**
 * What a process knows of a store's data file it has open: which file it is, and the largest size
 * seen. LMDB only ever grows its data file (as coverNamedPages does), so a smaller one was cut by
 * something else, and a page LMDB then reads past the new end kills the process with SIGBUS, which
 * no handler can catch: `damage` tells before the store is read or written again.
 */
export class OpenDataFile {
  private constructor(
    private readonly file: string,
    private readonly dev: number,
    private readonly ino: number,
    private size: number,
  ) {}

  /** The data file as it is now (just opened); undefined when there is none. */
  static at(file: string): OpenDataFile | undefined {
    const info = statSync(file, { throwIfNoEntry: false });
    return info ? new OpenDataFile(file, info.dev, info.ino, info.size) : undefined;
  }

  /**
   * Why the file LMDB maps can no longer be read safely: removed or replaced at its path (LMDB
   * reads the one it opened, no longer the store's), cut shorter than it was, or its meta pages
   * overwritten. Undefined while none of that is seen. Damage inside the file (a page overwritten
   * in place, its size kept) is not seen here: LMDB meets it as it reads, as an error or a crash.
   */
  damage(): string | undefined {
    const info = statSync(this.file, { throwIfNoEntry: false });
    if (!info) return 'its data file was removed while it was open';
    if (info.dev !== this.dev || info.ino !== this.ino) return 'its data file was replaced by another file while it was open';
    if (info.size < this.size) return `its data file was truncated while it was open (${info.size} bytes, it had ${this.size})`;
    this.size = info.size;
    try {
      const fd = openSync(this.file, 'r');
      try {
        namedSize(fd);
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      return `its data file was overwritten while it was open (${errorMessage(err)})`;
    }
    return undefined;
  }
}
