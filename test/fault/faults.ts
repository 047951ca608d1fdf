/** The network both fault-convergence tests run under (the sandbox's fault settings) and the signature skews. */
import type { FaultSettings } from '../../src/sandbox/index.js';
import type { DaemonGoal } from './converge.js';
import { faultedCalls } from './daemon-metrics.js';

/** 10% 5xx, 5% resets, a 429 burst, rare 2 s latency spikes, duplicated and held-back webhooks. */
export const NETWORK_FAULTS: Omit<FaultSettings, 'signature_skew_seconds' | 'seed'> = {
  error_rate: 0.1,
  reset_rate: 0.05,
  rate_limit_burst: 5,
  latency_ms: 2_000,
  latency_rate: 0.01,
  webhook_duplicate_rate: 0.3,
  webhook_reorder: 0.3,
  webhook_reorder_delay_ms: 1_500,
};

/** The daemon accepts signatures up to 5 minutes off its clock. */
export const SKEW_WITHIN_TOLERANCE_S = 120;
export const SKEW_BEYOND_TOLERANCE_S = -900;

/** What the daemon must have counted before a faulted phase ends: the faults reached it, not only the harness. */
export const FAULT_GOALS: Readonly<
  Record<'retriedCall' | 'storedEvent' | 'duplicate' | 'refusedSkew', DaemonGoal>
> = {
  retriedCall: {
    what: 'an API call of the daemon met an injected fault (5xx, 429, reset) and was retried',
    reached: (counters) => faultedCalls(counters) > 0,
  },
  storedEvent: {
    what: 'the daemon stored an event signed with a skew within the tolerance',
    reached: (counters) => counters.webhooksReceived > 0,
  },
  duplicate: {
    what: 'the daemon recognised a duplicated delivery',
    reached: (counters) => counters.webhooksDuplicate > 0,
  },
  refusedSkew: {
    what: 'the daemon refused a delivery signed with a skew beyond the tolerance',
    reached: (counters) => (counters.webhooksRejected['timestamp_out_of_tolerance'] ?? 0) > 0,
  },
};
