/** The operations server: /healthz, /readyz, /metrics, /status, and the webhook path unless it has its own port. */
import type { IncomingMessage } from 'node:http';
import type { OpsAccessCheck } from '../../ops/auth.js';
import type { ControlHandler } from '../control/control-api.js';
import {
  createOpsHandler,
  createOpsServer,
  type OpsMetrics,
  type OpsProviders,
  type OpsServer,
  type RequestHandler,
} from '../../ops/index.js';
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
  /** Served under a path of a server the caller runs (an office's), instead of on a port of its own. */
  readonly mount?: OpsMount | undefined;
}

/** A server that serves several daemons' endpoints, each under a path of its own. */
export interface OpsMount {
  /** Serves the handler; resolves with the URL its paths start at. */
  attach(handler: RequestHandler): { readonly url: string; detach(): void };
}

export class OpsServerService implements Service {
  readonly name = 'ops server';
  #server: OpsServer | undefined;
  #url: string | undefined;
  #stopTlsWatch = (): void => undefined;
  #detach = (): void => undefined;

  constructor(private readonly options: OpsServerServiceOptions) {}

  get url(): string {
    if (this.#url === undefined) throw new Error('the ops server is not listening');
    return this.#url;
  }

  async start(): Promise<void> {
    const { mount } = this.options;
    if (mount !== undefined) {
      const attached = mount.attach(createOpsHandler(this.handlerOptions()));
      this.#url = attached.url;
      this.#detach = () => attached.detach();
      return;
    }
    const { env } = this.options;
    const { server: config } = env.loaded.config;
    const tls = readListenerTls(config.tls, 'server.tls');
    const ops = createOpsServer({
      host: config.host,
      port: this.options.port ?? config.port,
      tls: tls?.material,
      ...this.handlerOptions(),
    });
    this.#url = (await ops.listen()).url;
    this.#server = ops;
    this.#stopTlsWatch = watchListenerTls(ops.server, tls, env.logger);
  }

  private handlerOptions(): Parameters<typeof createOpsHandler>[0] {
    const { env, access, metrics, providers, webhookReceiver } = this.options;
    const { server: config } = env.loaded.config;
    return {
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
    };
  }

  async stop(): Promise<void> {
    this.#detach();
    this.#detach = () => undefined;
    await this.options.webhookReceiver?.drain();
    this.#stopTlsWatch();
    this.#stopTlsWatch = () => undefined;
    const ops = this.#server;
    this.#server = undefined;
    await ops?.close();
  }
}
