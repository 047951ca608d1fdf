import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeClient, type TestClient } from './helpers/client.js';
import { batchResponse, me } from './helpers/fixtures.js';
import { json, problem, startScriptServer, type ScriptServer } from './helpers/script-server.js';

class NotLeadingError extends Error {}

let server: ScriptServer;
let client: TestClient;
/** What the hook saw, in order: one entry per call, with the number of requests the server had by then. */
let checks: number[];
let refuse: boolean;

beforeEach(async () => {
  server = await startScriptServer();
  checks = [];
  refuse = false;
  client = makeClient(server, {
    beforeWrite: () => {
      checks.push(server.requests.length);
      if (refuse) throw new NotLeadingError('this instance is not the leader');
    },
  });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

const product = [{ sku: 'A', name: 'A', unit: 'kg' }];

describe('beforeWrite', () => {
  it('runs before every attempt of a write, retries included, and not for reads', async () => {
    server.enqueue(json(200, me()), problem(503, 'internal_error'), json(200, batchResponse(1)));
    await client.api.account.me();
    expect(checks).toEqual([]);
    await client.api.catalog.upsertProducts(product);
    // Before the first attempt (1 request so far: GET /me) and before the retry (2 so far).
    expect(checks).toEqual([1, 2]);
    expect(server.requests).toHaveLength(3);
  });

  it('leaves a refused write unsent with the hook error, and the client keeps working', async () => {
    refuse = true;
    await expect(client.api.catalog.upsertProducts(product)).rejects.toBeInstanceOf(NotLeadingError);
    expect(server.requests).toHaveLength(0);
    refuse = false;
    server.enqueue(json(200, batchResponse(1)));
    const answer = await client.api.catalog.upsertProducts(product);
    expect(answer.summary).toMatchObject({ total: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('stops a retry of a write once the hook refuses', async () => {
    await client.close();
    // The term ends while the client waits to retry: the first attempt leaves, the retry does not.
    client = makeClient(server, {
      beforeWrite: () => {
        checks.push(server.requests.length);
        if (checks.length > 1) throw new NotLeadingError('this instance is not the leader');
      },
    });
    server.enqueue(problem(503, 'internal_error'), json(200, batchResponse(1)));
    await expect(client.api.catalog.upsertProducts(product)).rejects.toBeInstanceOf(NotLeadingError);
    expect(checks).toEqual([0, 1]);
    expect(server.requests).toHaveLength(1);
  });
});

describe('beforeWrite, when it runs', () => {
  it('runs after the wait a 429 asked for, right before the retry leaves', async () => {
    await client.close();
    const times: number[] = [];
    client = makeClient(server, { beforeWrite: () => void times.push(client.clock.now()) });
    const start = client.clock.now();
    server.enqueue(problem(429, 'rate_limited', {}, { 'retry-after': '7' }), json(200, batchResponse(1)));
    await client.api.catalog.upsertProducts(product);
    expect(client.clock.sleeps).toContain(7000);
    expect(times).toEqual([start, start + 7000]);
  });

  it('runs after the rate limiter has waited for a request slot', async () => {
    await client.close();
    const times: number[] = [];
    client = makeClient(server, {
      rateLimit: { perMinute: 60 },
      beforeWrite: () => void times.push(client.clock.now()),
    });
    const start = client.clock.now();
    server.enqueue(json(200, batchResponse(1)), json(200, batchResponse(1)));
    await client.api.catalog.upsertProducts(product);
    await client.api.catalog.upsertProducts(product);
    const waited = client.clock.sleeps.reduce((sum, ms) => sum + ms, 0);
    expect(waited).toBeGreaterThan(0);
    expect(times).toEqual([start, start + waited]);
  });

  it('gives back the request slot of a refused write, and reports no call for it', async () => {
    await client.close();
    client = makeClient(server, {
      rateLimit: { maxConcurrency: 1 },
      beforeWrite: () => {
        if (refuse) throw new NotLeadingError('this instance is not the leader');
      },
    });
    refuse = true;
    await expect(client.api.catalog.upsertProducts(product)).rejects.toBeInstanceOf(NotLeadingError);
    await expect(client.api.catalog.upsertProducts(product)).rejects.toBeInstanceOf(NotLeadingError);
    expect(client.calls).toEqual([]);
    refuse = false;
    server.enqueue(json(200, batchResponse(1)));
    await client.api.catalog.upsertProducts(product);
    expect(server.requests).toHaveLength(1);
  });
});

describe('beforeWrite with client_credentials', () => {
  it('is not asked for the token exchange', async () => {
    await client.close();
    client = makeClient(server, {
      auth: { mode: 'client_credentials', clientId: 'cli_1', scope: 'supplier.orders:read' },
      beforeWrite: () => {
        checks.push(server.requests.length);
        throw new NotLeadingError('this instance is not the leader');
      },
    });
    server.enqueue(
      json(200, { access_token: 'eyJ.t.sig', token_type: 'Bearer', expires_in: 3600, scope: 'x' }),
      json(200, me()),
    );
    const account = await client.api.account.me();
    expect(account.rate_limit.per_minute).toBe(600);
    expect(checks).toEqual([]);
    expect(server.requests.map((request) => request.path)).toEqual(['/oauth/token', '/me']);
  });
});

describe('beforeWrite, an allowance', () => {
  it('cuts an attempt the server holds at the allowance, and checks again before the retry', async () => {
    await client.close();
    client = makeClient(server, {
      beforeWrite: () => {
        checks.push(server.requests.length);
        if (checks.length > 1) throw new NotLeadingError('this instance is not the leader');
        return { timeoutMs: 50 };
      },
    });
    let held = 0;
    // The first attempt reaches the server and gets no answer: only the allowance can end it.
    server.enqueue(() => void (held += 1));
    await expect(client.api.catalog.upsertProducts(product)).rejects.toBeInstanceOf(NotLeadingError);
    expect(held).toBe(1);
    expect(checks).toEqual([0, 1]);
    expect(server.requests).toHaveLength(1);
    expect(client.calls[0]).toMatchObject({ status: null, errorCode: 'network_error' });
  });

  it('leaves an attempt within its allowance alone', async () => {
    await client.close();
    client = makeClient(server, { beforeWrite: () => Promise.resolve({ timeoutMs: 60_000 }) });
    server.enqueue(json(200, batchResponse(1)));
    const answer = await client.api.catalog.upsertProducts(product);
    expect(answer.summary).toMatchObject({ total: 1 });
  });
});
