/**
 * An HTTP relay in front of the sandbox that can hold a request: armed for a method and path, it reads the first
 * matching request whole and keeps it, unforwarded, until the test releases it (as a slow proxy or a network that
 * delays a request would); every other request passes at once. `held` resolves when the held request has arrived,
 * which is what proves a write was in flight. Released, the request reaches the sandbox with its own headers and
 * body, however late; the answer goes back to the client if its connection is still open.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeldRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

interface Hold {
  readonly method: string;
  readonly path: string;
  arrived: (held: HeldRequest) => void;
  release?: () => Promise<number>;
}

export class HoldingRelay {
  readonly #server: Server;
  readonly #target: URL;
  #hold: Hold | undefined;

  private constructor(server: Server, target: URL) {
    this.#server = server;
    this.#target = target;
  }

  static async start(targetBaseUrl: string): Promise<HoldingRelay> {
    const target = new URL(targetBaseUrl);
    const server = createServer();
    const relay = new HoldingRelay(server, target);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void relay.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  /** The relay's base URL (the sandbox's path prefix kept). */
  get baseUrl(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}${this.#target.pathname.replace(/\/+$/, '')}`;
  }

  /** Holds the next `method` request whose path ends with `path`; resolves with it once it has arrived whole. */
  holdNext(method: string, path: string): Promise<HeldRequest> {
    return new Promise((arrived) => {
      this.#hold = { method, path, arrived };
    });
  }

  /** Forwards the held request now; resolves with the sandbox's status. */
  async release(): Promise<number> {
    const release = this.#hold?.release;
    if (release === undefined) throw new Error('no request is held');
    this.#hold = undefined;
    return release();
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const held: HeldRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    const hold = this.#hold;
    if (
      hold !== undefined &&
      hold.release === undefined &&
      held.method === hold.method &&
      held.path.endsWith(hold.path)
    ) {
      hold.release = () => this.forward(held, res);
      hold.arrived(held);
      return;
    }
    await this.forward(held, res);
  }

  private forward(held: HeldRequest, res: ServerResponse): Promise<number> {
    const prefix = this.#target.pathname.replace(/\/+$/, '');
    const path = held.path.startsWith(prefix) ? held.path : `${prefix}${held.path}`;
    return new Promise((resolve, reject) => {
      const upstream = request(
        {
          host: this.#target.hostname,
          port: this.#target.port,
          method: held.method,
          path,
          headers: { ...held.headers, host: this.#target.host },
        },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            if (!res.destroyed) {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(Buffer.concat(body));
            }
            resolve(answer.statusCode ?? 502);
          });
        },
      );
      upstream.on('error', reject);
      upstream.end(held.body);
    });
  }
}
