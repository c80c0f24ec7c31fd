// What kind of file a path is, by its folders and name alone: tests, and vendored or generated
// code. Shared by the map's layout (tests never come ahead of code) and eval (what a task counts).

const VENDORED_DIRS = new Set(['vendor', 'vendored', 'third_party', 'third-party', 'thirdparty', 'node_modules', 'dist', 'generated', '__generated__', 'external']);
const GENERATED_NAME =
  /(\.pb\.go|_pb2(_grpc)?\.pyi?|\.pb\.(ts|js)|_generated\.\w+|\.generated\.\w+|^zz_generated.*|\.min\.js|\.bundle\.js|^bindata\.go|\.gen\.\w+|_gen\.go|_string\.go)$/;

/** A vendored, third-party or generated file (by folder or by name). */
export function isVendoredOrGenerated(path: string): boolean {
  const parts = path.split('/');
  const name = parts.pop()!;
  return parts.some((part) => VENDORED_DIRS.has(part)) || GENERATED_NAME.test(name);
}

const TEST_DIRS = new Set(['test', 'tests', 'testing', '__tests__', '__test__', 'spec', 'specs', 'testdata', 'e2e']);
const TEST_NAME =
  /(^test_.*\.pyi?$|_tests?\.(py|go|rs|rb)$|_spec\.rb$|^tests?\.(py|rs)$|\.(test|spec)\.[cm]?[jt]sx?$|^conftest\.py$|(Test|Tests|Spec|IT)\.(java|kt|scala|cs)$)/;

/** isTestPath's answers: a map request asks about thousands of paths, most of them asked before. */
const testPaths = new Map<string, boolean>();
/** Answers kept; past this, the memo starts over (paths come and go in a daemon's life). */
const TEST_MEMO_LIMIT = 1 << 18;

/** A test file: in a test folder, or named as one (test_x.py, x_test.go, x.test.ts, x.spec.tsx, ...). */
export function isTestPath(path: string): boolean {
  let test = testPaths.get(path);
  if (test === undefined) {
    const parts = path.split('/');
    const name = parts.pop()!;
    test = parts.some((part) => TEST_DIRS.has(part)) || TEST_NAME.test(name);
    if (testPaths.size >= TEST_MEMO_LIMIT) testPaths.clear();
    testPaths.set(path, test);
  }
  return test;
}
