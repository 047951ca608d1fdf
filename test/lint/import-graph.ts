/**
 * The import graph of the shipped code as TypeScript's own parser reads it (`ts.preProcessFile`): every relative
 * import, `import type` and `export ... from` included, from each .ts file under the given folders, and its
 * strongly connected components (Tarjan): a component of more than one file, or a file importing itself, is a cycle.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export type ImportGraph = ReadonlyMap<string, readonly string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The file a relative specifier names (`./x.js` is written for `./x.ts`), or undefined when it leaves the graph. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = resolve(dirname(from), specifier);
  const candidates = [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, join(target, 'index.ts')];
  return candidates.find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
}

/** Each file (relative to `root`) with the files it imports, for every .ts file under `folders`. */
export function importGraph(root: string, folders: readonly string[]): ImportGraph {
  const files = folders.flatMap((folder) => sourceFiles(join(root, folder)));
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .map(({ fileName }) => resolveSpecifier(file, fileName))
        .filter((target): target is string => target !== undefined)
        .map((target) => relative(root, target));
      return [relative(root, file), [...new Set(targets)]];
    }),
  );
}

interface Visit {
  index: number;
  lowLink: number;
}

/** The graph's cycles: each strongly connected component of two or more files, and each file importing itself. */
export function importCycles(graph: ImportGraph): string[][] {
  const visits = new Map<string, Visit>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];

  const connect = (file: string): Visit => {
    const visit = { index: visits.size, lowLink: visits.size };
    visits.set(file, visit);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      const seen = visits.get(target);
      if (seen === undefined) visit.lowLink = Math.min(visit.lowLink, connect(target).lowLink);
      else if (onStack.has(target)) visit.lowLink = Math.min(visit.lowLink, seen.index);
    }
    if (visit.lowLink === visit.index) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
    }
    return visit;
  };

  for (const file of graph.keys()) if (!visits.has(file)) connect(file);
  return cycles;
}
