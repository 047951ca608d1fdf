/**
 * Fault convergence of the supplier daemon: the same seeded work, once on a clean network and once with the sandbox
 * answering 10% of requests with 5xx, resetting 5% of connections, opening with a 429 burst, adding rare 2 s
 * latency spikes, duplicating and reordering webhooks, and signing them with a clock skewed first within and then
 * beyond the tolerance. Both runs must end in the same state, with every guarantee held.
 */
import { describe, expect, it } from 'vitest';
import { missingFlows } from '../crash/harness/run-scenario.js';
import { supplierScenario } from '../crash/harness/supplier.js';
import { runConvergence, type ConvergeReport } from './converge.js';
import { faultedCalls } from './daemon-metrics.js';
import { FAULT_GOALS, NETWORK_FAULTS, SKEW_BEYOND_TOLERANCE_S, SKEW_WITHIN_TOLERANCE_S } from './faults.js';

const SEED = 77;
const ROUNDS = 6;
const FAULTS = { ...NETWORK_FAULTS, seed: SEED };

/** Everything but the count of rejected second creates, which depends on timing and is reported separately. */
function endState(report: ConvergeReport): Record<string, unknown> {
  const { documentDuplicateAttempts: _ignored, ...rest } = report.check.summary;
  return rest;
}

describe.skipIf(missingFlows(supplierScenario).length > 0)('supplier daemon under network faults', () => {
  // Past the harness's guards (each daemon phase, each convergence), which fail with the counts reached.
  it('ends in the state of a fault-free run', { timeout: 720_000 }, async () => {
    const clean = await runConvergence({ scenario: supplierScenario, seed: SEED, activityRounds: ROUNDS });
    expect(clean.check.violations).toEqual([]);
    expect(clean.idleWrites).toEqual([]);

    const faulted = await runConvergence({
      scenario: supplierScenario,
      seed: SEED,
      activityRounds: ROUNDS,
      faultPhases: [
        { ...FAULTS, signature_skew_seconds: SKEW_WITHIN_TOLERANCE_S },
        { ...FAULTS, rate_limit_burst: 0, signature_skew_seconds: SKEW_BEYOND_TOLERANCE_S },
      ],
      phaseGoals: [[FAULT_GOALS.retriedCall, FAULT_GOALS.storedEvent], [FAULT_GOALS.refusedSkew]],
    });
    process.stdout.write(
      `fault convergence: clean ${clean.durationMs} ms, faulted ${faulted.durationMs} ms, ` +
        `sync runs ${faulted.syncRuns} (${faulted.failedSyncRuns} failed), deliveries by status ${JSON.stringify(
          faulted.deliveries,
        )}, daemon ${JSON.stringify(faulted.daemon)}, rejected second creates ${String(
          faulted.check.summary['documentDuplicateAttempts'],
        )}\n`,
    );
    expect(faulted.check.violations).toEqual([]);
    expect(faulted.idleWrites).toEqual([]);
    expect(endState(faulted)).toEqual(endState(clean));
    expect(clean.check.summary['ordersSent']).toBeGreaterThan(0);
    // Skew beyond tolerance must have been refused by the daemon at least once (the fault was really applied).
    expect(faulted.redelivered).toBeGreaterThan(0);
    expect(faulted.deliveries['400'] ?? 0).toBeGreaterThan(0);
    // ...and skew within it accepted: events were stored by the daemon under faults.
    expect(Object.entries(faulted.deliveries).some(([status, n]) => /^2\d\d$/.test(status) && n > 0)).toBe(
      true,
    );
    // The daemon itself met the request faults (answers it had to retry) and the refused skew.
    expect(faultedCalls(faulted.daemon)).toBeGreaterThan(0);
    expect(faulted.daemon.webhooksRejected['timestamp_out_of_tolerance'] ?? 0).toBeGreaterThan(0);
  });
});
