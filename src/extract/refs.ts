import { comparePaths } from '../discover/discover.js';
import type { FileNames, FileRefs, FileTags, RefTag } from '../records.js';

/** References (in file order) by column; names sorted, so equal lists give equal columns. */
export function packRefs(refs: readonly RefTag[]): FileRefs {
  if (refs.length === 0) return { names: [], counts: [], imports: [], subkinds: [], sites: [] };
  const counts = new Map<string, number>();
  const subkindIds = new Map<string, number>();
  const imports = new Set<string>();
  for (const { name, subkind } of refs) {
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if (!subkindIds.has(subkind)) subkindIds.set(subkind, subkindIds.size);
    if (subkind === 'import') imports.add(name);
  }
  const names = [...counts.keys()].sort(comparePaths);
  const nameIds = new Map<string, number>();
  names.forEach((name, i) => nameIds.set(name, i));
  const sites = new Array<number>(refs.length * 3);
  for (let i = 0; i < refs.length; i++) {
    const { name, subkind, line } = refs[i];
    sites[3 * i] = nameIds.get(name)!;
    sites[3 * i + 1] = subkindIds.get(subkind)!;
    sites[3 * i + 2] = line;
  }
  return {
    names,
    counts: names.map((name) => counts.get(name)!),
    imports: [...imports].sort(comparePaths),
    subkinds: [...subkindIds.keys()],
    sites,
  };
}

/** An indexed file's reference tags: its stored sites, named by the file's referenced names (`referenced`, asked only when it has sites). */
export function referenceTags(store: { referenceSites(path: string): Pick<FileRefs, 'subkinds' | 'sites'> | undefined }, path: string, referenced: () => readonly string[]): RefTag[] {
  const sites = store.referenceSites(path);
  return sites ? unpackRefs({ names: referenced(), ...sites }) : [];
}

/** The references as tags again, in file order (for the few readers that want each one). */
export function unpackRefs(refs: { names: readonly string[] } & Pick<FileRefs, 'subkinds' | 'sites'>): RefTag[] {
  const { names, subkinds, sites } = refs;
  const tags = new Array<RefTag>(sites.length / 3);
  for (let i = 0; i < tags.length; i++) {
    tags[i] = { name: names[sites[3 * i]], subkind: subkinds[sites[3 * i + 1]], line: sites[3 * i + 2] };
  }
  return tags;
}

/** What the graph reads of a file's tags (see FileNames); the arrays are the tags' own where they can be. */
export function fileNames(tags: FileTags): FileNames {
  const defined = [...new Set(tags.defs.map((def) => def.name))].sort(comparePaths);
  return { defined, referenced: tags.refs.names, counts: tags.refs.counts, imports: tags.refs.imports, modules: tags.modules };
}
