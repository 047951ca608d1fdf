/**
 * Schemas that connectors and flows contribute to the config. The core validates `connectors.<name>` (without its
 * `type` key) with the schema registered for that type, and `jobs.<name>.options` with the schema of the job's flow.
 * Use strict objects (`z.strictObject`) so unknown keys are rejected with a did-you-mean hint.
 */
import type { z } from 'zod';

export interface ConnectorCheckResult {
  readonly ok: boolean;
  /** One line; for a failure, say what to fix. Never include a secret. */
  readonly message: string;
}

export interface ConnectorRegistration {
  readonly type: string;
  /** Schema of the connector block minus its `type` key. Mark secret fields with `secret()`. */
  readonly schema: z.ZodType;
  readonly description?: string;
  /** Optional reachability check for `doctor` and readiness, given the validated block. */
  readonly check?: (config: unknown, signal: AbortSignal) => Promise<ConnectorCheckResult>;
}

export interface FlowRegistration {
  readonly flow: string;
  /** Schema of `jobs.<name>.options`. */
  readonly options: z.ZodType;
  readonly description?: string;
  /** API scopes the flow needs, so `doctor` can compare them with GET /me. */
  readonly scopes?: readonly string[];
  /** Connector types the flow can work with; empty or absent means any. */
  readonly connectorTypes?: readonly string[];
  /** Which account the flow speaks for, so `doctor` can tell a supplier key from a buyer key. */
  readonly side?: 'supplier' | 'buyer';
}

export class SchemaRegistry {
  readonly #connectors = new Map<string, ConnectorRegistration>();
  readonly #flows = new Map<string, FlowRegistration>();

  registerConnector(registration: ConnectorRegistration): void {
    if (this.#connectors.has(registration.type)) {
      throw new Error(`connector type "${registration.type}" is already registered`);
    }
    this.#connectors.set(registration.type, registration);
  }

  registerFlow(registration: FlowRegistration): void {
    if (this.#flows.has(registration.flow))
      throw new Error(`flow "${registration.flow}" is already registered`);
    this.#flows.set(registration.flow, registration);
  }

  connector(type: string): ConnectorRegistration | undefined {
    return this.#connectors.get(type);
  }

  flow(name: string): FlowRegistration | undefined {
    return this.#flows.get(name);
  }

  connectorTypes(): string[] {
    return [...this.#connectors.keys()].sort();
  }

  flows(): string[] {
    return [...this.#flows.keys()].sort();
  }
}

/** The process-wide registry that connector and flow modules register into when imported. */
export const configRegistry = new SchemaRegistry();

export function registerConnectorType(registration: ConnectorRegistration): void {
  configRegistry.registerConnector(registration);
}

export function registerFlow(registration: FlowRegistration): void {
  configRegistry.registerFlow(registration);
}

/** The shape of a connector definition from src/connectors (its `configSchema` excludes `type`). */
export interface ConnectorDefinitionLike {
  readonly type: string;
  readonly description?: string;
  readonly configSchema: z.ZodType;
}

/** Registers the config schemas of connector definitions, skipping types already present. */
export function addConnectorDefinitions(
  registry: SchemaRegistry,
  definitions: Iterable<ConnectorDefinitionLike>,
): void {
  for (const definition of definitions) {
    if (registry.connector(definition.type)) continue;
    registry.registerConnector({
      type: definition.type,
      schema: definition.configSchema,
      ...(definition.description === undefined ? {} : { description: definition.description }),
    });
  }
}

/** Registers the option schemas of flow definitions (src/daemon/flow-definition.ts), skipping flows already present. */
export function addFlowDefinitions(registry: SchemaRegistry, definitions: Iterable<FlowRegistration>): void {
  for (const definition of definitions) {
    if (!registry.flow(definition.flow)) registry.registerFlow(definition);
  }
}
