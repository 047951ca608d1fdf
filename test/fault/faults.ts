/** The network both fault-convergence tests run under (the sandbox's fault settings) and the signature skews. */
import type { FaultSettings } from '../../src/sandbox/index.js';

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
