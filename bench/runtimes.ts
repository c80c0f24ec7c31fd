// The two parse runtimes on the same files: the JavaScript grammar as a native addon
// (tree-sitter-javascript) and as WebAssembly (tree-sitter-wasms' build, run by web-tree-sitter),
// parse only (no query), each figure the median of --runs rounds over every file.
//
//   node dist/bench/runtimes.js [--dir DIR] [--max-mb 20] [--runs 3]
//
// DIR defaults to this package's node_modules: its .js files of 1 KB to 200 KB, in path order,
// up to --max-mb of source.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Parser from 'tree-sitter';
import { Language, Parser as WasmParser } from 'web-tree-sitter';
import { packageRoot } from '../src/paths.js';

const require = createRequire(import.meta.url);
const { values } = parseArgs({ options: { dir: { type: 'string' }, 'max-mb': { type: 'string', default: '20' }, runs: { type: 'string', default: '3' } } });
const maxBytes = Number(values['max-mb']) * 1024 * 1024;
const runs = Number(values.runs);

function* jsFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* jsFiles(path);
    else if (entry.isFile() && entry.name.endsWith('.js')) yield path;
  }
}

const sources: string[] = [];
let bytes = 0;
for (const file of jsFiles(values.dir ?? join(packageRoot, 'node_modules'))) {
  const size = statSync(file).size;
  if (size < 1024 || size > 200 * 1024) continue;
  sources.push(readFileSync(file, 'utf8'));
  bytes += size;
  if (bytes >= maxBytes) break;
}

const native = new Parser();
native.setLanguage(require('tree-sitter-javascript') as Parser.Language);
await WasmParser.init();
const wasm = new WasmParser();
wasm.setLanguage(await Language.load(require.resolve('tree-sitter-wasms/out/tree-sitter-javascript.wasm')));

const runtimes: Record<string, (source: string) => void> = {
  native: (source) => void native.parse(source).rootNode,
  wasm: (source) => wasm.parse(source)?.delete(),
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${sources.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MB of JavaScript`);
for (const [name, parse] of Object.entries(runtimes)) {
  parse(sources[0]); // warm
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    for (const source of sources) parse(source);
    times.push((performance.now() - start) / 1000);
  }
  const seconds = median(times);
  console.log(`${name}: ${(bytes / 1024 / 1024 / seconds).toFixed(2)} MB/s, ${Math.round(sources.length / seconds)} files/s (${seconds.toFixed(2)} s)`);
}
