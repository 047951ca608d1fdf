/**
 * Failover of the whole supplier daemon (test/failover/run-failover.ts): orders, order-confirm, documents and catalog
 * into the demo ERP (a SQL database), two instances on one PostgreSQL state. At the end every order is in the ERP
 * exactly once and acknowledged once, every confirmation and document reached the API once (the crash scenario's
 * checks), and the failover times are printed as p50/p99.
 *
 * HA_DAEMON_FAILOVER_POINTS (else HA_FAILOVER_POINTS) sets the number of failovers (CI size in
 * test/support/suites.ts), HA_FAILOVER_SEED the seed,
 * HA_FAILOVER_LEASE_MS and HA_FAILOVER_POLL_MS the lease and poll interval.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { missingFlows } from '../crash/harness/run-scenario.js';
import { supplierScenario } from '../crash/harness/supplier.js';
import { postgresProbe } from '../ha/support/postgres.js';
import { FAILOVER_GUARD_MS, FailoverRun, POINTS } from './run-failover.js';

const SEED = Number(process.env['HA_FAILOVER_SEED'] ?? '20261125');
const probe = await postgresProbe();
const missing = missingFlows(supplierScenario);

describe.skipIf(!probe.available || missing.length > 0)(
  `supplier daemon pair under failover${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    const run = new FailoverRun();
    afterAll(() => run.close());

    it(
      `loses and duplicates nothing across ${POINTS} failovers (the leader killed, frozen, cut from the database)`,
      async () => {
        const report = await run.run(supplierScenario, SEED);
        process.stdout.write(
          `failover supplier: ${report.line}; orders sent ${String(report.check.summary['ordersSent'])}, ` +
            `ERP confirmations ${String(report.check.summary['confirmationsInErp'])}\n`,
        );
        expect(report.check.violations).toEqual([]);
        expect(report.failoversMs).toHaveLength(POINTS);
        // Every other failover is aimed at a run the leader has open, and lands inside it.
        expect(report.aimedAtRuns).toBe(Math.floor(POINTS / 2));
        expect(report.faultsInsideRuns).toBeGreaterThanOrEqual(report.aimedAtRuns);
        // The checks had something to check: orders written, confirmed in the ERP and sent, documents created.
        expect(report.check.summary['ordersSent']).toBeGreaterThan(0);
        expect(report.check.summary['confirmationsInErp']).toBeGreaterThan(0);
        expect(report.check.summary['erpDocuments']).toBeGreaterThan(0);
      },
      // Past the run's own guard, which fails with the counts it reached.
      FAILOVER_GUARD_MS + 60_000,
    );
  },
);
