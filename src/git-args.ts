// The command line of every git command repomap runs. A repository's own `.git/config` is as
// untrusted as its files (a folder handed over whole, an archive, carries one): it may name
// programs for git to run on a plain read, which repomap never wants run. These settings, given on
// the command line, win over any config file.
//   core.fsmonitor=false     an fsmonitor hook runs on `git ls-files --others`, `check-ignore`, ...
//   log.showSignature=false  a signature check runs `gpg.program` on `git log`
//   core.quotepath=off       names are written as they are (UTF-8), not quoted
const SAFE_CONFIG = ['-c', 'core.fsmonitor=false', '-c', 'log.showSignature=false', '-c', 'core.quotepath=off'] as const;

/** git's arguments for `args`, after the settings above. */
export function gitArgs(args: readonly string[]): string[] {
  return [...SAFE_CONFIG, ...args];
}
