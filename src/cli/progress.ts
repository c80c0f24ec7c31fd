/** How often the progress line is redrawn. */
const REDRAW_MS = 100;

/**
 * A one-line progress display on a terminal: files done of total, files per second, time left.
 * Silent when the stream is not a terminal (or when disabled), so logs and pipes stay clean.
 */
export function progressReporter(
  stream: NodeJS.WriteStream,
  enabled: boolean,
  label = 'indexing',
): { update: (done: number, total: number) => void; finish: () => void } {
  if (!enabled || !stream.isTTY) return { update: () => {}, finish: () => {} };
  // The rate counts from the first count seen: a client that joins a daemon's index midway does
  // not credit itself with what was done before it asked.
  let first: { at: number; done: number } | undefined;
  let lastDraw = 0;
  let drawn = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (total === 0) return;
      first ??= { at: now, done };
      if (now - lastDraw < REDRAW_MS && done < total) return;
      lastDraw = now;
      const seconds = (now - first.at) / 1000;
      const rate = seconds > 0 ? (done - first.done) / seconds : 0;
      const left = rate > 0 ? Math.ceil((total - done) / rate) : undefined;
      const line = `${label} ${done}/${total} files, ${Math.round(rate)} files/s${left === undefined ? '' : `, ${left} s left`}`;
      stream.write(`\r\x1b[K${line}`);
      drawn = true;
    },
    finish() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}
