// Files at the root that tell a model what the project is; listed first in a map when present.
const IMPORTANT_NAMES = [
  'package.json',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'requirements.txt',
  'Cargo.toml',
  'go.mod',
  'tsconfig.json',
  'deno.json',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'Gemfile',
  'composer.json',
  'CMakeLists.txt',
  'Makefile',
  'Dockerfile',
  'docker-compose.yml',
];

/** The important files among `paths` (root-level READMEs first, then manifests in a fixed order). */
export function importantFiles(paths: readonly string[]): string[] {
  const atRoot = new Set(paths.filter((path) => !path.includes('/')));
  const readmes = [...atRoot].filter((path) => /^readme(\.|$)/i.test(path)).sort();
  return [...readmes, ...IMPORTANT_NAMES.filter((name) => atRoot.has(name))];
}
