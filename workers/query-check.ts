// The child process of src/extract/query-check.ts: compiles one project tag query, its grammar
// loaded as a parse loads it, and prints (one JSON line) whether tree-sitter took it and whether
// each regex its predicates make (#match? and the like) can run on V8's linear-time engine: it is
// started with --enable-experimental-regexp-engine, under which `new RegExp(pattern, 'l')` throws
// for one that cannot. A crash here ends this process only.
import { readFileSync } from 'node:fs';
import { errorMessage } from '../src/errors.js';
import { uncheckedCompiler } from '../src/extract/extract.js';
import type { ChildInput, ChildVerdict } from '../src/extract/query-check.js';
import { languageSet } from '../src/extract/user-languages.js';

const { override } = JSON.parse(readFileSync(0, 'utf8')) as ChildInput;
const lang = languageSet([override]).byIdOf(override.id);
if (!lang) throw new Error(`no language ${override.id}`);
let compile: Awaited<ReturnType<typeof uncheckedCompiler>>;
try {
  compile = await uncheckedCompiler(lang, override.queryText);
} catch (err) {
  const failed: ChildVerdict = { ok: false, grammar: errorMessage(err).split('\n')[0] };
  process.stdout.write(JSON.stringify(failed) + '\n');
  process.exit(0);
}

// The patterns the runtimes hand to RegExp while compiling: they build a predicate's regex then.
const patterns: string[] = [];
const NativeRegExp = RegExp;
globalThis.RegExp = new Proxy(NativeRegExp, {
  construct(target, args: unknown[], newTarget: NewableFunction) {
    patterns.push(String(args[0]));
    return Reflect.construct(target, args, newTarget) as object;
  },
});
let invalid: ReturnType<typeof compile>;
try {
  invalid = compile();
} finally {
  globalThis.RegExp = NativeRegExp;
}

function verdict(): ChildVerdict {
  if (invalid) return { ok: false, invalid };
  for (const pattern of patterns) {
    try {
      new RegExp(pattern, 'l');
    } catch {
      return { ok: false, regex: { pattern, reason: 'cannot run in linear time (a backreference, a lookaround, or a large repetition count)' } };
    }
  }
  return { ok: true };
}
process.stdout.write(JSON.stringify(verdict()) + '\n');
