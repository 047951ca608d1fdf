/**
 * Where the API is: a configured base URL with its key, or the embedded sandbox (demo and trials), which hands
 * out one key per side so a single demo daemon can run supplier and buyer flows at once.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config/index.js';
import type { ApiSide } from '../contract/index.js';
import { apiNetworkOptions, type ApiNetworkOptions } from './network.js';

export type { ApiSide };

export interface ApiEndpoint {
  readonly baseUrl: string;
  /** "embedded sandbox at …" or the base URL, for messages. */
  readonly label: string;
  readonly embedded: boolean;
  /** Proxy and private CAs from the config; undefined for the embedded sandbox, reached directly. */
  readonly network: ApiNetworkOptions | undefined;
  /** The key for a side; a configured key serves both sides (doctor flags a side the account cannot serve). */
  keyFor(side: ApiSide): string;
  /** The embedded sandbox's control URL, when there is one. */
  readonly controlUrl?: string;
  close(): Promise<void>;
}

export interface EmbeddedSandboxOptions {
  /** Keeps the embedded sandbox's data in this file (the daemon: beside the state file); in memory without it. */
  readonly statePath?: string;
  /** Admit http:// webhook URLs on loopback (the daemon registers its own plain-http endpoint). */
  readonly allowHttpWebhooks?: boolean;
}

/** Where the daemon keeps its embedded sandbox's data (and so the keys it hands each side): beside the state file. */
export function embeddedSandboxFile(config: Config): string {
  return join(dirname(config.state.path), 'sandbox.db');
}

export class ApiEndpointError extends Error {
  readonly code = 'config_invalid';
}

export async function openApiEndpoint(
  config: Config,
  embeddedSandbox: EmbeddedSandboxOptions = {},
): Promise<ApiEndpoint> {
  if (config.api.sandbox === 'embedded') {
    // Loaded on demand: a daemon against a real API never loads the emulator.
    const { startSandbox } = await import('../sandbox/index.js');
    // On a PostgreSQL state nothing else creates the state file's folder, beside which the sandbox keeps its file.
    const { statePath } = embeddedSandbox;
    if (statePath !== undefined) mkdirSync(dirname(statePath), { recursive: true, mode: 0o700 });
    const sandbox = await startSandbox({ ...embeddedSandbox });
    const configuredKey = config.api.api_key;
    return {
      baseUrl: sandbox.baseUrl,
      label: `embedded sandbox at ${sandbox.baseUrl}`,
      embedded: true,
      network: undefined,
      controlUrl: sandbox.controlUrl,
      keyFor: (side) => configuredKey ?? (side === 'supplier' ? sandbox.keys.supplier : sandbox.keys.buyer),
      close: () => sandbox.close(),
    };
  }
  const { base_url: baseUrl, api_key: apiKey } = config.api;
  if (baseUrl === undefined || apiKey === undefined) {
    throw new ApiEndpointError('api.base_url and api.api_key are required unless api.sandbox is "embedded"');
  }
  return {
    baseUrl,
    label: baseUrl,
    embedded: false,
    network: apiNetworkOptions(config),
    keyFor: () => apiKey,
    close: async () => {},
  };
}
