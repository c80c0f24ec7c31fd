import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type FileJob, type FileResult, contentHash, indexFiles } from '../src/extract/file.js';
import { ReadAhead, ReadTiming } from '../src/extract/read-ahead.js';
import { tempDir } from './helpers.js';
import { packRefs, unpackRefs } from '../src/extract/refs.js';
import { MAX_SIGNATURE_CHARS, MAX_SIGNATURE_LINES, signatureEndOf } from '../src/extract/extract.js';
import type { FileRecord } from '../src/records.js';
import {
  type Fixture,
  MAX_FILE_BYTES,
  assertDefs,
  assertDefsAreNotRefs,
  assertNoRef,
  assertRefs,
  assertRefsOnLine,
  assertScopes,
  indexPath,
  loadFixture,
} from './fixture-tags.js';

describe('typescript', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadFixture('typescript/sample.ts');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['DEFAULT_CONCURRENCY', 'constant', 'export const DEFAULT_CONCURRENCY'],
      ['RETRY_DELAYS', 'constant', 'const RETRY_DELAYS'],
      ['JobId', 'type', 'export type JobId'],
      ['Job', 'interface', 'export interface Job<T'],
      ['id', 'field', 'id: JobId;'],
      ['run', 'method', 'run(signal: AbortSignal)'],
      ['Priority', 'enum', 'export enum Priority'],
      ['Tracked', 'function', 'function Tracked('],
      ['Scheduling', 'module', 'export namespace Scheduling'],
      ['JobQueue', 'class', 'export class JobQueue<T>'],
      ['pending', 'field', 'private readonly pending'],
      ['onDrain', 'method', 'onDrain = (count'],
      ['enqueue', 'method', 'enqueue(job: Job<T>'],
      ['createQueue', 'function', 'export function createQueue'],
      ['describe', 'function', 'function describe()'],
      ['BaseWorker', 'class', 'abstract class BaseWorker implements'],
      ['perform', 'method', 'abstract perform('],
      ['retry', 'method', 'protected retry('],
      ['startWorkers', 'function', 'export const startWorkers'],
      ['tick', 'function', 'const tick ='],
      ['job-runner', 'module', "declare module 'job-runner'"],
      ['runJob', 'function', 'export function runJob'],
      ['legacyHook', 'function', 'var legacyHook'],
    ]);
    // Not constants: `let` at top level, and the namespace import.
    assert.ok(!fx.tags.defs.some((d) => d.name === 'processedCount' || d.name === 'path'));
  });

  test('references', () => {
    assertRefs(fx, [
      ['EventEmitter', 'import', "import { EventEmitter }"],
      ['Logger', 'import', "import Logger, {"],
      ['LogLevel', 'import', "import Logger, {"],
      // The exported name, not the local alias.
      ['format', 'import', "import Logger, {"],
      ['basename', 'call', 'registry.add('],
      ['add', 'call', 'registry.add('],
      ['String', 'call', 'registry.add('],
      ['formatLevel', 'call', 'return formatLevel(level)'],
      ['describe', 'call', 'Logger.info(describe())'],
      ['info', 'call', 'Logger.info(describe())'],
      ['compute', 'call', 'backoff.compute(attempt)'],
      ['spawnWorker', 'call', 'await spawnWorker(i)'],
      ['QueueEntry', 'new', 'new QueueEntry('],
      ['JobQueue', 'new', 'return new JobQueue<Job>()'],
      ['Tracked', 'decorator', '@Tracked'],
      // A decorator factory call is a decorator, not a call.
      ['Component', 'decorator', "@Component({ name: 'worker' })"],
      ['EventEmitter', 'inheritance', 'export class JobQueue<T>'],
      ['Disposable', 'inheritance', 'export class JobQueue<T>'],
      ['Runnable', 'inheritance', 'abstract class BaseWorker implements'],
      ['Identified', 'inheritance', 'export interface Job<T'],
      ['JobId', 'type', 'id: JobId;'],
      ['AbortSignal', 'type', 'run(signal: AbortSignal)'],
      ['Promise', 'type', 'run(signal: AbortSignal)'],
      ['LogLevel', 'type', 'export function createQueue'],
      ['Job', 'type', 'export function createQueue'],
      ['JobQueue', 'type', 'export function createQueue'],
      ['Priority', 'type', 'enqueue(job: Job<T>'],
      // Scheduling.JobQueue<Job>: the type is the last part of the qualified name.
      ['JobQueue', 'type', 'var legacyHook'],
    ]);
    // One tag per node: the decorator factory is not also a call, heritage names not also types.
    assertRefsOnLine(fx, 'Component', "@Component({ name: 'worker' })", ['decorator']);
    assertRefsOnLine(fx, 'Runnable', 'abstract class BaseWorker implements', ['inheritance']);
    // Only names another module exports are imports: not a namespace alias, not a local re-export.
    assertNoRef(fx, 'path', 'import * as path names no export', 'import');
    assertNoRef(fx, 'BaseWorker', 'export { BaseWorker } has no source module', 'import');
    // Declared names (JobQueue, Job, JobId...) are not also type references on their own line.
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'enqueue', 'method', ['export namespace Scheduling {', 'export class JobQueue<T>']);
    assertScopes(fx, 'pending', 'field', ['export namespace Scheduling {', 'export class JobQueue<T>']);
    assertScopes(fx, 'describe', 'function', ['export namespace Scheduling {', 'export function createQueue']);
    assertScopes(fx, 'tick', 'function', ['export const startWorkers']);
    assertScopes(fx, 'run', 'method', ['export interface Job<T']);
    // A decorated class's scope line is its `class` line, not the decorator's.
    assertScopes(fx, 'perform', 'method', ['abstract class BaseWorker implements']);
    assertScopes(fx, 'runJob', 'function', ["declare module 'job-runner'"]);
    assertScopes(fx, 'JobQueue', 'class', ['export namespace Scheduling {']);
    assertScopes(fx, 'Tracked', 'function', []);
  });
});

describe('tsx', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadFixture('tsx/sample.tsx');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['MAX_ITEMS', 'constant', 'export const MAX_ITEMS'],
      ['TodoListProps', 'interface', 'export interface TodoListProps'],
      ['items', 'field', 'items: TodoItem[]'],
      ['onSelect', 'method', 'onSelect?(item: TodoItem)'],
      ['Filter', 'type', "type Filter ="],
      ['Density', 'enum', 'export enum Density'],
      ['TodoList', 'function', 'export function TodoList('],
      ['renderRow', 'function', 'const renderRow ='],
      ['label', 'function', 'function label()'],
      ['Widgets', 'module', 'export namespace Widgets'],
      ['Counter', 'class', 'export class Counter'],
      ['state', 'field', 'state: CounterState ='],
      ['increment', 'method', 'increment(): void'],
      ['render', 'method', 'render(): ReactNode'],
      ['ThemeToggle', 'class', 'class ThemeToggle'],
      ['toggle', 'method', 'toggle(): void'],
      ['next', 'function', 'const next ='],
    ]);
    // Locals of a function are not module constants.
    assert.ok(!fx.tags.defs.some((d) => d.name === 'visible'));
  });

  test('references', () => {
    assertRefs(fx, [
      ['React', 'import', "import React, {"],
      ['useState', 'import', "import React, {"],
      ['ReactNode', 'import', "import React, {"],
      ['Card', 'import', "import { Card }"],
      ['useState', 'call', 'useState<Filter>'],
      ['matches', 'call', 'matches(item, filter)'],
      ['slice', 'call', 'matches(item, filter)'],
      // JSX components are references; HTML elements (ul) are not.
      ['Row', 'call', '<Row key='],
      ['FilterBar', 'call', '<FilterBar'],
      ['Body', 'call', '<Card.Body>'],
      ['Badge', 'call', '<Badge count'],
      ['CounterState', 'new', 'new CounterState('],
      ['bound', 'decorator', '@bound'],
      ['Component', 'inheritance', 'export class Counter'],
      ['CounterProps', 'type', 'export class Counter'],
      ['Filter', 'type', 'useState<Filter>'],
      ['TodoItem', 'type', 'items: TodoItem[]'],
      ['Element', 'type', 'export function TodoList('],
      ['observer', 'decorator', '@observer'],
      ['applyTheme', 'call', 'applyTheme(next())'],
    ]);
    assertNoRef(fx, 'ul', 'lower-case JSX tags are HTML elements');
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'increment', 'method', ['export namespace Widgets {', 'export class Counter']);
    assertScopes(fx, 'label', 'function', ['export function TodoList(', 'const renderRow =']);
    assertScopes(fx, 'onSelect', 'method', ['export interface TodoListProps']);
    // A decorated class starts at its decorator: the scope line is still the `class` line.
    assertScopes(fx, 'next', 'function', ['class ThemeToggle', 'toggle(): void']);
  });
});

describe('javascript', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadFixture('javascript/sample.js');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['DEFAULT_URL', 'constant', 'const DEFAULT_URL'],
      ['CACHE', 'constant', 'const CACHE'],
      ['HttpClient', 'class', 'class HttpClient'],
      ['#attempts', 'field', '#attempts = 0'],
      ['userAgent', 'field', "userAgent = 'repomap'"],
      ['create', 'method', 'static create(options)'],
      ['get', 'method', 'async get(url)'],
      ['attempt', 'function', 'const attempt ='],
      ['onError', 'method', 'onError = (error)'],
      ['checkForUpdate', 'function', 'function checkForUpdate'],
      ['compare', 'function', 'function compare(a, b)'],
      ['formatVersion', 'function', 'const formatVersion'],
      ['onProgress', 'function', 'let onProgress'],
      ['describe', 'method', 'describe: function'],
      ['run', 'method', 'async run(args)'],
      ['legacy', 'function', 'module.exports.legacy'],
    ]);
    // Not constants: `const semver = require(...)` is an import, `client` is a local.
    assert.ok(!fx.tags.defs.some((d) => d.name === 'semver' || d.name === 'client'));
  });

  test('references', () => {
    assertRefs(fx, [
      ['readFile', 'import', "require('node:fs/promises')"],
      // { stat: statFile }: the exported name.
      ['stat', 'import', "require('node:fs/promises')"],
      ['BaseClient', 'import', "require('./base-client')"],
      ['Map', 'new', 'new Map()'],
      ['HttpClient', 'new', 'return new HttpClient(options)'],
      ['BaseClient', 'inheritance', 'class HttpClient extends'],
      ['logged', 'decorator', '@logged'],
      ['fetchJson', 'call', 'const attempt ='],
      ['retry', 'call', 'retry(attempt)'],
      ['compare', 'call', 'return semver.compare(a, b)'],
      ['create', 'call', 'HttpClient.create({})'],
      ['get', 'call', 'client.get(DEFAULT_URL)'],
      ['then', 'call', 'client.get(DEFAULT_URL)'],
      ['statFile', 'call', 'return statFile(args.path)'],
      ['checkForUpdate', 'call', "return checkForUpdate('0.0.0')"],
    ]);
    assertNoRef(fx, 'statFile', 'the local alias of a destructured require is not imported', 'import');
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'compare', 'function', ['function checkForUpdate']);
    assertScopes(fx, 'onError', 'method', ['class HttpClient extends']);
    // A decorated JS method starts at its decorator: the scope line is still the method's line.
    assertScopes(fx, 'attempt', 'function', ['class HttpClient extends', 'async get(url)']);
  });

  test('jsx', async () => {
    const jsx = await loadFixture('javascript/sample.jsx');
    assertDefs(jsx, [
      ['UpdateBanner', 'class', 'export class UpdateBanner'],
      ['render', 'method', 'render() {'],
    ]);
    assertRefs(jsx, [
      ['Dialog', 'import', "import { Dialog }"],
      ['PureComponent', 'inheritance', 'export class UpdateBanner'],
      ['Panel', 'call', '<Dialog.Panel>'],
      ['VersionBadge', 'call', '<VersionBadge'],
    ]);
    assertNoRef(jsx, 'button', 'lower-case JSX tags are HTML elements');
    assertScopes(jsx, 'render', 'method', ['export class UpdateBanner']);
  });
});

describe('python', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadFixture('python/sample.py');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['MAX_RESERVATION', 'constant', 'MAX_RESERVATION = 50'],
      ['default_warehouse', 'constant', 'default_warehouse ='],
      ['log', 'constant', 'log = logging.getLogger'],
      ['SkuMap', 'type', 'type SkuMap ='],
      ['Reservation', 'class', 'class Reservation:'],
      ['sku', 'field', '    sku: str'],
      ['quantity', 'field', 'quantity: int = 0'],
      ['InventoryService', 'class', 'class InventoryService('],
      ['RETRY_LIMIT', 'field', 'RETRY_LIMIT = 3'],
      ['__init__', 'method', 'def __init__('],
      ['reserve', 'method', 'def reserve('],
      ['clamp', 'function', 'def clamp('],
      ['Planner', 'class', 'class Planner(object)'],
      ['plan', 'method', 'def plan('],
      ['schedule_restock', 'function', 'def schedule_restock('],
      ['normalize', 'function', 'normalize = lambda'],
    ]);
  });

  test('references', () => {
    assertRefs(fx, [
      ['logging', 'import', 'import logging'],
      // import a.b: the last part.
      ['abc', 'import', 'import collections.abc'],
      ['dataclass', 'import', 'from dataclasses import'],
      ['field', 'import', 'from dataclasses import'],
      ['Optional', 'import', 'from typing import Optional'],
      ['Repository', 'import', 'from .storage import'],
      ['StockRecord', 'import', 'from .storage import'],
      ['dataclass', 'decorator', '@dataclass(frozen=True)'],
      ['method', 'decorator', '@cached.method'],
      ['BaseService', 'inheritance', 'class InventoryService('],
      ['Mapping', 'inheritance', 'class InventoryService('],
      ['Repository', 'type', 'def __init__('],
      ['StockRecord', 'type', 'self._levels'],
      ['StockRecord', 'type', 'type SkuMap ='],
      ['Optional', 'type', 'def reserve('],
      ['Reservation', 'type', 'def reserve('],
      ['Reservation', 'type', 'def plan('],
      ['InventoryService', 'type', 'def schedule_restock('],
      ['getLogger', 'call', 'log = logging.getLogger'],
      ['load', 'call', 'self._repo.load(sku)'],
      ['Reservation', 'call', 'return Reservation(sku, clamp(quantity))'],
      ['clamp', 'call', 'return Reservation(sku, clamp(quantity))'],
      ['schedule_restock', 'call', 'return schedule_restock(self, horizon)'],
      ['Planner', 'call', 'planner = InventoryService.Planner()'],
    ]);
    assertRefsOnLine(fx, 'dataclass', '@dataclass(frozen=True)', ['decorator']);
    assertNoRef(fx, 'collections', 'import a.b names b');
    assertNoRef(fx, 'object', 'object is the base of every class');
    assertNoRef(fx, 'min', 'builtins are left out');
    assertNoRef(fx, 'str', 'builtin types are left out');
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'clamp', 'function', ['class InventoryService(', 'def reserve(']);
    assertScopes(fx, 'plan', 'method', ['class InventoryService(', 'class Planner(object)']);
    // Decorators are not the header: the scope line is the `class` line.
    assertScopes(fx, 'quantity', 'field', ['class Reservation:']);
    assertScopes(fx, 'reserve', 'method', ['class InventoryService(']);
  });
});

describe('rust', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadFixture('rust/sample.rs');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['DEFAULT_BURST', 'constant', 'pub const DEFAULT_BURST'],
      ['REGISTRY_NAME', 'constant', 'static REGISTRY_NAME'],
      ['ClientId', 'type', 'pub type ClientId'],
      ['ensure', 'macro', 'macro_rules! ensure'],
      ['Decision', 'enum', 'pub enum Decision'],
      ['retry_after', 'field', 'Deny { retry_after'],
      ['Limiter', 'trait', 'pub trait Limiter'],
      ['check', 'method', 'fn check(&mut self, client: &ClientId) -> Decision;'],
      ['reset', 'method', 'fn reset(&mut self)'],
      ['bucket', 'module', 'pub mod bucket'],
      ['TokenBucket', 'struct', 'pub struct TokenBucket'],
      ['capacity', 'field', 'pub capacity: u32'],
      ['tokens', 'field', 'tokens: f64,'],
      ['updated', 'field', 'updated: Clock,'],
      ['new', 'method', 'pub fn new(settings'],
      ['refill', 'method', 'fn refill('],
      ['Gateway', 'struct', 'pub struct Gateway'],
      ['limiters', 'field', 'limiters: HashMap'],
      ['check', 'method', 'fn check(&mut self, client: &ClientId) -> Decision {'],
      ['fallback', 'function', 'fn fallback()'],
      ['next', 'method', 'fn next(&mut self)'],
      ['compute_tokens', 'function', 'fn compute_tokens('],
    ]);
    // `type Item = u32` in an impl only fills in Iterator's associated type.
    assert.ok(!fx.tags.defs.some((d) => d.name === 'Item'));
  });

  test('references', () => {
    assertRefs(fx, [
      ['HashMap', 'import', 'use std::collections::{HashMap'],
      ['Entry', 'import', 'use std::collections::{HashMap'],
      ['Instant', 'import', 'use std::time::Instant as Clock'],
      ['Settings', 'import', 'use crate::config::Settings'],
      ['Debug', 'decorator', '#[derive(Debug, Clone)]'],
      ['Send', 'inheritance', 'pub trait Limiter'],
      // impl Trait for Type: both sides.
      ['Limiter', 'inheritance', 'impl<L: Limiter> Limiter for Gateway<L>'],
      ['Gateway', 'inheritance', 'impl<L: Limiter> Limiter for Gateway<L>'],
      ['TokenBucket', 'type', 'impl TokenBucket {'],
      ['Iterator', 'inheritance', 'impl Iterator for bucket::TokenBucket'],
      ['TokenBucket', 'inheritance', 'impl Iterator for bucket::TokenBucket'],
      ['checked_sub', 'call', 'self.capacity.checked_sub(1)'],
      ['TokenBucket', 'new', 'TokenBucket { capacity'],
      ['String', 'type', 'pub type ClientId'],
      ['Settings', 'type', 'pub fn new(settings'],
      ['Clock', 'type', 'fn refill('],
      ['Decision', 'type', 'fn fallback()'],
      ['ClientId', 'type', 'limiters: HashMap'],
      ['HashMap', 'type', 'limiters: HashMap'],
      ['now', 'call', 'Clock::now()'],
      ['duration_since', 'call', 'now.duration_since'],
      ['compute_tokens', 'call', 'self.tokens = compute_tokens('],
      ['as_secs_f64', 'call', 'self.tokens = compute_tokens('],
      ['clear_all', 'call', 'self.clear_all()'],
      ['ensure', 'call', 'ensure!(!client.is_empty()'],
      ['is_empty', 'call', 'ensure!(!client.is_empty()'],
      ['new', 'call', 'bucket::TokenBucket::new('],
      ['default', 'call', 'bucket::TokenBucket::new('],
      ['println', 'call', 'println!'],
      ['from', 'call', 'f64::from(capacity)'],
    ]);
    // The bound (L: Limiter) is a type use, the implemented trait an inheritance: one tag each.
    assertRefsOnLine(fx, 'Limiter', 'impl<L: Limiter> Limiter for Gateway<L>', ['type', 'inheritance']);
    assertRefsOnLine(fx, 'Send', 'pub trait Limiter', ['inheritance']);
    assertNoRef(fx, 'Self', 'Self never names a definition');
    assertNoRef(fx, 'dead_code', 'only derive(...) attributes name traits');
    // In macro arguments only `name(` is a call, not `name[`.
    assertNoRef(fx, 'weights', 'indexing inside a macro is not a call');
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'refill', 'method', ['pub mod bucket', 'impl TokenBucket {']);
    assertScopes(fx, 'capacity', 'field', ['pub mod bucket', 'pub struct TokenBucket']);
    assertScopes(fx, 'fallback', 'function', [
      'impl<L: Limiter> Limiter for Gateway<L>',
      'fn check(&mut self, client: &ClientId) -> Decision {',
    ]);
    assertScopes(fx, 'reset', 'method', ['pub trait Limiter']);
    assertScopes(fx, 'retry_after', 'field', ['pub enum Decision']);
  });
});

describe('go', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadFixture('go/sample.go');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['DefaultShards', 'constant', 'const DefaultShards'],
      ['minTTL', 'constant', 'minTTL = time.Second'],
      ['maxTTL', 'constant', 'maxTTL = 24'],
      ['ErrMissing', 'variable', 'var ErrMissing'],
      // A package-level var holding a func literal is a function, not a constant.
      ['DefaultHook', 'function', 'var DefaultHook'],
      ['Key', 'type', 'type Key = string'],
      ['Evicter', 'interface', 'type Evicter interface'],
      ['Evict', 'method', '\tEvict(key Key) bool'],
      ['entry', 'struct', 'type entry struct'],
      ['key', 'field', 'key     Key'],
      ['value', 'field', 'value   any'],
      ['expires', 'field', 'expires time.Time'],
      ['Shard', 'struct', 'type Shard struct'],
      ['items', 'field', 'items map[Key]'],
      ['order', 'field', 'order *list.List'],
      ['Pool', 'struct', 'type Pool[K comparable]'],
      ['shards', 'field', 'shards  []*Shard'],
      ['onEvict', 'field', 'onEvict Hook[Key]'],
      ['Get', 'method', 'func (s *Shard) Get('],
      ['Evict', 'method', 'func (s *Shard) Evict('],
      ['NewShard', 'function', 'func NewShard('],
      ['cleanup', 'function', 'cleanup := func()'],
      ['expireOld', 'function', 'func expireOld('],
    ]);
    // Locals (el, ok, shard) are not package-level constants.
    assert.ok(!fx.tags.defs.some((d) => ['el', 'ok', 'shard'].includes(d.name)));
  });

  test('references', () => {
    assertRefs(fx, [
      ['New', 'call', 'errors.New('],
      ['Println', 'call', 'fmt.Println("evicted", key)'],
      ['Lock', 'call', 's.Lock()'],
      ['Record', 'call', 's.Stats.Record(key)'],
      ['expireOld', 'call', 'cleanup := func()'],
      ['Now', 'call', 'cleanup := func()'],
      ['cleanup', 'call', 'go cleanup()'],
      ['Evict', 'call', 's.Evict(e.key)'],
      ['Shard', 'new', 'shard := &Shard{'],
      ['Stats', 'new', 'shard := &Shard{'],
      ['Element', 'type', 'shard := &Shard{'],
      ['Key', 'type', 'func (s *Shard) Get('],
      ['Shard', 'type', 'func (s *Shard) Get('],
      ['Time', 'type', 'func expireOld('],
      ['entry', 'type', 'return el.Value.(*entry)'],
      ['Stringer', 'inheritance', 'fmt.Stringer'],
      ['Shard', 'type', 'shards  []*Shard'],
      ['Hook', 'type', 'onEvict Hook[Key]'],
      ['Key', 'type', 'onEvict Hook[Key]'],
      // Embedded struct fields.
      ['Mutex', 'inheritance', 'sync.Mutex'],
      ['Stats', 'inheritance', '*Stats'],
    ]);
    assertRefsOnLine(fx, 'Mutex', 'sync.Mutex', ['inheritance']);
    assertRefsOnLine(fx, 'Shard', 'shard := &Shard{', ['new']);
    assertNoRef(fx, 'make', 'builtins are left out');
    assertNoRef(fx, 'new', 'builtins are left out');
    assertNoRef(fx, 'any', 'predeclared types are left out');
    assertNoRef(fx, 'comparable', 'predeclared types are left out');
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'cleanup', 'function', ['func NewShard(']);
    assertScopes(fx, 'items', 'field', ['type Shard struct']);
    assertScopes(fx, 'Evict', 'method', ['type Evicter interface'], '\tEvict(key Key) bool');
    assertScopes(fx, 'Evict', 'method', [], 'func (s *Shard) Evict(');
    assertScopes(fx, 'expires', 'field', ['type entry struct']);
  });
});

describe('files that are not indexed', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'repomap-extract-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function indexText(name: string, content: string | Buffer, maxFileBytes = MAX_FILE_BYTES): Promise<FileRecord> {
    await writeFile(join(dir, name), content);
    return indexPath(dir, name, maxFileBytes);
  }

  test('mostly garbage: syntax errors', async () => {
    const garbage = ['export function ok() {}', ...Array.from({ length: 40 }, () => '}}} )) ?? => <<< @@ ;; ]] class {{ ((')];
    const record = await indexText('garbage.ts', garbage.join('\n'));
    assert.equal(record.skip, 'syntax errors');
    assert.equal(record.tags, null);
  });

  test('a few syntax errors: still indexed', async () => {
    const source = ['export function ok(): void {}', 'const broken = ;', 'export class Fine {', '  method(): void {}', '}'];
    const record = await indexText('mostly-fine.ts', source.join('\n'));
    assert.equal(record.skip, null);
    const defs = record.tags?.defs.map((d) => `${d.subkind} ${d.name}`);
    assert.ok(defs?.includes('function ok'));
    assert.ok(defs?.includes('class Fine'));
    assert.ok(defs?.includes('method method'));
  });

  test('NUL bytes: binary', async () => {
    const record = await indexText('blob.py', Buffer.from([0x69, 0x6d, 0x70, 0x00, 0x01, 0x02, 0x0a]));
    assert.equal(record.skip, 'binary');
    assert.equal(record.tags, null);
  });

  test('a 3000-character line: minified', async () => {
    const record = await indexText('bundle.js', `var a=1;\n${'x+=1;'.repeat(600)}\n`);
    assert.equal(record.skip, 'minified');
    assert.equal(record.tags, null);
  });

  test('unknown extension: no grammar', async () => {
    const record = await indexText('notes.xyz', 'function f() {}\n');
    assert.equal(record.skip, 'no grammar');
    assert.equal(record.tags, null);
  });

  test('a file larger than the read buffer is read whole, and the next file alone', async () => {
    // Over a megabyte (the read buffer's first size), ending in a definition the tags must reach.
    const body = Array.from({ length: 90_000 }, (_, i) => `x${i} = ${i}`).join('\n');
    const big = `${body}\ndef last_of_the_big_file():\n    return 1\n`;
    assert.ok(big.length > 1024 * 1024);
    const bigRecord = await indexText('big_module.py', big, 4 * 1024 * 1024);
    assert.equal(bigRecord.size, Buffer.byteLength(big));
    assert.equal(bigRecord.hash, contentHash(Buffer.from(big)));
    assert.ok(bigRecord.tags?.defs.some((d) => d.name === 'last_of_the_big_file'));
    // A smaller file read next into the same buffer: its own bytes, not the big file's tail.
    const small = 'def small_one():\n    pass\n';
    const smallRecord = await indexText('small_module.py', small, 4 * 1024 * 1024);
    assert.equal(smallRecord.hash, contentHash(Buffer.from(small)));
    assert.deepEqual(smallRecord.tags?.defs.map((d) => d.name), ['small_one']);
  });

  test('over maxFileBytes: too large', async () => {
    const record = await indexText('big.go', `package big\n\nconst Answer = 42\n${'// padding\n'.repeat(20)}`, 100);
    assert.equal(record.skip, 'too large');
    assert.equal(record.tags, null);
    assert.equal(record.hash, '');
  });
});

describe('files read ahead', () => {
  let dir: string;
  before(() => {
    dir = tempDir('repomap-ahead-');
  });

  test('a read ahead gives the bytes, the error of a missing file, and nothing for a file changed since its stat', async () => {
    const source = 'def first():\n    pass\n';
    await writeFile(join(dir, 'first.py'), source);
    await writeFile(join(dir, 'grown.py'), 'def grown():\n    pass\n');
    const jobs = [
      { path: 'first.py', stat: { size: Buffer.byteLength(source) } },
      { path: 'gone.py', stat: { size: 10 } },
      { path: 'grown.py', stat: { size: 5 } },
      { path: 'skipped.py', stat: { size: 10 } },
    ];
    const ahead = new ReadAhead(dir, jobs, (i) => i !== 3, new ReadTiming(true));
    const first = await ahead.take(0);
    assert.ok(Buffer.isBuffer(first));
    assert.equal(first.toString('utf8'), source);
    ahead.release(0);
    const gone = await ahead.take(1);
    assert.ok(gone instanceof Error);
    assert.equal(gone.code, 'ENOENT');
    assert.equal(await ahead.take(2), undefined);
    assert.equal(await ahead.take(3), undefined);
  });

  test('files are read in place while reads are fast, and ahead once eight were slow', async () => {
    const files = Array.from({ length: 40 }, (_, i) => ({ path: `timed${i}.py`, stat: { size: 2 } }));
    await Promise.all(files.map(({ path }, i) => writeFile(join(dir, path), String(i).padStart(2, '0'))));
    const cached = new ReadAhead(dir, files, () => true, new ReadTiming(false));
    for (let i = 0; i < 20; i++) {
      const content = cached.take(i);
      assert.ok(Buffer.isBuffer(content), 'read in place, at once');
      assert.equal(content.toString(), String(i).padStart(2, '0'));
      cached.release(i);
    }
    assert.equal(cached.issued, 0);
    // Every read counts as slow: eight in place, then the rest ahead.
    const slow = new ReadAhead(dir, files, () => true, new ReadTiming(false, 0));
    for (let i = 0; i < 8; i++) assert.ok(Buffer.isBuffer(slow.take(i)));
    assert.equal(slow.issued, 0);
    const ninth = slow.take(8);
    assert.ok(ninth instanceof Promise);
    assert.equal((await ninth)?.toString(), '08');
    assert.equal(slow.issued, 8 + 32);
  });

  test('indexFiles indexes a file changed since its stat from its new bytes, and reports a vanished one', async () => {
    const before = 'def old_name():\n    pass\n';
    const after = `${before}def added_after_the_stat():\n    return 2\n`;
    await writeFile(join(dir, 'changed.py'), after);
    const jobs: FileJob[] = [
      { path: 'changed.py', stat: { mtimeMs: 1, ctimeMs: 1, size: Buffer.byteLength(before) } },
      { path: 'vanished.py', stat: { mtimeMs: 1, ctimeMs: 1, size: 12 } },
    ];
    const results: FileResult[] = [];
    await indexFiles(dir, jobs, { maxFileBytes: MAX_FILE_BYTES }, (_, result) => results.push(result));
    const [changed, vanished] = results;
    assert.ok(changed.outcome === 'parsed' && vanished.outcome === 'skipped');
    assert.equal(changed.record.size, Buffer.byteLength(after));
    assert.equal(changed.record.hash, contentHash(Buffer.from(after)));
    assert.deepEqual(changed.record.tags?.defs.map((d) => d.name), ['old_name', 'added_after_the_stat']);
    assert.equal(vanished.record.skip, 'unreadable');
    assert.equal(vanished.record.detail, 'ENOENT');
  });

  test('reads ahead at most 32 files, and at most 2 MB of files past the one being parsed', async () => {
    const small = Array.from({ length: 40 }, (_, i) => ({ path: `small${i}.py`, stat: { size: 1 } }));
    await Promise.all(small.map(({ path }) => writeFile(join(dir, path), 'x')));
    const smallAhead = new ReadAhead(dir, small, () => true, new ReadTiming(true));
    await smallAhead.take(0);
    assert.equal(smallAhead.issued, 32);
    smallAhead.release(0);
    await smallAhead.take(1);
    assert.equal(smallAhead.issued, 33);

    const big = Array.from({ length: 5 }, (_, i) => ({ path: `big${i}.py`, stat: { size: 900_000 } }));
    await Promise.all(big.map(({ path }) => writeFile(join(dir, path), 'x = 1\n'.repeat(150_000))));
    const bigAhead = new ReadAhead(dir, big, () => true, new ReadTiming(true));
    const firstBig = await bigAhead.take(0);
    assert.ok(Buffer.isBuffer(firstBig) && firstBig.length === 900_000);
    assert.equal(bigAhead.issued, 3);
    bigAhead.release(0);
    await bigAhead.take(1);
    assert.equal(bigAhead.issued, 4);
  });
});

test('references by column: names once each, sorted, with counts and imports; unpacked in file order', () => {
  const refs = [
    { name: 'zeta', subkind: 'call', line: 1 },
    { name: 'Alpha', subkind: 'import', line: 0 },
    { name: 'zeta', subkind: 'type', line: 3 },
    { name: 'beta', subkind: 'call', line: 2 },
    { name: 'zeta', subkind: 'call', line: 2 },
  ];
  const packed = packRefs(refs);
  assert.deepEqual(packed.names, ['Alpha', 'beta', 'zeta']);
  assert.deepEqual(packed.counts, [1, 1, 3]);
  assert.deepEqual(packed.imports, ['Alpha']);
  assert.deepEqual(packed.subkinds, ['call', 'import', 'type']);
  assert.deepEqual(unpackRefs(packed), refs);
  // Equal lists in another order of first use give the same names (the graph's input).
  assert.deepEqual(packRefs([...refs].reverse()).names, packed.names);
  assert.deepEqual(unpackRefs(packRefs([])), []);
});

test('a signature runs to the line that closes its parameter list, or opens a type argument list, within its caps', () => {
  const lines = (text: string) => text.split('\n');
  // A parameter list over three lines, its return type on the last.
  assert.equal(signatureEndOf(lines('export function f(\n  a: number,\n  b: string,\n): void {\n  return;\n}'), 0), 3);
  // Closed on its own line: one line.
  assert.equal(signatureEndOf(lines('def g(a, b):\n    return a'), 0), 0);
  // A type argument list opened at the end of the line goes on.
  assert.equal(signatureEndOf(lines('export interface R extends Readonly<\n  Omit<C, "x">\n> {\n}'), 0), 1);
  // An array constant is not a signature.
  assert.equal(signatureEndOf(lines('export const names = [\n  "a",\n  "b",\n];'), 0), 0);
  // At most MAX_SIGNATURE_LINES lines, and no further line past MAX_SIGNATURE_CHARS characters.
  assert.equal(signatureEndOf(lines('f(\na,\nb,\nc,\nd,\ne)'), 0), MAX_SIGNATURE_LINES - 1);
  const long = 'x'.repeat(MAX_SIGNATURE_CHARS);
  assert.equal(signatureEndOf(lines(`g(\n${long},\ny)`), 0), 0);
});
