/**
 * Fault convergence of the buyer daemon (the journal export into CSV import files, in small batches, the mirror of
 * the journal lines into a SQLite table, and the expenses of a csv-expenses drop folder, some with a receipt): the
 * same seeded approvals and expense files, once on a clean network and once with the sandbox answering 10% of
 * requests with 5xx, resetting 5% of connections, opening with a 429 burst, adding rare 2 s latency spikes,
 * duplicating and reordering webhooks, and signing them with a clock skewed first within and then beyond the
 * tolerance. Both runs must book the same lines, each in one import file and marked exported once,
 * mirror every line in its latest state, send every expense once (held once by the API, with its receipt, written
 * back once), and one more run afterwards must write nothing.
 */
import { describe, expect, it } from 'vitest';
import { buyerScenarioWith } from '../crash/harness/buyer.js';
import { missingFlows } from '../crash/harness/run-scenario.js';
import { runConvergence, type ConvergeReport } from './converge.js';
import { faultedCalls } from './daemon-metrics.js';
import { FAULT_GOALS, NETWORK_FAULTS, SKEW_BEYOND_TOLERANCE_S, SKEW_WITHIN_TOLERANCE_S } from './faults.js';

const SEED = 91;
const ROUNDS = 8;
const scenario = buyerScenarioWith({ maxLinesPerBatch: 8, mirror: true, expenses: true });

/** The compared end state: everything but the number of import files, which depends on how runs batched. */
function endState(report: ConvergeReport): Record<string, unknown> {
  const { importFiles: _ignored, ...rest } = report.check.summary;
  return rest;
}

describe.skipIf(missingFlows(scenario).length > 0)('buyer daemon under network faults', () => {
  // Past the harness's guards (each daemon phase, each convergence), which fail with the counts reached.
  it('ends in the state of a fault-free run', { timeout: 720_000 }, async () => {
    const clean = await runConvergence({ scenario, seed: SEED, activityRounds: ROUNDS });
    expect(clean.check.violations).toEqual([]);
    expect(clean.idleWrites).toEqual([]);

    const faults = { ...NETWORK_FAULTS, seed: SEED };
    const faulted = await runConvergence({
      scenario,
      seed: SEED,
      activityRounds: ROUNDS,
      faultPhases: [
        { ...faults, signature_skew_seconds: SKEW_WITHIN_TOLERANCE_S },
        { ...faults, rate_limit_burst: 0, signature_skew_seconds: SKEW_BEYOND_TOLERANCE_S },
      ],
      phaseGoals: [
        [FAULT_GOALS.retriedCall, FAULT_GOALS.storedEvent, FAULT_GOALS.duplicate],
        [FAULT_GOALS.refusedSkew],
      ],
    });
    process.stdout.write(
      `buyer fault convergence: clean ${clean.durationMs} ms (${clean.syncRuns} sync runs), faulted ${faulted.durationMs} ms, ` +
        `sync runs ${faulted.syncRuns} (${faulted.failedSyncRuns} failed), import files ` +
        `${String(clean.check.summary['importFiles'])} clean / ${String(faulted.check.summary['importFiles'])} ` +
        `faulted, expenses sent ${String(clean.check.summary['expensesSent'])} clean / ` +
        `${String(faulted.check.summary['expensesSent'])} faulted, deliveries by status ${JSON.stringify(faulted.deliveries)}, daemon ${JSON.stringify(
          faulted.daemon,
        )}\n`,
    );
    expect(faulted.check.violations).toEqual([]);
    expect(faulted.idleWrites).toEqual([]);
    expect(endState(faulted)).toEqual(endState(clean));
    expect(clean.check.summary['linesExported']).toBeGreaterThan(0);
    expect(clean.check.summary['stillApproved']).toBe(0);
    expect(clean.check.summary['mirroredLines']).toBeGreaterThan(0);
    expect(clean.check.summary['expensesSent']).toBeGreaterThan(0);
    expect(clean.check.summary['expensesSent']).toBe(clean.check.summary['expensesDropped']);
    expect(faulted.check.summary['expensesSent']).toBe(faulted.check.summary['expensesDropped']);

    // The faults were really applied, and reached the daemon: skew beyond tolerance refused...
    expect(faulted.redelivered).toBeGreaterThan(0);
    expect(faulted.deliveries['400'] ?? 0).toBeGreaterThan(0);
    expect(faulted.daemon.webhooksRejected['timestamp_out_of_tolerance'] ?? 0).toBeGreaterThan(0);
    // ...skew within it accepted, duplicated deliveries recognised, and API calls answered 5xx/429/reset retried.
    expect(faulted.daemon.webhooksReceived).toBeGreaterThan(0);
    expect(faulted.daemon.webhooksDuplicate).toBeGreaterThan(0);
    expect(faultedCalls(faulted.daemon)).toBeGreaterThan(0);
    // The clean run saw none of that.
    expect(faultedCalls(clean.daemon)).toBe(0);
    expect(clean.daemon.webhooksRejected).toEqual({});
  });
});
