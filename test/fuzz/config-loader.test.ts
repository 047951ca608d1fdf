/**
 * The config loader under random input: arbitrary YAML-ish text, arbitrary YAML documents, and random mutations of
 * config/demo.yaml (values replaced, keys removed, renamed or added). It either loads or throws a ConfigError whose
 * issues name the file and where in it; never any other exception.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { buildPluginRegistry } from '../../src/daemon/index.js';
import { REPO_ROOT } from '../crash/harness/child.js';

const DEMO_FILE = path.join(REPO_ROOT, 'config', 'demo.yaml');
const DEMO_TEXT = readFileSync(DEMO_FILE, 'utf8');
const registry = buildPluginRegistry();

/** Loads text as DEMO_FILE; returns the ConfigError, null when it loaded, and fails on any other exception. */
function load(text: string): ConfigError | null {
  try {
    parseConfig(DEMO_FILE, text, {
      registry,
      env: {},
      readFile: (file) => {
        throw Object.assign(new Error(`ENOENT: no such file, open '${file}'`), { code: 'ENOENT' });
      },
    });
    return null;
  } catch (error) {
    if (!(error instanceof ConfigError)) {
      throw new Error(`not a ConfigError for input:\n${text}\n---\n${String(error)}`, { cause: error });
    }
    expect(error.issues.length).toBeGreaterThan(0);
    for (const issue of error.issues) {
      expect(issue.file).toBe(DEMO_FILE);
      expect(issue.message.length).toBeGreaterThan(0);
    }
    expect(error.message).toContain(DEMO_FILE);
    return error;
  }
}

const yamlChars = fc.constantFrom(...'abz019 :-\n\t#&*!|>\'"{}[],%@`?~=\\$'.split(''));

type Json = unknown;
type Path = (string | number)[];

function paths(value: Json, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, child]) => paths(child, [...prefix, key]))];
}

function setAt(
  root: Json,
  at: Path,
  update: (parent: Record<string | number, unknown>, key: string | number) => void,
): Json {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const key of at.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = at.at(-1);
  if (last !== undefined) update(node, last);
  return copy;
}

const demo = parse(DEMO_TEXT) as Json;
const demoPaths = paths(demo).filter((p) => p.length > 0);

const mutation = fc.oneof(
  fc.record({
    kind: fc.constant('replace' as const),
    at: fc.constantFrom(...demoPaths),
    value: fc.jsonValue(),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.constantFrom(...demoPaths) }),
  fc.record({
    kind: fc.constant('rename' as const),
    at: fc.constantFrom(...demoPaths.filter((p) => typeof p.at(-1) === 'string')),
    suffix: fc.constantFrom('s', '_x', 'X', ''),
  }),
  fc.record({
    kind: fc.constant('add' as const),
    at: fc.constantFrom(...demoPaths),
    key: fc.string({ minLength: 1, maxLength: 12 }),
    value: fc.jsonValue(),
  }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(m: Mutation): Json {
  switch (m.kind) {
    case 'replace':
      return setAt(demo, m.at, (parent, key) => (parent[key] = m.value));
    case 'delete':
      return setAt(demo, m.at, (parent, key) => {
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete parent[key];
      });
    case 'rename':
      return setAt(demo, m.at, (parent, key) => {
        const value = parent[key];
        delete parent[key];
        parent[`${String(key)}${m.suffix || '_'}`] = value;
      });
    case 'add':
      return setAt(demo, [...m.at, m.key], (parent, key) => {
        if (typeof parent === 'object' && parent !== null && !Array.isArray(parent)) parent[key] = m.value;
      });
  }
}

describe('config loader under random input', () => {
  it('loads config/demo.yaml as shipped (the mutations start from a valid file)', () => {
    expect(load(DEMO_TEXT)).toBeNull();
  });

  it('answers random YAML-ish text with a ConfigError or a config', () => {
    fc.assert(
      fc.property(fc.string({ unit: yamlChars, maxLength: 300 }), (text) => {
        load(text);
      }),
      { numRuns: 400, seed: 3 },
    );
  });

  it('answers random YAML documents with a ConfigError or a config', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        load(stringify(value));
      }),
      { numRuns: 300, seed: 5 },
    );
  });

  it('answers random mutations of demo.yaml with a ConfigError that points into the file', () => {
    let errors = 0;
    fc.assert(
      fc.property(mutation, (m) => {
        const error = load(stringify(mutate(m)));
        if (error === null) return;
        errors += 1;
        // Schema problems name their key path (file-level ones, e.g. YAML syntax, name a line instead).
        for (const issue of error.issues) expect(issue.path !== '' || issue.line !== undefined).toBe(true);
      }),
      { numRuns: 400, seed: 9 },
    );
    // The property must have met real errors, not only harmless mutations.
    expect(errors).toBeGreaterThan(50);
  });
});
