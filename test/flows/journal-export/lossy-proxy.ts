/**
 * A loopback HTTP proxy in front of the sandbox that can lose responses: the request reaches the sandbox and is
 * processed, but the client's connection is destroyed before the answer arrives (a response lost on the network).
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LossyProxy {
  /** Base URL to give the client (same path prefix as the target). */
  readonly baseUrl: string;
  /** Responses lost so far. */
  lost(): number;
  close(): Promise<void>;
}

export async function startLossyProxy(
  targetBaseUrl: string,
  loseResponse: (req: IncomingMessage) => boolean,
): Promise<LossyProxy> {
  const target = new URL(targetBaseUrl);
  let lost = 0;
  const server = createServer((req, res) => {
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        if (loseResponse(req)) {
          answer.resume();
          answer.on('end', () => {
            lost += 1;
            req.socket.destroy();
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
    lost: () => lost,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
