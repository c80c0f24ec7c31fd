// The languages beyond the first six: per language, the definitions, references and scope lines
// of a fixture in fixtures/lang/<lang>/; every grammar in a worker thread; lazy grammar loading;
// and the 'no grammar' skip.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { bundledPackageDir } from '../src/extract/bundled.js';
import { LANGUAGES, languageForPath } from '../src/extract/languages.js';
import { createRunner, parseAll } from '../src/indexer/pool.js';
import { packageRoot } from '../src/paths.js';
import { statOf } from '../src/records.js';
import {
  type Expected,
  type Fixture,
  LANG_FIXTURES,
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


/** The fixture of each language added here, relative to fixtures/lang. */
const FIXTURE_FILES: Record<string, string> = {
  java: 'java/Sample.java',
  c: 'c/sample.c',
  cpp: 'cpp/sample.cpp',
  csharp: 'csharp/Sample.cs',
  ruby: 'ruby/sample.rb',
  php: 'php/sample.php',
  kotlin: 'kotlin/Sample.kt',
  scala: 'scala/Sample.scala',
  bash: 'bash/deploy.sh',
  lua: 'lua/inventory.lua',
  elixir: 'elixir/billing.ex',
  haskell: 'haskell/Inventory.hs',
  ocaml: 'ocaml/inventory.ml',
  swift: 'swift/Inventory.swift',
  vue: 'vue/CartPanel.vue',
  svelte: 'svelte/Counter.svelte',
  zig: 'zig/inventory.zig',
  hcl: 'hcl/main.tf',
  dart: 'dart/inventory.dart',
  julia: 'julia/Inventory.jl',
  r: 'r/inventory.R',
  objc: 'objc/Inventory.m',
  groovy: 'groovy/Inventory.groovy',
  solidity: 'solidity/Inventory.sol',
  elisp: 'elisp/shop-inventory.el',
  commonlisp: 'commonlisp/inventory.lisp',
  d: 'd/inventory.d',
  elm: 'elm/Inventory.elm',
};

/** A language's fixture, checked to be parsed as that language. */
async function loadLanguage(language: string): Promise<Fixture> {
  const fx = await loadFixture(FIXTURE_FILES[language]);
  assert.equal(fx.tags.lang, language);
  return fx;
}

/** Every reference has one of the capture convention's kinds. */
function assertRefKinds(fx: Fixture): void {
  const kinds = new Set(['call', 'new', 'type', 'import', 'decorator', 'inheritance', 'read']);
  for (const ref of fx.refs) assert.ok(kinds.has(ref.subkind), `unknown reference kind ${ref.subkind} (${ref.name})`);
}

/** What a language's fixture must give (see describeLanguage). */
interface LanguageExpectations {
  defs: Expected;
  refs: Expected;
  /** Names never referenced (with this subkind, when given), and why (builtins, locals). */
  noRefs?: Array<[name: string, why: string, subkind?: string]>;
  modules?: string[];
  /** [name, subkind, enclosing scope needles, definition needle]. */
  scopes: Array<[name: string, subkind: string, scopes: string[], defNeedle?: string]>;
  /** Names a line both defines and uses (see assertDefsAreNotRefs). */
  sameLineUses?: string[];
}

/** The tests of a language's fixture: its definitions exactly, the references listed, modules and scopes. */
function describeLanguage(language: string, title: string, expected: LanguageExpectations): void {
  describe(title, () => {
    let fx: Fixture;
    before(async () => {
      fx = await loadLanguage(language);
    });

    test('definitions', () => assertDefs(fx, expected.defs));

    test('references', () => {
      assertRefs(fx, expected.refs);
      for (const [name, why, subkind] of expected.noRefs ?? []) assertNoRef(fx, name, why, subkind);
      assertRefKinds(fx);
      assertDefsAreNotRefs(fx, expected.sameLineUses);
      if (expected.modules) assert.deepEqual(fx.tags.modules, expected.modules);
    });

    test('scopes of nested definitions', () => {
      for (const [name, subkind, scopes, defNeedle] of expected.scopes) assertScopes(fx, name, subkind, scopes, defNeedle);
    });
  });
}

describe('java', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('java');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['Inventory', 'class', 'public class Inventory'],
      ['MAX_ITEMS', 'constant', 'public static final int MAX_ITEMS'],
      ['items', 'field', 'private final Map<String, Item> items'],
      ['count', 'field', 'private int count'],
      ['find', 'method', 'public Item find'],
      ['cheapest', 'method', 'public List<Item> cheapest'],
      ['Cache', 'class', 'static class Cache'],
      ['last', 'field', 'private Item last'],
      ['refresh', 'method', 'Item refresh'],
      ['Repository', 'interface', 'interface Repository'],
      ['loadAll', 'method', 'Map<String, Item> loadAll();'],
      ['size', 'method', 'default int size'],
      ['Status', 'enum', 'enum Status'],
      ['ACTIVE', 'constant', 'ACTIVE,'],
      ['RETIRED', 'constant', 'RETIRED;'],
      ['label', 'method', 'String label'],
      ['Price', 'class', 'record Price'],
      ['doubled', 'method', 'Price doubled'],
      ['Audited', 'interface', '@interface Audited'],
      ['value', 'method', 'String value();'],
    ]);
    // Constructors repeat the class name: not definitions of their own.
    assert.equal(fx.tags.defs.filter((d) => d.name === 'Inventory').length, 1);
  });

  test('references', () => {
    assertRefs(fx, [
      ['List', 'import', 'import java.util.List;'],
      ['Item', 'import', 'import com.example.shop.model.Item;'],
      ['round', 'import', 'import static'],
      ['Service', 'decorator', '@Service'],
      ['AbstractStore', 'inheritance', 'public class Inventory'],
      ['Closeable', 'inheritance', 'public class Inventory'],
      ['Iterable', 'inheritance', 'public class Inventory'],
      ['Item', 'type', 'public class Inventory'],
      ['Supplier', 'inheritance', 'static class Cache'],
      ['AutoCloseable', 'inheritance', 'interface Repository'],
      ['Labeled', 'inheritance', 'enum Status'],
      ['Repository', 'type', 'public Inventory(Repository repository)'],
      ['MissingItemException', 'type', 'public Item find'],
      ['MissingItemException', 'new', 'throw new MissingItemException'],
      ['Item', 'new', 'last = new Item('],
      ['Price', 'new', 'return new Price('],
      ['Currency', 'type', 'record Price'],
      ['Clock', 'type', 'Item refresh'],
      ['loadAll', 'call', 'this.items = repository.loadAll()'],
      ['byPrice', 'call', 'Sorting.byPrice('],
      ['now', 'call', 'clock.now()'],
      ['round', 'call', 'return round(last)'],
    ]);
    // Built-in annotations and java.lang types never resolve to the repository.
    assertNoRef(fx, 'Override', 'a built-in annotation');
    assertNoRef(fx, 'String', 'a java.lang type');
    assertRefsOnLine(fx, 'AbstractStore', 'public class Inventory', ['inheritance']);
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    // An annotated class's scope line is its `class` line, not the annotation's.
    assertScopes(fx, 'refresh', 'method', ['public class Inventory', 'static class Cache']);
    assertScopes(fx, 'find', 'method', ['public class Inventory']);
    assertScopes(fx, 'size', 'method', ['interface Repository']);
    assertScopes(fx, 'RETIRED', 'constant', ['enum Status']);
    assertScopes(fx, 'doubled', 'method', ['record Price']);
    assertScopes(fx, 'Inventory', 'class', []);
  });
});

describe('c', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('c');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['BUFFER_CAPACITY', 'constant', '#define BUFFER_CAPACITY'],
      ['MIN', 'macro', '#define MIN'],
      ['size_type', 'type', 'typedef unsigned long size_type'],
      ['Node', 'struct', 'typedef struct Node'],
      ['value', 'field', 'int value;'],
      ['next', 'field', 'struct Node *next'],
      ['Node', 'type', '} Node'],
      ['Queue', 'struct', 'struct Queue {'],
      ['head', 'field', 'Node *head'],
      ['length', 'field', 'size_type length'],
      ['Number', 'struct', 'union Number {'],
      ['integer', 'field', 'long integer'],
      ['real', 'field', 'double real'],
      ['Color', 'enum', 'enum Color {'],
      ['RED', 'constant', 'enum Color {'],
      ['GREEN', 'constant', 'enum Color {'],
      ['BLUE', 'constant', 'enum Color {'],
      ['LOW', 'constant', 'typedef enum { LOW'],
      ['HIGH', 'constant', 'typedef enum { LOW'],
      ['Level', 'type', 'typedef enum { LOW'],
      ['Comparator', 'type', 'typedef int (*Comparator'],
      ['DEFAULT_LIMIT', 'constant', 'static const int DEFAULT_LIMIT'],
      ['verbosity', 'constant', 'int verbosity'],
      // The prototype and the definition.
      ['compare_nodes', 'function', 'compare_nodes(const Node *left, const Node *right);'],
      ['compare_nodes', 'function', 'compare_nodes(const Node *left, const Node *right) {'],
      ['queue_new', 'function', 'struct Queue *queue_new'],
      ['queue_push', 'function', 'void queue_push'],
      ['main', 'function', 'int main'],
    ]);
    // Locals are not file-scope variables; a #define without a value (a flag, an include guard)
    // defines nothing to show.
    assert.ok(!fx.tags.defs.some((d) => d.name === 'queue' || d.name === 'node' || d.name === 'QUEUE_TRACE'));
  });

  test('references', () => {
    assertRefs(fx, [
      ['Node', 'type', 'struct Node *next'],
      ['size_type', 'type', 'size_type length'],
      ['Queue', 'type', 'struct Queue *queue_new'],
      ['size_type', 'type', 'struct Queue *queue_new'],
      ['Color', 'type', 'enum Color color'],
      ['Number', 'type', 'union Number number'],
      ['MIN', 'call', 'MIN(capacity'],
      ['log_event', 'call', 'log_event(queue'],
      ['queue_new', 'call', '= queue_new('],
      ['queue_push', 'call', 'queue_push(queue, atoi'],
      ['compare_nodes', 'call', 'printf('],
    ]);
    // The C library's functions never resolve to the repository.
    assertNoRef(fx, 'malloc', 'a C library function');
    assertNoRef(fx, 'printf', 'a C library function');
    // A tagged type with a body is a definition, not a use.
    assertRefsOnLine(fx, 'Queue', 'struct Queue {', []);
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'next', 'field', ['typedef struct Node {']);
    assertScopes(fx, 'length', 'field', ['struct Queue {']);
    assertScopes(fx, 'real', 'field', ['union Number {']);
    assertScopes(fx, 'queue_new', 'function', []);
  });
});

describe('cpp', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('cpp');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['SCENE_VERSION', 'constant', '#define SCENE_VERSION'],
      ['Handle', 'type', 'using Handle'],
      ['render', 'module', 'namespace render {'],
      ['kMaxLayers', 'constant', 'constexpr int kMaxLayers'],
      ['Mode', 'enum', 'enum class Mode'],
      ['Fast', 'constant', 'enum class Mode'],
      ['Precise', 'constant', 'enum class Mode'],
      ['Color', 'struct', 'struct Color'],
      ['r', 'field', 'float r, g, b;'],
      ['g', 'field', 'float r, g, b;'],
      ['b', 'field', 'float r, g, b;'],
      ['Pool', 'class', 'class Pool'],
      ['Pool', 'method', 'explicit Pool'],
      ['acquire', 'method', 'T *acquire();'],
      ['release', 'method', 'void release'],
      ['shared', 'method', 'static Pool<T> *shared'],
      ['free_', 'field', 'std::vector<T *> free_'],
      ['capacity_', 'field', 'std::size_t capacity_'],
      ['Renderer', 'class', 'class Renderer'],
      ['Renderer', 'method', 'Renderer(const Config &config)'],
      ['draw', 'method', 'void draw'],
      ['config_', 'field', 'Config config_;'],
      ['detail', 'module', 'namespace detail {'],
      ['luminance', 'function', 'inline float luminance'],
      ['acquire', 'method', 'T *render::Pool<T>::acquire'],
      ['submit', 'method', 'void render::Renderer::submit'],
      ['main', 'function', 'int main'],
    ]);
    // Destructors and operators are not named definitions.
    assert.ok(!fx.tags.defs.some((d) => d.name.includes('~') || d.name.startsWith('operator')));
  });

  test('references', () => {
    assertRefs(fx, [
      ['Allocator', 'inheritance', 'class Pool'],
      ['NonCopyable', 'inheritance', 'class Pool'],
      ['Device', 'inheritance', 'class Renderer'],
      ['Scene', 'type', 'using Handle'],
      ['Config', 'type', 'Renderer(const Config &config)'],
      ['Shape', 'type', 'void draw'],
      ['Mesh', 'type', 'std::make_unique<Mesh>'],
      ['Color', 'type', 'void render::Renderer::submit'],
      ['Renderer', 'type', 'render::Renderer renderer'],
      ['Scene', 'new', 'new Scene(mesh)'],
      ['vertices', 'call', 'shape.vertices()'],
      ['upload', 'call', 'mesh->upload('],
      ['submit', 'call', 'submit(*mesh'],
      ['luminance', 'call', 'detail::luminance('],
      ['normalize', 'call', 'geometry::normalize('],
      ['run', 'call', 'renderer.run()'],
    ]);
    // std:: names never resolve to the repository.
    assertNoRef(fx, 'make_unique', 'a std:: function');
    assertNoRef(fx, 'vector', 'a std:: type');
    assertNoRef(fx, 'shared_ptr', 'a std:: type');
    assertRefsOnLine(fx, 'Device', 'class Renderer', ['inheritance']);
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'acquire', 'method', ['namespace render {', 'class Pool'], 'T *acquire();');
    assertScopes(fx, 'draw', 'method', ['namespace render {', 'class Renderer']);
    assertScopes(fx, 'luminance', 'function', ['namespace render {', 'namespace detail {']);
    assertScopes(fx, 'g', 'field', ['namespace render {', 'struct Color']);
    // Defined outside its class: no enclosing scope in this file.
    assertScopes(fx, 'submit', 'method', []);
  });
});

describe('csharp', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('csharp');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['Services', 'module', 'namespace Shop.Services'],
      ['OrderPlaced', 'type', 'public delegate void OrderPlaced'],
      ['IOrderService', 'interface', 'public interface IOrderService'],
      ['Find', 'method', 'Order Find(Guid id);'],
      ['Placed', 'field', 'event OrderPlaced Placed;'],
      ['OrderService', 'class', 'public class OrderService'],
      ['MaxRetries', 'constant', 'public const int MaxRetries'],
      ['Timeout', 'constant', 'private static readonly TimeSpan Timeout'],
      ['_orders', 'field', 'private readonly IRepository<Order> _orders'],
      ['Placed', 'field', 'public event OrderPlaced? Placed;'],
      ['Discount', 'field', 'public decimal Discount'],
      ['Find', 'method', 'public Order Find'],
      ['Dispose', 'method', 'public void Dispose'],
      ['Cache', 'class', 'private class Cache'],
      ['Recent', 'field', 'internal List<Order> Recent'],
      ['Latest', 'method', 'public Order Latest'],
      ['Money', 'struct', 'public struct Money'],
      ['Amount', 'field', 'public decimal Amount'],
      ['Add', 'method', 'public Money Add'],
      ['OrderState', 'enum', 'public enum OrderState'],
      ['Open', 'constant', 'Open,'],
      ['Shipped', 'constant', 'Shipped,'],
      ['Receipt', 'class', 'public record Receipt'],
    ]);
  });

  test('references', () => {
    assertRefs(fx, [
      ['Generic', 'import', 'using System.Collections.Generic;'],
      ['Models', 'import', 'using Shop.Models;'],
      ['JsonConvert', 'import', 'using Json ='],
      ['Serializable', 'decorator', '[Serializable]'],
      ['Obsolete', 'decorator', '[Obsolete('],
      ['IDisposable', 'inheritance', 'public interface IOrderService'],
      ['ServiceBase', 'inheritance', 'public class OrderService'],
      ['IOrderService', 'inheritance', 'public class OrderService'],
      ['Order', 'type', 'public class OrderService'],
      ['Order', 'type', 'public delegate void OrderPlaced'],
      ['OrderPlaced', 'type', 'public event OrderPlaced? Placed;'],
      ['IRepository', 'type', 'private readonly IRepository<Order> _orders'],
      ['Guid', 'type', 'public Order Find'],
      ['Order', 'type', 'public Order Find'],
      ['OrderNotFoundException', 'new', 'throw new OrderNotFoundException'],
      ['List', 'new', 'internal List<Order> Recent'],
      ['Money', 'new', 'public Money Add'],
      ['Get', 'call', '_orders.Get(id)'],
      ['Info', 'call', 'Logger.Info('],
      ['SerializeObject', 'call', 'Json.SerializeObject('],
      ['FromSeconds', 'call', 'TimeSpan.FromSeconds'],
    ]);
    assertRefsOnLine(fx, 'Money', 'public Money Add', ['new', 'type', 'type']);
    assertRefsOnLine(fx, 'ServiceBase', 'public class OrderService', ['inheritance']);
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'Latest', 'method', ['namespace Shop.Services', 'private class Cache']);
    assertScopes(fx, 'Find', 'method', ['namespace Shop.Services', 'public interface IOrderService'], 'Order Find(Guid id);');
    assertScopes(fx, 'Amount', 'field', ['namespace Shop.Services', 'public struct Money']);
    assertScopes(fx, 'Shipped', 'constant', ['namespace Shop.Services', 'public enum OrderState']);
    // A declaration with attributes starts at its attribute line, which is not a header: it is
    // no scope (here the class [Serializable] OrderService, and the method [Obsolete] Find).
    assertScopes(fx, 'MaxRetries', 'constant', ['namespace Shop.Services']);
    assertScopes(fx, 'Find', 'method', ['namespace Shop.Services'], 'public Order Find');
    assertScopes(fx, 'OrderService', 'class', ['namespace Shop.Services']);
  });
});

describe('ruby', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('ruby');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['Billing', 'module', 'module Billing'],
      ['TAX_RATE', 'constant', 'TAX_RATE = 0.2'],
      ['Invoice', 'class', 'class Invoice'],
      ['initialize', 'method', 'def initialize'],
      ['total', 'method', 'def total'],
      ['build', 'method', 'def self.build'],
      ['empty', 'method', 'def empty'],
      ['to_json', 'method', 'def to_json'],
      ['Refund', 'class', 'class Refund'],
      ['apply!', 'method', 'def apply!'],
      ['format_amount', 'function', 'def format_amount'],
    ]);
  });

  test('references', () => {
    assertRefs(fx, [
      ['ApplicationRecord', 'inheritance', 'class Invoice'],
      ['Base', 'inheritance', 'class Refund < Invoice::Base'],
      ['Comparable', 'inheritance', 'include Comparable'],
      ['Forwardable', 'inheritance', 'extend Forwardable'],
      ['LineItem', 'new', 'LineItem.new(line)'],
      ['Money', 'type', 'Money.round('],
      ['round', 'call', 'Money.round('],
      ['TAX_RATE', 'type', 'Money.round('],
      ['Customer', 'type', 'Customer.find('],
      ['find', 'call', 'Customer.find('],
      ['sum', 'call', 'lines.sum('],
      ['generate', 'call', 'JSON.generate('],
      ['credit', 'call', 'account.credit('],
    ]);
    // Declarations that read as calls, and `new` itself, are not calls.
    assertNoRef(fx, 'include', 'a declaration');
    assertNoRef(fx, 'attr_reader', 'a declaration');
    assertNoRef(fx, 'new', 'LineItem.new is a construction of LineItem');
    assertNoRef(fx, 'require', 'names a file');
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'total', 'method', ['module Billing', 'class Invoice']);
    assertScopes(fx, 'empty', 'method', ['module Billing', 'class Invoice', 'class << self']);
    assertScopes(fx, 'apply!', 'method', ['module Billing', 'class Refund']);
    assertScopes(fx, 'TAX_RATE', 'constant', ['module Billing']);
    assertScopes(fx, 'format_amount', 'function', []);
  });
});

describe('php', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('php');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['Billing', 'module', 'namespace App\\Billing'],
      ['DEFAULT_CURRENCY', 'constant', 'const DEFAULT_CURRENCY'],
      ['Billable', 'interface', 'interface Billable'],
      ['total', 'method', 'function total(): Money;'],
      ['LogsEvents', 'trait', 'trait LogsEvents'],
      ['log', 'method', 'protected function log'],
      ['Invoice', 'class', 'final class Invoice'],
      ['STATUS_OPEN', 'constant', 'public const STATUS_OPEN'],
      ['lines', 'field', 'private array $lines'],
      ['customer', 'field', 'protected ?Customer $customer'],
      ['__construct', 'method', 'public function __construct'],
      ['clock', 'field', 'private SystemClock $clock'],
      ['total', 'method', 'public function total(): Money'],
      ['draft', 'method', 'public static function draft'],
      ['Status', 'enum', 'enum Status'],
      ['Open', 'constant', 'case Open'],
      ['Paid', 'constant', 'case Paid'],
      ['label', 'method', 'public function label'],
      ['render_invoice', 'function', 'function render_invoice'],
    ]);
  });

  test('references', () => {
    assertRefs(fx, [
      ['Customer', 'import', 'use App\\Models\\Customer;'],
      ['Money', 'import', 'use App\\Support\\{Money'],
      // The imported name, not its alias.
      ['Clock', 'import', 'use App\\Support\\{Money'],
      ['format_amount', 'import', 'use function'],
      ['Entity', 'decorator', "#[Entity(table: 'invoices')]"],
      ['Countable', 'inheritance', 'interface Billable'],
      ['Document', 'inheritance', 'final class Invoice'],
      ['Billable', 'inheritance', 'final class Invoice'],
      ['JsonSerializable', 'inheritance', 'final class Invoice'],
      ['LogsEvents', 'inheritance', 'use LogsEvents;'],
      ['Customer', 'new', 'new Customer()'],
      ['Money', 'type', 'function total(): Money;'],
      ['SystemClock', 'type', 'private SystemClock $clock'],
      ['Customer', 'type', 'protected ?Customer $customer'],
      ['Line', 'type', 'fn (Line $line)'],
      ['Logger', 'type', 'Logger::write('],
      ['write', 'call', 'Logger::write('],
      ['Money', 'type', 'Money::of('],
      ['of', 'call', 'Money::of('],
      ['amount', 'call', '$line->amount()'],
      ['log', 'call', "$invoice->log('draft')"],
      ['format_amount', 'call', 'return format_amount(0)'],
      ['Invoice', 'type', 'function render_invoice'],
    ]);
    assertNoRef(fx, 'SystemClock', 'an alias is not an imported name', 'import');
    assertNoRef(fx, 'static', '`new static()` names the class at hand');
    assertNoRef(fx, 'array_map', 'a PHP library function');
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'log', 'method', ['trait LogsEvents']);
    assertScopes(fx, 'label', 'method', ['enum Status']);
    assertScopes(fx, 'total', 'method', ['interface Billable'], 'function total(): Money;');
    // A class with attributes starts at its #[...] line: it is no scope.
    assertScopes(fx, 'draft', 'method', []);
  });
});

describe('kotlin', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('kotlin');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['MAX_ITEMS', 'constant', 'const val MAX_ITEMS'],
      ['ItemMap', 'type', 'typealias ItemMap'],
      ['Repository', 'interface', 'interface Repository'],
      ['findAll', 'method', 'fun findAll'],
      ['Order', 'class', 'data class Order'],
      ['id', 'field', 'data class Order'],
      ['items', 'field', 'data class Order'],
      ['rank', 'method', 'override fun rank'],
      ['Result', 'class', 'sealed class Result'],
      ['Empty', 'class', 'object Empty'],
      ['Failure', 'class', 'class Failure'],
      ['error', 'field', 'class Failure'],
      ['Status', 'enum', 'enum class Status'],
      ['OPEN', 'constant', 'enum class Status'],
      ['CLOSED', 'constant', 'enum class Status'],
      ['Cart', 'class', 'class Cart('],
      ['repository', 'field', 'class Cart('],
      ['discount', 'field', 'var discount'],
      ['cache', 'field', 'private val cache'],
      ['total', 'method', 'fun total'],
      ['DEFAULT_DISCOUNT', 'constant', 'const val DEFAULT_DISCOUNT'],
      ['empty', 'method', 'fun empty'],
      ['close', 'method', 'override fun close'],
      ['describe', 'function', 'fun Cart.describe'],
      ['line', 'function', 'fun line'],
      ['defaultCart', 'constant', 'val defaultCart'],
    ]);
    // Locals are not properties.
    assert.ok(!fx.tags.defs.some((d) => d.name === 'order'));
  });

  test('references', () => {
    assertRefs(fx, [
      ['Flow', 'import', 'import kotlinx.coroutines.flow.Flow'],
      // The imported name, not its alias.
      ['Item', 'import', 'import com.example.shop.model.Item as CatalogItem'],
      ['Serializable', 'decorator', '@Serializable'],
      ['Ranked', 'inheritance', 'data class Order'],
      ['Result', 'inheritance', 'object Empty'],
      ['BaseCart', 'inheritance', 'class Cart('],
      ['Closeable', 'inheritance', 'class Cart('],
      ['CatalogItem', 'type', 'typealias ItemMap'],
      ['Flow', 'type', 'fun findAll'],
      ['Repository', 'type', 'class Cart('],
      ['Throwable', 'type', 'class Failure'],
      ['Order', 'new', 'val order = Order('],
      ['EmptyRepository', 'new', 'fun empty'],
      ['Cart', 'new', 'fun empty'],
      ['Cart', 'type', 'fun Cart.describe'],
      ['sum', 'call', 'Pricing.sum('],
      ['release', 'call', 'repository.release()'],
      ['line', 'call', 'line(it)'],
      ['empty', 'call', 'Cart.empty()'],
    ]);
    assertNoRef(fx, 'util', 'a wildcard import names a package');
    assertNoRef(fx, 'mutableMapOf', 'a standard library function');
    assertNoRef(fx, 'Double', 'a builtin type');
    assertRefsOnLine(fx, 'Result', 'object Empty', ['inheritance']);
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'empty', 'method', ['class Cart(', 'companion object']);
    assertScopes(fx, 'findAll', 'method', ['interface Repository']);
    assertScopes(fx, 'line', 'function', ['fun Cart.describe']);
    assertScopes(fx, 'Failure', 'class', ['sealed class Result']);
    // An annotated class's scope line is its `class` line, not the annotation's.
    assertScopes(fx, 'rank', 'method', ['data class Order']);
  });
});

describe('scala', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('scala');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['Repository', 'trait', 'trait Repository'],
      ['findAll', 'method', 'def findAll'],
      ['Status', 'trait', 'sealed trait Status'],
      ['Open', 'class', 'case object Open'],
      ['Closed', 'class', 'case object Closed'],
      ['Order', 'class', 'case class Order'],
      ['rank', 'method', 'def rank'],
      ['Cart', 'class', 'class Cart('],
      ['MaxItems', 'field', 'val MaxItems'],
      ['discount', 'field', 'var discount'],
      ['Lines', 'type', 'type Lines'],
      ['total', 'method', 'def total'],
      ['close', 'method', 'def close'],
      ['Cart', 'class', 'object Cart'],
      ['DefaultDiscount', 'constant', 'final val DefaultDiscount'],
      ['empty', 'method', 'def empty'],
      ['Defaults', 'class', 'object Defaults'],
      ['discount', 'method', 'def discount'],
      ['Color', 'enum', 'enum Color'],
      ['Red', 'constant', 'case Red, Green'],
      ['Green', 'constant', 'case Red, Green'],
      ['ordering', 'constant', 'given ordering'],
      ['describe', 'function', 'def describe'],
    ]);
    assert.ok(!fx.tags.defs.some((d) => d.name === 'order'), 'a local val is no field');
  });

  test('references', () => {
    assertRefs(fx, [
      ['Future', 'import', 'import scala.concurrent.Future'],
      ['Item', 'import', 'import com.example.model.{Item'],
      // The imported name, not its alias.
      ['Price', 'import', 'import com.example.model.{Item'],
      ['SerialVersionUID', 'decorator', '@SerialVersionUID'],
      ['AutoCloseable', 'inheritance', 'trait Repository'],
      ['Status', 'inheritance', 'case object Open'],
      ['Ranked', 'inheritance', 'case class Order'],
      ['Serializable', 'inheritance', 'case class Order'],
      ['BaseCart', 'inheritance', 'class Cart('],
      ['Future', 'type', 'def findAll'],
      ['Seq', 'type', 'def findAll'],
      ['Item', 'type', 'case class Order'],
      ['Lines', 'type', 'def total'],
      ['Cost', 'type', 'def total'],
      ['Ordering', 'type', 'given ordering'],
      ['Order', 'new', 'val order = Order('],
      ['Cart', 'new', 'def empty'],
      ['EmptyRepository', 'new', 'def empty'],
      ['sum', 'call', 'Pricing.sum('],
      ['release', 'call', 'repository.release()'],
      ['total', 'call', 'cart.total('],
    ]);
    assertNoRef(fx, 'util', 'a wildcard import names a package');
    assertNoRef(fx, 'Cost', 'an alias is not an imported name', 'import');
    assertNoRef(fx, 'Int', 'a builtin type');
    assertRefsOnLine(fx, 'Serializable', 'case class Order', ['inheritance']);
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'discount', 'method', ['object Cart', 'object Defaults']);
    assertScopes(fx, 'total', 'method', ['class Cart(']);
    assertScopes(fx, 'findAll', 'method', ['trait Repository']);
    assertScopes(fx, 'Green', 'constant', ['enum Color']);
    // An annotated class's scope line is its `class` line, not the annotation's.
    assertScopes(fx, 'rank', 'method', ['case class Order']);
  });
});

describe('bash', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('bash');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['DEPLOY_ROOT', 'constant', 'readonly DEPLOY_ROOT'],
      ['RELEASE_CHANNEL', 'constant', 'export RELEASE_CHANNEL'],
      ['MAX_RETRIES', 'constant', 'declare -r MAX_RETRIES'],
      ['BUILD_DIR', 'constant', 'BUILD_DIR=build'],
      ['log_info', 'function', 'log_info() {'],
      ['build_release', 'function', 'function build_release'],
      ['deploy', 'function', 'deploy() {'],
      ['rollback', 'function', 'rollback() {'],
    ]);
    assert.ok(!fx.tags.defs.some((d) => d.name === 'target' || d.name === 'host'), 'locals are not constants');
  });

  test('references', () => {
    assertRefs(fx, [
      ['log_info', 'call', 'log_info "building'],
      ['checksum', 'call', 'checksum "$BUILD_DIR'],
      ['build_release', 'call', 'build_release app'],
      ['upload_artifact', 'call', 'upload_artifact "$host"'],
      ['rollback', 'call', 'upload_artifact "$host"'],
      ['deploy', 'call', 'deploy "$host"'],
    ]);
    assertNoRef(fx, 'echo', 'a builtin');
    assertNoRef(fx, 'source', 'a builtin that names a file');
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'rollback', 'function', ['deploy() {']);
    assertScopes(fx, 'deploy', 'function', []);
  });
});

describe('lua', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('lua');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['MAX_ITEMS', 'constant', 'local MAX_ITEMS'],
      ['DEFAULT_PRICE', 'constant', 'DEFAULT_PRICE = 0'],
      ['Inventory', 'constant', 'local Inventory = {}'],
      ['new', 'function', 'function Inventory.new'],
      ['add', 'method', 'function Inventory:add'],
      ['total', 'method', 'function Inventory:total'],
      ['price_of', 'function', 'local function price_of'],
      ['describe', 'function', 'Inventory.describe = function'],
      ['clamp', 'function', 'local function clamp'],
      ['format_total', 'function', 'function format_total'],
    ]);
    // Bound to require(): an import, not a constant.
    assert.ok(!fx.tags.defs.some((d) => d.name === 'json' || d.name === 'Item'));
  });

  test('references', () => {
    assertRefs(fx, [
      ['new', 'call', 'Item.new(name'],
      ['notify', 'call', 'self:notify('],
      ['price', 'call', 'item:price()'],
      ['price_of', 'call', 'sum + price_of(item)'],
      ['encode', 'call', 'json.encode('],
      ['total', 'call', 'json.encode('],
      ['clamp', 'call', 'clamp(inventory:total()'],
    ]);
    assertNoRef(fx, 'insert', 'table.insert is the standard library');
    assertNoRef(fx, 'setmetatable', 'a Lua builtin');
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'price_of', 'function', ['function Inventory:total']);
    assertScopes(fx, 'describe', 'function', []);
  });
});

describe('elixir', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('elixir');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['Shop.Billing', 'module', 'defmodule Shop.Billing'],
      ['tax_rate', 'constant', '@tax_rate 0.2'],
      ['t', 'type', '@type t ::'],
      ['start_link', 'function', 'def start_link'],
      ['total', 'function', 'def total'],
      ['charge', 'function', 'def charge'],
      ['apply_tax', 'function', 'defp apply_tax'],
      ['line_amount', 'function', 'defp line_amount'],
      ['with_invoice', 'macro', 'defmacro with_invoice'],
      ['Receipt', 'module', 'defmodule Receipt'],
      ['format', 'function', 'def format'],
      ['Printable', 'interface', 'defprotocol Printable'],
      ['print', 'function', 'def print'],
    ]);
  });

  test('references', () => {
    assertRefs(fx, [
      ['GenServer', 'inheritance', 'use GenServer'],
      ['Shop.Billable', 'inheritance', '@behaviour'],
      ['Ecto.Query', 'import', 'import Ecto.Query'],
      ['Repo', 'import', 'alias Shop.{Repo, Customer}'],
      ['Customer', 'import', 'alias Shop.{Repo, Customer}'],
      ['Shop.Payments.Gateway', 'import', 'alias Shop.Payments.Gateway'],
      ['Logger', 'import', 'require Logger'],
      ['Receipt', 'new', '%Receipt{id: receipt.id}'],
      ['apply_tax', 'call', '|> apply_tax()'],
      ['tokenize', 'call', 'Gateway.tokenize(card)'],
      ['charge', 'call', 'Gateway.charge(token'],
      ['total', 'call', 'Gateway.charge(token'],
    ]);
    // The heads of definitions are not calls, nor are module attributes and the language's forms.
    assertRefsOnLine(fx, 'start_link', 'def start_link', []);
    assertRefsOnLine(fx, 'charge', 'def charge', []);
    assertNoRef(fx, 'moduledoc', 'a module attribute');
    assertNoRef(fx, 'is_map', 'a guard of the language');
    assertNoRef(fx, 'sum', 'Enum is the standard library');
    assertNoRef(fx, 'price', 'line.price is a field access');
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'format', 'function', ['defmodule Shop.Billing', 'defmodule Receipt']);
    assertScopes(fx, 'print', 'function', ['defmodule Shop.Billing', 'defprotocol Printable']);
    assertScopes(fx, 'total', 'function', ['defmodule Shop.Billing']);
  });
});

describe('haskell', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('haskell');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['Shop.Inventory', 'module', 'module Shop.Inventory'],
      ['maxItems', 'function', 'maxItems :: Int'],
      ['Sku', 'type', 'type Sku'],
      ['Item', 'struct', 'data Item'],
      ['Item', 'constant', 'data Item'],
      ['itemSku', 'field', '{ itemSku'],
      ['itemPrice', 'field', ', itemPrice'],
      ['Inventory', 'struct', 'newtype Inventory'],
      ['Inventory', 'constant', 'newtype Inventory'],
      ['Status', 'struct', 'data Status'],
      ['Open', 'constant', 'data Status'],
      ['Closed', 'constant', 'data Status'],
      ['Priced', 'interface', 'class Priced'],
      ['price', 'method', 'price :: a -> Double'],
      ['discounted', 'method', 'discounted :: Double'],
      ['addItem', 'function', 'addItem :: '],
      ['totalPrice', 'function', 'totalPrice :: '],
      ['emptyInventory', 'function', 'emptyInventory :: '],
    ]);
    // Equations and where-bindings are not definitions of their own: the signature is.
    assert.equal(fx.tags.defs.filter((d) => d.name === 'addItem').length, 1);
    assert.ok(!fx.tags.defs.some((d) => d.name === 'fee' || d.name === 'surcharge'));
  });

  test('references', () => {
    assertRefs(fx, [
      ['Data.Map.Strict', 'import', 'import qualified Data.Map.Strict'],
      ['Text', 'import', 'import Data.Text (Text, pack)'],
      ['pack', 'import', 'import Data.Text (Text, pack)'],
      ['applyDiscount', 'import', 'import Shop.Pricing (applyDiscount)'],
      ['Priced', 'inheritance', 'instance Priced Item'],
      ['Item', 'type', 'instance Priced Item'],
      ['Sku', 'type', '{ itemSku :: Sku'],
      ['Map', 'type', 'newtype Inventory'],
      ['Item', 'type', 'addItem :: '],
      ['Inventory', 'type', 'addItem :: '],
      ['Inventory', 'new', 'emptyInventory = Inventory'],
      ['applyDiscount', 'call', 'discounted rate item ='],
      ['insert', 'call', 'Map.insert'],
      ['elems', 'call', 'Map.elems'],
      ['surcharge', 'call', 'fee = surcharge'],
    ]);
    assertNoRef(fx, 'Double', 'a Prelude type');
    assertNoRef(fx, 'map', 'a Prelude function');
    assertRefKinds(fx);
    assertDefsAreNotRefs(fx);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'discounted', 'method', ['class Priced a where']);
    assertScopes(fx, 'itemPrice', 'field', ['data Item = Item']);
    assertScopes(fx, 'addItem', 'function', []);
  });
});

describe('ocaml', () => {
  let fx: Fixture;
  before(async () => {
    fx = await loadLanguage('ocaml');
  });

  test('definitions', () => {
    assertDefs(fx, [
      ['P', 'module', 'module P ='],
      ['max_items', 'constant', 'let max_items'],
      ['sku', 'type', 'type sku'],
      ['item', 'struct', 'type item'],
      ['code', 'field', 'code : sku'],
      ['price', 'field', 'price : float'],
      ['status', 'enum', 'type status'],
      ['Open', 'constant', 'type status'],
      ['Closed', 'constant', 'type status'],
      ['Out_of_stock', 'constant', 'exception Out_of_stock'],
      ['STORE', 'interface', 'module type STORE'],
      ['t', 'type', 'type t (*'],
      ['find', 'function', 'val find'],
      ['Inventory', 'module', 'module Inventory'],
      ['t', 'type', 'type t = '],
      ['find', 'function', 'let find'],
      ['total', 'function', 'let total'],
      ['Make', 'module', 'module Make'],
      ['describe', 'function', 'let describe'],
      ['counter', 'class', 'class counter'],
      ['count', 'field', 'val mutable count'],
      ['incr', 'method', 'method incr'],
      ['restock', 'function', 'let restock'],
    ]);
    assert.ok(!fx.tags.defs.some((d) => d.name === 'add_price'), 'a let ... in is local');
  });

  test('references', () => {
    assertRefs(fx, [
      ['Core', 'import', 'open Core'],
      ['Pricing', 'import', 'module P ='],
      ['S', 'inheritance', 'include S'],
      ['STORE', 'inheritance', 'module Inventory : STORE'],
      ['STORE', 'type', 'module Make (S : STORE)'],
      ['sku', 'type', 'exception Out_of_stock'],
      ['item', 'type', 'val find'],
      ['Out_of_stock', 'new', 'raise (Out_of_stock sku)'],
      ['apply_discount', 'call', 'P.apply_discount'],
      ['find', 'call', 'S.find store sku'],
      ['info', 'call', 'Logger.info'],
      ['format_item', 'call', 'Logger.info'],
      ['find', 'call', 'Inventory.find inventory'],
    ]);
    assertNoRef(fx, 'sprintf', 'Printf is the standard library');
    assertNoRef(fx, 'raise', 'a Stdlib function');
    assertNoRef(fx, 'float', 'a builtin type');
    assertNoRef(fx, 'Some', 'an option constructor');
    assertRefKinds(fx);
    // type t = (sku, item) Hashtbl.t: the second t is Hashtbl's.
    assertDefsAreNotRefs(fx, ['t']);
  });

  test('scopes of nested definitions', () => {
    assertScopes(fx, 'find', 'function', ['module Inventory : STORE'], 'let find');
    assertScopes(fx, 'find', 'function', ['module type STORE'], 'val find');
    assertScopes(fx, 'describe', 'function', ['module Make']);
    assertScopes(fx, 'incr', 'method', ['class counter']);
    assertScopes(fx, 'code', 'field', ['type item = {']);
  });
});

describeLanguage('swift', 'swift (WebAssembly grammar)', {
  defs: [
    ['Sku', 'type', 'typealias Sku'],
    ['maxItems', 'constant', 'let maxItems'],
    ['Store', 'interface', 'protocol Store'],
    ['find', 'method', 'func find(_ code'],
    ['count', 'field', 'var count: Int { get }'],
    ['Item', 'class', 'struct Item'],
    ['sku', 'field', 'let sku: Sku'],
    ['price', 'field', 'var price: Double'],
    ['Status', 'enum', 'enum Status'],
    ['active', 'constant', 'case active'],
    ['retired', 'constant', 'case retired'],
    ['Inventory', 'class', 'final class Inventory'],
    ['items', 'field', 'private var items'],
    ['count', 'field', 'var count: Int { items.count }'],
    ['find', 'method', 'func find(_ sku'],
    ['cheapest', 'method', 'func cheapest'],
    ['empty', 'method', 'static func empty'],
    ['describe', 'function', 'func describe'],
  ],
  refs: [
    ['Foundation', 'import', 'import Foundation'],
    ['Codable', 'inheritance', 'struct Item'],
    ['Store', 'inheritance', 'final class Inventory'],
    ['Inventory', 'inheritance', 'extension Inventory'],
    ['Sku', 'type', 'let sku: Sku'],
    ['Item', 'type', 'init(items: [Item])'],
    ['Inventory', 'new', 'let inventory = Inventory('],
    ['info', 'call', 'Logger.info'],
    ['describe', 'call', 'Logger.info'],
    ['sorted', 'call', 'items.values.sorted'],
    ['formatPrice', 'call', 'formatPrice(item.price)'],
  ],
  noRefs: [
    ['items', 'a subscript is not a call', 'call'],
    ['Double', 'a builtin type'],
    ['Array', 'a standard library type'],
    ['sorted', 'a local', 'type'],
  ],
  modules: ['Foundation', 'Logging'],
  scopes: [
    ['cheapest', 'method', ['final class Inventory']],
    ['empty', 'method', ['extension Inventory']],
    ['find', 'method', ['protocol Store'], 'func find(_ code'],
  ],
});

describe('vue and svelte (script blocks, with the ecma queries)', () => {
  test('a Vue component: its <script setup lang="ts"> parsed as TypeScript, on the file\'s own lines', async () => {
    const fx = await loadLanguage('vue');
    assertDefs(fx, [
      ['Props', 'interface', 'interface Props'],
      ['lines', 'field', 'lines: Line[]'],
      ['props', 'constant', 'const props'],
      ['total', 'constant', 'const total'],
      ['clearCart', 'function', 'function clearCart'],
    ]);
    assertRefs(fx, [
      ['CartLine', 'import', "import CartLine from './CartLine.vue'"],
      ['Line', 'type', 'lines: Line[]'],
      ['priceOf', 'call', 'const total'],
      ['emitCleared', 'call', 'emitCleared(reason)'],
    ]);
    assert.deepEqual(fx.tags.modules, ['../pricing', './CartLine.vue', 'vue']);
    assertRefKinds(fx);
    // The template and the style are not script: nothing there is a tag.
    assertNoRef(fx, 'section', 'template markup');
    assert.ok(fx.refs.every((ref) => ref.line >= fx.row('<script setup') && ref.line < fx.row('</script>')));
    assertScopes(fx, 'lines', 'field', ['interface Props']);
  });

  test('a Svelte component: both script blocks, JavaScript (no lang)', async () => {
    const fx = await loadLanguage('svelte');
    assertDefs(fx, [
      ['STEP', 'constant', 'export const STEP'],
      ['increment', 'function', 'function increment'],
    ]);
    assertRefs(fx, [
      ['saveCount', 'import', "import { loadCount, saveCount }"],
      ['saveCount', 'call', 'saveCount(count)'],
      ['loadCount', 'call', 'await loadCount()'],
    ]);
    assertNoRef(fx, 'increment', 'the template is not parsed');
    assert.deepEqual(fx.tags.modules, ['./storage.js', 'svelte']);
  });
});

describeLanguage('zig', 'zig', {
  defs: [
    ['max_items', 'constant', 'pub const max_items'],
    ['Item', 'class', 'pub const Item'],
    ['sku', 'field', 'sku: []const u8'],
    ['price', 'field', 'price: f64'],
    ['discounted', 'method', 'pub fn discounted'],
    ['Status', 'enum', 'pub const Status'],
    ['active', 'constant', 'active,'],
    ['retired', 'constant', 'retired,'],
    ['Inventory', 'class', 'pub const Inventory'],
    ['items', 'field', 'items: std.ArrayList(Item)'],
    ['init', 'method', 'pub fn init'],
    ['cheapest', 'method', 'pub fn cheapest'],
    ['findCheapest', 'function', 'fn findCheapest'],
  ],
  refs: [
    ['applyDiscount', 'call', 'pricing.applyDiscount'],
    ['Item', 'type', 'pub fn discounted'],
    ['Item', 'type', 'items: std.ArrayList(Item)'],
    ['Allocator', 'type', 'pub fn init'],
    ['Inventory', 'type', 'self: *Inventory'],
    ['Item', 'type', 'limit: usize) ?Item'],
    ['Inventory', 'new', 'return Inventory{'],
    ['findCheapest', 'call', 'return findCheapest('],
  ],
  noRefs: [
    ['std', 'an @import binding is a module, not a name'],
    ['_', 'an inferred array length'],
  ],
  modules: ['./pricing.zig', 'std'],
  scopes: [
    ['discounted', 'method', ['pub const Item']],
    ['cheapest', 'method', ['pub const Inventory']],
    ['retired', 'constant', ['pub const Status']],
  ],
});

describeLanguage('hcl', 'hcl (Terraform)', {
  defs: [
    ['region', 'constant', 'variable "region"'],
    ['bucket_name', 'field', 'bucket_name = '],
    ['tags', 'field', 'tags        = merge'],
    ['network', 'module', 'module "network"'],
    ['assets', 'class', 'resource "aws_s3_bucket"'],
    ['read', 'class', 'data "aws_iam_policy_document"'],
    ['bucket_arn', 'constant', 'output "bucket_arn"'],
  ],
  refs: [
    ['cidr_block', 'read', 'var.cidr_block'],
    ['bucket_name', 'read', 'bucket = local.bucket_name'],
    ['bucket_name', 'read', '{ Name = local.bucket_name }'],
    ['assets', 'read', 'value = aws_s3_bucket.assets.arn'],
    ['assets', 'read', '${aws_s3_bucket.assets.arn}'],
  ],
  noRefs: [
    ['merge', "a Terraform function"],
    ['arn', 'an attribute of a resource, not a name defined here'],
    ['aws_s3_bucket', 'a resource type'],
  ],
  modules: ['./modules/network'],
  scopes: [
    ['bucket_name', 'field', ['locals {']],
  ],
});

describeLanguage('dart', 'dart (WebAssembly grammar)', {
  defs: [
    ['maxItems', 'constant', 'const int maxItems'],
    ['Filter', 'type', 'typedef Filter'],
    ['Status', 'enum', 'enum Status'],
    ['active', 'constant', 'enum Status'],
    ['retired', 'constant', 'enum Status'],
    ['Store', 'class', 'abstract class Store'],
    ['find', 'method', 'Item? find(String sku);'],
    ['Logging', 'class', 'mixin Logging'],
    ['log', 'method', 'void log('],
    ['Inventory', 'class', 'class Inventory'],
    ['_items', 'field', 'final Map<String, Item> _items'],
    ['count', 'field', 'int count = 0'],
    ['find', 'method', 'Item? find(String sku) =>'],
    ['cheapest', 'method', 'List<Item> cheapest'],
    ['compareTo', 'method', 'int compareTo'],
    ['describe', 'function', 'String describe'],
    ['byPrice', 'function', 'int byPrice'],
  ],
  refs: [
    ['Item', 'import', "show Item"],
    ['Store', 'inheritance', 'class Inventory'],
    ['Logging', 'inheritance', 'class Inventory'],
    ['Comparable', 'inheritance', 'class Inventory'],
    ['Item', 'type', 'typedef Filter'],
    ['Filter', 'type', '{Filter? filter}'],
    ['Pricing', 'new', 'Pricing(rate: 0.2)'],
    ['sort', 'call', '..sort(byPrice)'],
    ['log', 'call', 'log(describe('],
    ['describe', 'call', 'log(describe('],
    ['format', 'call', 'pricing.format('],
  ],
  noRefs: [
    ['print', 'a dart:core function'],
    ['String', 'a builtin type'],
    ['min', 'a dart:math function'],
  ],
  modules: ['./models/item.dart', 'dart:math', 'package:shop/pricing.dart'],
  scopes: [
    ['cheapest', 'method', ['class Inventory']],
    ['log', 'method', ['mixin Logging']],
    ['retired', 'constant', []],
  ],
  sameLineUses: ['Inventory'],
});

describeLanguage('julia', 'julia', {
  defs: [
    ['Inventory', 'module', 'module Inventory'],
    ['MAX_ITEMS', 'constant', 'const MAX_ITEMS'],
    ['AbstractStore', 'type', 'abstract type AbstractStore'],
    ['Item', 'class', 'struct Item'],
    ['sku', 'field', 'sku::String'],
    ['price', 'field', 'price::Float64'],
    ['Store', 'class', 'mutable struct Store'],
    ['items', 'field', 'items::Vector{Item}'],
    ['cheapest', 'function', 'function cheapest'],
    ['total', 'function', 'total(store::Store) ='],
    ['checked', 'macro', 'macro checked'],
    ['show', 'function', 'Base.show(io::IO'],
  ],
  refs: [
    ['LinearAlgebra', 'import', 'using LinearAlgebra'],
    ['show', 'import', 'import Base: show'],
    ['AbstractStore', 'inheritance', 'mutable struct Store'],
    ['Item', 'type', 'items::Vector{Item}'],
    ['Store', 'type', 'function cheapest'],
    ['log_choice', 'call', 'log_choice(first(sorted))'],
    ['discounted', 'call', 'total(store::Store) ='],
    ['describe', 'call', 'Base.show(io::IO'],
  ],
  noRefs: [
    ['println', 'a Base function'],
    ['sort', 'a Base function'],
    ['Float64', 'a builtin type'],
  ],
  modules: ['./pricing.jl', 'Base', 'LinearAlgebra'],
  scopes: [
    ['sku', 'field', ['module Inventory', 'struct Item']],
    ['cheapest', 'function', ['module Inventory']],
  ],
});

describeLanguage('r', 'r', {
  defs: [
    ['MAX_ITEMS', 'constant', 'MAX_ITEMS <- 500'],
    ['new_item', 'function', 'new_item <- function'],
    ['cheapest', 'function', 'cheapest <- function'],
    ['item_price', 'function', 'item_price <- function'],
    ['describe', 'function', 'describe = function'],
    ['Inventory', 'class', 'Inventory <- setRefClass'],
    ['add', 'method', 'add = function'],
    ['summary_table', 'function', 'summary_table <- function'],
  ],
  refs: [
    ['dplyr', 'import', 'library(dplyr)'],
    ['log_choice', 'call', 'log_choice('],
    ['describe', 'call', 'log_choice(describe('],
    ['format_price', 'call', 'format_price(item$price)'],
    ['arrange', 'call', 'dplyr::arrange'],
  ],
  noRefs: [
    ['sprintf', 'base R'],
    ['list', 'base R'],
    ['sorted', 'a local'],
  ],
  modules: ['R/pricing.R', 'dplyr'],
  scopes: [['add', 'method', ['Inventory <- setRefClass']]],
});

describeLanguage('objc', 'objective-c (with the C query)', {
  defs: [
    ['kMaxItems', 'constant', 'kMaxItems = 500'],
    ['Store', 'interface', '@protocol Store'],
    ['findItem', 'method', '- (Item *)findItem:(NSString *)sku;'],
    ['Inventory', 'class', '@interface Inventory'],
    ['items', 'field', '@property'],
    ['cheapestWithLimit', 'method', '- (NSArray *)cheapestWithLimit:(NSInteger)limit;'],
    ['emptyInventory', 'method', '+ (instancetype)emptyInventory;'],
    ['Inventory', 'class', '@implementation Inventory'],
    ['findItem', 'method', '- (Item *)findItem:(NSString *)sku {'],
    ['cheapestWithLimit', 'method', '- (NSArray *)cheapestWithLimit:(NSInteger)limit {'],
    ['emptyInventory', 'method', '+ (instancetype)emptyInventory {'],
    ['describe', 'function', 'NSString *describe('],
  ],
  refs: [
    ['NSObject', 'inheritance', '@interface Inventory'],
    ['Store', 'inheritance', '@interface Inventory'],
    ['Item', 'type', '- (Item *)findItem:(NSString *)sku;'],
    ['sortedItems', 'call', '[self sortedItems]'],
    ['subarrayWithRange', 'call', 'subarrayWithRange:'],
    ['Inventory', 'new', '[[Inventory alloc] init]'],
    ['LogChoice', 'call', 'LogChoice('],
    ['describe', 'call', 'LogChoice(describe('],
    ['formatPrice', 'call', 'formatPrice(item.price)'],
  ],
  noRefs: [
    ['alloc', 'the allocation message, not a name'],
    ['init', 'the initialiser message'],
  ],
  modules: ['Inventory.h', 'pricing.h'],
  scopes: [
    ['cheapestWithLimit', 'method', ['@implementation Inventory'], '- (NSArray *)cheapestWithLimit:(NSInteger)limit {'],
    ['findItem', 'method', ['@protocol Store'], '- (Item *)findItem:(NSString *)sku;'],
  ],
});

describeLanguage('groovy', 'groovy (with the Java query)', {
  defs: [
    ['Inventory', 'class', 'class Inventory'],
    ['MAX_ITEMS', 'constant', 'static final int MAX_ITEMS'],
    ['items', 'field', 'Map<String, Item> items'],
    ['find', 'method', 'Item find(String sku) {'],
    ['cheapest', 'method', 'List<Item> cheapest'],
    ['Store', 'interface', 'interface Store'],
    ['find', 'method', 'Item find(String code)'],
    ['Status', 'enum', 'enum Status'],
    ['ACTIVE', 'constant', 'ACTIVE, RETIRED'],
    ['RETIRED', 'constant', 'ACTIVE, RETIRED'],
    ['describe', 'function', 'def describe'],
  ],
  refs: [
    ['Discounts', 'import', 'import com.example.shop.pricing.Discounts'],
    ['CompileStatic', 'decorator', '@CompileStatic'],
    ['Store', 'inheritance', 'class Inventory'],
    ['Item', 'type', 'Map<String, Item> items'],
    ['Discounts', 'new', 'new Discounts(0.2)'],
    ['logChoice', 'call', 'logChoice('],
    ['describe', 'call', 'logChoice(describe('],
    ['format', 'call', 'rates.format('],
  ],
  modules: ['com.example.shop.pricing.Discounts', 'groovy.transform.CompileStatic'],
  scopes: [
    ['cheapest', 'method', ['class Inventory']],
    ['RETIRED', 'constant', ['enum Status']],
  ],
});

describeLanguage('solidity', 'solidity (WebAssembly grammar)', {
  defs: [
    ['IStore', 'interface', 'interface IStore'],
    ['find', 'method', 'function find(bytes32 sku) external view returns'],
    ['Discounts', 'class', 'library Discounts'],
    ['apply', 'method', 'function apply'],
    ['Inventory', 'class', 'contract Inventory'],
    ['MAX_ITEMS', 'constant', 'constant MAX_ITEMS'],
    ['Item', 'struct', 'struct Item'],
    ['sku', 'field', 'bytes32 sku;'],
    ['price', 'field', 'uint256 price;'],
    ['Status', 'enum', 'enum Status'],
    ['Active', 'constant', 'enum Status'],
    ['Retired', 'constant', 'enum Status'],
    ['Restocked', 'event', 'event Restocked'],
    ['items', 'field', 'private items'],
    ['known', 'modifier', 'modifier known'],
    ['find', 'method', 'override known(sku)'],
    ['restock', 'method', 'function restock'],
  ],
  refs: [
    ['Ownable', 'import', 'import {Ownable}'],
    ['IStore', 'inheritance', 'contract Inventory'],
    ['Ownable', 'inheritance', 'contract Inventory'],
    ['Item', 'type', 'mapping(bytes32 => Item)'],
    ['known', 'decorator', 'override known(sku)'],
    ['onlyOwner', 'decorator', 'public onlyOwner'],
    ['apply', 'call', 'Discounts.apply('],
    ['Restocked', 'call', 'emit Restocked'],
  ],
  noRefs: [['require', 'a builtin']],
  modules: ['./Pricing.sol', '@openzeppelin/contracts/access/Ownable.sol'],
  scopes: [
    ['sku', 'field', ['contract Inventory', 'struct Item']],
    ['restock', 'method', ['contract Inventory']],
  ],
});

describeLanguage('elisp', 'emacs lisp', {
  defs: [
    ['shop-inventory-max-items', 'constant', '(defconst shop-inventory-max-items'],
    ['shop-inventory--items', 'variable', '(defvar shop-inventory--items'],
    ['shop-inventory-currency', 'variable', '(defcustom shop-inventory-currency'],
    ['shop-item', 'struct', '(cl-defstruct shop-item'],
    ['shop-inventory-find', 'function', '(defun shop-inventory-find'],
    ['shop-inventory-cheapest', 'function', '(defun shop-inventory-cheapest'],
    ['shop-inventory-with-items', 'macro', '(defmacro shop-inventory-with-items'],
    ['shop-inventory--by-price', 'function', '(defun shop-inventory--by-price'],
  ],
  refs: [
    ['shop-pricing', 'import', "(require 'shop-pricing)"],
    ['shop-inventory--log', 'call', '(shop-inventory--log'],
    ['shop-pricing-describe', 'call', '(shop-pricing-describe'],
    ['shop-inventory--by-price', 'call', "#'shop-inventory--by-price"],
  ],
  noRefs: [
    ['sku', 'a parameter list is not a call'],
    ['sorted', 'a let binding is not a call'],
    ['car', 'a primitive'],
    ['seq-take', 'a library function'],
  ],
  modules: ['cl-lib', 'shop-pricing'],
  scopes: [],
});

describeLanguage('commonlisp', 'common lisp', {
  defs: [
    ['shop.inventory', 'module', '(defpackage :shop.inventory'],
    ['+max-items+', 'constant', '(defconstant +max-items+'],
    ['*items*', 'variable', '(defparameter *items*'],
    ['*currency*', 'variable', '(defvar *currency*'],
    ['item', 'struct', '(defstruct item'],
    ['inventory', 'class', '(defclass inventory'],
    ['restock', 'method', '(defgeneric restock'],
    ['restock', 'method', '(defmethod restock'],
    ['find-item', 'function', '(defun find-item'],
    ['cheapest', 'function', '(defun cheapest'],
    ['with-inventory', 'macro', '(defmacro with-inventory'],
  ],
  refs: [
    ['shop.pricing', 'import', '(:use :cl :shop.pricing)'],
    ['store', 'inheritance', '(defclass inventory (store)'],
    ['item-sku', 'call', '(item-sku item)'],
    ['item-price', 'call', "#'item-price"],
    ['log-choice', 'call', '(log-choice'],
    ['describe-item', 'call', '(describe-item'],
  ],
  noRefs: [
    ['sorted', 'a let binding'],
    ['gethash', 'the standard library'],
    ['make-instance', 'the standard library'],
  ],
  modules: ['cl', 'shop.pricing'],
  scopes: [],
});

describeLanguage('d', 'd', {
  defs: [
    ['maxItems', 'constant', 'enum maxItems'],
    ['Store', 'interface', 'interface Store'],
    ['find', 'method', 'Item find(string code);'],
    ['Item', 'struct', 'struct Item'],
    ['sku', 'field', 'string sku;'],
    ['price', 'field', 'double price;'],
    ['Status', 'enum', 'enum Status'],
    ['active', 'constant', 'enum Status'],
    ['retired', 'constant', 'enum Status'],
    ['Inventory', 'class', 'class Inventory'],
    ['items', 'field', 'private Item[string] items'],
    ['find', 'method', 'Item find(string sku)'],
    ['cheapest', 'method', 'Item[] cheapest'],
    ['describe', 'function', 'string describe'],
    ['byPrice', 'function', 'bool byPrice'],
  ],
  refs: [
    ['sort', 'import', 'import std.algorithm'],
    ['Store', 'inheritance', 'class Inventory'],
    ['Item', 'type', 'private Item[string] items'],
    ['Item', 'type', 'this(Item[] initial)'],
    ['logChoice', 'call', 'logChoice('],
    ['describe', 'call', 'logChoice(describe('],
    ['Discounts', 'new', 'new Discounts(0.2)'],
    ['format', 'call', 'rates.format('],
  ],
  noRefs: [['min', 'a Phobos function: its import is kept, its call left out', 'call']],
  modules: ['shop.pricing', 'std.algorithm'],
  scopes: [
    ['cheapest', 'method', ['class Inventory']],
    ['sku', 'field', ['struct Item']],
  ],
});

describeLanguage('elm', 'elm', {
  defs: [
    ['Inventory', 'module', 'module Inventory'],
    ['Sku', 'type', 'type alias Sku'],
    ['Item', 'type', 'type alias Item'],
    ['sku', 'field', '{ sku : Sku'],
    ['price', 'field', ', price : Float'],
    ['Status', 'enum', 'type Status'],
    ['Active', 'constant', '= Active'],
    ['Retired', 'constant', '| Retired'],
    ['maxItems', 'function', 'maxItems : Int'],
    ['cheapest', 'function', 'cheapest : Int'],
    ['describe', 'function', 'describe : Item'],
  ],
  refs: [
    ['applyDiscount', 'import', 'import Pricing exposing'],
    ['Sku', 'type', '{ sku : Sku'],
    ['Item', 'type', 'describe : Item'],
    ['sortBy', 'call', 'List.sortBy'],
    ['format', 'call', 'Log.format'],
    ['applyDiscount', 'call', '(applyDiscount 0.2'],
  ],
  noRefs: [['Float', 'a core type'], ['limit', 'an argument, not a call']],
  modules: ['Dict', 'Pricing', 'Shop.Log'],
  scopes: [['Retired', 'constant', ['type Status']], ['price', 'field', ['type alias Item']]],
});

describe('registry', () => {
  test('every language has its extensions, a fixture, and a query that compiles', () => {
    for (const [id, relPath] of Object.entries(FIXTURE_FILES)) {
      assert.equal(languageForPath(relPath)?.id, id, relPath);
    }
    // Headers go to C++, whose query includes C's: C reads well as C++, not the other way.
    assert.equal(languageForPath('include/buffer.h')?.id, 'cpp');
    assert.equal(languageForPath('src/scene.hpp')?.id, 'cpp');
    assert.equal(languageForPath('Rakefile.rake')?.id, 'ruby');
    assert.equal(languageForPath('build.gradle.kts')?.id, 'kotlin');
    assert.equal(languageForPath('test/helper.exs')?.id, 'elixir');
    const ids = LANGUAGES.map((lang) => lang.id);
    assert.equal(new Set(ids).size, ids.length, 'language ids are unique');
    const extensions = LANGUAGES.flatMap((lang) => lang.extensions);
    assert.equal(new Set(extensions).size, extensions.length, 'an extension belongs to one language');
  });

  test('a file in an unsupported language is skipped as "no grammar", never dropped', async () => {
    const root = await mkdtemp(join(tmpdir(), 'repomap-languages-'));
    try {
      await writeFile(join(root, 'Report.cbl'), '       IDENTIFICATION DIVISION.\n');
      await writeFile(join(root, 'notes.adoc'), '= Notes\n');
      for (const path of ['Report.cbl', 'notes.adoc']) {
        const record = await indexPath(root, path);
        assert.equal(record.skip, 'no grammar', path);
        assert.equal(record.tags, null);
        assert.equal(record.path, path);
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('worker threads', () => {
  test('every grammar loads and parses in the pool, with the same tags as in this thread', async () => {
    const paths = Object.values(FIXTURE_FILES);
    const jobs = await Promise.all(
      paths.map(async (path) => {
        const st = await stat(join(LANG_FIXTURES, path));
        return { path, stat: statOf(st) };
      }),
    );
    const runner = createRunner(2);
    try {
      const results = await parseAll(runner, LANG_FIXTURES, jobs, { maxFileBytes: MAX_FILE_BYTES });
      for (const [i, result] of results.entries()) {
        if (result.outcome !== 'parsed') assert.fail(`${paths[i]}: ${result.outcome}`);
        assert.equal(result.record.skip, null, `${paths[i]}: ${result.record.skip} ${result.record.detail ?? ''}`);
        const here = await indexPath(LANG_FIXTURES, paths[i]);
        assert.deepEqual(result.record.tags, here.tags, paths[i]);
      }
    } finally {
      await runner.close();
    }
  });
});

describe('lazy grammar loading', () => {
  // A fresh process indexes a repository of TypeScript, Go and Swift (WebAssembly) files (and one unsupported file),
  // in its main thread and on a pool of two workers, then reports the languages its main thread
  // loaded and the native grammar binaries mapped into the process (all threads share it).
  const script = `
    import { mkdir, mkdtemp, writeFile, readFile, stat, rm } from 'node:fs/promises';
    import { tmpdir } from 'node:os';
    import { join } from 'node:path';
    const languages = await import(process.argv[1]);
    const { indexFile } = await import(process.argv[2]);
    const { createRunner, parseAll } = await import(process.argv[3]);
    const root = await mkdtemp(join(tmpdir(), 'repomap-lazy-'));
    const files = {
      'src/a.ts': 'export function a(): number { return b(); }\\n',
      'src/b.go': 'package b\\nfunc B() int { return 1 }\\n',
      'src/c.swift': 'func c() -> Int { return 1 }\\n',
      'notes.txt': 'not code\\n',
    };
    await mkdir(join(root, 'src'));
    const jobs = [];
    for (const [path, text] of Object.entries(files)) {
      await writeFile(join(root, path), text);
      const st = await stat(join(root, path));
      jobs.push({ path, stat: { mtimeMs: st.mtimeMs, size: st.size, ctimeMs: st.ctimeMs } });
    }
    const options = { maxFileBytes: 1 << 20 };
    const before = languages.loadedLanguages();
    const inThread = await indexFile(root, jobs[0], options);
    const mainThread = languages.loadedLanguages();
    const runner = createRunner(2);
    const pooled = await parseAll(runner, root, jobs, options);
    let maps = null;
    try { maps = await readFile('/proc/self/maps', 'utf8'); } catch {}
    await runner.close();
    await rm(root, { recursive: true, force: true });
    process.stdout.write(JSON.stringify({
      before,
      mainThread,
      outcomes: [inThread, ...pooled].map((r) => r.record.skip ?? r.record.tags.lang),
      maps,
    }));
  `;

  test('a repository without Ruby (or any other language) never loads its grammar, in any thread', async () => {
    const dist = join(packageRoot, 'dist', 'src');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        script,
        join(dist, 'extract', 'languages.js'),
        join(dist, 'extract', 'file.js'),
        join(dist, 'indexer', 'pool.js'),
      ],
      { maxBuffer: 64 << 20 },
    );
    const report = JSON.parse(stdout) as { before: string[]; mainThread: string[]; outcomes: string[]; maps: string | null };
    assert.deepEqual(report.before, []);
    assert.deepEqual(report.mainThread, ['typescript']);
    assert.deepEqual(report.outcomes, ['typescript', 'typescript', 'go', 'swift', 'no grammar']);
    if (report.maps === null) return; // no /proc: the in-thread check above is all there is
    // A grammar's binary is mapped from its installed package, or from the package's packed copy (see bundled.ts).
    const mapped = (pkg: string) => report.maps!.includes(`/node_modules/${pkg}/`) || report.maps!.includes(`${bundledPackageDir(pkg)}/`);
    assert.ok(mapped('tree-sitter-typescript'), 'the TypeScript grammar is loaded');
    assert.ok(mapped('tree-sitter-go'), 'the Go grammar is loaded (by a worker)');
    const unused = [...new Set(LANGUAGES.map((lang) => lang.grammar.package))].filter(
      (pkg) => pkg !== 'tree-sitter-typescript' && pkg !== 'tree-sitter-go',
    );
    assert.ok(unused.includes('tree-sitter-ruby'));
    for (const pkg of unused) assert.ok(!mapped(pkg), `${pkg} was loaded by a repository without its language`);
  });
});
