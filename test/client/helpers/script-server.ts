/**
 * A real HTTP server on 127.0.0.1 (port 0) whose answers a test scripts request by request, and which records
 * every request it receives (method, path, query, headers, raw body bytes).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path below /v2, without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** The body parsed as JSON when it is JSON, else undefined. */
  json: unknown;
}

export type Handler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

export interface ScriptServer {
  /** Base URL including /v2. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues one-shot handlers, used in order before the fallback. */
  enqueue(...handlers: Handler[]): void;
  /** Handler used when the queue is empty. */
  setFallback(handler: Handler): void;
  /** Highest number of requests in flight at once. */
  maxInFlight(): number;
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function tryJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export async function startScriptServer(): Promise<ScriptServer> {
  const requests: RecordedRequest[] = [];
  const queue: Handler[] = [];
  let fallback: Handler = (_request, response) =>
    sendProblem(response, 404, 'not_found', 'no scripted answer');
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((request, response) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    response.on('close', () => {
      inFlight -= 1;
    });
    void (async () => {
      const body = await readBody(request);
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const recorded: RecordedRequest = {
        method: request.method ?? 'GET',
        path: url.pathname.replace(/^\/v2/, ''),
        query: url.searchParams,
        headers: request.headers,
        body,
        json: tryJson(body),
      };
      requests.push(recorded);
      const handler = queue.shift() ?? fallback;
      await handler(recorded, response);
    })().catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v2`,
    requests,
    enqueue: (...handlers) => queue.push(...handlers),
    setFallback: (handler) => {
      fallback = handler;
    },
    maxInFlight: () => maxInFlight,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

let requestCounter = 0;

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  requestCounter += 1;
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-request-id': `req_${requestCounter}`,
    ...headers,
  });
  response.end(text);
}

export function sendProblem(
  response: ServerResponse,
  status: number,
  code: string,
  detail: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  requestCounter += 1;
  const requestId = `req_${requestCounter}`;
  response.writeHead(status, {
    'content-type': 'application/problem+json',
    'x-request-id': requestId,
    ...headers,
  });
  response.end(
    JSON.stringify({
      type: `https://docs.example.test/errors/${code}`,
      title: code.replace(/_/g, ' '),
      status,
      code,
      detail,
      request_id: requestId,
      ...extra,
    }),
  );
}

/** A JSON answer with the given status, body and headers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_request, response) => sendJson(response, status, body, headers);
}

export function problem(
  status: number,
  code: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Handler {
  return (_request, response) => sendProblem(response, status, code, `scripted ${code}`, extra, headers);
}

/** Starts a 200 JSON answer, writes part of the body, then destroys the socket. */
export function resetMidBody(): Handler {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '4000' });
    response.write('{"data":[{"id":"partial"');
    setImmediate(() => response.socket?.destroy());
  };
}

export function html(status: number, page: string): Handler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/html' });
    response.end(page);
  };
}
