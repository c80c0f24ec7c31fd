// Issue 49, "where the change lands": the definitions past commits changed together with the chat
// file are shown in the depth section (history/co-changes.ts), from a real git history, read
// without running any program the repository names. Fixtures are written at test time; maps come
// from the real CLI and the real daemon.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readHistory } from '../src/history/co-changes.js';
import { git, runCli, tempDir, writeTree } from './helpers.js';
import { cacheFor, runtimeEnv } from './daemon-helpers.js';

/** Many unrelated modules, so that the map has more to show than its budget holds. */
function filler(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`other/module_${i}.py`] = `def unrelated_helper_${i}(value):\n    return value + ${i}\n`;
  return files;
}

/** The chat file calls eighty helpers: the code it uses would fill the depth section, and breadth names files only. */
const HELPERS = Array.from({ length: 80 }, (_, i) => `helper_${i}`);
const HELPER_MODULE = HELPERS.map((name, i) => `def ${name}(value):\n    return value + ${i}\n`).join('\n');

const ROUTES = (version: number) =>
  [
    'def register_routes(app):',
    `    app.route("/v${version}/orders")`,
    '',
    '',
    'def health_check(app):',
    '    return "ok"',
    '',
  ].join('\n');

/** dump_order's signature runs over four lines. */
const SERIALIZERS = (version: number) =>
  ['class OrderSerializer:', `    version = ${version}`, '', '    def dump_order(', '        self,', '        order,', '    ):', '        return {"id": order}', ''].join('\n');

const ORDERS = (version: number) =>
  [`from lib.helpers import ${HELPERS.join(', ')}`, '', 'def create_order(payload):', `    return {"payload": payload, "version": ${version}}`, '', `WARMED = [${HELPERS.map((name) => `${name}(1)`).join(', ')}]`, ''].join('\n');

/**
 * A repository whose chat file, orders.py, changed three times with register_routes in routes.py
 * and with dump_order in serializers.py, though neither uses it (no import, no call): only the
 * history links them. health_check changed once, alone.
 */
function repoWithHistory(): string {
  const root = tempDir('repomap-history-');
  writeTree(root, { 'app/orders.py': ORDERS(0), 'app/routes.py': ROUTES(0), 'app/serializers.py': SERIALIZERS(0), 'lib/helpers.py': HELPER_MODULE, ...filler(200) });
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'initial tree');
  for (let version = 1; version <= 3; version++) {
    writeTree(root, { 'app/orders.py': ORDERS(version), 'app/routes.py': ROUTES(version), 'app/serializers.py': SERIALIZERS(version).replace('"id": order', `"id": order, "v": ${version}`) });
    git(root, 'commit', '-qam', `orders v${version}`);
  }
  writeTree(root, { 'app/routes.py': ROUTES(3).replace('"ok"', '"fine"') });
  git(root, 'commit', '-qam', 'health check says fine');
  return root;
}

interface MapJson {
  text: string;
  files: Array<{ path: string; lines: Array<{ text: string }> }>;
}

function mapJson(root: string, ...args: string[]): MapJson {
  const result = runCli(['map', root, '--chat', 'app/orders.py', '--tokens', '1024', '--format', 'json', '--cache-dir', tempDir(), ...args]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as MapJson;
}

function shownLines(map: MapJson, path: string): string[] {
  return map.files.filter((file) => file.path === path).flatMap((file) => file.lines.map((line) => line.text.trim()));
}

test('item 1: the definitions past commits changed together with the chat file are shown, though they do not use it', () => {
  const map = mapJson(repoWithHistory());
  assert.ok(shownLines(map, 'app/routes.py').includes('def register_routes(app):'), map.text);
  // A method is named by git's Python driver, not by its class line; shown by its first line, where
  // its whole signature would cost as much as three such sites.
  const serializers = shownLines(map, 'app/serializers.py');
  assert.ok(serializers.includes('def dump_order('), map.text);
  assert.ok(!serializers.includes('order,'), map.text);
  // Changed once, alone: never with the chat file.
  assert.ok(!shownLines(map, 'app/routes.py').includes('def health_check(app):'), map.text);
});

test('item 1: the history is read without running a program the repository names (an external diff, a text conversion)', () => {
  const root = repoWithHistory();
  const marker = join(tempDir(), 'ran');
  // A repository handed over whole brings its .git/config: both would run on a plain `git log -p`.
  git(root, 'config', 'diff.external', `sh -c 'touch ${marker}'`);
  git(root, 'config', 'diff.evil.textconv', `sh -c 'touch ${marker}; cat "$0"'`);
  writeTree(root, { '.gitattributes': '*.py diff=evil\n' });
  const map = mapJson(root);
  assert.equal(existsSync(marker), false, 'a program of the repository ran');
  assert.ok(shownLines(map, 'app/routes.py').includes('def register_routes(app):'), map.text);
});

test('item 1: a chat file named like a pathspec pattern is taken literally', async () => {
  const root = repoWithHistory();
  // As a pattern, `app/*.py` matches orders.py, whose commits changed register_routes.
  writeTree(root, { 'app/*.py': 'def starred():\n    return 1\n' });
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'a file with a star in its name');
  assert.equal((await readHistory({ cwd: root }, ['app/*.py'], () => true)).coChanges.get('app/routes.py'), undefined);
  // orders.py's own history: three commits with register_routes, and the first (the whole tree, which weighs little) with both.
  const routes = (await readHistory({ cwd: root }, ['app/orders.py'], () => true)).coChanges.get('app/routes.py');
  assert.ok((routes?.get('register_routes') ?? 0) > 10 * (routes?.get('health_check') ?? 0), JSON.stringify([...(routes ?? [])]));
});

test('item 1: the daemon reads the history again once HEAD moves', () => {
  const root = repoWithHistory();
  writeTree(root, { 'app/billing.py': 'def charge_card(order):\n    return order\n' });
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'billing');
  const env = runtimeEnv();
  const query = () => {
    const result = runCli(['query', root, '--chat', 'app/orders.py', '--tokens', '1024', '--format', 'json', '--cache-dir', cacheFor(root)], { env });
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as MapJson;
  };
  try {
    const before = query();
    assert.ok(shownLines(before, 'app/routes.py').includes('def register_routes(app):'), before.text);
    assert.ok(!shownLines(before, 'app/billing.py').includes('def charge_card(order):'), before.text);
    // Orders now change with billing: the next commits' history is what the next map reads.
    for (let version = 4; version <= 5; version++) {
      writeTree(root, { 'app/orders.py': ORDERS(version), 'app/billing.py': `def charge_card(order):\n    return order * ${version}\n` });
      git(root, 'commit', '-qam', `orders v${version} charge the card`);
    }
    const after = query();
    assert.ok(shownLines(after, 'app/billing.py').includes('def charge_card(order):'), after.text);
  } finally {
    runCli(['stop', root], { env });
  }
});
