import { escapeControls } from '../paths.js';
import type { MapLine } from '../api/types.js';

export const SHOWN_MARK = '│';
export const ELIDED_MARK = '…';

/** A shown line (see MapLine), its line 0-based here: publicMap makes it 1-based for callers. */
export type ShownLine = MapLine;

/** One file of a map: its shown lines (0-based line numbers, sorted), or none for a bare path. */
export interface MapBlock {
  path: string;
  rank: number;
  /** The file's language (its extraction's id), for a markdown fence; '' when it has no outline. */
  lang: string;
  lines: ShownLine[];
  /** Lines in the file, to know whether anything follows the last shown line. */
  lineCount: number;
}

/** How the map is dressed for a prompt. */
export interface RenderStyle {
  /** Start with a short instruction: these are read-only summaries until added to the chat. */
  preamble?: boolean;
  /** Put each file's lines in a fenced code block, for chat UIs that render markdown. */
  markdown?: boolean;
}

/** Aider's framing of the map as a prompt block. */
export const PREAMBLE = [
  'Here are summaries of some files present in my git repository.',
  'Do not propose changes to these files, treat them as *read-only*.',
  'If you need to edit any of these files, ask me to *add them to the chat* first.',
].join('\n');

/**
 * Renders blocks as the text map: `path:` then `│`-prefixed shown lines with `…` wherever lines
 * are elided; a block with nothing to show is its bare path. A blank line separates blocks,
 * except between consecutive bare paths, which are written by folder (see barePathLines). An
 * optional footer ends the map. Control characters in a path are escaped (see escapeControls): a
 * file named `new\nline.py` is one map line.
 */
export function renderText(blocks: readonly MapBlock[], footer = '', style: RenderStyle = {}): string {
  const out: string[] = [];
  if (style.preamble && blocks.length > 0) out.push(PREAMBLE, '');
  const start = out.length;
  for (let k = 0; k < blocks.length; ) {
    if (out.length > start) out.push('');
    if (blocks[k].lines.length === 0) {
      const run: string[] = [];
      for (; k < blocks.length && blocks[k].lines.length === 0; k++) run.push(escapeControls(blocks[k].path));
      out.push(...barePathLines(run));
      continue;
    }
    const block = blocks[k++];
    out.push(`${escapeControls(block.path)}:`);
    if (style.markdown) out.push('```' + block.lang);
    let next = 0; // the first line not yet accounted for
    for (const { line, text } of block.lines) {
      if (line > next) out.push(ELIDED_MARK);
      out.push(SHOWN_MARK + text); // stored lines are bounded (MAX_STORED_LINE), and come escaped (Outline.lineText)
      next = line + 1;
    }
    if (next < block.lineCount) out.push(ELIDED_MARK);
    if (style.markdown) out.push('```');
  }
  if (footer) {
    if (out.length > 0) out.push('');
    out.push(footer);
  }
  return out.length > 0 ? out.join('\n') + '\n' : '';
}

/** A path that a brace list would misread: it is written on its own line. */
const BRACE_SYNTAX = /[{},]/;

/**
 * A run of bare paths, a line per folder: `src/app/{a.ts,b.ts}` for the files of one folder, each
 * folder where its best-ranked file is, the files in rank order. A path costs about as many tokens
 * as its folders, so the run names more files in the same tokens where folders repeat.
 */
export function barePathLines(paths: readonly string[]): string[] {
  const byFolder = new Map<string, string[]>();
  const lines: Array<string | string[]> = [];
  for (const path of paths) {
    const slash = path.lastIndexOf('/');
    const name = path.slice(slash + 1);
    if (slash < 0 || BRACE_SYNTAX.test(path)) {
      lines.push(path);
      continue;
    }
    const folder = path.slice(0, slash + 1);
    const names = byFolder.get(folder);
    if (names) names.push(name);
    else {
      const group = [folder, name];
      byFolder.set(folder, group);
      lines.push(group);
    }
  }
  return lines.map((line) => (typeof line === 'string' ? line : line.length === 2 ? line.join('') : `${line[0]}{${line.slice(1).join(',')}}`));
}
