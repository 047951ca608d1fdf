import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, NetworkApiError } from '../../src/client/index.js';
import { makeClient, type TestClient } from './helpers/client.js';
import { me, page, supplierBuyer } from './helpers/fixtures.js';
import {
  json,
  problem,
  resetMidBody,
  startScriptServer,
  type ScriptServer,
} from './helpers/script-server.js';

const invitation = {
  id: 'inv_1',
  status: 'sent',
  onboarding_url: 'https://app.example.test/onboard/1',
  expires_at: '2026-12-06T08:00:00Z',
};

let server: ScriptServer;
let client: TestClient;

beforeEach(async () => {
  server = await startScriptServer();
  client = makeClient(server);
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('retries', () => {
  it('waits the Retry-After seconds of a 429, then succeeds', async () => {
    server.enqueue(problem(429, 'rate_limited', {}, { 'retry-after': '7' }), json(200, me()));
    const result = await client.api.account.me();
    expect(result.rate_limit.per_minute).toBe(600);
    expect(server.requests).toHaveLength(2);
    expect(client.clock.sleeps).toContain(7000);
    expect(client.calls.map((call) => call.status)).toEqual([429, 200]);
    expect(client.calls[0]?.errorCode).toBe('rate_limited');
  });

  it('waits until the HTTP date of a Retry-After', async () => {
    const retryAt = new Date(client.clock.now() + 12_000).toUTCString();
    server.enqueue(problem(429, 'rate_limited', {}, { 'retry-after': retryAt }), json(200, me()));
    await client.api.account.me();
    expect(client.clock.sleeps).toContain(12_000);
  });

  it('uses RateLimit-Reset when RateLimit-Remaining is 0 and there is no Retry-After', async () => {
    server.enqueue(
      problem(503, 'internal_error', {}, { 'ratelimit-remaining': '0', 'ratelimit-reset': '9' }),
      json(200, me()),
    );
    await client.api.account.me();
    expect(client.clock.sleeps).toContain(9000);
  });

  it('retries a 503 with jittered exponential backoff', async () => {
    server.enqueue(problem(503, 'internal_error'), problem(502, 'internal_error'), json(200, me()));
    await client.api.account.me();
    expect(server.requests).toHaveLength(3);
    // random() = 0.5: step/2 + 0.5 * step/2 = 0.75 * step; steps 500 ms then 1000 ms.
    expect(client.clock.sleeps).toEqual([375, 750]);
  });

  it('retries a connection reset in the middle of the body', async () => {
    server.enqueue(resetMidBody(), json(200, page([supplierBuyer()], null)));
    const first = await client.api.supplierBuyers.list().firstPage();
    expect(first.items.map((buyer) => buyer.id)).toEqual(['buy_1']);
    expect(server.requests).toHaveLength(2);
    expect(client.calls[0]?.errorCode).toBe('network_error');
    expect(client.calls[0]?.status).toBeNull();
  });

  it('sends the same Idempotency-Key and identical body bytes on every retry of a POST', async () => {
    server.enqueue(
      problem(500, 'internal_error'),
      resetMidBody(),
      problem(429, 'rate_limited', {}, { 'retry-after': '1' }),
      json(201, invitation),
    );
    const body = { business_name: 'Cafe Yafo', contact_email: 'dana@yafo.test', tax_id: '514000001' };
    const created = await client.api.supplierBuyers.invite(body);
    expect(created.id).toBe('inv_1');
    const keys = server.requests.map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(4);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    const bodies = server.requests.map((request) => request.body.toString('hex'));
    expect(new Set(bodies).size).toBe(1);
    expect(server.requests[0]?.json).toEqual(body);
  });

  it('uses the caller-supplied business key as Idempotency-Key and a new key per logical call otherwise', async () => {
    server.setFallback(json(201, invitation));
    const body = { business_name: 'Cafe Yafo', contact_email: 'dana@yafo.test' };
    await client.api.supplierBuyers.invite(body, { idempotencyKey: 'erp-customer-778' });
    await client.api.supplierBuyers.invite(body);
    await client.api.supplierBuyers.invite(body);
    const keys = server.requests.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toBe('erp-customer-778');
    expect(keys[1]).not.toBe(keys[2]);
  });

  it('does not retry 409 idempotency_conflict', async () => {
    server.setFallback(problem(409, 'idempotency_conflict'));
    const error = await client.api.supplierBuyers
      .invite({ business_name: 'x', contact_email: 'a@b.test' }, { idempotencyKey: 'k-1' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'idempotency_conflict', retryable: false, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry 412 precondition_failed', async () => {
    server.setFallback(problem(412, 'precondition_failed'));
    await expect(
      client.api.supplierBuyers.update('buy_1', { erp_ref: 'E-1' }, { ifMatch: '"stale"' }),
    ).rejects.toMatchObject({ status: 412, code: 'precondition_failed', retryable: false });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers['if-match']).toBe('"stale"');
  });

  it.each([
    [400, 'validation_error'],
    [403, 'scope_missing'],
    [404, 'not_found'],
    [409, 'conflict'],
    [422, 'validation_error'],
  ])('does not retry HTTP %i %s', async (status, code) => {
    server.setFallback(problem(status, code));
    await expect(client.api.account.me()).rejects.toMatchObject({ status, code, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('gives up after maxAttempts with the last error, marked retryable', async () => {
    await client.close();
    client = makeClient(server, { retry: { maxAttempts: 3 } });
    server.setFallback(problem(503, 'internal_error'));
    await expect(client.api.account.me()).rejects.toMatchObject({
      status: 503,
      retryable: true,
      attempts: 3,
    });
    expect(server.requests).toHaveLength(3);
  });

  it('stops when the next wait would pass the call deadline', async () => {
    server.setFallback(problem(429, 'rate_limited', {}, { 'retry-after': '120' }));
    const error = await client.api.account.me({ deadlineMs: 60_000 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'deadline_exceeded',
      status: 429,
      retryable: true,
      retryAfterMs: 120_000,
    });
    expect((error as ApiError).cause).toMatchObject({ code: 'rate_limited' });
    expect(server.requests).toHaveLength(1);
    expect(client.clock.sleeps).toEqual([]);
  });

  it('gives up when the server holds an attempt past the call deadline', async () => {
    server.setFallback(() => {
      // Accept the request and never answer.
    });
    const error = await client.api.account.me({ deadlineMs: 300 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'deadline_exceeded', attempts: 1 });
    expect((error as ApiError).cause).toBeInstanceOf(NetworkApiError);
    expect(server.requests).toHaveLength(1);
  });

  it('stops on an aborted signal without another attempt', async () => {
    const controller = new AbortController();
    server.setFallback((_request, response) => {
      controller.abort(new Error('shutdown'));
      problem(503, 'internal_error')(_request, response);
    });
    await expect(client.api.account.me({ signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('wraps a refused connection as a retryable network_error', async () => {
    const closed = await startScriptServer();
    const url = closed.baseUrl;
    await closed.close();
    await client.close();
    client = makeClient(server, { baseUrl: url, retry: { maxAttempts: 2 } });
    const error = await client.api.account.me().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkApiError);
    expect(error).toMatchObject({ code: 'network_error', status: 0, retryable: true, attempts: 2 });
  });
});
