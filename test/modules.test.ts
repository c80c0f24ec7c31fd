// The module specifiers each language's query captures into FileTags.modules: per language, a
// small source and the exact list, so a query that captures too much or too little fails here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractTags } from '../src/extract/extract.js';
import { languageById } from '../src/extract/languages.js';

function modulesOf(langId: string, source: string): string[] {
  const lang = languageById(langId);
  assert.ok(lang, `no language ${langId}`);
  const result = extractTags(lang, source);
  assert.ok(result.ok, `extraction failed: ${result.ok ? '' : result.detail}`);
  return result.tags.modules;
}

test('typescript: import, export from, require, import(), import = require', () => {
  const source = [
    "import { a } from './a.js';",
    "import type { T } from '@scope/types';",
    "import './side-effect';",
    "export * from '../reexport';",
    "export { b } from './b';",
    "import fs = require('node:fs');",
    "const c = require('./c');",
    "const lazy = await import('./lazy');",
    'const computed = await import(name);',
    "const notImport = load('./not-a-module');",
    "const notRequire = obj.require('./method-call');",
  ].join('\n');
  assert.deepEqual(modulesOf('typescript', source), [
    '../reexport', './a.js', './b', './c', './lazy', './side-effect', '@scope/types', 'node:fs',
  ]);
});

test('javascript and tsx share the ecma captures', () => {
  const source = "import x from './x.jsx';\nconst y = require('y');\nexport { z } from './z';\n";
  assert.deepEqual(modulesOf('javascript', source), ['./x.jsx', './z', 'y']);
  assert.deepEqual(modulesOf('tsx', source), ['./x.jsx', './z', 'y']);
});

test('python: dotted, aliased, from and relative imports', () => {
  const source = [
    'import os',
    'import a.b.c, d.e as f',
    'from g.h import i',
    'from . import j',
    'from ..pkg import (k,',
    '    l)',
    'from .m import n',
  ].join('\n');
  assert.deepEqual(modulesOf('python', source), ['.', '..pkg', '.m', 'a.b.c', 'd.e', 'g.h', 'os']);
});

test('go: single, grouped, named and raw-string imports', () => {
  const source = 'package x\n\nimport "fmt"\n\nimport (\n\tf "example.com/a/b"\n\t_ `example.com/c`\n)\n';
  assert.deepEqual(modulesOf('go', source), ['example.com/a/b', 'example.com/c', 'fmt']);
});

test('rust: mod declarations without a body, use arguments joined onto one line', () => {
  const source = [
    'mod a;',
    'pub(crate) mod b;',
    'mod inline { fn f() {} }',
    'use crate::a::{',
    '    B, // the B',
    '    c::D,',
    '};',
    'use super::x::Y as Z;',
    'use std::io;',
  ].join('\n');
  assert.deepEqual(modulesOf('rust', source), [
    'crate::a::{ B, c::D, }', 'mod a', 'mod b', 'std::io', 'super::x::Y as Z',
  ]);
});

test('java: class, static and wildcard imports; not the package', () => {
  const source = 'package p.q;\nimport a.b.C;\nimport a.b.*;\nimport static a.b.D.m;\nimport static a.b.E.*;\nclass K {}\n';
  assert.deepEqual(modulesOf('java', source), ['a.b.*', 'a.b.C', 'a.b.D.m', 'a.b.E.*']);
});

test('kotlin: imports and wildcard imports; not the package', () => {
  const source = 'package p.q\n\nimport a.b.C\nimport a.b.D as E\nimport x.y.*\n\nclass K\n';
  assert.deepEqual(modulesOf('kotlin', source), ['a.b.C', 'a.b.D', 'x.y.*']);
});

test('scala: imports as written, without the keyword', () => {
  const source = 'package p\n\nimport a.b.C\nimport a.b._\nimport x.y.{D, E => F}\n\nclass K\n';
  assert.deepEqual(modulesOf('scala', source), ['a.b.C', 'a.b._', 'x.y.{D, E => F}']);
});

test('csharp: using directives, not using statements', () => {
  const source = [
    'using System;',
    'using A.B;',
    'using static A.C;',
    'using X = A.D;',
    'namespace N { class K { void F() { using var r = G(); using (var s = H()) { } } } }',
  ].join('\n');
  assert.deepEqual(modulesOf('csharp', source), ['A.B', 'A.C', 'A.D', 'System']);
});

test('c and cpp: quoted includes only', () => {
  const source = '#include <stdio.h>\n#include "util.h"\n#include "sub/dir.h"\nint main(void) { return 0; }\n';
  assert.deepEqual(modulesOf('c', source), ['sub/dir.h', 'util.h']);
  assert.deepEqual(modulesOf('cpp', source), ['sub/dir.h', 'util.h']);
});

test('ruby: require as written, require_relative as a ./ path', () => {
  const source = "require 'json'\nrequire 'app/models/user'\nrequire_relative 'helper'\nrequire_relative '../lib/tool'\nobj.require 'not_this'\n";
  assert.deepEqual(modulesOf('ruby', source), ['../lib/tool', './helper', 'app/models/user', 'json']);
});

test('php: use clauses, group uses, require and include of strings', () => {
  const source = [
    '<?php',
    'namespace App;',
    'use App\\Models\\User;',
    'use App\\Services\\{Mailer, Queue as Q};',
    "require 'bootstrap.php';",
    "include_once('lib/util.php');",
    "require_once __DIR__ . '/config.php';",
    "$path = __DIR__ . '/data.json';",
  ].join('\n');
  assert.deepEqual(modulesOf('php', source), [
    './config.php', 'App\\Models\\User', 'App\\Services\\{Mailer, Queue as Q}', 'bootstrap.php', 'lib/util.php',
  ]);
});
