/**
 * No import cycle in src/ or connectors/, type-only imports included: each idea has one home, and what two files
 * share lives below both. The graph comes from TypeScript's parser (test/lint/import-graph.ts); a failure names
 * every file of each cycle.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, type ImportGraph } from './import-graph.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('import cycles', () => {
  it('finds a type-only cycle, a longer one and a self-import, and passes a chain', () => {
    const graph: ImportGraph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['a.ts', 'c.ts']],
      ['c.ts', ['d.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', ['c.ts']],
      ['f.ts', ['f.ts']],
      ['g.ts', ['h.ts']],
      ['h.ts', []],
    ]);
    expect(importCycles(graph).sort()).toEqual([['a.ts', 'b.ts'], ['c.ts', 'd.ts', 'e.ts'], ['f.ts']].sort());
  });

  it('reads `import type` and `export from` as imports', () => {
    const graph = importGraph(ROOT, ['test/lint/fixtures/type-cycle']);
    expect(importCycles(graph)).toEqual([
      ['test/lint/fixtures/type-cycle/left.ts', 'test/lint/fixtures/type-cycle/right.ts'],
    ]);
  });

  it('finds none in src/ and connectors/', () => {
    const graph = importGraph(ROOT, ['src', 'connectors']);
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('src/cli/main.ts')).toContain('src/cli/program.ts');
    expect(importCycles(graph).map((cycle) => cycle.join(' <-> '))).toEqual([]);
  });
});
