/**
 * The run history says who asked for each run: a run now given through the control API carries its caller (name and
 * address, as the command record has it) into the run record, which `GET /runs`, `supply-sync runs`, `status` and
 * the console show; runs of a trigger alone (a schedule, a webhook) say that trigger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import type { RunRecord } from '../../src/state/index.js';
import { runCli } from '../cli/run-cli.js';
import { openHealthWorld, type HealthWorld } from '../daemon/health-support.js';

const VIEWER_TOKEN = 'viewer-token-0c1d2e3f4a5b6c7d';
const OPERATOR_PASSWORD = 'operator-password-7e6d5c4b3a';
const VIEWER = `Bearer ${VIEWER_TOKEN}`;
const OPERATOR = `Basic ${Buffer.from(`olga:${OPERATOR_PASSWORD}`).toString('base64')}`;

let world: HealthWorld;
let daemon: Daemon;

beforeAll(async () => {
  world = await openHealthWorld();
  daemon = await world.start({
    server: {
      port: 0,
      auth: {
        users: [
          { name: 'vera', role: 'viewer', token: VIEWER_TOKEN },
          { name: 'olga', role: 'operator', password: OPERATOR_PASSWORD },
        ],
      },
    },
    connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
    jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
  });
});
afterAll(async () => world?.close());

async function runsOverHttp(): Promise<RunRecord[]> {
  const response = await fetch(`${daemon.opsUrl}/runs?job=orders`, { headers: { authorization: VIEWER } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { runs: RunRecord[] }).runs;
}

describe('who asked for a run', () => {
  let operatorRun: RunRecord;

  beforeAll(async () => {
    const response = await fetch(`${daemon.opsUrl}/jobs/orders/run?wait=true`, {
      method: 'POST',
      headers: { authorization: OPERATOR, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(200);
    const command = (await response.json()) as { status: string; requestedBy: string };
    expect(command).toMatchObject({ status: 'done', requestedBy: 'api:olga@127.0.0.1' });
    const runs = await runsOverHttp();
    expect(runs).toHaveLength(1);
    operatorRun = runs[0] as RunRecord;
  });

  it('records the run now of an operator command with the command caller, read back over HTTP', () => {
    expect(operatorRun).toMatchObject({
      trigger: 'operator',
      requestedBy: 'api:olga@127.0.0.1',
      outcome: 'ok',
    });
  });

  it('records a webhook run and a scheduled run as such', async () => {
    await daemon.runNow('orders', 'webhook');
    await daemon.runNow('orders', 'schedule');
    const [scheduled, webhook] = await runsOverHttp();
    expect(webhook).toMatchObject({ trigger: 'webhook', requestedBy: 'webhook' });
    expect(scheduled).toMatchObject({ trigger: 'schedule', requestedBy: 'schedule' });
  });

  it('shows the caller in the console run list', async () => {
    const response = await fetch(`${daemon.opsUrl}/status`, {
      headers: { authorization: VIEWER, accept: 'text/html' },
    });
    const page = await response.text();
    expect(page).toContain('<td>operator by api:olga@127.0.0.1</td>');
    expect(page).toContain('<td>schedule</td>');
  });

  it('shows the caller in `supply-sync runs` and the last run in `status`', async () => {
    const config = daemon.env.loaded.file;
    const runs = await runCli(['runs', '--config', config]);
    expect(runs.code).toBe(0);
    expect(runs.stdout).toMatch(
      new RegExp(`#${operatorRun.id} orders .* operator by api:olga@127\\.0\\.0\\.1 ok`),
    );
    expect(runs.stdout).toMatch(/ schedule ok /);
    const status = await runCli(['status', '--config', config]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^orders .*last run: schedule;/m);
  });
});
