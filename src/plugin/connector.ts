/**
 * What a connector type contributes: its config schema, a description, the capabilities it offers and a factory
 * that turns one `connectors.<name>` block into a live Connector (src/connector-contract holds the runtime interfaces).
 */
import type * as z from 'zod';
import type { CapabilityName, CommitGate, Connector, PreflightProblem } from '../connector-contract/index.js';

export interface ConnectorContext {
  /** The connector's name in the config, for errors and logs. */
  readonly name: string;
  /** Directory relative paths in the connector config resolve against (the config file's folder). */
  readonly baseDir: string;
  /** The config file the connector's block was read from, named in errors with the key at fault. */
  readonly configFile?: string;
  /**
   * Asked right before each write to the connector's system commits (see CommitGate); a refusal means roll back.
   * Absent where nothing holds writes back.
   */
  readonly mayCommit?: CommitGate;
}

export interface ConnectorDefinition<S extends z.ZodType = z.ZodType> {
  readonly kind: 'connector';
  readonly type: string;
  readonly description: string;
  /** Strict zod schema for the connector's config block (without `type`); secret fields marked with secret(). */
  readonly configSchema: S;
  /** Every capability an instance may offer. */
  readonly capabilities: readonly CapabilityName[];
  /**
   * The capabilities an instance with this block offers, when that depends on the block (statements given or
   * not); without it, every one of `capabilities`.
   */
  capabilitiesFor?(config: z.output<S>): readonly CapabilityName[];
  create(config: z.output<S>, context: ConnectorContext): Promise<Connector>;
  /**
   * How long one write request to the connector's system may take as the block configures it (`key`: the setting),
   * for a connector whose writes cannot be rolled back and are cut at the lease's allowance under `ha`.
   */
  writeRequestTimeout?(config: z.output<S>): { readonly key: string; readonly ms: number } | undefined;
  /** The part of the pre-flight knowable from the config alone (`config validate`), without opening anything. */
  staticPreflight?(config: z.output<S>): PreflightProblem[];
}

/** Declares a connector type, its config type inferred from the schema. */
export function defineConnector<S extends z.ZodType>(
  definition: Omit<ConnectorDefinition<S>, 'kind'>,
): ConnectorDefinition<S> {
  return { kind: 'connector', ...definition };
}
