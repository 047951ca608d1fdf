import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { configJsonSchema, loadConfig, loadConfigSet, secret } from '../../src/config/index.js';
import { buildPluginRegistry } from '../../src/cli/plugins.js';
import { optionsOnlyFlow, registryWithConnectors } from './fixtures.js';

const CONFIG_DIR = join(import.meta.dirname, '../../config');
const ENV = {
  SUPPLY_API_KEY: 'svc_test_example',
  ERP_DATABASE_URL: 'mssql://sync:pw@127.0.0.1:1433/erp',
  SAP_B1_SERVICE_URL: 'https://b1server:50000/b1s/v2/',
  SAP_B1_COMPANY_DB: 'SBODEMOUS',
  SAP_B1_USER: 'manager',
  SAP_B1_PASSWORD: 'example',
  PRIORITY_SERVICE_URL: 'https://priority.example.com/odata/Priority/tabula.ini/demo/',
  PRIORITY_TOKEN: 'example',
  SMTP_PASSWORD: 'smtp-example',
};
const SECRET_FILES: Record<string, string> = {
  '/run/secrets/supply_api_key': 'svc_live_example\n',
  '/run/secrets/books_database_url': 'postgres://sync:pw@127.0.0.1:5432/books\n',
  '/run/secrets/teams_webhook_url': 'https://example.webhook.office.com/webhookb2/token\n',
};

describe('example configs', () => {
  const files = readdirSync(CONFIG_DIR).filter((file) => file.endsWith('.yaml'));

  it('ships the documented examples', () => {
    expect(files.sort()).toEqual([
      'accountant-journal.yaml',
      'buyer-expenses.yaml',
      'buyer-mirror.yaml',
      'demo.yaml',
      'pos-sales.yaml',
      'supplier-priority.yaml',
      'supplier-sap-b1.yaml',
      'supplier-sqlserver.yaml',
    ]);
  });

  for (const file of files) {
    it(`${file} validates`, async () => {
      const { readFileSync } = await import('node:fs');
      const { config, warnings } = loadConfig(join(CONFIG_DIR, file), {
        env: ENV,
        registry: await buildPluginRegistry(),
        readFile: (path) => SECRET_FILES[path] ?? readFileSync(path, 'utf8'),
      });
      expect(Object.keys(config.jobs).length).toBeGreaterThan(0);
      // Until every flow registers its option schema, only "not checked" warnings for those flows may remain.
      for (const warning of warnings)
        expect(warning).toMatch(/^jobs\.\w+: flow "[\w-]+" has no registered schema/);
    });
  }
});

describe('notifications in the example configs', () => {
  const files = readdirSync(CONFIG_DIR).filter((file) => file.endsWith('.yaml'));

  for (const file of files) {
    it(`${file} ships a commented notifications block that validates`, async () => {
      const { readFileSync, writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      let text = readFileSync(join(CONFIG_DIR, file), 'utf8');
      // The examples send nothing as shipped: the block is commented out; uncommented, it must be valid as it stands.
      expect(text).not.toMatch(/^notifications:/m);
      text = uncommentNotifications(text);
      expect(text).toMatch(/^notifications:\n {2}# /m); // explained where it stands
      const dir = mkdtempSync(join(tmpdir(), 'supply-sync-example-'));
      try {
        writeFileSync(join(dir, file), text);
        const { config } = loadConfig(join(dir, file), {
          env: ENV,
          registry: await buildPluginRegistry(),
          readFile: (path) => SECRET_FILES[path] ?? readFileSync(path, 'utf8'),
        });
        const notifications = config.notifications;
        expect(Object.keys(notifications?.channels ?? {})).toHaveLength(2);
        expect(notifications?.rules.flatMap((rule) => rule.events)).toEqual(
          expect.arrayContaining(['job_failed', 'job_recovered', 'api_key_refused', 'dead_letters']),
        );
        expect(notifications?.daily_report?.at).toBe('07:00');
        expect(notifications?.console_url).toMatch(/^https:\/\//);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('the office example', () => {
  it('validates with its commented morning report and notifications uncommented, as the file says', async () => {
    const { readFileSync, writeFileSync, mkdtempSync, rmSync, cpSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'supply-sync-office-example-'));
    try {
      cpSync(join(CONFIG_DIR, 'office'), dir, { recursive: true });
      const file = join(dir, 'office.yaml');
      const text = uncommentNotifications(readFileSync(file, 'utf8')).replace(
        /^ {2}# report:\n {2}# {3}at: "07:00"\n {2}# {3}channels: \[office-mail\]$/m,
        '  report:\n    at: "07:00"\n    channels: [office-mail]',
      );
      expect(text).toMatch(/^notifications:$/m);
      expect(text).toMatch(/^ {2}report:$/m);
      writeFileSync(file, text);
      const set = loadConfigSet(file, {
        env: {
          ...ENV,
          CAFE_NORTH_KEY: 'svc_test_north0000000000',
          CAFE_SOUTH_KEY: 'svc_test_south0000000000',
        },
        registry: await buildPluginRegistry(),
        readFile: (path) => SECRET_FILES[path] ?? readFileSync(path, 'utf8'),
      });
      expect(set.kind).toBe('office');
      if (set.kind !== 'office') return;
      expect(set.office.failed).toEqual(new Map());
      expect(set.office.report?.channels).toEqual(['office-mail']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('JSON Schema for editors', () => {
  it('describes the core keys, registered connector types and *_file alternatives', () => {
    const schema = configJsonSchema(registryWithConnectors()) as {
      properties: Record<
        string,
        { properties?: Record<string, unknown>; additionalProperties?: { anyOf?: unknown[] } }
      >;
      additionalProperties: boolean;
    };
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        'api',
        'companies',
        'connectors',
        'ha',
        'health',
        'jobs',
        'log',
        'mappings',
        'notifications',
        'server',
        'state',
        'timezone',
      ].sort(),
    );
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties['api']?.properties).toHaveProperty('api_key_file');
    const sql = schema.properties['connectors']?.additionalProperties?.anyOf?.[0] as {
      properties: { type: unknown };
    };
    expect(sql.properties.type).toMatchObject({ const: 'sql' });
    expect(JSON.stringify(schema)).toContain('url_file');
  });

  it('describes job options of registered flows', () => {
    const registry = registryWithConnectors().register(
      optionsOnlyFlow('push', z.strictObject({ folder: z.string(), token: secret() })),
    );
    const schema = configJsonSchema(registry) as {
      properties: {
        jobs: {
          additionalProperties: {
            allOf: {
              if: { properties: { flow: { const: string } } };
              then: { properties: { options: unknown } };
            }[];
          };
        };
      };
    };
    // One rule per flow: a job whose flow is "push" has push's options.
    const rule = schema.properties.jobs.additionalProperties.allOf.find(
      (candidate) => candidate.if.properties.flow.const === 'push',
    );
    expect(rule?.then.properties.options).toMatchObject({
      properties: { folder: { type: 'string' }, token: { 'x-secret': true }, token_file: { type: 'string' } },
    });
  });
});

/** The file with its commented-out `notifications:` block (from `# notifications:` to the next line that is not a
 * commented, indented line) uncommented; the rest of the file, comments included, unchanged. */
function uncommentNotifications(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line === '# notifications:');
  if (start < 0) return text;
  let end = start + 1;
  while (end < lines.length && /^# {2}|^#$|^$/.test(lines[end] ?? '')) end++;
  const block = lines.slice(start, end).map((line) => line.replace(/^# ?/, ''));
  return [...lines.slice(0, start), ...block, ...lines.slice(end)].join('\n');
}
