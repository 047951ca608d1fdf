/**
 * What the config loader needs to know of the connector types and flows this build ships. The plugins themselves
 * (src/plugin) sit a layer above the config; they hand the loader this view of themselves.
 */
import type * as z from 'zod';
import type { ApiSide } from '../contract/index.js';

export interface ConnectorSchema {
  readonly type: string;
  readonly description: string;
  /** Schema of the connector block minus its `type` key; secret fields are marked with `secret()`. */
  readonly configSchema: z.ZodType;
}

export interface FlowSchema {
  readonly flow: string;
  readonly description: string;
  /** Which account the flow speaks for, so `doctor` can tell a supplier key from a buyer key. */
  readonly side: ApiSide;
  /** API scopes the flow needs, so `doctor` can compare them with GET /me. */
  readonly scopes: readonly string[];
  /** Schema of `jobs.<name>.options`. */
  readonly options: z.ZodType;
  /** Connector capabilities a job of this flow cannot run without. */
  readonly requires: readonly string[];
}

export interface PluginSchemas {
  connector(type: string): ConnectorSchema | undefined;
  flow(name: string): FlowSchema | undefined;
  connectorTypes(): readonly string[];
  flowNames(): readonly string[];
  /** The capabilities a connector of this type offers with this (validated) block. */
  offeredCapabilities(type: string, config: unknown): readonly string[];
  /** How long one write request of a connector with this (validated) block may take, if the type says. */
  writeRequestTimeout?(
    type: string,
    config: unknown,
  ): { readonly key: string; readonly ms: number } | undefined;
}

/** No connector types and no flows: the core config alone. */
export const NO_PLUGINS: PluginSchemas = {
  connector: () => undefined,
  flow: () => undefined,
  connectorTypes: () => [],
  flowNames: () => [],
  offeredCapabilities: () => [],
};
