/**
 * A listener that serves only the webhook path, on its own interface and port (and TLS), so the webhook
 * receiver can face the internet while the operations endpoints stay on loopback.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { WebhookReceiver } from '../webhooks/receiver.js';
import { setSecurityHeaders } from './security-headers.js';
import type { OpsAccessCheck } from './auth.js';
import type { ServerTlsMaterial } from './tls.js';
import { listenerUrl } from './listen-url.js';
import { BAD_TARGET_BODY, requestUrl } from '../shared/request-url.js';

export interface WebhookListenerOptions {
  host: string;
  port: number;
  path: string;
  receiver: WebhookReceiver;
  tls?: ServerTlsMaterial | undefined;
  access?: OpsAccessCheck | undefined;
}

export interface WebhookListener {
  readonly server: Server | HttpsServer;
  /** Listens; the URL is where this machine calls it (loopback for a wildcard host). */
  listen(): Promise<{ port: number; url: string }>;
  close(): Promise<void>;
}

export function createWebhookListener(options: WebhookListenerOptions): WebhookListener {
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    setSecurityHeaders(res);
    const url = requestUrl(req);
    if (url === null) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(BAD_TARGET_BODY);
      return;
    }
    const path = url.pathname;
    if (options.access?.(req, path, res)) return;
    if (path !== options.path) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      return;
    }
    options.receiver.handle(req, res);
  };
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
  return {
    server,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => {
          server.off('error', reject);
          const { port } = server.address() as AddressInfo;
          resolve({ port, url: listenerUrl(tls === undefined ? 'http' : 'https', options.host, port) });
        });
      }),
    close: async () => {
      await options.receiver.drain();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      });
    },
  };
}
