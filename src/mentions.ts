// What a free-text request mentions, extracted as Aider does: identifiers are its words; files are
// the words that name a path, or a basename that only one file has.

const TRAILING_PUNCTUATION = /[,.!;:?]+$/;
const QUOTES = /^["'`*_]+|["'`*_]+$/g;

/** Every word of the message, split on non-word characters. */
export function mentionedIdentifiers(message: string): Set<string> {
  return new Set(message.split(/[^\p{L}\p{N}_]+/u).filter((word) => word.length > 0));
}

/**
 * Paths (from `paths`) that the message names, by full relative path, or by a basename that is
 * distinctive (has a dot, underscore, dash or slash) and unique among the paths. A basename
 * shared with a chat file is not taken as a mention.
 */
export function mentionedFiles(message: string, paths: readonly string[], chatFiles: ReadonlySet<string>): Set<string> {
  const words = new Set(
    message
      .split(/\s+/)
      .map((word) => word.replace(TRAILING_PUNCTUATION, '').replace(QUOTES, '').replaceAll('\\', '/'))
      .filter((word) => word.length > 0),
  );
  const chatBasenames = new Set([...chatFiles].map(basename));
  const found = new Set<string>();
  const byBasename = new Map<string, string[]>();
  for (const path of paths) {
    if (chatFiles.has(path)) continue;
    if (words.has(path)) found.add(path);
    const name = basename(path);
    if (/[./_-]/.test(name)) {
      const list = byBasename.get(name);
      if (list) list.push(path);
      else byBasename.set(name, [path]);
    }
  }
  for (const [name, candidates] of byBasename) {
    if (candidates.length === 1 && words.has(name) && !chatBasenames.has(name)) found.add(candidates[0]);
  }
  return found;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
