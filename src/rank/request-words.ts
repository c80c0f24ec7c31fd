// The request's words and how much each weighs. A word of the request held by a name (`stream` in
// `ListStream`) makes that name likelier needed; but a word that many of the names at hand hold
// (`input`, `state`, `value`) points at none of them in particular: each word weighs by how few
// of the names considered hold it, so a rare word counts in full and a common one for little.
import { NEEDED_MODEL } from '../model.js';

const { wordMatchBoost: WORD_MATCH_BOOST, specificWordMatches: SPECIFIC_MATCHES } = NEEDED_MODEL;

/** How much the request's words point at names, each word by how specific it is among a pool of names. */
export interface RequestWords {
  /** Whether the request has any word. */
  readonly any: boolean;
  /** 1 when the name holds none of the words, else 1 plus NEEDED_MODEL.wordMatchBoost times each held word's specificity. */
  boost(ident: string): number;
  /** The specificity of the words a name holds, the most specific one's (0 when it holds none): 1 for a word few names hold, less for one many do. */
  specificity(ident: string): number;
}

/**
 * The words of `mentionedIdents` (see identifierWords), each weighing min(1, the square root of
 * specificWordMatches over the names of `pool` holding it): a word the pool's names hold at most
 * that often weighs in full, one a hundred times as many hold a tenth.
 */
export function requestWords(mentionedIdents: Iterable<string>, pool: Iterable<string>): RequestWords {
  const words = new Set([...mentionedIdents].flatMap(identifierWords));
  const list = [...words];
  const holds = (ident: string) => {
    // Most names hold none of the words: a substring test rules them out before any split.
    const lower = ident.toLowerCase();
    return list.some((word) => lower.includes(word)) ? identifierWords(ident).filter((word) => words.has(word)) : [];
  };
  const matches = new Map<string, number>();
  for (const ident of new Set(pool)) for (const word of new Set(holds(ident))) matches.set(word, (matches.get(word) ?? 0) + 1);
  const weightOf = (word: string) => Math.min(1, Math.sqrt(SPECIFIC_MATCHES / Math.max(1, matches.get(word) ?? 0)));
  return {
    any: words.size > 0,
    boost: (ident) => {
      let boost = 1;
      for (const word of holds(ident)) boost += WORD_MATCH_BOOST * weightOf(word);
      return boost;
    },
    specificity: (ident) => Math.max(0, ...holds(ident).map(weightOf)),
  };
}

/** The lower-case words of four letters or more of an identifier: `parseHTTPHeaders` gives parse, http, headers. */
export function identifierWords(ident: string): string[] {
  return ident
    .replace(/([\p{Ll}\p{Nd}])(\p{Lu})/gu, '$1_$2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1_$2')
    .split(/[_\-$]+/)
    .filter((word) => word.length >= 4)
    .map((word) => word.toLowerCase());
}
