/**
 * Webhook intake: the receiver that checks signatures and stores events in the inbox, served on the ops server's
 * webhook path or on a listener of its own (server.webhooks.port). Every instance takes webhooks; the dispatch
 * service turns them into runs.
 */
import type { OpsAccessCheck } from '../../ops/auth.js';
import type { OpsMetrics } from '../../ops/index.js';
import { createWebhookListener, type WebhookListener } from '../../ops/webhook-listener.js';
import { createWebhookReceiver, type InboxStore, type WebhookReceiver } from '../../webhooks/index.js';
import type { Environment } from './environment.js';
import type { Service } from './service.js';
import { readListenerTls, watchListenerTls } from './tls-listener.js';

export interface WebhookIntakeOptions {
  readonly env: Environment;
  readonly inbox: InboxStore;
  /** Secrets the daemon registered itself, checked besides server.webhook_secrets. */
  readonly registeredSecrets: () => readonly string[];
  readonly metrics: OpsMetrics;
  readonly access: OpsAccessCheck;
  /** Events were stored. */
  readonly onStored: () => void;
}

export class WebhookIntakeService implements Service {
  readonly name = 'webhook intake';
  readonly receiver: WebhookReceiver;
  #listener: WebhookListener | undefined;
  #listenerUrl: string | undefined;
  #stopTlsWatch = (): void => undefined;

  constructor(private readonly options: WebhookIntakeOptions) {
    const { env } = options;
    const { server } = env.loaded.config;
    this.receiver = createWebhookReceiver({
      inbox: options.inbox,
      secrets: () => [...server.webhook_secrets, ...options.registeredSecrets()],
      clock: env.clock,
      maxBodyBytes: server.max_body_bytes,
      observer: options.metrics.webhookObserver,
      logger: env.logger,
      onStored: options.onStored,
    });
  }

  /** Whether the ops server serves the webhook path (no listener of its own is configured). */
  get onOpsServer(): boolean {
    return this.options.env.loaded.config.server.webhooks?.port === undefined;
  }

  /** The separate listener's base URL; undefined when webhooks come in on the ops server. */
  get listenerUrl(): string | undefined {
    return this.#listenerUrl;
  }

  async start(): Promise<void> {
    const { env, access } = this.options;
    const { server } = env.loaded.config;
    const own = server.webhooks;
    if (own?.port === undefined) return;
    const tls = readListenerTls(own.tls, 'server.webhooks.tls');
    const listener = createWebhookListener({
      host: own.host ?? server.host,
      port: own.port,
      path: server.webhook_path,
      receiver: this.receiver,
      tls: tls?.material,
      access,
    });
    this.#listenerUrl = (await listener.listen()).url;
    this.#listener = listener;
    this.#stopTlsWatch = watchListenerTls(listener.server, tls, env.logger);
  }

  /** Stops taking webhooks, then waits until every event answered 2xx is stored. */
  async stop(): Promise<void> {
    this.#stopTlsWatch();
    this.#stopTlsWatch = () => undefined;
    const listener = this.#listener;
    this.#listener = undefined;
    this.#listenerUrl = undefined;
    await listener?.close();
    await this.receiver.drain();
  }
}
