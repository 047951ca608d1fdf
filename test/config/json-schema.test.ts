/**
 * The exported config JSON Schema checked by a validator we did not write: ajv in strict mode, draft 2020-12, with
 * the standard formats. Strict mode refuses unknown keywords, so the secret annotation is declared the way an
 * editor or a CI check declares a vocabulary keyword (`addVocabulary`); nothing else is relaxed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildPluginRegistry } from '../../src/cli/plugins.js';
import { configJsonSchema, loadConfig } from '../../src/config/index.js';

const CONFIG_DIR = join(import.meta.dirname, '../../config');
const SECRET_KEYWORD = 'x-secret';

type JsonObject = Record<string, unknown>;

// ajv-formats is CommonJS; its default export arrives wrapped or not depending on the loader.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ??
  addFormatsPlugin) as unknown as (ajv: Ajv2020) => void;

function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  ajv.addVocabulary([SECRET_KEYWORD]);
  return ajv;
}

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

interface PropertyEntry {
  path: string;
  name: string;
  schema: JsonObject;
}

/** Every entry of every `properties` map in the schema, wherever it is nested. */
function allProperties(node: unknown, path = '#'): PropertyEntry[] {
  if (Array.isArray(node)) return node.flatMap((child, index) => allProperties(child, `${path}/${index}`));
  if (!isObject(node)) return [];
  const found: PropertyEntry[] = [];
  const properties = node['properties'];
  if (isObject(properties)) {
    for (const [name, schema] of Object.entries(properties)) {
      // `{ key: true }` restates a property inside "this key or its _file"; it is described where it is declared.
      if (isObject(schema)) found.push({ path: `${path}/properties/${name}`, name, schema });
    }
  }
  for (const [key, child] of Object.entries(node)) found.push(...allProperties(child, `${path}/${key}`));
  return found;
}

const describeErrors = (errors: ErrorObject[] | null | undefined): string =>
  (errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`).join('; ');

describe('config JSON Schema under a strict validator', () => {
  let schema: JsonObject;
  let ajv: Ajv2020;

  beforeAll(async () => {
    schema = configJsonSchema(await buildPluginRegistry());
    ajv = strictAjv();
  });

  it('declares draft 2020-12 and compiles in strict mode', () => {
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  it('is refused by a strict validator that does not know x-secret, so the keyword really is there', () => {
    const plain = new Ajv2020({ strict: true });
    addFormats(plain);
    expect(() => plain.compile(schema)).toThrow(/unknown keyword: "x-secret"/);
  });

  it('gives every property a description and an example', () => {
    const properties = allProperties(schema);
    expect(properties.length).toBeGreaterThan(150);
    const undocumented = properties
      .filter(
        ({ schema: property }) =>
          typeof property['description'] !== 'string' || property['description'] === '',
      )
      .map(({ path }) => path);
    const withoutExample = properties
      .filter(
        ({ schema: property }) => !Array.isArray(property['examples']) || property['examples'].length === 0,
      )
      .map(({ path }) => path);
    expect(undocumented).toEqual([]);
    expect(withoutExample).toEqual([]);
  });

  it("has examples that are valid values of their own property's schema", () => {
    const invalid: string[] = [];
    for (const { path, schema: property } of allProperties(schema)) {
      const validate = ajv.compile({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...property });
      for (const example of property['examples'] as unknown[]) {
        if (!validate(example))
          invalid.push(`${path}: ${JSON.stringify(example)}: ${describeErrors(validate.errors)}`);
      }
    }
    expect(invalid).toEqual([]);
  });

  it('marks the secret fields with x-secret and offers a <key>_file beside each', () => {
    const secrets = allProperties(schema).filter(
      ({ schema: property }) =>
        property[SECRET_KEYWORD] === true ||
        (isObject(property['items']) && property['items'][SECRET_KEYWORD] === true),
    );
    expect(secrets.map(({ name }) => name).sort()).toEqual(
      expect.arrayContaining(['api_key', 'url', 'webhook_secrets']),
    );
    const apiProperties = (schema['properties'] as Record<string, JsonObject>)['api']?.['properties'];
    expect(apiProperties).toHaveProperty('api_key_file');
    expect(JSON.stringify(schema)).not.toContain('"secret":true');
  });

  const files = readdirSync(CONFIG_DIR).filter((file) => file.endsWith('.yaml'));

  for (const file of files) {
    it(`validates the shipped ${file}`, () => {
      const validate = ajv.compile(schema);
      const data: unknown = parse(readFileSync(join(CONFIG_DIR, file), 'utf8'));
      expect(validate(data), describeErrors(validate.errors)).toBe(true);
    });
  }

  it('rejects what the loader rejects: an unknown key, a missing required secret, options of another flow', async () => {
    const validate = ajv.compile(schema);
    const registry = await buildPluginRegistry();
    const cases: { name: string; config: JsonObject }[] = [
      { name: 'unknown top-level key', config: { api: { sandbox: 'embedded' }, apis: {} } },
      {
        name: 'pg connection without url or url_file',
        config: {
          api: { sandbox: 'embedded' },
          connectors: { books: { type: 'sql', connection: { driver: 'pg' } } },
        },
      },
      {
        name: 'journal-export option on an orders job',
        config: {
          api: { sandbox: 'embedded' },
          jobs: { orders: { flow: 'orders', options: { max_lines_per_batch: 10 } } },
        },
      },
    ];
    for (const { name, config } of cases) {
      expect(validate(config), name).toBe(false);
      const text = JSON.stringify(config);
      expect(
        () => loadConfig('/virtual/case.yaml', { registry, readFile: () => text, env: {} }),
        name,
      ).toThrow();
    }
    // The same config with url_file is accepted by both.
    const withFile = {
      api: { sandbox: 'embedded' },
      connectors: { books: { type: 'sql', connection: { driver: 'pg', url_file: '/run/secrets/url' } } },
    };
    expect(validate(withFile), describeErrors(validate.errors)).toBe(true);
    const files: Record<string, string> = {
      '/virtual/ok.yaml': JSON.stringify(withFile),
      '/run/secrets/url': 'postgres://u:p@127.0.0.1:5432/books\n',
    };
    expect(() =>
      loadConfig('/virtual/ok.yaml', { registry, readFile: (path) => files[path] ?? '', env: {} }),
    ).not.toThrow();
  });
});
