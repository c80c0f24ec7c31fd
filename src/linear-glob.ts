// Exclude and include globs matched in linear time. picomatch compiles a glob to a regular
// expression that V8's backtracking engine runs in time exponential in the glob's `*`s on a name
// made for it (`*a*a*a*a*a*b` against 200 `a`s: minutes), and a repository's config names the globs
// as well as the files. V8's linear-time engine (the `l` flag, enabled here) runs no lookaround,
// and picomatch puts one around each segment; those are dropped where they cannot change the answer.
import v8 from 'node:v8';
import picomatch from 'picomatch';

/**
 * picomatch's guards that a segment is neither `.` nor `..` (with `dot`) and not empty. The paths
 * matched here are relative and normalized (discovery's, and their folders): no such segment, no
 * empty path. Dropping them changes no answer.
 */
const SEGMENT_GUARDS = ['(?!(?:^|\\/)\\.{1,2}(?:\\/|$))', '(?!\\.{1,2}(?:\\/|$))', '(?=.)'];

let linearEngine = false;

/**
 * The regular expression picomatch makes of `glob`, compiled for V8's linear-time engine; undefined
 * when it needs what that engine cannot run (a lookaround left: an extglob such as `*.!(js)`).
 * Throws as picomatch.makeRe throws on a glob it cannot compile.
 */
export function linearGlobRegExp(glob: string, options: picomatch.PicomatchOptions): RegExp | undefined {
  if (!linearEngine) {
    v8.setFlagsFromString('--enable-experimental-regexp-engine');
    linearEngine = true;
  }
  let source = picomatch.makeRe(glob, options).source;
  for (const guard of SEGMENT_GUARDS) source = source.split(guard).join('');
  try {
    return new RegExp(source, 'l');
  } catch {
    return undefined;
  }
}

/**
 * A test of paths against globs, as picomatch(globs, options) tests them (with `basename`, the last
 * name alone), in time linear in the path for each glob. Every glob must be one linearGlobRegExp
 * compiles (rootRelativeGlob refuses the others).
 */
export function linearGlobTest(globs: readonly string[], options: picomatch.PicomatchOptions & { basename?: boolean }): (path: string) => boolean {
  const { basename, ...compile } = options;
  const tests = globs.map((glob) => {
    const regexp = linearGlobRegExp(glob, compile);
    if (!regexp) throw new Error(`glob ${glob} cannot be matched in linear time`); // refused before: see rootRelativeGlob
    return (path: string) => path === glob || regexp.test(basename ? path.slice(path.lastIndexOf('/') + 1) : path);
  });
  return (path) => tests.some((test) => test(path));
}
