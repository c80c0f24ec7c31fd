// The ranking model: every weight and constant the rankings are scored by, in one place. Code that
// builds graphs, ranks files or lays out a map reads them from here; the saved related graph is
// keyed by the ones its arrays depend on (graph-file.ts), so changing one rebuilds it.
//
// Two models live here. EDGE_WEIGHTS is Aider's (aider/repomap.py), kept as Aider has it so that
// the 'aider' ranking matches Aider's. The others are this project's ('repomap' ranking), chosen
// with `repomap eval` over a dev set of public repositories (see docs/ranking.md).
//
// Each object's field order is part of the saved graph's key: add fields at the end.

/** Aider's edge model: the multipliers applied to an identifier's edges. */
export const EDGE_WEIGHTS = {
  /** A name the request mentions: what the user talks about is what the map should reach. */
  mentionedIdent: 10,
  /** A compound name (snake_case, camelCase) of compoundMinLength or more characters: specific, so telling. */
  compoundIdent: 10,
  compoundMinLength: 8,
  /** A name starting with `_`: private, so rarely what another file is about. */
  privateIdent: 0.1,
  /** A name defined in more than widelyDefinedOver files (get, init): says little about which is meant. */
  widelyDefined: 0.1,
  widelyDefinedOver: 5,
  /** A reference from a chat file: the files the user works on lead the walk. */
  fromChatFile: 50,
  /** A definition nobody references keeps a self edge this heavy, so that it can still rank. */
  unreferencedSelfEdge: 0.1,
} as const;

/** The related graph's edges (the 'repomap' ranking): how a reference links files. */
export const RELATED_WEIGHTS = {
  /** A link also runs from the definer back to the referencing file, with this share of its weight: a file relates to what uses it. */
  reverse: 1,
  /** A reference resolving to more definers than this links none of them: its split weight is tiny and its links would outnumber all others. */
  maxDefiners: 10,
} as const;

/** The 'repomap' ranking's walk and the orders fused with it. */
export const RELATED_MODEL = {
  /** PageRank's damping over the related graph (Aider's value): the share of rank that follows edges rather than teleports. */
  damping: 0.85,
  /** Reciprocal rank fusion of the orders below: a file scores the sum of weight / (k + its 1-based position). */
  fusionK: 5,
  /** The related graph's PageRank order. */
  graphWeight: 1,
  /** Files by how many of the request's names they define or reference. */
  lexicalWeight: 1,
  /** Files by folder distance from the chat files: a change usually stays near. */
  folderWeight: 1,
  /** A chat file's test or subject (same name but for test_/_test/.test/.spec), when the name is rare. */
  partnerWeight: 1,
  /**
   * A name shared by more files than this (index, __init__, mod) pairs only the ones nearest the
   * chat file by folder (fewest folders up and down), and nothing when those are still more.
   */
  partnerMaxFiles: 3,
  /** The personalization's path match (Aider's) skips an identifier that matches more paths than this: `utils` names no one file. */
  pathMatchMaxFiles: 5,
  /** Files whose name (as for partners) is a mentioned identifier. */
  namedWeight: 1,
  /** Residual left per edge by the forward push of personalized requests (see pagerankPush): below it, a rank no longer moves the order. */
  pushEpsilon: 2e-6,
} as const;

/**
 * The share of a map's budget ('repomap' ranking, see layout.ts) that the code the request's files
 * use (needed.ts) may take, and more when the rest would exceed BREADTH_MAX_TOKENS. The rest names
 * files: the first few hundred tokens of bare paths hold most of the files a change touches, and
 * past them a signature the change calls serves more.
 */
export const NEEDED_SHARE = 5 / 8;
/** Breadth's tokens after a depth section, at most: a quarter of 4096. */
export const BREADTH_MAX_TOKENS = 1024;

/** Which definitions the depth section shows (needed.ts), and in what order. */
export const NEEDED_MODEL = {
  /** A name defined in more files than this, none imported or nearby, says too little about which is meant. */
  maxNameDefiners: 3,
  /** Definitions shown per (file, name): a second one (an overload, a setter, an alternative) adds less than another name. */
  maxDefinitionsPerName: 1,
  /** How surely a reference means its definers: through an import, in its own folder, by name alone (then also over the square root of the definers). */
  importedCertainty: 1,
  folderCertainty: 2 / 3,
  byNameCertainty: 1 / 2,
  /** Each word of the request a name holds multiplies its weight by one more times this, times the word's specificity (below). */
  wordMatchBoost: 1,
  /**
   * A word of the request held by at most this many of the names at hand (those the request's
   * files and their peers use, those of the files its words are matched in) weighs in full; one
   * held by more weighs the square root of this over their number (`input` in a terminal's code).
   */
  specificWordMatches: 30,
  /**
   * A plain word of a message weighing less than this is common: a name only such words point at,
   * which the request's files do not use, weighs at most belowCalled of the least name they use.
   */
  commonWord: 0.8,
  belowCalled: 0.999,
  /** A definition the request's files do not use yet, named in part by the request's words: less likely needed than one they use. */
  unusedName: 1 / 4,
  /** Files whose definitions are matched against the request's words: imported, beside, best ranked. */
  wordMatchFiles: 20,
  /**
   * The request's files' peers, whose references are read for names the request's files do not use
   * yet: this many of the files beside them (the first by path), and this many of the best ranked.
   */
  peerFolderFiles: 40,
  peerRankedFiles: 30,
  /** Such a name counts when at least this many peers reference it: what one calls is its own business. */
  peerMinUsers: 2,
  /**
   * The best-ranked files whose top-level API is listed with the imported modules': a change often
   * starts to use the file it is about (a test's subject, a caller's callee) without importing it yet.
   */
  rankedApiFiles: 10,
  /** Of several files a needed name may mean, those the request's ranking puts after the first weigh this share of the name's weight. */
  otherDefiners: 1 / 4,
} as const;

/** Which users of the chat files' definitions the depth section shows (users.ts). */
export const USERS_MODEL = {
  /** Links to a name of a file the chat files use that they define too (an interface their class implements) weigh this share. */
  throughShared: 1 / 2,
  /** A chat file's name the request names (a --mention, a name of two words or more) weighs this many times more, and so do its users. */
  mentionBoost: 4,
  /** Files whose references are read for users, those with most weight first: a map shows a few dozen users at most. */
  userFiles: 16,
  /** The share of the depth section's tokens the users may take; the code the request uses takes the rest. */
  share: 0.125,
  /**
   * Tokens the users may take at the least, past their share, from the breadth that follows (at
   * most leastTokensBound of the map's): at 1024 tokens the share holds four or five first lines,
   * fewer than the definitions a change lands in, and a name the breadth would list last is the
   * least likely needed.
   */
  leastTokens: 160,
  leastTokensBound: 1 / 6,
  /**
   * The best users shown with the line that uses the chat file (how its API is called); the
   * others by the first lines of their signatures alone, which name the definition a change lands
   * in for half the tokens: a user with its use line costs as much as two by their first lines.
   */
  useLines: 1,
} as const;

/** Which definitions the chat files' history shows (history/co-changes.ts, rank/co-changed.ts). */
export const HISTORY_MODEL = {
  /** The repository's commits looked at: the newest, with one parent each. */
  window: 2000,
  /** Of these, the commits read: the last that modified a chat file (and few source files). */
  commits: 40,
  /** Commits that changed more source files than this are not read: a sweep across the tree says little of any one file, and its diff is large. */
  maxFilesPerCommit: 30,
  /** A commit this many commits older than the newest weighs half as much. */
  halfWeightAge: 20,
  /**
   * Tokens the co-changed definitions may take, as a share of the depth section's, from the
   * breadth that follows it: taken from the code the request uses, they cost API recall.
   */
  share: 0.25,
  /** Below this many tokens the share shrinks in proportion: a small map's breadth names the files a change needs, and has few tokens to give. */
  fullShareFrom: 2048,
  /** A git command's output past this is not read (a commit that vendors a library can be a hundred megabytes). */
  maxBytes: 16 << 20,
  /** Each of its git commands' bound: a history that takes longer is left out of the map, with a note. */
  boundMs: 10_000,
} as const;

/**
 * Without a depth section, definitions get this share of the budget, up to DEFINITIONS_MAX_TOKENS;
 * the rest names files first: a change usually needs the right files more than every signature of one.
 */
export const DEFINITIONS_SHARE = 0.25;
export const DEFINITIONS_MAX_TOKENS = 768;
