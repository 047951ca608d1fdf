import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { WebhookSecretStore } from '../../src/webhooks/index.js';
import { runCli, STACK_LINE } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-cli-state-'));
const configFile = join(dir, 'supply-sync.yaml');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  writeFileSync(
    configFile,
    [
      'api:',
      '  sandbox: embedded',
      'state:',
      '  path: state.db # relative to this file',
      'connectors:',
      '  erp:',
      '    type: sql',
      '    connection: { driver: sqlite, file: erp.db }',
      '    statements:',
      '      orders:',
      "        find: 'SELECT number AS erp_order_number, status FROM orders WHERE api_id = :api_order_id'",
      "        insert_header: 'INSERT INTO orders (customer, api_id) VALUES (:customer_number, :api_order_id)'",
      "        insert_line: 'INSERT INTO order_lines (order_number, item, quantity) VALUES (:erp_order_number, :item_code, :quantity)'",
      'jobs:',
      '  orders:',
      '    flow: orders',
      '    connector: erp',
      "    schedule: '*/5 * * * *'",
      '',
    ].join('\n'),
  );
  const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
  try {
    const run = state.runs.start('orders', 'schedule');
    state.runs.finish(run, 'failed', { fetched: 3 }, 'ERP unreachable');
    state.deadLetters.add('orders', 'ord_1', { id: 'ord_1' }, 'no ERP customer for buyer buy_9');
    const missing = { kind: 'SKU', table: 'skus', key: 'X-1', pickup: 'retry' };
    state.deadLetters.add('orders', 'ord_2', { id: 'ord_2', missing }, 'no ERP item for SKU X-1');
    let addedAt = Date.parse('2026-06-01T08:00:00Z');
    const secrets = new WebhookSecretStore(state.kv, () => (addedAt += 1000));
    secrets.add('we_1', 'whsec_old_one_kept_during_rotation');
    secrets.add('we_1', 'whsec_new_one_after_rotation');
    state.cursors.save({
      stream: 'orders',
      watermarkMs: Date.parse('2026-06-01T08:00:00Z'),
      passCursor: null,
      passSince: null,
      passMaxMs: null,
    });
  } finally {
    state.close();
  }
});

const cli = (...args: string[]) => runCli([...args, '--config', configFile]);

describe('CLI commands over a real state file', () => {
  it('status shows the job, its last error and the dead letters', { timeout: 90_000 }, async () => {
    const text = await cli('status');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^orders\s+failed\s+readiness unchecked; last run: schedule; last success never; dead letters 2; last error .*: ERP unreachable$/m,
    );
    expect(text.stdout).toContain('dead letters open 2');
    const json = await cli('status', '--json');
    const overview = JSON.parse(json.stdout) as {
      jobs: { job: string; openDeadLetters: number }[];
      openDeadLetters: number;
    };
    expect(overview.jobs).toEqual([expect.objectContaining({ job: 'orders', openDeadLetters: 2 })]);
  });

  it('cursor list and reset', { timeout: 90_000 }, async () => {
    const list = await cli('cursor', 'list');
    expect(list.stdout).toMatch(/^orders\s+up to 2026-06-01T08:00:00.000Z/m);
    const missing = await cli('cursor', 'reset', 'ordres');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no cursor named "ordres"');
    const reset = await cli('cursor', 'reset', 'orders');
    expect(reset.code).toBe(0);
    expect((await cli('cursor', 'list')).stdout).toContain('no cursors yet');
  });

  it('dead-letters list, retry and discard', { timeout: 90_000 }, async () => {
    const list = await cli('dead-letters', 'list');
    expect(list.stdout).toMatch(
      /^#1 orders ord_1 \[open, 1 attempt, .*\]: no ERP customer for buyer buy_9$/m,
    );
    // A name that is no job and has no letters is a slip, not an empty list.
    const misspelt = await cli('dead-letters', 'list', '--flow', 'ordres');
    expect(misspelt.code).toBe(1);
    expect(misspelt.stderr).toMatch(
      /^error: no job "ordres" in .* \(jobs: .*orders.*\); --flow takes the job's name \(unknown_job\)$/m,
    );
    // Only the letter held back for the named mapping, as the notification's fix gives it.
    const byMapping = await cli('dead-letters', 'retry', '--flow', 'orders', '--missing', 'skus:X-1');
    expect(byMapping.stdout).toContain('1 dead letter queued for retry');
    const afterMapping = await cli('dead-letters', 'list', '--json');
    expect(
      (JSON.parse(afterMapping.stdout) as { recordKey: string; status: string }[])
        .map((l) => `${l.recordKey} ${l.status}`)
        .sort(),
    ).toEqual(['ord_1 open', 'ord_2 retrying']);
    const badMapping = await cli('dead-letters', 'retry', '--flow', 'orders', '--missing', 'skus');
    expect(badMapping.code).toBe(2);
    expect(badMapping.stderr).toContain(
      '--missing expects TABLE:VALUE, for example skus:VEG-0001 (got "skus")',
    );
    expect((await cli('dead-letters', 'retry', '1')).stdout).toContain('1 dead letter queued for retry');
    expect((await cli('dead-letters', 'discard', '--flow', 'orders')).stdout).toMatch(
      /dead letters? discarded/,
    );
    const usage = await cli('dead-letters', 'retry');
    expect(usage.code).toBe(2);
    expect(usage.stderr).not.toMatch(STACK_LINE);
    const all = await cli('dead-letters', 'list', '--all', '--json');
    const statuses = (JSON.parse(all.stdout) as { status: string }[]).map((l) => l.status).sort();
    expect(statuses).toEqual(['discarded', 'discarded']);
  });

  it('doctor --offline prints one line per check and checks the connector', { timeout: 90_000 }, async () => {
    const { code, stdout } = await cli('doctor', '--offline');
    const lines = stdout.trim().split('\n');
    for (const line of lines) expect(line).toMatch(/^(OK {2}|WARN|FAIL) /);
    expect(stdout).toMatch(/^OK {3}config /m);
    expect(stdout).toMatch(/^OK {3}state file .*schema version \d+; no daemon holds it/m);
    expect(stdout).toMatch(/^WARN api\s+skipped \(--offline\)/m);
    expect(stdout).toMatch(/connector erp/);
    expect(code).toBe(stdout.includes('FAIL') ? 1 : 0);
  });
});

describe('doctor against the embedded sandbox', () => {
  it(
    'checks GET /me over HTTP: account, environment, plan, rate limit and clock skew',
    { timeout: 90_000 },
    async () => {
      const { stdout, stderr } = await cli('doctor');
      expect(stdout).toMatch(/^OK {3}api\s+GET \/me at embedded sandbox at http:\/\/127\.0\.0\.1:\d+\/v2: /m);
      expect(stdout).toMatch(/^OK {3}api environment\s+sandbox/m);
      expect(stdout).toMatch(/^OK {3}api rate limit\s+\d+\/min/m);
      expect(stdout).toMatch(/^(OK {2}|WARN) clock skew /m);
      expect(stderr).toMatch(/\d+ failed, \d+ warnings, \d+ ok/);
      expect(stdout + stderr).not.toMatch(/svc_test_[A-Za-z0-9]{20,}/);
    },
  );

  it(
    'webhooks retire-secrets keeps only the newest secret of each endpoint and prints none',
    { timeout: 90_000 },
    async () => {
      const result = await cli('webhooks', 'retire-secrets');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('retired 1 older signing secret');
      expect(result.stdout + result.stderr).not.toContain('whsec_');
      const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
      try {
        expect(new WebhookSecretStore(state.kv).activeSecrets()).toEqual(['whsec_new_one_after_rotation']);
      } finally {
        state.close();
      }
    },
  );
});
