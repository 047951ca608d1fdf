/**
 * A crash scenario: one daemon config (one API key, so one side), the work the harness makes appear, and the
 * sequence-number style checks that say whether every expected item arrived exactly once.
 */
import type { Prng } from './prng.js';
import type { ApiSide, CrashWorld } from './world.js';

/** Where the harness is in a kill cycle when it asks for new work. */
export type ActivityMoment = 'before-start' | 'daemon-ready';

export interface ScenarioCheck {
  /** Each broken guarantee, in words (empty when all hold). */
  violations: string[];
  /**
   * The end state with run-specific ids left out, so a fault run can be compared with a fault-free one
   * (counts of items written once, content digests).
   */
  summary: Record<string, unknown>;
}

export interface ScenarioSession {
  /** Makes new work appear in the API or the ERP / accounting system. */
  activity(prng: Prng, moment: ActivityMoment): Promise<void>;
  /** True when all work made so far has reached its destination (converged). */
  settled(): Promise<boolean>;
  /** Describes what is still missing, for a failure message. */
  pending(): Promise<string>;
  /**
   * Counts of the work made so far and of what has reached its destination (orders sent, orders in the ERP...), read
   * from the API and the systems on the other side: the kill phase's activity goal, and its report.
   */
  progress(): Promise<Record<string, number>>;
  check(): Promise<ScenarioCheck>;
  close(): Promise<void>;
}

export interface CrashScenario {
  readonly name: string;
  readonly side: ApiSide;
  /** The flows this scenario's config runs: a `sync <job>` target per job, named like the flow. */
  readonly jobs: readonly string[];
  /**
   * The order in which the convergence restarts the jobs (default `jobs`): a job whose writes give another one work
   * runs before it, so that one round usually finishes everything.
   */
  readonly convergeOrder?: readonly string[];
  /** Webhook events the daemon is subscribed to. */
  readonly events: readonly string[];
  /** Config text after the api/state/server/log blocks. `startFrom` is the moment the scenario began. */
  configBody(dir: string, startFrom: string): string;
  /**
   * The least of each `progress()` count the kill phase must reach before it ends, besides the kill points per flow:
   * the work the checks need to have something to check (an ERP confirmation for the order-confirm flow...).
   */
  readonly minimumActivity: Readonly<Record<string, number>>;
  /** Flow names this scenario needs registered in src/daemon/plugins/builtin-plugins.ts; missing ones make it skip. */
  readonly requiredFlows: readonly string[];
  open(world: CrashWorld): Promise<ScenarioSession>;
  /**
   * Counts a `sync <job>` run printed that mean it wrote something; a converged state must make them zero on one
   * more run (nothing sent twice).
   */
  readonly writeCounts: Readonly<Record<string, readonly string[]>>;
}
