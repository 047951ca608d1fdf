/**
 * With the embedded sandbox the daemon registers its own webhook endpoint, so a demo shows signed webhooks
 * arriving without any setup; against a real API that is `supply-sync webhooks register`, and this does nothing.
 */
import type { WebhookSecretStore } from '../../webhooks/index.js';
import { registerEmbeddedWebhooks } from '../embedded-webhooks.js';
import type { Environment } from '../environment.js';
import type { Service } from './service.js';

export class EmbeddedWebhooksService implements Service {
  readonly name = 'embedded webhook registration';

  constructor(
    private readonly env: Environment,
    private readonly webhookUrl: string,
    private readonly secrets: WebhookSecretStore,
    private readonly mapping: Readonly<Record<string, readonly string[]>>,
  ) {}

  async start(): Promise<void> {
    if (!this.env.endpoint.embedded) return;
    await registerEmbeddedWebhooks(this.env, this.webhookUrl, this.secrets, this.mapping);
  }

  async stop(): Promise<void> {
    // The registration stays with the sandbox: the next start finds it and keeps it.
  }
}
