/**
 * The connector types and flows of one daemon, filled at start from the composition root (src/daemon/plugins/builtin.ts);
 * no module-level state. It is also what the config loader validates blocks and options against.
 */
import type { PluginSchemas } from '../config/index.js';
import {
  ConnectorError,
  type CapabilityName,
  type Connector,
  type PreflightProblem,
} from '../connector-contract/index.js';
import type { ConnectorContext, ConnectorDefinition } from './connector.js';
import type { FlowDefinition } from './flow.js';

/** Either kind of plugin; each is typed by its own schema, the registry treats them alike. */
export type PluginDefinition = ConnectorDefinition | FlowDefinition;

export class PluginRegistry implements PluginSchemas {
  readonly #connectors = new Map<string, ConnectorDefinition>();
  readonly #flows = new Map<string, FlowDefinition>();

  constructor(definitions: Iterable<PluginDefinition> = []) {
    for (const definition of definitions) this.register(definition);
  }

  register(definition: PluginDefinition): this {
    if (definition.kind === 'connector') {
      if (this.#connectors.has(definition.type)) {
        throw new Error(`connector type "${definition.type}" is registered twice`);
      }
      this.#connectors.set(definition.type, definition);
    } else {
      if (this.#flows.has(definition.flow)) throw new Error(`flow "${definition.flow}" is registered twice`);
      this.#flows.set(definition.flow, definition);
    }
    return this;
  }

  connector(type: string): ConnectorDefinition | undefined {
    return this.#connectors.get(type);
  }

  flow(name: string): FlowDefinition | undefined {
    return this.#flows.get(name);
  }

  connectorTypes(): string[] {
    return [...this.#connectors.keys()].sort();
  }

  flowNames(): string[] {
    return [...this.#flows.keys()].sort();
  }

  /** The definition of a connector type, or a clear error listing the known types. */
  connectorDefinition(type: string): ConnectorDefinition {
    const definition = this.#connectors.get(type);
    if (definition === undefined) {
      throw new ConnectorError(
        'connector_unknown_type',
        `unknown connector type "${type}"; known types: ${this.connectorTypes().join(', ')}`,
        { connector: type, retryable: false },
      );
    }
    return definition;
  }

  /** What a connector of this type offers with this block: the block without `type`, as its schema parsed it. */
  offeredCapabilities(type: string, config: unknown): readonly CapabilityName[] {
    const definition = this.connectorDefinition(type);
    return definition.capabilitiesFor?.(config) ?? definition.capabilities;
  }

  /** See ConnectorDefinition.writeRequestTimeout; `config`: the block without `type`, as its schema parsed it. */
  writeRequestTimeout(
    type: string,
    config: unknown,
  ): { readonly key: string; readonly ms: number } | undefined {
    return this.connectorDefinition(type).writeRequestTimeout?.(config);
  }

  /**
   * Problems knowable from a connector block without opening it. `parsed`: the block without `type`, as the type's
   * schema parsed it when the config was loaded (it is not parsed again).
   */
  staticPreflight(type: string, parsed: unknown): PreflightProblem[] {
    return this.connectorDefinition(type).staticPreflight?.(parsed) ?? [];
  }

  /** A live connector from its block without `type`, as the type's schema parsed it when the config was loaded. */
  async createParsedConnector(type: string, parsed: unknown, context: ConnectorContext): Promise<Connector> {
    return this.connectorDefinition(type).create(parsed, context);
  }

  /** A live connector from a block not yet parsed; throws the zod error when the type's schema refuses it. */
  async createConnector(type: string, config: unknown, context: ConnectorContext): Promise<Connector> {
    const definition = this.connectorDefinition(type);
    return definition.create(definition.configSchema.parse(config), context);
  }
}
