import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CompiledGraph, EDGE_WEIGHTS, ReferenceGraph, identifierMultiplier, isCompoundIdentifier } from '../src/graph/graph.js';
import type { FileTags } from '../src/types.js';

function tags(defs: string[], refs: string[]): FileTags {
  return {
    lang: 'typescript',
    lineCount: 10,
    defs: defs.map((name, line) => ({ name, subkind: 'function', line, scopes: [] })),
    refs: refs.map((name, line) => ({ name, subkind: 'call', line })),
    lines: [],
  };
}

/** The compiled edges as readable triples "from -> to ident weight". */
function edges(graph: CompiledGraph): string[] {
  const out: string[] = [];
  for (let u = 0; u < graph.csr.nodeCount; u++) {
    for (let e = graph.csr.offsets[u]; e < graph.csr.offsets[u + 1]; e++) {
      const weight = Number(graph.csr.weights[e].toPrecision(12));
      out.push(`${graph.paths[u]} -> ${graph.paths[graph.csr.targets[e]]} ${graph.idents[graph.edgeIdent[e]]} ${weight}`);
    }
  }
  return out;
}

const none = { chatFiles: new Set<string>(), mentionedIdents: new Set<string>() };

test("edge weights follow Aider's model: sqrt of the reference count times the multipliers", () => {
  const graph = new ReferenceGraph();
  graph.setFile('a.ts', tags(['local'], ['parseConfig', 'parseConfig', 'parseConfig', 'parseConfig', 'run', '_hidden']));
  graph.setFile('b.ts', tags(['parseConfig', 'run', '_hidden'], []));
  assert.deepEqual(edges(graph.compile(none)), [
    'a.ts -> b.ts _hidden 0.1', // private: x0.1
    'a.ts -> b.ts parseConfig 20', // compound of 8+ chars: x10, times sqrt(4)
    'a.ts -> b.ts run 1',
    'a.ts -> a.ts local 0.1', // defined, referenced by nobody: a small self-edge
  ]);
  const chat = edges(graph.compile({ chatFiles: new Set(['a.ts']), mentionedIdents: new Set(['run']) }));
  assert.ok(chat.includes('a.ts -> b.ts run 500')); // mentioned x10, from a chat file x50
  assert.ok(chat.includes('a.ts -> b.ts parseConfig 1000'));
});

test('an identifier defined in more than five files is damped', () => {
  assert.equal(identifierMultiplier('render', 5, new Set()), 1);
  assert.equal(identifierMultiplier('render', 6, new Set()), EDGE_WEIGHTS.widelyDefined);
  assert.equal(identifierMultiplier('_render', 6, new Set(['_render'])), 10 * 0.1 * 0.1);
  assert.ok(isCompoundIdentifier('snake_case') && isCompoundIdentifier('kebab-case') && isCompoundIdentifier('camelCase'));
  assert.ok(!isCompoundIdentifier('lowercase') && !isCompoundIdentifier('UPPERCASE') && !isCompoundIdentifier('__'));
});

test('updating files in place gives the same graph as building it from scratch', () => {
  const incremental = new ReferenceGraph();
  incremental.setFile('c.ts', tags(['helperFunction'], ['mainEntry']));
  incremental.setFile('a.ts', tags(['mainEntry'], ['helperFunction', 'gone']));
  incremental.setFile('b.ts', tags(['gone', 'helperFunction'], []));
  incremental.setFile('b.ts', tags(['helperFunction'], ['mainEntry'])); // b changed
  incremental.setFile('d.ts', tags(['temporary'], ['helperFunction']));
  incremental.removeFile('d.ts'); // d deleted

  const scratch = new ReferenceGraph();
  scratch.setFile('a.ts', tags(['mainEntry'], ['helperFunction', 'gone']));
  scratch.setFile('b.ts', tags(['helperFunction'], ['mainEntry']));
  scratch.setFile('c.ts', tags(['helperFunction'], ['mainEntry']));
  const request = { chatFiles: new Set(['a.ts']), mentionedIdents: new Set(['gone']) };
  assert.deepEqual(edges(incremental.compile(request)), edges(scratch.compile(request)));
  assert.equal(incremental.fileCount, 3);
});

test('files with no edge are not nodes', () => {
  const graph = new ReferenceGraph();
  graph.setFile('lonely.ts', tags([], ['nothingDefinesThis']));
  graph.setFile('empty.ts', tags([], []));
  graph.setFile('def.ts', tags(['used'], []));
  graph.setFile('user.ts', tags([], ['used']));
  assert.deepEqual(graph.compile(none).paths, ['def.ts', 'user.ts']);
});
