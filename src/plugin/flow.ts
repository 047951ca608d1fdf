/**
 * What a flow contributes to the daemon: its options schema, the API side and scopes it needs, the webhook events
 * that nudge it, the connector capabilities it works with, and a factory that turns one `jobs.<name>` block into an
 * engine Job.
 */
import type { Logger } from 'pino';
import type * as z from 'zod';
import type { ApiSide } from '../api-access/index.js';
import type { ApiClient } from '../client/index.js';
import type { CapabilityName, Connector } from '../connector-contract/index.js';
import type { Job } from '../engine/index.js';
import type { Clock } from '../shared/clock.js';
import type { StateStore } from '../state/index.js';

export type { ApiSide };

/** Value mappings from the config (`mappings.<table>.<api value>: <target value>`). */
export type Mappings = Readonly<Record<string, Readonly<Record<string, string>>>>;

export interface FlowDeps {
  api: ApiClient;
  /** The live connector configured under `connectors.<name>`; throws a clear error for an unknown name. */
  connector(name: string): Connector;
  state: StateStore;
  /**
   * The config's `mappings:` as of the current run. A config reload (`supply-sync config reload`, SIGHUP) replaces
   * them without a stop, from the job's next run on: read them during a run, not once when the job is built.
   */
  mappings: Mappings;
  logger: Logger;
  clock: Clock;
  /** Absolute directory for files a flow writes besides its connector (dry-run previews). */
  workDir: string;
}

export interface FlowJobConfig<O> {
  /** The job's name in the config (`jobs.<name>`); also the name runs, cursors and metrics use. */
  name: string;
  /** `jobs.<name>.connector`, when the flow uses one. */
  connector?: string;
  /** `jobs.<name>.options` as the flow's schema parsed them when the config was loaded. */
  options: O;
}

export interface FlowDefinition<S extends z.ZodType = z.ZodType> {
  readonly kind: 'flow';
  readonly flow: string;
  readonly description: string;
  /** Which account the flow speaks for: the API key must belong to a supplier or a buyer account. */
  readonly side: ApiSide;
  /** API scopes the flow needs (checked by `doctor` against GET /me). */
  readonly scopes: readonly string[];
  /**
   * Connector capabilities a job cannot run without: config validation checks the job's connector offers them,
   * and a pre-flight problem in one of them holds the job back.
   */
  readonly requires: readonly CapabilityName[];
  /** Capabilities a job uses when its connector offers them (and its options ask for them). */
  readonly optional?: readonly CapabilityName[];
  /** Webhook event types that trigger an immediate run of jobs of this flow. */
  readonly triggerEvents: readonly string[];
  /** Schema of `jobs.<name>.options` (strict object; defaults filled in). */
  readonly options: S;
  create(job: FlowJobConfig<z.output<S>>, deps: FlowDeps): Job;
}

/** Declares a flow, its options type inferred from the schema. */
export function defineFlow<S extends z.ZodType>(
  definition: Omit<FlowDefinition<S>, 'kind'>,
): FlowDefinition<S> {
  return { kind: 'flow', ...definition };
}

/** Every capability a flow's jobs may use: required first, then optional. */
export function capabilitiesUsed(flow: FlowDefinition): readonly CapabilityName[] {
  return [...flow.requires, ...(flow.optional ?? [])];
}
