import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/client/rate-limiter.js';
import { makeClient, type TestClient } from './helpers/client.js';
import { FakeClock } from './helpers/fake-clock.js';
import { me } from './helpers/fixtures.js';
import {
  json,
  sendJson,
  sendProblem,
  startScriptServer,
  type ScriptServer,
} from './helpers/script-server.js';

describe('RateLimiter', () => {
  it('spaces request starts evenly at the per-minute rate', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { perMinute: 60 });
    const waits: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      waits.push(await limiter.acquire());
      limiter.release();
    }
    expect(waits).toEqual([0, 1000, 1000, 1000, 1000]);
    expect(limiter.stats()).toEqual({ waitedMs: 4000, acquired: 5, perMinute: 60 });
  });

  it('gives concurrent callers distinct slots', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { perMinute: 120, maxConcurrency: 10 });
    const t0 = clock.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        await limiter.acquire();
        limiter.release();
      }),
    );
    // Sharing a slot would end at t0 + 500; four distinct slots 500 ms apart end at t0 + 1500.
    expect(clock.sleeps).toHaveLength(3);
    expect(clock.now() - t0).toBe(1500);
  });

  it('pauses when the window is used up and slows down when little of it remains', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { perMinute: 600 });
    const headers = (values: Record<string, string>) => (name: string) => values[name];
    limiter.observe(
      headers({ 'ratelimit-limit': '600', 'ratelimit-remaining': '0', 'ratelimit-reset': '30' }),
    );
    expect(await limiter.acquire()).toBe(30_000);
    limiter.release();
    limiter.observe(headers({ 'ratelimit-remaining': '10', 'ratelimit-reset': '20' }));
    await limiter.acquire();
    limiter.release();
    expect(await limiter.acquire()).toBe(2000); // 20 s / 10 remaining, slower than the nominal 100 ms
    limiter.release();
  });

  it('an explicit rate is not overridden by GET /me', () => {
    const limiter = new RateLimiter(new FakeClock(), { perMinute: 30 });
    limiter.setPerMinute(600);
    expect(limiter.stats().perMinute).toBe(30);
  });
});

describe('client pacing', () => {
  let server: ScriptServer;
  let client: TestClient;

  beforeEach(async () => {
    server = await startScriptServer();
  });

  afterEach(async () => {
    await client.close();
    await server.close();
  });

  /** A fixed one-minute window limit on the client's fake clock, like the service's. */
  function enforceWindow(limit: number): { rejected: () => number } {
    const counts = new Map<number, number>();
    let rejected = 0;
    server.setFallback((request, response) => {
      const now = client.clock.now();
      const window = Math.floor(now / 60_000);
      const used = (counts.get(window) ?? 0) + 1;
      counts.set(window, used);
      const reset = String(Math.ceil(((window + 1) * 60_000 - now) / 1000));
      const headers = {
        'ratelimit-limit': String(limit),
        'ratelimit-remaining': String(Math.max(0, limit - used)),
        'ratelimit-reset': reset,
      };
      if (used > limit) {
        rejected += 1;
        sendProblem(response, 429, 'rate_limited', 'slow down', {}, { ...headers, 'retry-after': reset });
        return;
      }
      sendJson(response, 200, request.path === '/me' ? me(limit) : me(limit), headers);
    });
    return { rejected: () => rejected };
  }

  it('sized from GET /me, runs 180 calls near the allowed rate with no 429', async () => {
    client = makeClient(server, { rateLimit: { maxConcurrency: 4 } });
    const window = enforceWindow(60);
    await client.api.account.me();
    const startedAt = client.clock.now();
    await Promise.all(Array.from({ length: 180 }, () => client.api.account.me()));
    const elapsedMinutes = (client.clock.now() - startedAt) / 60_000;
    expect(window.rejected()).toBe(0);
    expect(180 / elapsedMinutes / 60).toBeGreaterThanOrEqual(0.95);
    expect(client.api.rateLimiterStats().perMinute).toBe(60);
    const waited = client.calls.reduce((sum, call) => sum + call.rateLimitWaitMs, 0);
    expect(waited).toBe(client.api.rateLimiterStats().waitedMs);
    expect(waited).toBeGreaterThan(0);
  });

  it('learns the limit from RateLimit-Limit when GET /me was not called', async () => {
    client = makeClient(server);
    const window = enforceWindow(30);
    for (let index = 0; index < 70; index += 1) await client.api.account.me();
    expect(window.rejected()).toBe(0);
    expect(client.api.rateLimiterStats().perMinute).toBe(30);
  });

  it('caps the requests in flight', async () => {
    client = makeClient(server, { rateLimit: { maxConcurrency: 2 } });
    server.setFallback((_request, response) => {
      setTimeout(() => sendJson(response, 200, me()), 15);
    });
    await Promise.all(Array.from({ length: 8 }, () => client.api.account.me()));
    expect(server.requests).toHaveLength(8);
    expect(server.maxInFlight()).toBe(2);
  });

  it('gives up at once when the next slot lies beyond the call deadline', async () => {
    client = makeClient(server, { rateLimit: { perMinute: 1 } });
    server.setFallback(json(200, me()));
    await client.api.account.me();
    const error = await client.api.account.me({ deadlineMs: 30_000 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'deadline_exceeded',
      retryable: true,
      retryAfterMs: 60_000,
      attempts: 0,
    });
    expect(server.requests).toHaveLength(1);
    expect(client.clock.sleeps).toEqual([]);
  });

  it('holds other calls back after a 429 until its Retry-After has passed', async () => {
    client = makeClient(server);
    server.enqueue((_request, response) =>
      sendProblem(response, 429, 'rate_limited', 'wait', {}, { 'retry-after': '20' }),
    );
    server.setFallback(json(200, me()));
    const t0 = client.clock.now();
    await client.api.account.me();
    const beforeSecond = client.clock.now();
    await client.api.account.me();
    expect(beforeSecond - t0).toBe(20_000);
    expect(client.calls.map((call) => call.status)).toEqual([429, 200, 200]);
  });
});
