import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig, parseDuration } from '../../src/config/index.js';
import { MINIMAL, registryWithConnectors, tempFiles } from './fixtures.js';

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const parse = (text: string, env: Record<string, string> = {}) =>
  parseConfig('config/test.yaml', text, {
    env,
    registry: registryWithConnectors(),
    readFile: () => 'unused',
  });

describe('config loading', () => {
  it('applies defaults to a minimal config', () => {
    const { config, warnings } = parse(MINIMAL);
    expect(config.timezone).toBe('Asia/Jerusalem');
    expect(config.server).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      webhook_path: '/webhooks',
      webhook_secrets: [],
    });
    expect(config.api).toMatchObject({
      sandbox: 'embedded',
      auth: 'api_key',
      timeout: 30_000,
      max_concurrency: 4,
    });
    expect(config.state.path).toBe(resolve('config/state/supply-sync.db'));
    expect(warnings).toEqual([]);
  });

  it('warns of a job option that names a mapping table not under mappings:, with the closest name', () => {
    const jobs =
      'jobs:\n  orders:\n    flow: orders\n    schedule: "*/5 * * * *"\n    options:\n' +
      '      customer_mapping: custmers\n      item_mapping: skus\n' +
      '  journal:\n    flow: journal-export\n    schedule: "0 2 * * *"\n    options:\n' +
      '      mappings:\n        accounts: acounts\n';
    const mappings =
      'mappings:\n  customers:\n    buyer_1: C1\n  skus:\n    S1: I1\n  accounts:\n    "4010": "100"\n';
    const { warnings } = parse(`${MINIMAL}${jobs}${mappings}`);
    const named = warnings.filter((warning) => warning.includes('names the table'));
    expect(named).toEqual([
      'config/test.yaml: jobs.orders.options.customer_mapping names the table "custmers", which is not under ' +
        'mappings:; did you mean "customers"? Add the table or correct the name',
      'config/test.yaml: jobs.journal.options.mappings.accounts names the table "acounts", which is not under ' +
        'mappings:; did you mean "accounts"? Add the table or correct the name',
    ]);
  });

  it('refuses an API key without the sandbox or live prefix, naming the file and key but never the value', () => {
    const text = 'api:\n  base_url: https://api.example.com/v2\n  api_key: abc123-copied-half\n';
    const error = configError(() => parse(text));
    expect(error.message).toBe(
      'config/test.yaml:3:12 api.api_key: expected an API key that starts with svc_test_ (sandbox) or svc_live_ ' +
        '(live); the value given does not (it is not shown): copy the whole key from the API account',
    );
    expect(error.message).not.toContain('abc123');
  });

  it('names file, line, column, key path and expectation for a bad cron expression', () => {
    const text = `${MINIMAL}jobs:\n  orders:\n    flow: orders\n    schedule: every 5 min\n`;
    const error = configError(() => parse(text));
    expect(error.message).toBe(
      'config/test.yaml:6:15 jobs.orders.schedule: expected a cron expression like "*/5 * * * *", got "every 5 min"',
    );
    expect(error.issues[0]).toMatchObject({ line: 6, column: 15, path: 'jobs.orders.schedule' });
  });

  it('rejects unknown keys with a did-you-mean suggestion at the key', () => {
    const error = configError(() => parse(`${MINIMAL}server:\n  prot: 9000\n  webhok_path: /hooks\n`));
    expect(error.message).toContain(
      'config/test.yaml:4:3 server.prot: unknown key "prot"; did you mean "port"?',
    );
    expect(error.message).toContain(
      'config/test.yaml:5:3 server.webhok_path: unknown key "webhok_path"; did you mean "webhook_path"?',
    );
  });

  it('lists the accepted keys when no key is close', () => {
    const error = configError(() => parse(`${MINIMAL}log:\n  zzzzzzzz: 1\n`));
    expect(error.message).toContain('log.zzzzzzzz: unknown key "zzzzzzzz" (expected one of: level, pretty)');
  });

  it('suggests inside connector blocks validated by their registered schema', () => {
    const text = `${MINIMAL}connectors:\n  erp:\n    type: sql\n    conection:\n      driver: sqlite\n      file: erp.db\n`;
    const error = configError(() => parse(text));
    expect(error.message).toContain(
      'config/test.yaml:6:5 connectors.erp.conection: unknown key "conection"; did you mean "connection"?',
    );
  });

  it('reports wrong types with what was expected and what was found', () => {
    const error = configError(() => parse(`${MINIMAL}server:\n  port: eighty\nlog:\n  level: loud\n`));
    expect(error.message).toContain('config/test.yaml:4:9 server.port: expected a number, got "eighty"');
    expect(error.message).toMatch(
      /config\/test\.yaml:6:10 log\.level: expected one of "fatal", .*"silent", got "loud"/,
    );
  });

  it('says what a value of several kinds may be when it is none of them', () => {
    const error = configError(() => parse(`${MINIMAL}mappings:\n  purchase_types:\n    FC: [bad]\n`));
    expect(error.message).toContain('mappings.purchase_types.FC: expected text or a number, got a list');
  });

  it('reports a missing required key at its parent', () => {
    const error = configError(() => parse(`${MINIMAL}jobs:\n  orders:\n    schedule: '0 * * * *'\n`));
    expect(error.message).toContain('config/test.yaml:5:5 jobs.orders.flow: expected the flow this job runs');
  });

  it('requires exactly one of base_url and sandbox', () => {
    const error = configError(() => parse(`api:\n  timeout: 5s\n`));
    expect(error.message).toContain('api.base_url: expected either base_url or sandbox: embedded');
  });

  it('reports YAML syntax errors with their position and a hint for unquoted cron', () => {
    const error = configError(() => parse(`${MINIMAL}jobs:\n  a:\n    flow: x\n    schedule: */5 * * * *\n`));
    expect(error.issues[0]).toMatchObject({ line: 6 });
    expect(error.message).toContain('must be quoted');
  });

  it('accepts JSON', () => {
    const { config } = parseConfig(
      'c.json',
      JSON.stringify({ api: { sandbox: 'embedded' }, server: { port: 9000 } }),
      {
        env: {},
      },
    );
    expect(config.server.port).toBe(9000);
  });

  it('names a file that does not exist', () => {
    const error = configError(() => loadConfig('/nonexistent/supply-sync.yaml'));
    expect(error.message).toBe(
      '/nonexistent/supply-sync.yaml: file not found; pass --config FILE or create it from config/demo.yaml',
    );
  });

  it('checks that a job names a defined connector', () => {
    const text = `${MINIMAL}connectors:\n  erp_db:\n    type: sql\n    connection: { driver: sqlite, file: e.db }\njobs:\n  orders:\n    flow: orders\n    connector: erp\n`;
    const error = configError(() => parse(text));
    expect(error.message).toContain(
      'jobs.orders.connector: no connector named "erp"; did you mean "erp_db"?',
    );
  });

  it('treats a near-miss connector type as an error and an unknown one as a warning', () => {
    const typo = configError(() => parse(`${MINIMAL}connectors:\n  erp:\n    type: sqll\n`));
    expect(typo.message).toContain('connectors.erp.type: unknown connector type "sqll"; did you mean "sql"?');
    const { warnings } = parse(`${MINIMAL}connectors:\n  files:\n    type: hashavshevet\n    folder: x\n`);
    expect(warnings).toEqual([
      'connectors.files: type "hashavshevet" has no registered schema, so its settings were not checked',
    ]);
  });

  it('returns a deeply frozen config', () => {
    const { config } = parse(`${MINIMAL}mappings:\n  skus:\n    A: '1'\n`);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.server.webhook_secrets)).toBe(true);
    expect(Object.isFrozen(config.mappings['skus'])).toBe(true);
    expect(() => {
      (config.server as { port: number }).port = 1;
    }).toThrow(TypeError);
  });
});

describe('durations', () => {
  it('parses units and compounds into milliseconds', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('15m')).toBe(900_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
    for (const bad of ['', '15', 'm', '1.5h', '15 minutes', '-1s', '1w'])
      expect(parseDuration(bad), bad).toBeUndefined();
  });

  it('normalises config durations and explains bad ones', () => {
    const { config } = parse(
      `api:\n  sandbox: embedded\n  timeout: 1h30m\njobs:\n  a:\n    flow: f\n    jitter: 45s\n    budget: 120000\n`,
    );
    expect(config.api.timeout).toBe(5_400_000);
    expect(config.jobs['a']).toMatchObject({ jitter: 45_000, budget: 120_000 });
    const error = configError(() => parse(`api:\n  sandbox: embedded\n  timeout: 15 minutes\n`));
    expect(error.message).toBe(
      'config/test.yaml:3:12 api.timeout: expected a duration like "30s", "15m", "2h" or "1d" (or milliseconds as a number), got "15 minutes"',
    );
  });
});

describe('environment substitution', () => {
  it('substitutes variables and defaults', () => {
    const text = `api:\n  base_url: \${API_URL}\n  api_key: \${KEY}\nstate:\n  path: \${STATE_DIR:-state}/x.db\nlog:\n  level: \${LEVEL:-warn}\n`;
    const { config } = parse(text, { API_URL: 'https://api.example.com/v2', KEY: 'svc_test_abc' });
    expect(config.api.base_url).toBe('https://api.example.com/v2');
    expect(config.api.api_key).toBe('svc_test_abc');
    expect(config.state.path).toBe(resolve('config/state/x.db'));
    expect(config.log.level).toBe('warn');
  });

  it('names a missing variable and where it is referenced', () => {
    const error = configError(() =>
      parse(`api:\n  base_url: https://api.example.com/v2\n  api_key: \${SUPPLY_API_KEY}\n`),
    );
    expect(error.message).toBe(
      'config/test.yaml:3:12 api.api_key: environment variable SUPPLY_API_KEY is not set (referenced as ${SUPPLY_API_KEY}); set it or remove the reference',
    );
  });

  it('keeps $${ as a literal', () => {
    const { config } = parse(`${MINIMAL}mappings:\n  t:\n    a: 'x$\${y}'\n`);
    expect(config.mappings['t']?.['a']).toBe('x${y}');
  });
});

describe('*_file secrets', () => {
  it('reads a secret from a file relative to the config, trimming one trailing newline', () => {
    const dir = tempFiles({
      'key.txt': 'svc_live_0123456789\n',
      'hooks.txt': 'whsec_new\nwhsec_old\n',
      'c.yaml': `api:\n  base_url: https://api.example.com/v2\n  api_key_file: key.txt\nserver:\n  webhook_secrets_file: hooks.txt\n`,
    });
    const { config } = loadConfig(join(dir, 'c.yaml'), { env: {} });
    expect(config.api.api_key).toBe('svc_live_0123456789');
    expect(config.server.webhook_secrets).toEqual(['whsec_new', 'whsec_old']);
  });

  it('works inside connector blocks for fields their schema marks secret', () => {
    const dir = tempFiles({
      'db-url': 'postgres://app:pw@127.0.0.1:5432/books\r\n',
      'c.yaml': `${MINIMAL}connectors:\n  books:\n    type: sql\n    connection:\n      driver: pg\n      url_file: db-url\n`,
    });
    const { config } = loadConfig(join(dir, 'c.yaml'), { env: {}, registry: registryWithConnectors() });
    expect(config.connectors['books']).toMatchObject({
      connection: { url: 'postgres://app:pw@127.0.0.1:5432/books' },
    });
  });

  it('refuses *_file for a field that is not secret, and both forms at once', () => {
    const dir = tempFiles({ 'p.txt': 'x', 'k.txt': 'svc_test_k' });
    const text = `api:\n  base_url: https://api.example.com/v2\n  api_key: svc_test_a\n  api_key_file: k.txt\nlog:\n  level_file: p.txt\n`;
    const error = configError(() => parseConfig(join(dir, 'c.yaml'), text, { env: {} }));
    expect(error.message).toContain(':4:3 api.api_key_file: give either api_key or api_key_file, not both');
    expect(error.message).toContain(
      ':6:3 log.level: level_file is accepted only for secret fields; give the value directly',
    );
  });

  it('names an unreadable secret file', () => {
    const dir = tempFiles({});
    const text = `api:\n  base_url: https://api.example.com/v2\n  api_key_file: missing.txt\n`;
    const error = configError(() => parseConfig(join(dir, 'c.yaml'), text, { env: {} }));
    expect(error.message).toBe(
      `${join(dir, 'c.yaml')}:3:17 api.api_key_file: cannot read secret file ${join(dir, 'missing.txt')} (ENOENT): check the path (relative paths start at the config file's folder)`,
    );
  });
});

describe('api block', () => {
  it('wants a base URL that ends in /v2 and drops a trailing slash', () => {
    const error = configError(() =>
      parse(`api:\n  base_url: https://api.example.com\n  api_key: svc_test_k\n`),
    );
    expect(error.message).toBe(
      'config/test.yaml:2:13 api.base_url: expected an http(s) URL ending in /v2, got "https://api.example.com"',
    );
    const { config } = parse(`api:\n  base_url: https://api.example.com/v2/\n  api_key: svc_test_k\n`);
    expect(config.api.base_url).toBe('https://api.example.com/v2');
  });

  it('needs client_id for oauth and a key with a base URL', () => {
    const error = configError(() => parse(`api:\n  base_url: https://api.example.com/v2\n  auth: oauth\n`));
    expect(error.message).toContain('api.api_key: is required with base_url (or use api_key_file)');
    expect(error.message).toContain('api.client_id: is required when auth is oauth');
  });

  it('locates errors in JSON files by line too', () => {
    const text = '{\n  "api": { "sandbox": "embedded" },\n  "server": { "port": "x" }\n}\n';
    const error = configError(() => parseConfig('c.json', text, { env: {} }));
    expect(error.message).toBe('c.json:3:23 server.port: expected a number, got "x"');
  });
});
