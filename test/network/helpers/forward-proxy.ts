/**
 * A loopback forward proxy written from RFC 9110/9112's description: absolute-URI requests for http:// targets and
 * CONNECT tunnels for https:// ones. It records what it carried and can demand Basic credentials (407 otherwise).
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface CarriedRequest {
  readonly kind: 'absolute' | 'connect';
  /** The absolute URI, or host:port for CONNECT. */
  readonly target: string;
  readonly method: string;
  readonly proxyAuthorization: string | undefined;
}

export interface ForwardProxy {
  readonly url: string;
  readonly carried: CarriedRequest[];
  close(): Promise<void>;
}

function withoutProxyHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const copy = { ...headers };
  delete copy['proxy-authorization'];
  delete copy['proxy-connection'];
  return copy;
}

export async function startForwardProxy(
  options: { requireAuthorization?: string } = {},
): Promise<ForwardProxy> {
  const carried: CarriedRequest[] = [];
  const sockets = new Set<Socket>();
  const allowed = (header: string | undefined): boolean =>
    options.requireAuthorization === undefined || header === options.requireAuthorization;

  const server = createServer((req, res) => {
    const target = req.url ?? '';
    const authorization = req.headers['proxy-authorization'];
    carried.push({ kind: 'absolute', target, method: req.method ?? '', proxyAuthorization: authorization });
    if (!allowed(authorization)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      res.writeHead(400).end('a forward proxy needs an absolute URI');
      return;
    }
    const upstream = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers: withoutProxyHeaders(req.headers),
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });

  server.on('connect', (req, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const target = req.url ?? '';
    const authorization = req.headers['proxy-authorization'];
    carried.push({ kind: 'connect', target, method: 'CONNECT', proxyAuthorization: authorization });
    if (!allowed(authorization)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const separator = target.lastIndexOf(':');
    const upstream = connect(Number(target.slice(separator + 1)), target.slice(0, separator), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    carried,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
