/**
 * Stored errors quote what the API or the ERP answered, and that can hold a secret of the config (a run that failed
 * with the API key in its error, a dead letter whose reason quotes the ERP's connection string). `runs`,
 * `dead-letters list` and `status` print them with the config's secrets replaced, as text and as JSON, as the
 * control API and the status page do.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-cli-scrub-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// No recognisable shape (no svc_ prefix): only the config says it is a secret.
const API_KEY = 'svc_test_k7Qm2Zr9Xw4Lp8Tn3Vb6Hc1Jd5';
const file = join(dir, 'supply-sync.yaml');

beforeAll(() => {
  writeFileSync(
    file,
    [
      'api:',
      '  base_url: http://127.0.0.1:9/v2',
      `  api_key: ${API_KEY}`,
      'state:',
      '  path: state.db',
      'connectors:',
      '  erp: { type: demo-erp, data_dir: erp, journal: false }',
      'jobs:',
      "  orders: { flow: orders, connector: erp, schedule: '0 3 1 1 *' }",
      '',
    ].join('\n'),
  );
  const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
  try {
    const run = state.runs.start('orders', 'schedule');
    state.runs.finish(run, 'failed', {}, `GET /supplier/orders refused the key ${API_KEY} (401)`);
    state.deadLetters.add(
      'orders',
      'ord_9',
      { id: 'ord_9' },
      `rejected: the ERP said key ${API_KEY} is unknown`,
    );
  } finally {
    state.close();
  }
});

describe('the CLI prints stored errors with the config secrets replaced', () => {
  for (const [name, args, quoted] of [
    ['runs', ['runs'], 'refused the key'],
    ['runs --json', ['runs', '--json'], 'refused the key'],
    ['dead-letters list', ['dead-letters', 'list'], 'the ERP said key'],
    ['dead-letters list --json', ['dead-letters', 'list', '--json'], 'the ERP said key'],
    ['status', ['status'], 'refused the key'],
    ['status --json', ['status', '--json'], 'refused the key'],
  ] as const) {
    it(name, { timeout: 30_000 }, async () => {
      const result = await runCli([...args, '--config', file]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(quoted);
      expect(result.stdout).toContain('[REDACTED]');
      expect(result.stdout + result.stderr).not.toContain(API_KEY);
    });
  }
});
