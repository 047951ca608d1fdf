/**
 * Failover of the whole buyer daemon (test/failover/run-failover.ts): journal lines approved throughout, exported
 * into CSV import files and mirrored into a SQL table, and expenses dropped into a csv-expenses folder throughout,
 * two instances on one PostgreSQL state. At the end every approved line is in exactly one import file and marked
 * exported once, the mirror matches the API, every expense is held once by the API with its receipt and written
 * back once (the crash scenario's checks), and the failover times are printed as p50/p99.
 *
 * HA_DAEMON_FAILOVER_POINTS (else HA_FAILOVER_POINTS) sets the number of failovers (CI size in
 * test/support/suites.ts), HA_FAILOVER_SEED the seed,
 * HA_FAILOVER_LEASE_MS and HA_FAILOVER_POLL_MS the lease and poll interval.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { missingFlows } from '../crash/harness/run-scenario.js';
import { buyerScenarioWith } from '../crash/harness/buyer.js';
import { postgresProbe } from '../ha/support/postgres.js';
import { FAILOVER_GUARD_MS, FailoverRun, POINTS } from './run-failover.js';

const SEED = Number(process.env['HA_FAILOVER_SEED'] ?? '20261126');
const probe = await postgresProbe();
// The journal export into CSV import files (the books), the mirror into a SQL table, small batches, and expenses.
const buyerScenario = buyerScenarioWith({ mirror: true, maxLinesPerBatch: 8, expenses: true });
const missing = missingFlows(buyerScenario);

describe.skipIf(!probe.available || missing.length > 0)(
  `buyer daemon pair under failover${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    const run = new FailoverRun();
    afterAll(() => run.close());

    it(
      `loses and duplicates nothing across ${POINTS} failovers (the leader killed, frozen, cut from the database)`,
      async () => {
        const report = await run.run(buyerScenario, SEED);
        process.stdout.write(
          `failover buyer: ${report.line}; lines exported ${String(report.check.summary['linesExported'])}, ` +
            `expenses sent ${String(report.check.summary['expensesSent'])} of ` +
            `${String(report.check.summary['expensesDropped'])}\n`,
        );
        expect(report.check.violations).toEqual([]);
        expect(report.failoversMs).toHaveLength(POINTS);
        // Every other failover is aimed at a run the leader has open, and lands inside it.
        expect(report.aimedAtRuns).toBe(Math.floor(POINTS / 2));
        expect(report.faultsInsideRuns).toBeGreaterThanOrEqual(report.aimedAtRuns);
        expect(report.check.summary['linesExported']).toBeGreaterThan(0);
        expect(report.check.summary['mirroredLines']).toBeGreaterThan(0);
        // Every expense dropped was sent and written back once (held once by the API: the violations above).
        expect(report.check.summary['expensesSent']).toBeGreaterThan(0);
        expect(report.check.summary['expensesSent']).toBe(report.check.summary['expensesDropped']);
      },
      // Past the run's own guard, which fails with the counts it reached.
      FAILOVER_GUARD_MS + 60_000,
    );
  },
);
