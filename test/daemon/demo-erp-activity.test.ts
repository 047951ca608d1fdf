/**
 * The demo's ERP users (`supply-sync demo`: invoices with a PDF written inside the transaction, confirmations,
 * price and stock changes, through a connection of their own) beside the daemon's ERP jobs on the same file. Once,
 * two minutes into the demo, a job failed with "sqlite: database is locked": the users' transaction held the write
 * lock across the PDF's write while the job's statement waited out the busy timeout on the event loop they both
 * need. Both sides go on back to back here until enough of each happened, and nothing may fail.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { DEMO_ERP_ACTIVITY } from '../../src/daemon/start/demo.js';
import { sandboxControl } from '../../src/sandbox/harness/client.js';
import { openDemoErp, simulateErpActivity, type DemoErp } from '../../connectors/sql/demo-erp/index.js';
import { writeDemoConfig } from '../support/demo-config.js';

/** The ERP users' rounds that issued an invoice (a PDF written in the transaction). */
const INVOICE_ROUNDS = Number(process.env['DEMO_ERP_INVOICE_ROUNDS'] ?? 30);
/** Runs of each ERP job meanwhile. */
const RUNS_PER_JOB = Number(process.env['DEMO_ERP_RUNS_PER_JOB'] ?? 8);
const ERP_JOBS = ['orders', 'order-confirm', 'documents', 'catalog'] as const;

describe("the demo's ERP users beside the daemon's jobs", () => {
  let dir: string | undefined;
  let daemon: Daemon | undefined;
  let erp: DemoErp | undefined;

  afterEach(async () => {
    await daemon?.stop(10_000);
    await erp?.driver.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('never fails a job or a user with "database is locked"', { timeout: 300_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'supply-sync-demo-erp-'));
    const file = await writeDemoConfig(dir, { server: { port: 0 } });
    const registry = buildPluginRegistry();
    daemon = await runDaemon({ loaded: loadConfig(file, { registry }), registry });
    const running = daemon;
    // Buyers send orders, so the orders job writes to the ERP and the users have orders to confirm and invoice.
    await sandboxControl(running.env.endpoint.controlUrl ?? 'missing').simulate({ actions_per_second: 10 });
    // The users' own connection, opened as the demo opens it.
    erp = await openDemoErp(resolve(dir, 'state', 'demo-erp'));
    const users = erp;

    let invoiceRounds = 0;
    let usersDone = false;
    const userFailures: string[] = [];
    const usersLoop = (async () => {
      while (invoiceRounds < INVOICE_ROUNDS && userFailures.length === 0) {
        try {
          const round = await simulateErpActivity(users, { clock: running.env.clock, ...DEMO_ERP_ACTIVITY });
          if (round.documents.length > 0) invoiceRounds += 1;
        } catch (error) {
          userFailures.push(String(error));
        }
      }
      usersDone = true;
    })();
    const runs = new Map<string, number>(ERP_JOBS.map((job) => [job, 0]));
    const enough = (): boolean => usersDone && [...runs.values()].every((count) => count >= RUNS_PER_JOB);
    while (!enough()) {
      for (const job of ERP_JOBS) {
        await running.runNow(job, 'operator');
        runs.set(job, (runs.get(job) ?? 0) + 1);
      }
    }
    await usersLoop;

    expect(userFailures).toEqual([]);
    const finished = running.env.state.runs.list({ limit: 100_000 }).filter((run) => run.outcome !== null);
    const erpRuns = finished.filter((run) => (ERP_JOBS as readonly string[]).includes(run.job));
    expect(erpRuns.length).toBeGreaterThanOrEqual(ERP_JOBS.length * RUNS_PER_JOB);
    expect(finished.filter((run) => /locked/i.test(run.error ?? ''))).toEqual([]);
    expect(erpRuns.filter((run) => run.outcome !== 'ok')).toEqual([]);
    expect(invoiceRounds).toBe(INVOICE_ROUNDS);
  });
});
