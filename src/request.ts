// What a map is asked for, and its budget. Shared by the engine, the daemon and the thin client,
// so it imports nothing heavy.
import { UserError } from './errors.js';

export const DEFAULT_TOKENS = 1024;
export const DEFAULT_MAX_TOKENS = 8192;
/** The largest budget a request may ask for (`tokens` and `maxTokens`): it bounds one request's work. */
export const MAX_TOKENS = 65536;
/** With no chat files the model knows nothing of the repository yet: the budget grows (Aider's map_mul_no_files). */
export const NO_CHAT_MULTIPLIER = 8;
export const DEFAULT_ENCODING = 'cl100k_base';
/** The tiktoken encodings a map can count with. */
export const ENCODINGS = ['cl100k_base', 'o200k_base', 'p50k_base', 'p50k_edit', 'r50k_base', 'gpt2'] as const;

/** The rankings a map can use: this project's (the default) and Aider's, reproduced exactly. */
export const RANKINGS = ['repomap', 'aider'] as const;
export type RankingName = (typeof RANKINGS)[number];
export const DEFAULT_RANKING: RankingName = 'repomap';

/** What a map is asked for. Paths are relative to the root (or absolute, inside it). */
export interface MapRequest {
  /** Files the model already has in full: the map shows first the code they use, and the ranking starts from them; they are not rendered. */
  chatFiles?: readonly string[];
  mentionedFiles?: readonly string[];
  mentionedIdents?: readonly string[];
  /** The user's request as free text: identifiers and file names are taken from it. */
  message?: string;
  /**
   * Token budget, at most MAX_TOKENS. Given, it is the budget; left out, it is 1024, multiplied by
   * 8 when there are no chat files, up to maxTokens.
   */
  tokens?: number;
  maxTokens?: number;
  /** tiktoken encoding used to count tokens (default cl100k_base). */
  encoding?: string;
  /** Start the map with a short instruction that the files shown are read-only summaries. */
  preamble?: boolean;
  /** Put each file's lines in a fenced block (markdown), for chat UIs. */
  markdown?: boolean;
  /** Which ranking model orders the map (default: this project's; 'aider' reproduces Aider's). */
  ranking?: RankingName;
  /** A daemon's answer lists every skipped file only when this is true (the counts are always there). */
  listSkipped?: boolean;
  /** Whether the map's last line (the skipped files by reason) ends saying --verbose lists them (default true; MCP answers have no flags). */
  verboseHint?: boolean;
  /**
   * While a first index is being built: answer after at most this many seconds from the files
   * indexed by then, those the request needs parsed first (a partial map, marked so). Left out,
   * the map waits for the whole index.
   */
  waitSeconds?: number;
}

/** How far the index was when a partial map was made: source files (those with a grammar) indexed, of those discovered. */
export interface PartialIndex {
  indexedFiles: number;
  files: number;
}

/** The bound of a request's wait in milliseconds (undefined: no bound), refused when it is no number of seconds. */
export function waitBoundMs(waitSeconds: number | undefined): number | undefined {
  if (waitSeconds === undefined) return undefined;
  if (typeof waitSeconds !== 'number' || !Number.isFinite(waitSeconds) || waitSeconds < 0) {
    throw new UserError(`--wait must be a number of seconds, 0 or more, not ${String(waitSeconds)}`);
  }
  return waitSeconds * 1000;
}

/** The seconds an option gives (`--wait 2.5`), refused unless a plain number, 0 or more. */
export function secondsOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value)) throw new UserError(`--${name} takes a number of seconds, 0 or more, not '${value}'`);
  return Number(value);
}

/** The line that starts a partial map's text output: what it is made of, and that a later one is complete. */
export function partialNote({ indexedFiles, files }: PartialIndex): string {
  return `(partial map: the index is still being built, ${indexedFiles} of ${files} source files indexed; ask again for the complete map)\n`;
}

/**
 * The token budget of a request, validated (and its ranking name, the other field a caller can get
 * wrong). A budget the caller gives is the cap; only the default grows when there is no chat file.
 */
export function budgetFor(request: MapRequest): number {
  if (request.ranking !== undefined && !(RANKINGS as readonly string[]).includes(request.ranking)) {
    throw new UserError(`unknown ranking '${request.ranking}' (known: ${RANKINGS.join(', ')})`);
  }
  const tokens = tokenCount(request.tokens ?? DEFAULT_TOKENS, 'tokens');
  const maxTokens = tokenCount(request.maxTokens ?? DEFAULT_MAX_TOKENS, 'max-tokens');
  if (request.tokens !== undefined || (request.chatFiles ?? []).length > 0) return tokens;
  return Math.max(tokens, Math.min(tokens * NO_CHAT_MULTIPLIER, maxTokens));
}

function tokenCount(value: number, name: string): number {
  if (!Number.isInteger(value) || value <= 0) throw new UserError(`--${name} must be a positive whole number, not ${value}`);
  if (value > MAX_TOKENS) throw new UserError(`--${name} must be at most ${MAX_TOKENS}, not ${value}`);
  return value;
}

/** What is said instead of a map when a root has no file to map (an empty repository or folder). */
export function nothingToMap(root: string): string {
  return `nothing to map in ${root}: it has no files to index`;
}

/** A map as text output: a partial map starts with the line that says so. */
export function textOutput(map: { text: string; partial?: PartialIndex }): string {
  return (map.partial ? partialNote(map.partial) : '') + map.text;
}
