/**
 * With the embedded sandbox the daemon registers its own webhook endpoint for each API side it uses, so a demo
 * shows signed webhooks arriving without any setup; against a real API that is `supply-sync webhooks register`, and
 * this does nothing.
 */
import { ValidationApiError } from '../../client/index.js';
import { SUPPLIER_EVENT_TYPES } from '../../contract/index.js';
import { registerWebhook, webhookApiFromClient, type WebhookSecretStore } from '../../webhooks/index.js';
import type { Environment } from './environment.js';
import type { Service } from './service.js';

export class EmbeddedWebhooksService implements Service {
  readonly name = 'embedded webhook registration';

  /** `webhookUrl` is where the listener is called from this machine (loopback for a wildcard host). */
  constructor(
    private readonly env: Environment,
    private readonly webhookUrl: string,
    private readonly secrets: WebhookSecretStore,
    private readonly mapping: Readonly<Record<string, readonly string[]>>,
  ) {}

  async start(): Promise<void> {
    if (!this.env.endpoint.embedded) return;
    try {
      await registerEmbeddedWebhooks(this.env, this.webhookUrl, this.secrets, this.mapping);
    } catch (error) {
      throw refusedUrl(error, this.webhookUrl, this.env.loaded.config.server) ?? error;
    }
  }

  async stop(): Promise<void> {
    // The registration stays with the sandbox: the next start finds it and keeps it.
  }
}

async function registerEmbeddedWebhooks(
  env: Environment,
  url: string,
  secrets: WebhookSecretStore,
  mapping: Readonly<Record<string, readonly string[]>>,
): Promise<void> {
  const wanted = Object.keys(mapping);
  if (wanted.length === 0) return;
  for (const [side, api] of env.apis) {
    const me = await api.account.me();
    const accountEvents = wanted.filter((type) => isEventFor(me.account.type, type));
    if (accountEvents.length === 0) continue;
    const { endpoint, created } = await registerWebhook(webhookApiFromClient(api.webhooks), {
      url,
      events: accountEvents,
      description: `supply-sync ${side} daemon`,
      secrets,
    });
    env.logger.info(
      { side, endpoint: endpoint.id, created, events: accountEvents },
      'webhook endpoint registered',
    );
  }
}

/**
 * A webhook URL the sandbox refused, as a start-up error naming the value and the config key behind it. The
 * sandbox takes https, or plain http on loopback only (its --allow-http-webhooks, on for the embedded one).
 */
function refusedUrl(
  error: unknown,
  url: string,
  server: Environment['loaded']['config']['server'],
): Error | undefined {
  if (!(error instanceof ValidationApiError)) return undefined;
  const item = error.items.find((candidate) => candidate.field === 'url');
  if (item === undefined) return undefined;
  const own = server.webhooks?.port !== undefined;
  const hostKey = own && server.webhooks?.host !== undefined ? 'server.webhooks.host' : 'server.host';
  const tlsKey = own ? 'server.webhooks.tls' : 'server.tls';
  return new Error(
    `the embedded sandbox refused the webhook URL ${url} (field url: ${item.message ?? item.code}); ` +
      `it calls the daemon at ${hostKey}, which must then be loopback or a wildcard (127.0.0.1, ::1, 0.0.0.0) ` +
      `for plain http: set ${hostKey} to one of those, or configure ${tlsKey}`,
    { cause: error },
  );
}

const SUPPLIER_ONLY: ReadonlySet<string> = new Set(SUPPLIER_EVENT_TYPES);

function isEventFor(accountType: string, eventType: string): boolean {
  return accountType === 'supplier' ? SUPPLIER_ONLY.has(eventType) : !SUPPLIER_ONLY.has(eventType);
}
