import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { call, field, withSandbox } from './fixtures.js';

describe('sandbox fault injection (control plane)', () => {
  it('answers the configured share of requests with 500 internal_error, repeatably for one seed', async () => {
    const statuses = async (seed: number) =>
      withSandbox({}, async (sandbox) => {
        expect((await call(`${sandbox.controlUrl}/faults`, { body: { error_rate: 0.5, seed } })).status).toBe(
          200,
        );
        const seen: number[] = [];
        for (let i = 0; i < 20; i++)
          seen.push((await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier })).status);
        return seen;
      });
    const first = await statuses(7);
    expect(first.filter((s) => s === 500).length).toBeGreaterThan(2);
    expect(first.filter((s) => s === 200).length).toBeGreaterThan(2);
    expect(await statuses(7)).toEqual(first);
    await withSandbox({}, async (sandbox) => {
      await call(`${sandbox.controlUrl}/faults`, { body: { error_rate: 1 } });
      const failed = await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier });
      expect(failed.status).toBe(500);
      expect(field(failed.json, 'code')).toBe('internal_error');
      expect(failed.headers['x-request-id']).toBeDefined();
      expect((await call(`${sandbox.controlUrl}/faults`, { method: 'DELETE' })).status).toBe(204);
      expect((await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier })).status).toBe(200);
    });
  });

  it('resets connections without an answer', async () => {
    await withSandbox({}, async (sandbox) => {
      await call(`${sandbox.controlUrl}/faults`, { body: { reset_rate: 1 } });
      await expect(
        request(`${sandbox.baseUrl}/me`, {
          headers: { authorization: `Bearer ${sandbox.keys.supplier}` },
          headersTimeout: 5_000,
        }),
      ).rejects.toThrow();
      await call(`${sandbox.controlUrl}/faults`, { method: 'DELETE' });
      expect((await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier })).status).toBe(200);
    });
  });

  it('answers a burst of N requests with 429 rate_limited and Retry-After, then serves again', async () => {
    await withSandbox({}, async (sandbox) => {
      await call(`${sandbox.controlUrl}/faults`, { body: { rate_limit_burst: 3 } });
      for (let i = 0; i < 3; i++) {
        const limited = await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier });
        expect(limited.status).toBe(429);
        expect(field(limited.json, 'code')).toBe('rate_limited');
        expect(limited.headers['retry-after']).toBe('1');
        expect(limited.headers['ratelimit-remaining']).toBe('0');
        expect(limited.headers['ratelimit-limit']).toBe('600');
      }
      expect((await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier })).status).toBe(200);
    });
  });

  it('adds latency spikes and rejects unknown or out-of-range settings', async () => {
    await withSandbox({}, async (sandbox) => {
      await call(`${sandbox.controlUrl}/faults`, { body: { latency_ms: 150, latency_rate: 1 } });
      const started = Date.now();
      expect((await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier })).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      const bad = await call(`${sandbox.controlUrl}/faults`, { body: { error_rate: 2, gremlins: true } });
      expect(bad.status).toBe(422);
      expect((field(bad.json, 'errors') as { field: string }[]).map((e) => e.field).sort()).toEqual([
        'error_rate',
        'gremlins',
      ]);
    });
  });
});
