import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  ConfigError,
  parseConfig,
  redactConfig,
  redactionPaths,
  REDACTED,
  secret,
  secretValues,
} from '../../src/config/index.js';
import { PluginRegistry } from '../../src/plugin/index.js';
import { optionsOnlyFlow, registryWithConnectors } from './fixtures.js';

const API_KEY = 'svc_live_SECRET_api_key_7f3a';
const HOOK_SECRET = 'whsec_SECRET_hook_19c2';
const DB_URL = 'postgres://app:SECRET_db_password@127.0.0.1:5432/books';

const GOOD = `api:
  base_url: https://api.example.com/v2
  api_key: \${KEY}
server:
  webhook_secrets: ['${HOOK_SECRET}']
connectors:
  books:
    type: sql
    connection:
      driver: pg
      url: \${DB_URL}
`;

describe('secret fields', () => {
  it('derives pino redaction paths from the schemas', () => {
    const paths = redactionPaths({ registry: registryWithConnectors() });
    expect(paths).toEqual(
      expect.arrayContaining(['api.api_key', 'server.webhook_secrets.*', 'connectors.*.connection.url']),
    );
    expect(redactionPaths({ prefix: 'config', registry: registryWithConnectors() })).toContain(
      'config.api.api_key',
    );
    expect(paths).not.toContain('api.base_url');
  });

  it('includes secrets of registered flow options', () => {
    const registry = new PluginRegistry([
      optionsOnlyFlow('push', z.strictObject({ token: secret(), folder: z.string() })),
    ]);
    expect(redactionPaths({ registry })).toContain('jobs.*.options.token');
  });

  it('redacts every secret in a config dump and lists their values for scrubbing', () => {
    const registry = registryWithConnectors();
    const { config } = parseConfig('c.yaml', GOOD, { env: { KEY: API_KEY, DB_URL }, registry });
    const dump = JSON.stringify(redactConfig(config, registry));
    for (const value of [API_KEY, HOOK_SECRET, DB_URL, 'SECRET']) expect(dump).not.toContain(value);
    expect(dump).toContain(REDACTED);
    expect(dump).toContain('https://api.example.com/v2');
    expect(secretValues(config, registry).sort()).toEqual([API_KEY, DB_URL, HOOK_SECRET].sort());
  });

  it('redacts secret-looking keys of connector types nobody registered', () => {
    const text = `api:\n  sandbox: embedded\nconnectors:\n  legacy:\n    type: ftp\n    host: 127.0.0.1\n    password: SECRET_ftp\n`;
    const { config } = parseConfig('c.yaml', text, { env: {}, registry: new PluginRegistry() });
    const dump = JSON.stringify(redactConfig(config, new PluginRegistry()));
    expect(dump).not.toContain('SECRET_ftp');
    expect(dump).toContain('127.0.0.1');
  });

  it('never puts a secret value into an error message', () => {
    const registry = registryWithConnectors();
    const bad = `api:
  base_url: https://api.example.com/v2
  api_key: \${KEY}
  timeout: \${KEY}
  max_concurrency: \${KEY}
server:
  webhook_secrets: [12345678, '']
  port: '${HOOK_SECRET}'
connectors:
  books:
    type: sql
    connection:
      driver: pg
      url: 987654321
      pool_size: \${DB_URL}
  files:
    type: sql
    connection:
      driver: mssql
      url: ${DB_URL}
      bogus: ${API_KEY}
`;
    let message = '';
    try {
      parseConfig('c.yaml', bad, { env: { KEY: API_KEY, DB_URL }, registry });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as ConfigError).message;
    }
    expect(message.split('\n').length).toBeGreaterThanOrEqual(6);
    for (const value of [API_KEY, DB_URL, '12345678', '987654321', 'SECRET_db_password', 'SECRET_api_key']) {
      expect(message).not.toContain(value);
    }
    expect(message).toContain('api.timeout: expected a duration');
    expect(message).toContain('(value from ${KEY} not shown)');
  });

  it('always fails with a ConfigError, never another exception, on arbitrary input', () => {
    const registry = registryWithConnectors();
    const fragments = fc.constantFrom(
      'api:',
      '  sandbox: embedded',
      '  base_url: x',
      'jobs:',
      '  a:',
      '    flow: f',
      '    schedule: */5',
      'connectors:',
      '  c:',
      '    type: sql',
      '    connection: [',
      '  - 1',
      ': :',
      '${X}',
      'server: { port: "1" }',
      '\t',
      '"',
      "'",
      '&a',
      '*a',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(fragments, fc.string()), { maxLength: 12 }), (lines) => {
        try {
          parseConfig('fuzz.yaml', lines.join('\n'), { env: {}, registry });
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
          expect(error.message).not.toMatch(/\n\s+at /);
        }
      }),
      { numRuns: 300, seed: 42 },
    );
  });
});
