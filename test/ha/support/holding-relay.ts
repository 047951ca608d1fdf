/**
 * An HTTP relay in front of the sandbox that can hold a request: armed for a method and path, it reads the first
 * matching request whole and keeps it, unforwarded, until the test releases it (as a slow proxy or a network that
 * delays a request would); every other request passes at once. `held` resolves when the held request has arrived,
 * which is what proves a write was in flight; its `clientGone` resolves when the client closes that connection
 * (gives up on the request). Released, the request reaches the sandbox with its own headers and body, however late,
 * unless `release({ ifClientOpen: true })` is asked and the client has gone (a hop that drops what nobody waits
 * for); the answer goes back to the client if its connection is still open. Armed with `deliver: 'now'`, the
 * relay forwards the request at once and holds its answer instead (the write reached the server; the answer is late).
 */
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeldRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  /** Resolves when the client closes the connection the request came on. */
  readonly clientGone: Promise<void>;
}

interface Hold {
  readonly method: string;
  readonly path: string;
  readonly deliver: 'on-release' | 'now';
  arrived: (held: HeldRequest) => void;
  release?: (options: { ifClientOpen?: boolean }) => Promise<number | 'dropped'>;
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

  /**
   * Holds the next `method` request whose path ends with `path`; resolves with it once it has arrived whole (with
   * `deliver: 'now'`, once the server has answered it, the answer held).
   */
  holdNext(
    method: string,
    path: string,
    { deliver = 'on-release' }: { deliver?: 'on-release' | 'now' } = {},
  ): Promise<HeldRequest> {
    return new Promise((arrived) => {
      this.#hold = { method, path, deliver, arrived };
    });
  }

  /**
   * Forwards the held request now (or, delivered already, hands its answer back); resolves with the sandbox's
   * status, or `dropped` when `ifClientOpen` is asked and the client has closed its connection: then nothing is
   * forwarded.
   */
  async release(options: { ifClientOpen?: boolean } = {}): Promise<number | 'dropped'> {
    const release = this.#hold?.release;
    if (release === undefined) throw new Error('no request is held');
    this.#hold = undefined;
    return release(options);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let gone = false;
    const clientGone = new Promise<void>((resolve) =>
      res.once('close', () => {
        gone = true;
        resolve();
      }),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const held: HeldRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body: Buffer.concat(chunks),
      clientGone,
    };
    const hold = this.#hold;
    if (
      hold !== undefined &&
      hold.release === undefined &&
      held.method === hold.method &&
      held.path.endsWith(hold.path)
    ) {
      if (hold.deliver === 'now') {
        const answer = await this.exchange(held);
        hold.release = () => Promise.resolve(this.answer(res, answer));
      } else {
        hold.release = async ({ ifClientOpen = false }) =>
          ifClientOpen && gone ? 'dropped' : this.answer(res, await this.exchange(held));
      }
      hold.arrived(held);
      return;
    }
    this.answer(res, await this.exchange(held));
  }

  /** Hands an answer back to the client, if its connection is still open; returns the answer's status. */
  private answer(res: ServerResponse, answer: Answer): number {
    if (!res.destroyed) {
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    }
    return answer.status;
  }

  private exchange(held: HeldRequest): Promise<Answer> {
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
          answer.on('end', () =>
            resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(body) }),
          );
        },
      );
      upstream.on('error', reject);
      upstream.end(held.body);
    });
  }
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}
