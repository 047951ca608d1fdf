/**
 * The whole buyer daemon under SIGKILL: the journal export into CSV import files, killed at seeded points inside
 * its runs (as `supply-sync run` and `supply-sync sync journal-export`), then restarted until converged. Each line
 * approved for export lands in exactly one import file and is marked exported once; one more run writes nothing.
 */
import { describe, expect, it } from 'vitest';
import { buyerScenario } from './harness/buyer.js';
import { idleWrites, missingFlows, runCrashScenario } from './harness/run-scenario.js';

const POINTS = Number(process.env['SUPPLY_SYNC_CRASH_POINTS'] ?? 50);
const KILL_PHASE_MS = Number(process.env['SUPPLY_SYNC_CRASH_PHASE_MS'] ?? 150_000);
const missing = missingFlows(buyerScenario);

describe.skipIf(missing.length > 0)('buyer daemon under SIGKILL', () => {
  it(
    'exports every approved line exactly once across seeded kill points',
    async () => {
      const report = await runCrashScenario({
        scenario: buyerScenario,
        points: POINTS,
        seed: 20_261_123,
        maxKillPhaseMs: KILL_PHASE_MS,
        maxConvergeMs: 120_000,
      });
      process.stdout.write(
        `crash buyer: kill points per flow ${JSON.stringify(report.killPointsPerFlow)}, kills ${JSON.stringify(
          report.kills,
        )}, kills outside runs ${report.killsOutsideRuns}, SIGTERM stops ${report.sigterms}, ${report.durationMs} ms\n`,
      );
      expect(report.check.violations).toEqual([]);
      expect(idleWrites(buyerScenario, report)).toEqual([]);
      expect(report.check.summary['linesExported']).toBeGreaterThan(0);
      expect(report.killPointsPerFlow['journal-export']).toBeGreaterThan(0);
    },
    KILL_PHASE_MS + 240_000,
  );
});

if (missing.length > 0) {
  process.stdout.write(
    `crash buyer skipped: flows not registered in src/daemon/builtin-plugins.ts: ${missing.join(', ')}\n`,
  );
}
