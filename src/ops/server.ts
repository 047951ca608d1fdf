import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { scrubSecrets } from '../log/scrub.js';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { requestUrl } from '../shared/request-url.js';
import type { WebhookReceiver } from '../webhooks/receiver.js';
import type { OpsMetrics } from './metrics.js';
import type { OpsProviders, ReadinessPolicy } from './providers.js';
import { DEFAULT_READINESS_POLICY } from './providers.js';
import { evaluateReadiness, type Readiness } from './readiness.js';
import { renderStatusHtml } from './status-html.js';
import type { OpsAccessCheck } from './auth.js';
import type { ServerTlsMaterial } from './tls.js';
import { buildStatusSnapshot } from './status.js';
import { listenerUrl } from './listen-url.js';
import { pageSecurityPolicy, setSecurityHeaders } from './security-headers.js';

export interface OpsServerOptions {
  /** Interface to bind; loopback unless the config opens it (e.g. '0.0.0.0' behind a proxy). */
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Credentials and webhook sender ranges checked before any route (see auth.ts). */
  access?: OpsAccessCheck | undefined;
  /** Serve https with this certificate (see tls.ts); plain http without it. */
  tls?: ServerTlsMaterial | undefined;
  providers: OpsProviders;
  metrics: OpsMetrics;
  /** The webhook receiver and the path it is mounted on (e.g. '/webhooks'). */
  webhook?: { path: string; receiver: WebhookReceiver };
  policy?: Partial<ReadinessPolicy>;
  /**
   * Whether this caller sees the readiness checks (names, reasons, texts) or only the state a load balancer needs;
   * every caller sees them when not given.
   */
  readinessDetails?: (req: IncomingMessage) => boolean;
  /** Secret values that must never appear on /status or /readyz (read per request). */
  knownSecrets?: () => readonly string[];
  clock?: Clock;
  logger?: Logger;
  /** The control API (src/daemon/control/control-api.ts): answers its own paths, returns false for others. */
  control?: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>;
}

export interface OpsServer {
  server: Server | HttpsServer;
  /** Starts listening; resolves with the bound port and base URL. */
  /** Listens; the URL is where this machine calls it (loopback for a wildcard host). */
  listen(): Promise<{ port: number; url: string }>;
  close(): Promise<void>;
}

type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** /healthz, /readyz (its checks only for a caller readinessDetails admits), /metrics and /status. */
function opsRoutes(
  options: Omit<OpsServerOptions, 'port' | 'host' | 'tls'>,
  policy: ReadinessPolicy,
  secrets: () => readonly string[],
): Record<string, Route> {
  const clock = options.clock ?? systemClock;
  return {
    '/healthz': (_req, res) => json(res, 200, { status: 'ok' }),
    '/readyz': async (req, res) => {
      const readiness = await evaluateReadiness(options.providers, clock.now(), policy, secrets());
      const status = readinessState(readiness);
      const detailed = options.readinessDetails?.(req) ?? true;
      json(
        res,
        readiness.ready ? 200 : 503,
        detailed ? { status, reasons: readiness.reasons, checks: readiness.checks } : { status },
      );
    },
    '/metrics': async (_req, res) => {
      const text = await options.metrics.registry.metrics();
      res.writeHead(200, { 'content-type': options.metrics.registry.contentType });
      res.end(text);
    },
    '/status': async (req, res) => {
      const now = clock.now();
      const readiness = await evaluateReadiness(options.providers, now, policy, secrets());
      const snapshot = await buildStatusSnapshot(options.providers, readiness, now, secrets());
      if (wantsJson(req)) return json(res, 200, snapshot);
      const html = renderStatusHtml(snapshot, { controls: options.control !== undefined });
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': pageSecurityPolicy(html),
      });
      res.end(html);
    },
  };
}

/** The operations endpoints (/healthz, /readyz, /metrics, /status) and the webhook path, on one port. */
export function createOpsServer(options: OpsServerOptions): OpsServer {
  return serveOn(options, createOpsHandler(options));
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** The operations endpoints as one request handler: served on a port of its own, or mounted on another server's. */
export function createOpsHandler(options: Omit<OpsServerOptions, 'port' | 'host' | 'tls'>): RequestHandler {
  const policy: ReadinessPolicy = { ...DEFAULT_READINESS_POLICY, ...options.policy };
  const secrets = (): readonly string[] => options.knownSecrets?.() ?? [];

  const routes = opsRoutes(options, policy, secrets);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = requestUrl(req);
    if (url === null) return json(res, 400, { error: 'bad_request_target' });
    const path = url.pathname;
    if (options.access?.(req, path, res)) return;
    if (options.webhook !== undefined && path === options.webhook.path) {
      options.webhook.receiver.handle(req, res);
      return;
    }
    if (options.control !== undefined && (await options.control(req, res, path))) return;
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (route === undefined) return json(res, 404, { error: 'not_found' });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return json(res, 405, { error: 'method_not_allowed' });
    }
    await route(req, res);
  };

  return (req, res) => {
    setSecurityHeaders(res);
    handle(req, res).catch((error: unknown) => {
      const message = scrubSecrets(error instanceof Error ? error.message : String(error), secrets());
      options.logger?.error({ err: error, url: req.url }, 'operations request failed');
      if (!res.headersSent) json(res, 500, { error: 'internal_error', detail: message });
      else res.destroy();
    });
  };
}

/** The http or https server around the handler, and how it listens and closes (webhooks in flight drained first). */
function serveOn(options: OpsServerOptions, onRequest: RequestHandler): OpsServer {
  const tls = options.tls;
  const server =
    tls === undefined
      ? createServer(onRequest)
      : createHttpsServer(
          {
            ...tls.context,
            requestCert: tls.requireClientCertificate,
            rejectUnauthorized: tls.requireClientCertificate,
          },
          onRequest,
        );
  const scheme = tls === undefined ? 'http' : 'https';

  return {
    server,
    listen: () =>
      new Promise((resolve, reject) => {
        const host = options.host ?? '127.0.0.1';
        server.once('error', reject);
        server.listen(options.port, host, () => {
          server.off('error', reject);
          const { port } = server.address() as AddressInfo;
          resolve({ port, url: listenerUrl(scheme, host, port) });
        });
      }),
    close: async () => {
      await options.webhook?.receiver.drain();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      });
    },
  };
}

/** `paused` (still ready) when an operator paused a job: a state, no names or reasons. */
function readinessState(readiness: Readiness): 'ready' | 'not_ready' | 'paused' {
  if (!readiness.ready) return 'not_ready';
  return readiness.checks.some((check) => check.state === 'paused') ? 'paused' : 'ready';
}

function wantsJson(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return /\bapplication\/json\b/i.test(accept) && !/\btext\/html\b/i.test(accept);
}
