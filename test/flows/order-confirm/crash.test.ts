import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoErpConfigSchema, demoErpConnectorDefinition } from '../../../connectors/sql/demo-erp/index.js';
import type { SqlConnector } from '../../../connectors/sql/connector.js';
import { createApiClient } from '../../../src/client/index.js';
import { runJob } from '../../../src/engine/index.js';
import { ordersFlow } from '../../../src/flows/orders/index.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { mulberry32, sleep, startChild } from '../orders/crash-harness.js';
import { buyerSendsOrders, DEMO_SHIP_TO, silentLogger, type Sandbox } from '../orders/harness.js';
import { erpConfirms } from './erp-confirmations.js';

/**
 * kill -9 at seeded random points while a child process sends the ERP's confirmations; new confirmations are
 * entered between the kills. After a final run converges, every confirmation is marked sent in the ERP and the
 * sandbox counted exactly one confirmation or rejection per order, matching what the ERP decided.
 */
const SEED = Number(process.env['SUPPLY_SYNC_KILL_SEED'] ?? '20261123');
const KILL_POINTS = Number(process.env['SUPPLY_SYNC_CRASH_POINTS'] ?? '50');
const MAX_KILL_DELAY_MS = 400;

type Kind = 'full' | 'partial' | 'reject';

describe('order-confirm flow under kill -9', () => {
  let sandbox: Sandbox;
  let dir: string;
  let erp: SqlConnector;
  const erpOrders = new Map<string, string>();
  const running = new Set<ChildProcess>();

  beforeAll(async () => {
    sandbox = await startSandbox({});
    dir = await mkdtemp(path.join(tmpdir(), 'supply-confirm-crash-'));
    erp = (await demoErpConnectorDefinition.create(
      demoErpConfigSchema.parse({ data_dir: 'erp', journal: false }),
      {
        name: 'erp',
        baseDir: dir,
      },
    )) as SqlConnector;
    // Orders to confirm: sent by the buyer and written to the ERP by the orders flow.
    const startFrom = new Date(Date.now() - 1000).toISOString();
    const ids = await buyerSendsOrders(sandbox, { count: KILL_POINTS * 2 });
    const api = createApiClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.supplier });
    const state = openStateStore({ file: path.join(dir, 'orders.db'), clock: systemClock });
    const job = ordersFlow.create(
      {
        name: 'orders',
        connector: 'erp',
        options: ordersFlow.options.parse({ start_from: startFrom, page_size: 200 }),
      },
      {
        api,
        connector: () => erp,
        state,
        mappings: { branches: DEMO_SHIP_TO },
        logger: silentLogger,
        clock: systemClock,
        workDir: dir,
      },
    );
    const context = {
      signal: new AbortController().signal,
      budgetMs: 120_000,
      dryRun: false,
      logger: silentLogger,
    };
    await runJob(job, { ...context, clock: systemClock, state, trigger: 'cli' });
    state.close();
    await api.close();
    const { rows } = await erp.driver.query(
      'SELECT API_ORDER_ID, ORDNAME FROM ORDERS WHERE API_ORDER_ID IS NOT NULL',
    );
    for (const row of rows) erpOrders.set(String(row['API_ORDER_ID']), String(row['ORDNAME']));
    expect([...erpOrders.keys()].sort()).toEqual([...ids].sort());
  }, 120_000);

  afterAll(async () => {
    for (const child of running)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await erp.close();
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('confirms or rejects every order exactly once across hard kills', { timeout: 400_000 }, async () => {
    const rng = mulberry32(SEED);
    const settings = {
      flow: 'order-confirm',
      baseUrl: sandbox.baseUrl,
      apiKey: sandbox.keys.supplier,
      dir,
      startFrom: new Date().toISOString(),
      shipTo: DEMO_SHIP_TO,
    };
    const waiting = [...erpOrders.entries()];
    const decided = new Map<string, { ref: string; kind: Kind }>();
    const kinds: Kind[] = ['full', 'partial', 'reject'];

    let kills = 0;
    for (let round = 0; kills < KILL_POINTS && round < KILL_POINTS * 2; round += 1) {
      for (let n = 1 + Math.floor(rng() * 2); n > 0 && waiting.length > 0; n -= 1) {
        const [id, erpOrder] = waiting.shift() ?? ['', ''];
        const kind = kinds[Math.floor(rng() * kinds.length)] ?? 'full';
        const ref = await erpConfirms(
          erp.driver,
          erpOrder,
          kind,
          kind === 'partial' ? { 1: { quantity: '0' } } : {},
          'No delivery on that day',
        );
        decided.set(id, { ref, kind });
      }
      const run = startChild({ ...settings, mode: 'loop' });
      running.add(run.child);
      await run.ready;
      await sleep(Math.floor(rng() * MAX_KILL_DELAY_MS));
      run.child.kill('SIGKILL');
      const result = await run.exited;
      running.delete(run.child);
      if (result.signal === 'SIGKILL') kills += 1;
      else expect.fail(`the child exited by itself (code ${String(result.code)}): ${result.output}`);
    }
    expect(kills).toBeGreaterThanOrEqual(KILL_POINTS);

    const last = startChild({ ...settings, mode: 'converge' });
    running.add(last.child);
    const final = await Promise.race([last.exited, sleep(120_000).then(() => null)]);
    running.delete(last.child);
    expect(final, 'the last run did not converge within 120 s').not.toBeNull();
    expect(final?.code, final?.output).toBe(0);

    const { rows } = await erp.driver.query('SELECT CONFNUM, API_SENT_AT FROM ORDCONFIRM');
    const unsent = rows.filter((row) => row['API_SENT_AT'] === null).map((row) => String(row['CONFNUM']));
    expect(unsent).toEqual([]);
    const readout = await sandbox.control.state();
    const tallies = readout['orderTallies'] as Record<string, { confirmations: number; rejections: number }>;
    const orders = readout['orders'] as Record<string, { status: string }>;
    const expectedStatus: Record<Kind, string> = {
      full: 'approved',
      partial: 'partially_approved',
      reject: 'rejected',
    };
    const problems: string[] = [];
    for (const [id, { kind }] of decided) {
      const tally = tallies[id];
      const expected =
        kind === 'reject' ? { confirmations: 0, rejections: 1 } : { confirmations: 1, rejections: 0 };
      if (tally?.confirmations !== expected.confirmations || tally.rejections !== expected.rejections) {
        problems.push(
          `${id} (${kind}): ${String(tally?.confirmations)} confirmations, ${String(tally?.rejections)} rejections`,
        );
      }
      if (orders[id]?.status !== expectedStatus[kind])
        problems.push(`${id} (${kind}): status ${String(orders[id]?.status)}`);
    }
    expect(problems).toEqual([]);
    expect(new Set([...decided.values()].map((entry) => entry.kind)).size).toBe(3);
    expect(decided.size).toBeGreaterThan(KILL_POINTS);

    const state = new Database(path.join(dir, 'order-confirm.db'), { readonly: true });
    const open = state
      .prepare("SELECT COUNT(*) AS n FROM dead_letters WHERE status IN ('open', 'retrying')")
      .get() as { n: number };
    state.close();
    expect(open.n).toBe(0);
  });
});
