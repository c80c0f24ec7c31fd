// Import resolution (src/resolve/): per language family, a small in-memory repository where the
// resolution decides (two files alike, only the imported one returned), and one end-to-end pass
// over fixtures/resolve/ that extracts real source and resolves its real modules.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, test } from 'node:test';
import { extractTags } from '../src/extract/extract.js';
import { languageForPath } from '../src/extract/languages.js';
import { packageRoot } from '../src/paths.js';
import { parseJsonc, parseToml } from '../src/resolve/config.js';
import { expandJvmImport } from '../src/resolve/jvm.js';
import { expandPhpUse } from '../src/resolve/php.js';
import { type ImportResolver, createResolver, isProjectFile } from '../src/resolve/resolve.js';
import { expandUseTree } from '../src/resolve/rust.js';

/** A resolver over these files; `texts` holds the project files' contents (others read as ''). */
function repo(paths: readonly string[], texts: Record<string, string> = {}): ImportResolver {
  const all = [...new Set([...paths, ...Object.keys(texts)])];
  return createResolver({ paths: all, read: (path) => (path in texts ? texts[path] : all.includes(path) ? '' : undefined) });
}

describe('ecma', () => {
  test('relative specifiers: extension probing, index files, .js written for .ts', () => {
    const r = repo([
      'src/app.ts', 'src/cart.ts', 'src/cart.test.ts', 'src/ui/index.tsx', 'src/ui/button.tsx',
      'src/legacy.mjs', 'src/util.mts', 'src/types.d.ts', 'lib/cart.ts', 'src/style.css',
    ]);
    assert.deepEqual(r.resolve('src/app.ts', ['./cart.js', './ui', './util.mjs', './types', './style.css', '../lib/missing']), [
      'src/cart.ts', 'src/types.d.ts', 'src/ui/index.tsx', 'src/util.mts',
    ]);
  });

  test('a folder import takes its index; the importing file itself is never returned', () => {
    const r = repo(['src/index.ts', 'src/a.ts', 'src/legacy.mjs', 'src/ui/index.tsx']);
    assert.deepEqual(r.resolve('src/ui/index.tsx', ['..', '../legacy.mjs', './index.jsx', '.']), ['src/index.ts', 'src/legacy.mjs']);
  });

  test('tsconfig paths and baseUrl, through extends (JSON with comments and trailing commas)', () => {
    const r = repo(['apps/web/src/main.ts', 'apps/web/src/lib/format.ts', 'packages/shared/util.ts', 'other/lib/format.ts', 'apps/web/src/config.ts'], {
      'tsconfig.base.json': `{
        // shared options
        "compilerOptions": {
          "baseUrl": ".",
          "paths": { "@shared/*": ["packages/shared/*"], "~lib/*": ["apps/web/src/lib/*", ], },
        },
      }`,
      'apps/web/tsconfig.json': '{ "extends": "../../tsconfig.base.json", /* web */ "compilerOptions": { "strict": true } }',
    });
    assert.deepEqual(r.resolve('apps/web/src/main.ts', ['@shared/util', '~lib/format.js', 'apps/web/src/config']), [
      'apps/web/src/config.ts', 'apps/web/src/lib/format.ts', 'packages/shared/util.ts',
    ]);
  });

  test('paths without baseUrl are relative to the tsconfig that declares them; the nearest tsconfig applies', () => {
    const r = repo(['a/src/x.ts', 'a/src/lib/m.ts', 'b/src/y.ts', 'b/lib/m.ts'], {
      'a/tsconfig.json': '{ "compilerOptions": { "paths": { "@lib/*": ["./src/lib/*"] } } }',
      'b/tsconfig.json': '{ "compilerOptions": { "paths": { "@lib/*": ["lib/*"] } } }',
    });
    assert.deepEqual(r.resolve('a/src/x.ts', ['@lib/m']), ['a/src/lib/m.ts']);
    assert.deepEqual(r.resolve('b/src/y.ts', ['@lib/m']), ['b/lib/m.ts']);
  });

  test('workspace packages by name: exports, main and types into dist mapped back to src', () => {
    const r = repo(
      [
        'packages/core/src/index.ts', 'packages/core/src/feature.ts', 'packages/utils/src/index.ts', 'packages/utils/src/strings.ts',
        'packages/cli/src/main.ts', 'packages/cli/index.js', 'packages/legacy/lib/entry.js', 'node_modules/core/index.js',
      ],
      {
        'packages/core/package.json': JSON.stringify({ name: '@acme/core', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' }, './feature': './dist/feature.js' } }),
        'packages/utils/package.json': JSON.stringify({ name: 'utils', main: 'dist/index.js' }),
        'packages/legacy/package.json': JSON.stringify({ name: 'legacy', main: './lib/entry.js' }),
        'node_modules/core/package.json': JSON.stringify({ name: 'core', main: 'index.js' }),
      },
    );
    assert.deepEqual(r.resolve('packages/cli/src/main.ts', ['@acme/core', '@acme/core/feature', 'utils', 'utils/strings', 'legacy', 'core', 'react']), [
      'packages/core/src/feature.ts', 'packages/core/src/index.ts', 'packages/legacy/lib/entry.js', 'packages/utils/src/index.ts', 'packages/utils/src/strings.ts',
    ]);
  });
});

describe('python', () => {
  test('absolute modules: a package before a module, only the module imported', () => {
    const r = repo(['app/__init__.py', 'app/models.py', 'app/views.py', 'app/db/__init__.py', 'app/db/session.py', 'other/models.py']);
    assert.deepEqual(r.resolve('app/views.py', ['app.models', 'app.db', 'os.path']), ['app/db/__init__.py', 'app/models.py']);
  });

  test('relative imports from the file\'s package', () => {
    const r = repo(['pkg/__init__.py', 'pkg/a.py', 'pkg/sub/__init__.py', 'pkg/sub/b.py', 'pkg/sub/c.py', 'pkg/util/__init__.py', 'pkg/util/text.py']);
    assert.deepEqual(r.resolve('pkg/sub/b.py', ['.c', '..a', '..util.text', '.']), ['pkg/a.py', 'pkg/sub/__init__.py', 'pkg/sub/c.py', 'pkg/util/text.py']);
    assert.deepEqual(r.resolve('pkg/a.py', ['...nothing']), []);
  });

  test('from pkg import mod names the submodule file too (importedNames)', () => {
    const r = repo(['pkg/__init__.py', 'pkg/mod.py', 'pkg/other.py', 'main.py']);
    assert.deepEqual(r.resolve('main.py', ['pkg'], ['mod', 'Thing']), ['pkg/__init__.py', 'pkg/mod.py']);
    assert.deepEqual(r.resolve('main.py', ['pkg']), ['pkg/__init__.py']);
  });

  test('src layout, and roots named by pyproject.toml and setup.cfg', () => {
    const paths = ['src/shop/__init__.py', 'src/shop/cart.py', 'python/lib/billing/__init__.py', 'python/lib/billing/tax.py', 'py/ledger/__init__.py', 'py/ledger/book.py', 'tests/test_cart.py'];
    const r = repo(paths, {
      'pyproject.toml': '[project]\nname = "x"\n\n[tool.setuptools.packages.find]\nwhere = ["python/lib"]  # the sources\n',
      'setup.cfg': '[metadata]\nname = y\n\n[options]\npackage_dir =\n    = py\n',
    });
    assert.deepEqual(r.resolve('tests/test_cart.py', ['shop.cart', 'billing.tax', 'ledger.book']), ['py/ledger/book.py', 'python/lib/billing/tax.py', 'src/shop/cart.py']);
  });

  test('poetry packages and the top-level-package fallback', () => {
    const r = repo(['backend/saleor/__init__.py', 'backend/saleor/graphql/__init__.py', 'backend/saleor/graphql/api.py', 'libs/core/__init__.py', 'libs/core/x.py', 'scripts/run.py'], {
      'pyproject.toml': '[tool.poetry]\nname = "z"\npackages = [\n  { include = "core", from = "libs" },\n]\n',
    });
    assert.deepEqual(r.resolve('scripts/run.py', ['saleor.graphql.api', 'core.x']), ['backend/saleor/graphql/api.py', 'libs/core/x.py']);
  });
});

describe('go', () => {
  test('an import path under a go.mod module is its folder\'s non-test files', () => {
    const r = repo(['cmd/server/main.go', 'internal/store/store.go', 'internal/store/cache.go', 'internal/store/store_test.go', 'internal/store/sub/deep.go', 'vendor/github.com/x/y/y.go', 'tools/gen/gen.go'], {
      'go.mod': 'module example.com/shop\n\ngo 1.22\n',
      'tools/go.mod': 'module example.com/shop/tools\n',
    });
    assert.deepEqual(r.resolve('cmd/server/main.go', ['example.com/shop/internal/store', 'fmt', 'github.com/x/y', 'example.com/shop/tools/gen']), [
      'internal/store/cache.go', 'internal/store/store.go', 'tools/gen/gen.go', 'vendor/github.com/x/y/y.go',
    ]);
  });
});

describe('rust', () => {
  const files = ['app/src/lib.rs', 'app/src/main.rs', 'app/src/net.rs', 'app/src/net/tcp.rs', 'app/src/net/udp/mod.rs', 'app/src/store/mod.rs', 'app/src/store/disk.rs', 'util/src/lib.rs', 'util/src/text.rs', 'util/src/tcp.rs'];
  const texts = { 'app/Cargo.toml': '[package]\nname = "app"\n', 'util/Cargo.toml': '[package]\nname = "my-util"\nversion = "0.1.0"\n' };

  test('mod declarations beside lib.rs/mod.rs, and below a file module', () => {
    const r = repo(files, texts);
    assert.deepEqual(r.resolve('app/src/lib.rs', ['mod net', 'mod store', 'mod missing']), ['app/src/net.rs', 'app/src/store/mod.rs']);
    assert.deepEqual(r.resolve('app/src/net.rs', ['mod tcp', 'mod udp']), ['app/src/net/tcp.rs', 'app/src/net/udp/mod.rs']);
    assert.deepEqual(r.resolve('app/src/store/mod.rs', ['mod disk']), ['app/src/store/disk.rs']);
  });

  test('use paths: crate::, super::, self::, use lists, a child module, a workspace crate', () => {
    const r = repo(files, texts);
    assert.deepEqual(r.resolve('app/src/store/disk.rs', ['crate::net::tcp::Conn', 'super::Store', 'std::io']), ['app/src/net/tcp.rs', 'app/src/store/mod.rs']);
    assert.deepEqual(r.resolve('app/src/net/tcp.rs', ['super::udp::{Socket, self}', 'crate::Config']), ['app/src/lib.rs', 'app/src/net/udp/mod.rs']);
    assert.deepEqual(r.resolve('app/src/main.rs', ['crate::{net::{tcp, udp::Socket}, store::disk::Disk}', 'my_util::text::upper', 'net::tcp']), [
      'app/src/net/tcp.rs', 'app/src/net/udp/mod.rs', 'app/src/store/disk.rs', 'util/src/text.rs',
    ]);
  });

  test('expandUseTree', () => {
    assert.deepEqual(expandUseTree('crate::a::{ B, c::D as E, self, }'), [['crate', 'a', 'B'], ['crate', 'a', 'c', 'D'], ['crate', 'a']]);
    assert.deepEqual(expandUseTree('::ext::x::*'), [['', 'ext', 'x']]);
  });
});

describe('jvm', () => {
  test('a class import by path suffix, a wildcard import, across Java, Kotlin and Scala', () => {
    const r = repo([
      'core/src/main/java/com/shop/model/Order.java', 'core/src/main/java/com/shop/model/Item.java', 'legacy/com/old/model/Order.java',
      'app/src/main/kotlin/com/shop/app/Main.kt', 'app/src/main/kotlin/com/shop/util/Strings.kt', 'app/src/main/scala/com/shop/report/Report.scala',
      'app/src/main/scala/com/shop/report/Summary.scala', 'web/com/shop/model/Order.ts',
    ]);
    assert.deepEqual(r.resolve('app/src/main/kotlin/com/shop/app/Main.kt', ['com.shop.model.Order', 'com.shop.util.*', 'com.shop.report.Report.render', 'java.util.List']), [
      'app/src/main/kotlin/com/shop/util/Strings.kt', 'app/src/main/scala/com/shop/report/Report.scala', 'core/src/main/java/com/shop/model/Order.java',
    ]);
    assert.deepEqual(r.resolve('app/src/main/scala/com/shop/report/Summary.scala', ['com.shop.model.{Item, Order => O}', 'com.shop.util._']), [
      'app/src/main/kotlin/com/shop/util/Strings.kt', 'core/src/main/java/com/shop/model/Item.java', 'core/src/main/java/com/shop/model/Order.java',
    ]);
  });

  test('a name no file has falls back to its package folder (a Kotlin top-level function)', () => {
    const r = repo(['src/com/shop/util/Strings.kt', 'src/com/shop/util/Numbers.kt', 'src/com/shop/Main.kt']);
    assert.deepEqual(r.resolve('src/com/shop/Main.kt', ['com.shop.util.slugify']), ['src/com/shop/util/Numbers.kt', 'src/com/shop/util/Strings.kt']);
  });

  test('expandJvmImport', () => {
    assert.deepEqual(expandJvmImport('a.b.{C, D => E, _}'), ['a.b.C', 'a.b.D', 'a.b._']);
    assert.deepEqual(expandJvmImport('a.b.C, x.y.Z as W'), ['a.b.C', 'x.y.Z']);
  });
});

describe('dotnet', () => {
  test('a namespace is the folders ending with its path; a class import its file', () => {
    const r = repo(['src/Shop.Core/Models/Order.cs', 'src/Shop.Core/Models/Item.cs', 'src/Shop.Core/Services/Billing.cs', 'src/Shop.Web/Program.cs', 'other/Models/Order.cs']);
    assert.deepEqual(r.resolve('src/Shop.Web/Program.cs', ['Shop.Core.Models', 'System.Linq']), ['src/Shop.Core/Models/Item.cs', 'src/Shop.Core/Models/Order.cs']);
    assert.deepEqual(r.resolve('src/Shop.Web/Program.cs', ['Shop.Core.Services.Billing']), ['src/Shop.Core/Services/Billing.cs']);
  });
});

describe('c', () => {
  test('relative to the including file, then include folders, then a unique suffix', () => {
    const r = repo(['src/net/socket.c', 'src/net/socket.h', 'src/util.h', 'include/shop/api.h', 'lib/vendor/json.h', 'lib/a/dup.h', 'lib/b/dup.h', 'other/socket.h', 'src/net/socket.py']);
    assert.deepEqual(r.resolve('src/net/socket.c', ['socket.h', '../util.h', 'shop/api.h', 'json.h', 'dup.h', 'missing.h']), [
      'include/shop/api.h', 'lib/vendor/json.h', 'src/net/socket.h', 'src/util.h',
    ]);
  });
});

describe('ruby and php', () => {
  test('ruby: require_relative from the file, require under lib/', () => {
    const r = repo(['lib/shop.rb', 'lib/shop/cart.rb', 'lib/shop/helper.rb', 'app/cart.rb', 'test/test_cart.rb', 'test/helper.rb']);
    assert.deepEqual(r.resolve('test/test_cart.rb', ['./helper', '../lib/shop', 'shop/cart', 'json']), ['lib/shop.rb', 'lib/shop/cart.rb', 'test/helper.rb']);
  });

  test('php: PSR-4 prefixes, group uses, a unique suffix, require paths', () => {
    const r = repo(['app/Models/User.php', 'app/Models/Team.php', 'legacy/Models/User.php', 'src/Billing/Invoice.php', 'public/index.php', 'bootstrap/app.php', 'public/config.php'], {
      'composer.json': '{ "autoload": { "psr-4": { "App\\\\": "app/" } } }',
    });
    assert.deepEqual(r.resolve('public/index.php', ['App\\Models\\User', 'App\\Models\\{Team, Missing as M}', 'Acme\\Billing\\Invoice', 'bootstrap/app.php', './config.php']), [
      'app/Models/Team.php', 'app/Models/User.php', 'bootstrap/app.php', 'public/config.php', 'src/Billing/Invoice.php',
    ]);
    assert.deepEqual(expandPhpUse('function App\\{f, g as h}'), ['App\\f', 'App\\g']);
  });
});

describe('shared', () => {
  test('other families resolve to nothing; results stay in the importing family', () => {
    const r = repo(['run.sh', 'lib.sh', 'src/a.ts', 'src/b.py', 'src/b.ts']);
    assert.deepEqual(r.resolve('run.sh', ['./lib.sh']), []);
    assert.deepEqual(r.resolve('src/a.ts', ['./b.py', './b']), ['src/b.ts']);
  });

  test('isProjectFile', () => {
    for (const path of ['tsconfig.json', 'a/tsconfig.base.json', 'jsconfig.json', 'x/package.json', 'go.mod', 'go.work', 'c/Cargo.toml', 'pyproject.toml', 'setup.cfg', 'composer.json']) {
      assert.ok(isProjectFile(path), path);
    }
    for (const path of ['src/config.json', 'package-lock.json', 'go.sum', 'Cargo.lock', 'setup.py']) assert.ok(!isProjectFile(path), path);
  });

  test('config readers: lenient JSON, TOML subset', () => {
    assert.deepEqual(parseJsonc('{ "a": "//not a comment", /* c */ "b": [1, 2,], }'), { a: '//not a comment', b: [1, 2] });
    assert.equal(parseJsonc('{ broken'), undefined);
    assert.deepEqual(parseToml('[package]\nname = "x" # c\n[lib]\npath = \'src/x.rs\'\n[[bin]]\nname = "a"\n[[bin]]\nname = "b"\n'), {
      package: { name: 'x' }, lib: { path: 'src/x.rs' }, bin: [{ name: 'a' }, { name: 'b' }],
    });
  });
});

describe('end to end: fixtures/resolve', () => {
  const root = join(packageRoot, 'fixtures', 'resolve');
  // Every file under the fixture root, root-relative ('/'-separated).
  const paths = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
  const resolver = createResolver({
    paths,
    read: (path) => {
      try {
        return readFileSync(join(root, path), 'utf8');
      } catch {
        return undefined;
      }
    },
  });
  /** What a fixture file imports, from its extracted modules and names. */
  const importsOf = (path: string): string[] => {
    const lang = languageForPath(path);
    assert.ok(lang, path);
    const result = extractTags(lang, readFileSync(join(root, path), 'utf8'));
    assert.ok(result.ok, path);
    return resolver.resolve(path, result.tags.modules, result.tags.refs.imports);
  };

  const expected: Record<string, string[]> = {
    'ts/packages/app/src/main.ts': ['ts/packages/app/src/cart.ts', 'ts/packages/app/src/ui/index.tsx', 'ts/packages/money/src/index.ts'],
    'python/shop/views.py': ['python/shop/__init__.py', 'python/shop/models.py', 'python/shop/pricing/__init__.py', 'python/shop/pricing/tax.py'],
    'go/cmd/shop/main.go': ['go/internal/cart/cart.go', 'go/internal/cart/total.go'],
    'rust/src/lib.rs': ['rust/src/cart.rs', 'rust/src/money/mod.rs'],
    'rust/src/cart.rs': ['rust/src/money/mod.rs', 'rust/src/money/round.rs'],
    'java/src/main/java/com/shop/App.java': ['java/src/main/java/com/shop/model/Cart.java', 'java/src/main/java/com/shop/model/Item.java', 'java/src/main/java/com/shop/util/Prices.java'],
    'c/src/main.c': ['c/include/shop/cart.h', 'c/src/util.h'],
  };
  for (const [path, files] of Object.entries(expected)) {
    test(path, () => assert.deepEqual(importsOf(path), files));
  }
});

