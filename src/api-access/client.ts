/** An API client for one side of an endpoint, with the config's auth, rate limit, retry deadline and network. */
import { createApiClient, type ApiClient, type ApiClientOptions } from '../client/index.js';
import type { Config } from '../config/index.js';
import { openApiEndpoint, type ApiEndpoint, type ApiSide, type EmbeddedSandboxOptions } from './endpoint.js';

/** What the caller adds: its clock, logger and call observers. */
export type ApiClientExtras = Pick<
  ApiClientOptions,
  'clock' | 'logger' | 'onCall' | 'onDrift' | 'beforeWrite'
>;

export function apiClientFor(
  config: Config,
  endpoint: ApiEndpoint,
  side: ApiSide,
  extras: ApiClientExtras = {},
): ApiClient {
  const auth =
    config.api.auth === 'oauth' && config.api.client_id !== undefined
      ? ({ mode: 'client_credentials', clientId: config.api.client_id } as const)
      : ({ mode: 'api_key' } as const);
  return createApiClient({
    baseUrl: endpoint.baseUrl,
    apiKey: endpoint.keyFor(side),
    auth,
    rateLimit: { maxConcurrency: config.api.max_concurrency },
    retry: { deadlineMs: config.api.timeout },
    ...(endpoint.embedded ? { environment: 'sandbox' as const } : {}),
    // The embedded sandbox runs in this process: reached directly, whatever proxy variables are set.
    network: endpoint.network ?? { env: {} },
    ...extras,
  });
}

export interface ApiAccess {
  readonly api: ApiClient;
  readonly endpoint: ApiEndpoint;
  readonly baseUrl: string;
  /** What the base URL is, for messages: "embedded sandbox at …" or the URL. */
  readonly label: string;
  close(): Promise<void>;
}

export interface OpenApiOptions {
  /** The side the client acts for; the supplier's unless said. */
  readonly side?: ApiSide;
  readonly embeddedSandbox?: EmbeddedSandboxOptions;
  readonly extras?: ApiClientExtras;
}

/** The endpoint and a client of one side on it, for one-off commands (doctor, catalog, webhooks, reconcile). */
export async function openApi(config: Config, options: OpenApiOptions = {}): Promise<ApiAccess> {
  const endpoint = await openApiEndpoint(config, options.embeddedSandbox ?? {});
  let api: ApiClient;
  try {
    api = apiClientFor(config, endpoint, options.side ?? 'supplier', options.extras ?? {});
  } catch (error) {
    await endpoint.close();
    throw error;
  }
  return {
    api,
    endpoint,
    baseUrl: endpoint.baseUrl,
    label: endpoint.label,
    close: async () => {
      await api.close();
      await endpoint.close();
    },
  };
}
