/**
 * With the embedded sandbox the daemon registers its own webhook endpoint for each API side it uses, so a demo
 * shows signed webhooks arriving without any setup; against a real API that is `supply-sync webhooks register`, and
 * this does nothing.
 */
import { embeddedSandboxFile } from '../../api-access/index.js';
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
      throw refusedUrl(error, this.webhookUrl, this.env.loaded.config) ?? error;
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
    const description = `supply-sync ${side} daemon`;
    // The daemon's own endpoint from an earlier start on another port (server.port 0) is moved, not left behind:
    // the sandbox allows ten endpoints per account.
    const { endpoint, created } = await registerWebhook(webhookApiFromClient(api.webhooks), {
      url,
      events: accountEvents,
      description,
      secrets,
      movable: (existing) => existing.description === description,
    });
    env.logger.info(
      { side, endpoint: endpoint.id, created, events: accountEvents },
      'webhook endpoint registered',
    );
  }
}

/**
 * A webhook URL the sandbox refused, as a start-up error naming the value and the config key behind it. The
 * sandbox takes https, or plain http on loopback only (its --allow-http-webhooks, on for the embedded one); a
 * refusal for the number of endpoints (gap G23) names the sandbox's file instead.
 */
function refusedUrl(error: unknown, url: string, config: Environment['loaded']['config']): Error | undefined {
  const { server } = config;
  const sandboxFile = embeddedSandboxFile(config);
  if (!(error instanceof ValidationApiError)) return undefined;
  if (error.items.some((candidate) => candidate.code === 'limit_reached')) {
    return new Error(
      `the embedded sandbox holds as many webhook endpoints as it allows an account, so the daemon's own at ` +
        `${url} cannot be added; its data is in ${sandboxFile}: stop the daemon and delete that file to start the ` +
        `demo's API afresh`,
      { cause: error },
    );
  }
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
