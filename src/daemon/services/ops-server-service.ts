/** The operations server: /healthz, /readyz, /metrics, /status, and the webhook path unless it has its own port. */
import type { IncomingMessage } from 'node:http';
import type { OpsAccessCheck } from '../../ops/auth.js';
import type { ControlHandler } from '../control/control-api.js';
import { createOpsServer, type OpsMetrics, type OpsProviders, type OpsServer } from '../../ops/index.js';
import type { WebhookReceiver } from '../../webhooks/index.js';
import type { Environment } from './environment.js';
import type { Service } from './service.js';
import { readListenerTls, watchListenerTls } from './tls-listener.js';

export interface OpsServerServiceOptions {
  readonly env: Environment;
  /** Overrides server.port (the CLI's `--port`; 0 picks a free port). */
  readonly port?: number | undefined;
  readonly access: OpsAccessCheck;
  readonly metrics: OpsMetrics;
  readonly providers: OpsProviders;
  /** The receiver to mount on server.webhook_path; undefined when webhooks have a listener of their own. */
  readonly webhookReceiver: WebhookReceiver | undefined;
  /** The control API; undefined when it is not served. */
  readonly control?: ControlHandler | undefined;
  /** Whether a caller sees /readyz's checks, or only ready / not_ready / paused. */
  readonly readinessDetails: (req: IncomingMessage) => boolean;
}

export class OpsServerService implements Service {
  readonly name = 'ops server';
  #server: OpsServer | undefined;
  #url: string | undefined;
  #stopTlsWatch = (): void => undefined;

  constructor(private readonly options: OpsServerServiceOptions) {}

  get url(): string {
    if (this.#url === undefined) throw new Error('the ops server is not listening');
    return this.#url;
  }

  async start(): Promise<void> {
    const { env, access, metrics, providers, webhookReceiver } = this.options;
    const { server: config } = env.loaded.config;
    const tls = readListenerTls(config.tls, 'server.tls');
    const ops = createOpsServer({
      host: config.host,
      port: this.options.port ?? config.port,
      tls: tls?.material,
      access,
      readinessDetails: this.options.readinessDetails,
      metrics,
      ...(webhookReceiver === undefined
        ? {}
        : { webhook: { path: config.webhook_path, receiver: webhookReceiver } }),
      knownSecrets: env.secrets,
      clock: env.clock,
      logger: env.logger,
      providers,
      ...(this.options.control === undefined ? {} : { control: this.options.control }),
    });
    this.#url = (await ops.listen()).url;
    this.#server = ops;
    this.#stopTlsWatch = watchListenerTls(ops.server, tls, env.logger);
  }

  async stop(): Promise<void> {
    this.#stopTlsWatch();
    this.#stopTlsWatch = () => undefined;
    const ops = this.#server;
    this.#server = undefined;
    await ops?.close();
  }
}
