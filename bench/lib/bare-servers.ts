/** The baselines' servers: plain node:http doing the least the measured path must also do. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  origin: string;
  close(): Promise<void>;
}

export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Listening & { server: Server }> {
  const server = createServer(handler);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads the request body completely, then answers 204. */
export function bareBodyReader(): Promise<Listening> {
  return listen((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      res.writeHead(204).end();
    });
  });
}

/** Answers every request with the same JSON bytes. */
export function cannedJson(body: string): Promise<Listening> {
  const bytes = Buffer.from(body);
  return listen((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length }).end(bytes);
  });
}
