import type { z } from 'zod';
import type { CapabilityName } from './capabilities.js';
import type { Connector, PreflightProblem } from './connector.js';
import { ConnectorError } from './errors.js';

export interface ConnectorContext {
  /** The connector's name in the config, for errors and logs. */
  readonly name: string;
  /** Directory relative paths in the connector config resolve against (the config file's folder). */
  readonly baseDir: string;
}

export interface ConnectorDefinition<S extends z.ZodType = z.ZodType> {
  readonly type: string;
  readonly description: string;
  /** Strict zod schema for the connector's config block (without `type`); secret fields marked with secret(). */
  readonly configSchema: S;
  /** Capabilities an instance may offer; the actual set can depend on the config (statements given or not). */
  readonly capabilities: readonly CapabilityName[];
  create(config: z.output<S>, context: ConnectorContext): Promise<Connector>;
  /** The part of the pre-flight knowable from the config alone (`config validate`), without opening anything. */
  staticPreflight?(config: z.output<S>): PreflightProblem[];
}

/** Maps a connector `type` to its definition. One instance per daemon, filled at start; no module-level state. */
export class ConnectorRegistry {
  readonly #definitions = new Map<string, ConnectorDefinition>();

  register<S extends z.ZodType>(definition: ConnectorDefinition<S>): this {
    if (this.#definitions.has(definition.type)) {
      throw new Error(`connector type "${definition.type}" is registered twice`);
    }
    this.#definitions.set(definition.type, definition as unknown as ConnectorDefinition);
    return this;
  }

  get(type: string): ConnectorDefinition {
    const definition = this.#definitions.get(type);
    if (definition === undefined) {
      throw new ConnectorError(
        'connector_unknown_type',
        `unknown connector type "${type}"; known types: ${this.types().join(', ')}`,
        { connector: type, retryable: false },
      );
    }
    return definition;
  }

  types(): string[] {
    return [...this.#definitions.keys()].sort();
  }

  /** Problems knowable from a connector block without opening it; the block must already be valid. */
  staticPreflight(type: string, config: unknown): PreflightProblem[] {
    const definition = this.get(type);
    return definition.staticPreflight?.(definition.configSchema.parse(config)) ?? [];
  }

  /** Validates `config` with the type's schema (throws the zod error for the config loader to format). */
  async create(type: string, config: unknown, context: ConnectorContext): Promise<Connector> {
    const definition = this.get(type);
    const parsed: unknown = definition.configSchema.parse(config);
    return definition.create(parsed, context);
  }
}
