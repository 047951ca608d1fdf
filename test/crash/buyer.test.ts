/**
 * The whole buyer daemon under SIGKILL: the journal export into CSV import files and the expenses from a csv-expenses
 * drop folder, killed at seeded points inside their runs (as `supply-sync run` and `supply-sync sync <job>`), then
 * restarted until converged. Each line approved for export lands in exactly one import file and is marked exported
 * once; each dropped expense reaches the API once with its receipt and its id is written back once; one more run
 * writes nothing.
 * The kill phase ends on counts (POINTS kill points, and lines exported under the kills); its guard only bounds a
 * run that cannot get there, and then fails saying how far it got.
 */
import { describe, expect, it } from 'vitest';
import { buyerScenario } from './harness/buyer.js';
import { crashGuardMs, idleWrites, missingFlows, runCrashScenario } from './harness/run-scenario.js';

const POINTS = Number(process.env['SUPPLY_SYNC_DAEMON_CRASH_POINTS'] ?? 50);
const GUARD_MS = crashGuardMs(POINTS, buyerScenario);
const CONVERGE_MS = 120_000;
const missing = missingFlows(buyerScenario);

describe.skipIf(missing.length > 0)('buyer daemon under SIGKILL', () => {
  it(
    'exports every approved line and sends every dropped expense exactly once across seeded kill points',
    async () => {
      const report = await runCrashScenario({
        scenario: buyerScenario,
        points: POINTS,
        seed: 20_261_123,
        killPhaseGuardMs: GUARD_MS,
        maxConvergeMs: CONVERGE_MS,
      });
      process.stdout.write(
        `crash buyer: kill points per flow ${JSON.stringify(report.killPointsPerFlow)}, kills ${JSON.stringify(
          report.kills,
        )}, kills outside runs ${report.killsOutsideRuns}, SIGTERM stops ${report.sigterms}, activity at the end of ` +
          `the kill phase ${JSON.stringify(report.activity)}, kill phase ${report.killPhaseMs} ms, ${report.durationMs} ms\n`,
      );
      expect(report.check.violations).toEqual([]);
      expect(idleWrites(buyerScenario, report)).toEqual([]);
      expect(report.check.summary['linesExported']).toBeGreaterThan(0);
      expect(report.killPointsPerFlow['journal-export']).toBeGreaterThanOrEqual(POINTS);
      expect(report.check.summary['expensesSent']).toBeGreaterThan(0);
      expect(report.killPointsPerFlow['expenses']).toBeGreaterThanOrEqual(POINTS);
    },
    // Past the harness's own guards, which fail with the counts reached.
    GUARD_MS + CONVERGE_MS + 180_000,
  );
});

if (missing.length > 0) {
  process.stdout.write(
    `crash buyer skipped: flows not registered in src/daemon/plugins/builtin-plugins.ts: ${missing.join(', ')}\n`,
  );
}
