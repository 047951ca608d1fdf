import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/index.js';
import { openDemoErp } from '../../../connectors/sql/demo-erp/demo-erp.js';
import { mulberry32, sleep, startChild } from './crash-harness.js';
import { buyerSendsOrders, DEMO_SHIP_TO, type Sandbox } from './harness.js';

/**
 * kill -9 at seeded random points while a child process runs the orders job; new orders, updates and cancellations
 * arrive between the kills. After a final run converges, the ERP database and the sandbox must show every order
 * written exactly once, with all its lines, and acknowledged exactly once with its ERP number.
 * SUPPLY_SYNC_CRASH_POINTS raises the number of kill points for a long run.
 */
const SEED = Number(process.env['SUPPLY_SYNC_KILL_SEED'] ?? '20261122');
const KILL_POINTS = Number(process.env['SUPPLY_SYNC_CRASH_POINTS'] ?? '50');
// A guard only: the loop ends on counts (kill points, and an order the ERP held cancelled), which a busy machine
// reaches in more rounds, since fewer kills land after an ERP write.
const MAX_ROUNDS = KILL_POINTS * 4;
const MAX_KILL_DELAY_MS = 400;

interface ErpCounts {
  API_ORDER_ID: string;
  ORDNAME: string;
  ORDSTATUS: string | null;
  headers: number;
}

describe('orders flow under kill -9', () => {
  let sandbox: Sandbox;
  let dir: string;
  const running = new Set<ChildProcess>();

  beforeAll(async () => {
    sandbox = await startSandbox({});
    dir = await mkdtemp(path.join(tmpdir(), 'supply-orders-crash-'));
    // Create and seed the ERP once, before any child can be killed half-way through seeding it.
    const erp = await openDemoErp(path.join(dir, 'erp'));
    await erp.driver.close();
  });

  afterAll(async () => {
    for (const child of running)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes and acknowledges every order exactly once across hard kills', { timeout: 400_000 }, async () => {
    const rng = mulberry32(SEED);
    const settings = {
      baseUrl: sandbox.baseUrl,
      apiKey: sandbox.keys.supplier,
      dir,
      startFrom: new Date().toISOString(),
      shipTo: DEMO_SHIP_TO,
      flow: 'orders',
    };
    const sent: string[] = [];
    const cancelled = new Set<string>();
    const erpFile = path.join(dir, 'erp', 'demo-erp.sqlite');
    const erpHas = (id: string): boolean => {
      const db = new Database(erpFile, { readonly: true });
      try {
        return db.prepare('SELECT 1 FROM ORDERS WHERE API_ORDER_ID = ?').get(id) !== undefined;
      } finally {
        db.close();
      }
    };

    let kills = 0;
    let rounds = 0;
    const progress = { written: 0, recovered: 0, acknowledged: 0 };
    const tallyOutput = (output: string) => {
      for (const line of output.split('\n')) {
        if (!line.startsWith('{')) continue;
        const counts = (JSON.parse(line) as { counts: Record<string, number> }).counts;
        progress.written += counts['written'] ?? 0;
        progress.recovered += counts['recovered'] ?? 0;
        progress.acknowledged += counts['acknowledged'] ?? 0;
      }
    };
    /** One run of the job left to finish: every order sent so far written and acknowledged. */
    const converge = async () => {
      const run = startChild({ ...settings, mode: 'converge' });
      running.add(run.child);
      const result = await Promise.race([run.exited, sleep(120_000).then(() => null)]);
      running.delete(run.child);
      expect(result, 'a run left to finish did not converge within 120 s').not.toBeNull();
      expect(result?.code, result?.output).toBe(0);
      expect(result?.output).toContain('converged');
      tallyOutput(result?.output ?? '');
    };
    while ((kills < KILL_POINTS || cancelled.size === 0) && rounds < MAX_ROUNDS) {
      rounds += 1;
      sent.push(...(await buyerSendsOrders(sandbox, { count: 1 + Math.floor(rng() * 3) })));
      const roll = rng();
      if (roll < 0.2) await sandbox.control.action('touch_orders_same_timestamp', { count: 3 });
      // Cancel an order the ERP already holds, so the end state does not depend on kill timing: on the seeded
      // rolls, and as soon as the ERP holds one while nothing is cancelled yet, so that every size has one.
      if (roll > 0.8 || cancelled.size === 0) {
        const candidateOf = () => sent.find((id) => !cancelled.has(id) && erpHas(id));
        // On a busy machine every kill may land before the first ERP write: once the kill points are done, a run
        // left to finish gives the ERP an order to cancel, and this round's kill still follows the cancellation.
        if (candidateOf() === undefined && kills >= KILL_POINTS) await converge();
        const candidate = candidateOf();
        if (candidate !== undefined) {
          await sandbox.control.action('buyer_cancel_order', { order_id: candidate });
          cancelled.add(candidate);
        }
      }
      const run = startChild({ ...settings, mode: 'loop' });
      running.add(run.child);
      await run.ready;
      await sleep(Math.floor(rng() * MAX_KILL_DELAY_MS));
      run.child.kill('SIGKILL');
      const result = await run.exited;
      running.delete(run.child);
      tallyOutput(result.output);
      if (result.signal === 'SIGKILL') kills += 1;
      else expect.fail(`the child exited by itself (code ${String(result.code)}): ${result.output}`);
    }
    const reached = `${kills} kills and ${cancelled.size} cancelled orders the ERP held, in ${rounds} rounds`;
    expect(kills, `the guard of ${MAX_ROUNDS} rounds ended the kills: ${reached}`).toBeGreaterThanOrEqual(
      KILL_POINTS,
    );
    expect(cancelled.size, `the guard of ${MAX_ROUNDS} rounds ended the kills: ${reached}`).toBeGreaterThan(
      0,
    );

    await converge();
    // How often a kill fell between the ERP commit and the ledger (orders the next run found already written).
    console.info(`orders crash test: ${kills} kills in ${rounds} rounds, ${sent.length} orders`, progress);

    const db = new Database(erpFile, { readonly: true });
    const headers = db
      .prepare(
        `SELECT API_ORDER_ID, MIN(ORDNAME) AS ORDNAME, MIN(ORDSTATUS) AS ORDSTATUS, COUNT(*) AS headers
         FROM ORDERS WHERE API_ORDER_ID IS NOT NULL GROUP BY API_ORDER_ID`,
      )
      .all() as ErpCounts[];
    const lineCounts = new Map(
      (
        db
          .prepare(
            'SELECT ORDNAME, COUNT(*) AS n, COUNT(DISTINCT LINE) AS distinct_lines FROM ORDERITEMS GROUP BY ORDNAME',
          )
          .all() as Array<{ ORDNAME: string; n: number; distinct_lines: number }>
      ).map((row) => [row.ORDNAME, row]),
    );
    db.close();
    const byId = new Map(headers.map((row) => [row.API_ORDER_ID, row]));
    const readout = await sandbox.control.state();
    const tallies = readout['orderTallies'] as Record<string, { acknowledgements: number }>;
    const orders = readout['orders'] as Record<
      string,
      { external_ref: string | null; status: string; lines: unknown[] }
    >;

    const problems: string[] = [];
    for (const id of sent) {
      const row = byId.get(id);
      const order = orders[id];
      if (row === undefined || order === undefined) {
        problems.push(`${id}: not in the ERP`);
        continue;
      }
      if (row.headers !== 1) problems.push(`${id}: ${row.headers} headers`);
      const lines = lineCounts.get(row.ORDNAME);
      if (lines?.n !== order.lines.length || lines.distinct_lines !== lines.n) {
        problems.push(`${id}: ${String(lines?.n)} ERP lines for ${order.lines.length} order lines`);
      }
      if (tallies[id]?.acknowledgements !== 1) {
        problems.push(`${id}: acknowledged ${String(tallies[id]?.acknowledgements)} times`);
      }
      if (order.external_ref !== row.ORDNAME) {
        problems.push(`${id}: external_ref ${String(order.external_ref)}, ERP number ${row.ORDNAME}`);
      }
      if (cancelled.has(id) !== (row.ORDSTATUS === 'Cancelled')) {
        problems.push(`${id}: ERP status ${String(row.ORDSTATUS)}, API status ${order.status}`);
      }
    }
    expect(problems).toEqual([]);
    expect(headers).toHaveLength(sent.length);
    expect(sent.length).toBeGreaterThan(KILL_POINTS);
    expect(cancelled.size).toBeGreaterThan(0);

    const state = new Database(path.join(dir, 'orders.db'), { readonly: true });
    const open = state
      .prepare("SELECT COUNT(*) AS n FROM dead_letters WHERE status IN ('open', 'retrying')")
      .get() as { n: number };
    state.close();
    expect(open.n).toBe(0);
  });
});
