/**
 * An HTTP relay in front of the sandbox that records every write (any method but GET) with its Idempotency-Key,
 * and refuses the first sending of each write with a 503, unforwarded: the API never sees it, as if the request
 * had been lost with a leader frozen or killed while it was in flight. The flow's next run does the same work
 * again, and that copy is forwarded; a write counts as the same one when its method, path and body are (the ids
 * of uploaded files masked: an attachment is uploaded again under a new id, by design). The test then compares
 * the keys each write carried.
 */
import { createHash } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedWrite {
  readonly method: string;
  /** The path without the query string and the version prefix, e.g. /supplier/documents. */
  readonly path: string;
  /** The route with ids replaced, e.g. /supplier/orders/{id}/acknowledge. */
  readonly route: string;
  readonly key: string | null;
  /** The same write (method, path, body with file ids masked) gives the same fingerprint. */
  readonly fingerprint: string;
  readonly forwarded: boolean;
}

/** Uploads are never refused: their multipart body has a random boundary, so no two are the same write. */
const NEVER_REFUSED = /^\/files$/;

export class WriteKeyRelay {
  readonly writes: RecordedWrite[] = [];
  readonly #server: Server;
  readonly #target: URL;
  readonly #refused = new Set<string>();

  private constructor(server: Server, target: URL) {
    this.#server = server;
    this.#target = target;
  }

  static async start(targetBaseUrl: string): Promise<WriteKeyRelay> {
    const server = createServer();
    const relay = new WriteKeyRelay(server, new URL(targetBaseUrl));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void relay.#handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get baseUrl(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}${this.#target.pathname.replace(/\/+$/, '')}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const method = req.method ?? 'GET';
    if (method === 'GET') {
      await this.#forward(req, body, res);
      return;
    }
    const prefix = this.#target.pathname.replace(/\/+$/, '');
    const full = (req.url ?? '/').split('?')[0] ?? '/';
    const path = full.startsWith(prefix) ? full.slice(prefix.length) : full;
    const rawKey = req.headers['idempotency-key'];
    const key = typeof rawKey === 'string' ? rawKey : null;
    const fingerprint = createHash('sha256')
      .update(`${method} ${path}\n`)
      .update(maskFileIds(body))
      .digest('hex');
    const refuse = !NEVER_REFUSED.test(path) && !this.#refused.has(fingerprint);
    this.writes.push({ method, path, route: routeOf(path), key, fingerprint, forwarded: !refuse });
    if (refuse) {
      this.#refused.add(fingerprint);
      res.writeHead(503, { 'content-type': 'application/problem+json' });
      res.end(
        JSON.stringify({ type: 'about:blank', title: 'Lost in flight', status: 503, code: 'unavailable' }),
      );
      return;
    }
    await this.#forward(req, body, res);
  }

  #forward(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    return new Promise((resolve, reject) => {
      const upstream = request(
        {
          host: this.#target.hostname,
          port: this.#target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: this.#target.host },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            if (!res.destroyed) {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(Buffer.concat(parts));
            }
            resolve();
          });
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });
  }
}

/** The body with every `file_ids` list emptied, so a document re-sent with re-uploaded files is the same write. */
function maskFileIds(body: Buffer): Buffer {
  if (body.length === 0 || body[0] !== 0x7b) return body;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    return Buffer.from(
      JSON.stringify(parsed, (name, value: unknown) => (name === 'file_ids' ? [] : value)),
      'utf8',
    );
  } catch {
    return body;
  }
}

/** Ids (anything with an underscore or digits after a known collection) replaced, for a readable route. */
function routeOf(path: string): string {
  const segments = path.split('/');
  return segments
    .map((segment, index) => {
      const parent = segments[index - 1] ?? '';
      const isId = /^(orders|products|price-lists|webhooks|deliveries|documents|buyers)$/.test(parent);
      return isId && segment !== 'batch' ? '{id}' : segment;
    })
    .join('/');
}
