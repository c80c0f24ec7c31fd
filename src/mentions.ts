// What a free-text request mentions, extracted as Aider does: identifiers are its words; files are
// the words that name a path, or a basename that only one file has. And the identifiers a
// request's file writes, beyond those its tags reference.
import { readFileSync, statSync } from 'node:fs';

const TRAILING_PUNCTUATION = /[,.!;:?]+$/;
const QUOTES = /^["'`*_]+|["'`*_]+$/g;

/**
 * The identifiers a message mentions. A word written as code is taken whatever it is: inside
 * backticks, a dotted name (`a.b`: both parts) or a call (`f()`). Any other word is taken unless it
 * is shorter than 3 characters or a stop word: English function words and the verbs and nouns of
 * a request (`make`, `fix`, `file`), which would otherwise pull in files named after them
 * (`of` pulled in `of.ts`) and weigh references to them.
 */
export function mentionedIdentifiers(message: string): Set<string> {
  const found = identifiersWrittenAsCode(message);
  for (const word of words(message)) {
    if (word.length >= MIN_WORD_LENGTH && !STOP_WORDS.has(word.toLowerCase())) found.add(word);
  }
  return found;
}

/** The identifiers a message writes as code (see mentionedIdentifiers): named as a --mention names them, whatever they are. */
export function identifiersWrittenAsCode(message: string): Set<string> {
  const found = new Set<string>();
  for (const code of codeForms(message)) for (const word of words(code)) found.add(word);
  return found;
}

const MIN_WORD_LENGTH = 3;
const IDENT = '[\\p{L}_$][\\p{L}\\p{N}_$]*';
/** Code in a message: `backticked` (\x60 is the backtick), a dotted name (a.b, a.b.c), a call f( ... ). */
const CODE_FORMS = new RegExp(`\\x60([^\\x60]+)\\x60|(${IDENT}(?:\\.${IDENT})+)|(${IDENT})\\(`, 'gu');
/** A dotted word that ends like a file name (inventory.py, README.md) is a file, not code. */
const FILE_NAME = /\.(py|pyi|ts|tsx|mts|cts|js|jsx|mjs|cjs|rs|go|java|c|h|cc|cpp|hpp|cs|rb|php|kt|kts|scala|sh|lua|ex|exs|hs|ml|md|txt|json|yaml|yml|toml|lock|cfg|ini|html|css|xml|sql|sum|mod)$/i;

function* codeForms(message: string): Generator<string> {
  for (const match of message.matchAll(CODE_FORMS)) {
    if (match[2] !== undefined && FILE_NAME.test(match[2])) continue;
    yield match[1] ?? match[2] ?? match[3];
  }
}

function words(text: string): string[] {
  return text.split(/[^\p{L}\p{N}_]+/u).filter((word) => word.length > 0);
}

const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'the and for are but not you all any can had her was one our out has him his how its may new now old see two way who ' +
    'did get got let put say she too use via yet also been from have here into just like make made more most much must ' +
    'only over same some such than that them then they this very what when where which while will with would your ' +
    'about above after again against because before being below between both could does doing down during each few ' +
    'further having itself more once other ought should their theirs there these those through under until upon why ' +
    'please want need needs add adds change changes fix fixes update updates remove removes instead should thing things ' +
    'file files code line lines work works working make makes making sure also able bug bugs issue issues'
  ).split(' '),
);

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

/** Files larger than this are not read for their identifiers: a request's file is source a model edits. */
const MAX_SCANNED_BYTES = 1 << 20;

/**
 * The identifiers written in the file at `absolutePath` and how often each appears (comments and
 * strings included: a name written there is a name the file's author had in mind). Empty when the
 * file cannot be read: it was removed since it was indexed, and its tags still stand for it.
 */
export function identifiersInFile(absolutePath: string): Map<string, number> {
  const counts = new Map<string, number>();
  let text: string;
  try {
    if (statSync(absolutePath).size > MAX_SCANNED_BYTES) return counts;
    text = readFileSync(absolutePath, 'utf8');
  } catch {
    return counts; // removed since it was indexed: its tagged references still stand for it
  }
  for (const [word] of text.matchAll(IDENTIFIER)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

const IDENTIFIER = new RegExp(IDENT, 'gu');
