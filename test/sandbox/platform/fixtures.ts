/** Shared fixtures for the platform conformance suite: raw HTTP calls, a fixture domain and a webhook receiver. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { RunningSandbox, SandboxOptions } from '../../../src/sandbox/index.js';
import type { CreateDomain, RouteDef } from '../../../src/sandbox/http/types.js';
import {
  DEMO_BUYER_ACCOUNT_ID,
  DEMO_SUPPLIER_ACCOUNT_ID,
  ProblemError,
} from '../../../src/sandbox/http/types.js';
import { MonotonicTimestamps, paginateByUpdatedAt } from '../../../src/sandbox/http/paging.js';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: unknown;
}

export async function call(
  url: string,
  init: {
    method?: string;
    key?: string;
    headers?: Record<string, string>;
    body?: unknown;
    raw?: string | Buffer;
  } = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== undefined) headers['authorization'] = `Bearer ${init.key}`;
  let body: string | Buffer | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await request(url, {
    method: (init.method ?? (body === undefined ? 'GET' : 'POST')) as 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await response.body.text();
  let json: unknown = undefined;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

export function field(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

export interface FixtureItem {
  id: string;
  name: string;
  updated_at: string;
}

/** A small domain with one route per platform rule the suite exercises. */
export function fixtureDomain(store: { items: FixtureItem[]; actionsRun: number }): CreateDomain {
  return (services) => {
    const stamps = new MonotonicTimestamps(() => services.clock.now());
    const seed = () => {
      store.items = Array.from({ length: 25 }, (_, i) => ({
        id: `itm_${String(i).padStart(3, '0')}`,
        name: `item ${i}`,
        updated_at: stamps.next(),
      }));
    };
    seed();
    const routes: RouteDef[] = [
      {
        method: 'GET',
        path: '/branches',
        group: 'buyer_reference',
        scope: 'buyer.purchases:read',
        minPlan: 'Pro',
        accountType: 'buyer',
        handle: () => ({ status: 200, body: { data: [], next_cursor: null, has_more: false } }),
      },
      {
        method: 'GET',
        path: '/supplier/items',
        group: 'supplier',
        scope: 'supplier.orders:read',
        accountType: 'supplier',
        handle: (ctx) => ({ status: 200, body: paginateByUpdatedAt(store.items, ctx.query) }),
      },
      {
        method: 'PATCH',
        path: '/supplier/items/:id',
        group: 'supplier',
        scope: 'supplier.orders:write',
        handle(ctx) {
          const item = store.items.find((candidate) => candidate.id === ctx.params['id']);
          if (!item) throw new ProblemError(404, 'not_found', 'no item');
          item.updated_at = stamps.next();
          return { status: 200, body: item };
        },
      },
      {
        method: 'POST',
        path: '/supplier/things',
        group: 'supplier',
        scope: 'supplier.documents:write',
        idempotency: 'required',
        handle(ctx) {
          const id = `thing_${store.items.length}_${Math.random().toString(36).slice(2, 8)}`;
          ctx.raise({
            type: 'document.received',
            accountId: ctx.caller.accountId,
            data: { object: 'document', id },
          });
          return { status: 201, body: { id, received: ctx.body } };
        },
      },
    ];
    return {
      routes,
      snapshot: () => ({ items: store.items }),
      restore: (snapshot) => {
        store.items = (snapshot as { items: FixtureItem[] }).items;
      },
      reset: seed,
      actions: {
        reference: (body) => {
          const fileId = String((body as { file_id?: unknown }).file_id);
          const exists = services.files.exists(DEMO_SUPPLIER_ACCOUNT_ID, fileId);
          services.files.markReferenced(fileId);
          return { exists };
        },
        touch: () => {
          store.actionsRun++;
          const first = store.items[0];
          if (first) first.updated_at = stamps.next();
          services.raise({
            type: 'order.updated',
            accountId: DEMO_BUYER_ACCOUNT_ID,
            data: { object: 'order', id: first?.id ?? 'none' },
          });
          return { touched: first?.id ?? null };
        },
      },
      readout: () => ({ items: store.items }),
      exportRows: (_account, resource) =>
        resource === 'orders' ? store.items.map((item) => ({ ...item })) : [],
    };
  };
}

export async function withSandbox<T>(
  options: SandboxOptions,
  run: (sandbox: RunningSandbox, store: { items: FixtureItem[]; actionsRun: number }) => Promise<T>,
): Promise<T> {
  const store = { items: [] as FixtureItem[], actionsRun: 0 };
  const sandbox = await startSandbox({ createDomain: fixtureDomain(store), ...options });
  try {
    return await run(sandbox, store);
  } finally {
    await sandbox.close();
  }
}

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  at: number;
}

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** Status to answer for the n-th request (0-based). */
  respond: (index: number) => number;
  close(): Promise<void>;
}

export async function startReceiver(respond: (index: number) => number = () => 200): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const receiver: Receiver = { url: '', received, respond, close: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = received.length;
      received.push({ headers: req.headers, raw: Buffer.concat(chunks), at: Date.now() });
      res.writeHead(receiver.respond(index), { 'content-type': 'text/plain' });
      res.end(`received ${index}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return receiver;
}

/** Independent check of part 6.1: split on commas, each part on its first '=', HMAC over "{t}.{raw}". */
export function verifySignature(header: string, raw: Buffer, secret: string): { ok: boolean; t: number } {
  let t = Number.NaN;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (name === 't') t = Number(value);
    if (name === 'v1') v1.push(value);
  }
  const expected = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), raw]))
    .digest();
  const ok = v1.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return { ok, t };
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
