/** The HTTP server on loopback: /v2 to the API pipeline, /_sandbox/ to the control plane, /downloads/ to files. */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleApi } from '../http/api.js';
import type { ApiDeps } from '../http/api-request.js';
import { notFound, validationError } from '../http/problem.js';
import { requestUrl } from '../../shared/request-url.js';
import { serializeProblem, writeReply } from '../http/respond.js';
import type { PlatformContext } from '../platform/context.js';
import { serveDownload } from '../platform/downloads.js';
import { newId } from '../platform/ids.js';
import { handleControl } from '../harness/routes.js';
import type { ControlDeps } from '../harness/routes.js';

export interface ServerDeps {
  ctx: PlatformContext;
  api: ApiDeps;
  control: ControlDeps;
  onError(error: unknown): void;
}

export function createSandboxServer(deps: ServerDeps): Server {
  const server = createServer((req, res) => {
    const requestId = newId('req');
    const ip = req.socket.remoteAddress ?? '';
    const url = requestUrl(req, deps.ctx.origin() || 'http://127.0.0.1');
    if (url === null) {
      const problem = validationError([], 'The request target is not a valid URL.', 400);
      writeReply(res, serializeProblem(problem, requestId, req.url ?? ''), { 'X-Request-Id': requestId });
      return;
    }
    serve(deps, req, res, url, requestId, ip).catch((error: unknown) => {
      deps.onError(error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  return server;
}

function serve(
  deps: ServerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  requestId: string,
  ip: string,
): Promise<void> {
  if (url.pathname === '/v2' || url.pathname.startsWith('/v2/')) {
    return handleApi(deps.api, req, res, url, requestId, ip);
  }
  if (url.pathname.startsWith('/_sandbox/')) return handleControl(deps.control, req, res, url, requestId, ip);
  if (url.pathname.startsWith('/downloads/')) {
    serveDownload(deps.ctx, url, res, requestId);
  } else {
    writeReply(res, serializeProblem(notFound('Paths start with /v2.'), requestId, url.pathname), {
      'X-Request-Id': requestId,
    });
  }
  return Promise.resolve();
}

/** Listens on 127.0.0.1 and returns the port (a free one for port 0). */
export async function listen(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** Stops accepting requests and ends the open connections. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
