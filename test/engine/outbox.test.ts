import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  RunBudget,
  drainOutbox,
  enqueueBatches,
  enqueueWrite,
  idempotencyKey,
  jsonBody,
  toBatches,
  type OutboxSender,
} from '../../src/engine/index.js';
import { LeadershipLostError, openStateStore, type StateStore } from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from '../state/support.js';

interface Received {
  key: string | undefined;
  body: string;
}

let tmp: TempDir;
let clock: FakeClock;
let state: StateStore;
let server: Server;
let baseUrl: string;
let received: Received[];
let script: number[];

class SendError extends Error {
  constructor(
    readonly status: number,
    readonly retryable: boolean,
  ) {
    super(`HTTP ${status}`);
  }
}

/** Sends an entry over real HTTP, as the API client would, and classifies the answer. */
const send: OutboxSender = async (request, signal) => {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: { 'idempotency-key': request.idempotencyKey, 'content-type': 'application/json' },
    ...(request.body ? { body: request.body } : {}),
    signal,
  });
  const text = await response.text();
  if (!response.ok) throw new SendError(response.status, [429, 500, 502, 503, 504].includes(response.status));
  return JSON.parse(text) as unknown;
};

beforeEach(async () => {
  tmp = tempDir();
  clock = new FakeClock();
  state = openStateStore({ file: tmp.file('s.db'), clock });
  received = [];
  script = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const header = req.headers['idempotency-key'];
      received.push({
        key: Array.isArray(header) ? header[0] : header,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const status = script.shift() ?? 201;
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: 'doc_1', status }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  state.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  tmp.remove();
});

const budget = () => new RunBudget(clock, 60_000, new AbortController().signal);

describe('outbox', () => {
  it('sends the same key and bytes on every retry, across a restart, until done', async () => {
    const key = idempotencyKey('documents', 'invoice', 'INV-1001');
    expect(key).toBe('documents:invoice:INV-1001');
    const body = jsonBody({ type: 'invoice', number: 'INV-1001', total: '118.00' });
    const entry = enqueueWrite(state, {
      stream: 'documents',
      idempotencyKey: key,
      method: 'POST',
      path: '/v2/supplier/documents',
      body,
    });
    script = [503, 429];

    expect(await drainOutbox({ state, send, budget: budget() })).toEqual({ sent: 0, retried: 1, dead: 0 });
    // Not due yet: nothing is sent before the backoff passes.
    expect(await drainOutbox({ state, send, budget: budget() })).toEqual({ sent: 0, retried: 0, dead: 0 });
    clock.advance(1000);
    expect(await drainOutbox({ state, send, budget: budget() })).toEqual({ sent: 0, retried: 1, dead: 0 });

    // A restart in between: the flow enqueues the same write again and gets the stored entry back.
    state.close();
    state = openStateStore({ file: tmp.file('s.db'), clock });
    const again = enqueueWrite(state, {
      stream: 'documents',
      idempotencyKey: key,
      method: 'POST',
      path: '/v2/supplier/documents',
      body: jsonBody({ type: 'invoice', number: 'INV-1001', total: '118.00' }),
    });
    expect(again.id).toBe(entry.id);
    clock.advance(2000);
    expect(await drainOutbox({ state, send, budget: budget() })).toEqual({ sent: 1, retried: 0, dead: 0 });

    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.key))).toEqual(new Set([key]));
    expect(new Set(received.map((r) => r.body))).toEqual(new Set([new TextDecoder().decode(body)]));
    const done = state.outbox.getByKey(key);
    expect(done).toMatchObject({ status: 'done', attempts: 3, lastError: null });
    expect(JSON.parse(done?.result ?? 'null')).toEqual({ id: 'doc_1', status: 201 });
    expect(state.outbox.depth()).toEqual({ pending: 0, dead: 0 });
  });

  it('leaves an entry as it was when its send is refused because this instance no longer leads', async () => {
    enqueueWrite(state, {
      stream: 's',
      idempotencyKey: 'k-lost',
      method: 'POST',
      path: '/a',
      body: jsonBody({ a: 1 }),
    });
    const refused: OutboxSender = () =>
      Promise.reject(new LeadershipLostError('lease_taken', 'the term ended', 1));
    await expect(drainOutbox({ state, send: refused, budget: budget() })).rejects.toThrow('the term ended');
    expect(state.outbox.getByKey('k-lost')).toMatchObject({
      status: 'pending',
      attempts: 0,
      lastError: null,
    });
    expect(await drainOutbox({ state, send, budget: budget() })).toEqual({ sent: 1, retried: 0, dead: 0 });
  });

  it('marks a write dead at once on a non-retryable error, and after N retryable failures', async () => {
    enqueueWrite(state, {
      stream: 's',
      idempotencyKey: 'k-409',
      method: 'POST',
      path: '/a',
      body: jsonBody({ a: 1 }),
    });
    script = [409];
    expect(await drainOutbox({ state, send, budget: budget() })).toMatchObject({ dead: 1 });
    expect(state.outbox.getByKey('k-409')).toMatchObject({
      status: 'dead',
      attempts: 1,
      lastError: 'HTTP 409',
    });

    enqueueWrite(state, {
      stream: 's',
      idempotencyKey: 'k-503',
      method: 'POST',
      path: '/a',
      body: jsonBody({ a: 2 }),
    });
    script = [503, 503, 503];
    for (let i = 0; i < 3; i += 1) {
      await drainOutbox({ state, send, budget: budget(), maxAttempts: 3, retryDelayMs: () => 10 });
      clock.advance(10);
    }
    expect(state.outbox.getByKey('k-503')).toMatchObject({ status: 'dead', attempts: 3 });
    expect(state.outbox.depth()).toEqual({ pending: 0, dead: 2 });

    const dead = state.outbox.getByKey('k-503');
    expect(state.outbox.revive(dead?.id ?? -1)).toBe(true);
    await drainOutbox({ state, send, budget: budget() });
    expect(state.outbox.getByKey('k-503')?.status).toBe('done');
  });

  it('uses the retry delay the error carries', async () => {
    enqueueWrite(state, { stream: 's', idempotencyKey: 'k', method: 'POST', path: '/a', body: null });
    const limited: OutboxSender = () =>
      Promise.reject(Object.assign(new Error('rate limited'), { retryable: true, retryAfterMs: 42_000 }));
    await drainOutbox({ state, send: limited, budget: budget() });
    expect(state.outbox.getByKey('k')?.nextAttemptAt).toBe(clock.now() + 42_000);
  });

  it('stops at the budget and leaves the rest pending', async () => {
    for (let i = 0; i < 3; i += 1) {
      enqueueWrite(state, {
        stream: 's',
        idempotencyKey: `k${i}`,
        method: 'POST',
        path: '/a',
        body: jsonBody({ i }),
      });
    }
    const slow: OutboxSender = async (request, signal) => {
      clock.advance(600);
      return send(request, signal);
    };
    const result = await drainOutbox({
      state,
      send: slow,
      budget: new RunBudget(clock, 1000, new AbortController().signal),
    });
    expect(result.sent).toBe(2);
    expect(state.outbox.depth().pending).toBe(1);
  });
});

describe('batched writes', () => {
  it('enqueues contract-sized batches under stable keys, once across a rebuild', () => {
    const items = Array.from({ length: 1100 }, (_, i) => ({ sku: `SKU-${i}`, name: `Item ${i}` }));
    const write = {
      stream: 'catalog',
      method: 'POST',
      path: '/v2/supplier/products/batch',
      items,
      size: 'products' as const,
      keyNamespace: 'catalog-products',
      body: (batch: typeof items) => ({ items: batch }),
    };
    const first = enqueueBatches(state, write);
    expect(
      first.map((e) => JSON.parse(new TextDecoder().decode(e.body ?? new Uint8Array())).items.length),
    ).toEqual([500, 500, 100]);
    expect(first.every((e) => /^catalog-products:[0-9a-f]{64}$/.test(e.idempotencyKey))).toBe(true);
    const rebuilt = enqueueBatches(state, { ...write, items: items.map((i) => ({ ...i })) });
    expect(rebuilt.map((e) => e.id)).toEqual(first.map((e) => e.id));
    expect(state.outbox.depth().pending).toBe(3);
  });
});

describe('idempotency keys and batches', () => {
  it('keeps keys stable, readable when plain, hashed and bounded otherwise', () => {
    expect(idempotencyKey('exports', 'batch 7/2026')).toBe(idempotencyKey('exports', 'batch 7/2026'));
    const long = idempotencyKey('exports', 'x'.repeat(300));
    expect(long).toMatch(/^exports:[0-9a-f]{64}$/);
    expect(idempotencyKey('a', 'b:c')).not.toBe(idempotencyKey('a', 'b', 'c'));
    expect(idempotencyKey('a:b', 'c')).not.toBe(idempotencyKey('a', 'b', 'c'));
    expect(idempotencyKey('a', 'b:c')).toHaveLength('a:'.length + 64);
  });

  it('splits to the contract limits keeping offsets', () => {
    const items = Array.from({ length: 1201 }, (_, i) => i);
    const batches = toBatches(items, 'products');
    expect(batches.map((b) => b.items.length)).toEqual([500, 500, 201]);
    expect(batches.map((b) => b.offset)).toEqual([0, 500, 1000]);
    expect(toBatches(items, 'itemSales')).toHaveLength(1);
    expect(() => toBatches(items, 0)).toThrow(RangeError);
  });
});
