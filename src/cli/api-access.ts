/** Opens the API the config points at: a real base URL with its key, or the embedded sandbox for demos. */
import { createApiClient, type ApiClient } from '../client/index.js';
import type { Config } from '../config/index.js';
import { apiNetworkOptions } from '../daemon/api-network.js';
import { CliError, EXIT_USAGE } from './errors.js';

export interface ApiAccess {
  readonly api: ApiClient;
  readonly baseUrl: string;
  /** What the base URL is, for messages: "embedded sandbox" or the URL. */
  readonly label: string;
  close(): Promise<void>;
}

export async function openApi(config: Config): Promise<ApiAccess> {
  const auth =
    config.api.auth === 'oauth' && config.api.client_id !== undefined
      ? ({ mode: 'client_credentials', clientId: config.api.client_id } as const)
      : ({ mode: 'api_key' } as const);
  if (config.api.sandbox === 'embedded') {
    const { startSandbox } = await import('../sandbox/index.js');
    const sandbox = await startSandbox({});
    const api = createApiClient({
      baseUrl: sandbox.baseUrl,
      apiKey: config.api.api_key ?? sandbox.keys.supplier,
      auth,
      // In this process: reached directly, whatever proxy variables are set.
      network: { env: {} },
    });
    return {
      api,
      baseUrl: sandbox.baseUrl,
      label: `embedded sandbox at ${sandbox.baseUrl}`,
      close: async () => {
        await api.close();
        await sandbox.close();
      },
    };
  }
  if (config.api.base_url === undefined || config.api.api_key === undefined) {
    throw new CliError('api.base_url and api.api_key are required', 'config_invalid', EXIT_USAGE);
  }
  const api = createApiClient({
    baseUrl: config.api.base_url,
    apiKey: config.api.api_key,
    auth,
    rateLimit: { maxConcurrency: config.api.max_concurrency },
    retry: { deadlineMs: config.api.timeout },
    network: apiNetworkOptions(config),
  });
  return { api, baseUrl: config.api.base_url, label: config.api.base_url, close: () => api.close() };
}
