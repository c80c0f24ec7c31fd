// Memory per indexed file, as every bench reports it beside the totals: a process's resident
// memory (its peak, or what it settled at) divided by the files it indexed.

import { readFileSync } from 'node:fs';

/** Bytes of resident memory per indexed file; undefined when no file was indexed. */
export function bytesPerFile(rssBytes: number, files: number): number | undefined {
  return files > 0 && Number.isFinite(rssBytes) ? Math.round(rssBytes / files) : undefined;
}

/** A bytes-per-file figure for a table: "24.6 KiB/file", or "-" when there is none. */
export function formatPerFile(bytes: number | undefined): string {
  if (bytes === undefined) return '-';
  const kib = bytes / 1024;
  return `${kib >= 100 ? kib.toFixed(0) : kib.toFixed(1)} KiB/file`;
}

/** A resident memory figure and its share per file, for a line: "1,355 MiB (24.6 KiB/file)". */
export function formatRss(rssBytes: number, files: number): string {
  const mib = Math.round(rssBytes / 2 ** 20).toLocaleString('en-US');
  return `${mib} MiB (${formatPerFile(bytesPerFile(rssBytes, files))})`;
}

/**
 * A live process's peak and current resident memory in bytes (VmHWM and VmRSS from
 * /proc/PID/status); undefined where /proc has no such process (another system, or it exited).
 */
export function processMemory(pid: number): { peakBytes: number; rssBytes: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s*(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  const peakBytes = kib('VmHWM');
  const rssBytes = kib('VmRSS');
  return Number.isFinite(peakBytes) && Number.isFinite(rssBytes) ? { peakBytes, rssBytes } : undefined;
}
