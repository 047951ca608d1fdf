import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/sandbox/index.js';
import { call, field, withSandbox } from './fixtures.js';

describe('sandbox Idempotency-Key store (contract part 7)', () => {
  it('replays status, headers and body for the same key and body', async () => {
    await withSandbox({}, async (sandbox) => {
      const send = () =>
        call(`${sandbox.baseUrl}/supplier/things`, {
          key: sandbox.keys.supplier,
          body: { number: 'INV-1' },
          headers: { 'idempotency-key': 'INV-1' },
        });
      const first = await send();
      const second = await send();
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.text).toBe(first.text);
      expect(second.headers['content-type']).toBe(first.headers['content-type']);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
      const events = field((await call(`${sandbox.controlUrl}/state`)).json, 'platform', 'events');
      expect(events).toBe(1);
    });
  });

  it('answers 409 idempotency_conflict for the same key with a different body', async () => {
    await withSandbox({}, async (sandbox) => {
      const url = `${sandbox.baseUrl}/supplier/things`;
      const headers = { 'idempotency-key': 'same-key' };
      expect((await call(url, { key: sandbox.keys.supplier, body: { a: 1 }, headers })).status).toBe(201);
      const conflict = await call(url, { key: sandbox.keys.supplier, body: { a: 2 }, headers });
      expect(conflict.status).toBe(409);
      expect(field(conflict.json, 'code')).toBe('idempotency_conflict');
    });
  });

  it('requires the key where the route says so and limits it to 128 characters', async () => {
    await withSandbox({}, async (sandbox) => {
      const url = `${sandbox.baseUrl}/supplier/things`;
      const missing = await call(url, { key: sandbox.keys.supplier, body: {} });
      expect(missing.status).toBe(422);
      expect(field(missing.json, 'errors', 0)).toMatchObject({ field: 'Idempotency-Key', code: 'required' });
      const long = await call(url, {
        key: sandbox.keys.supplier,
        body: {},
        headers: { 'idempotency-key': 'k'.repeat(129) },
      });
      expect(long.status).toBe(422);
      expect(field(long.json, 'errors', 0, 'code')).toBe('too_long');
      expect(
        (
          await call(url, {
            key: sandbox.keys.supplier,
            body: {},
            headers: { 'idempotency-key': 'k'.repeat(128) },
          })
        ).status,
      ).toBe(201);
    });
  });

  it('runs concurrent requests with one key once', async () => {
    await withSandbox({}, async (sandbox) => {
      const send = () =>
        call(`${sandbox.baseUrl}/supplier/things`, {
          key: sandbox.keys.supplier,
          body: { n: 1 },
          headers: { 'idempotency-key': 'parallel' },
        });
      const results = await Promise.all([send(), send(), send()]);
      expect(new Set(results.map((r) => r.text)).size).toBe(1);
      expect(field((await call(`${sandbox.controlUrl}/state`)).json, 'platform', 'events')).toBe(1);
    });
  });

  it('forgets keys after 24 hours of sandbox time', async () => {
    const clock = createManualClock();
    await withSandbox({ clock }, async (sandbox) => {
      const send = (body: unknown) =>
        call(`${sandbox.baseUrl}/supplier/things`, {
          key: sandbox.keys.supplier,
          body,
          headers: { 'idempotency-key': 'day' },
        });
      const first = await send({ v: 1 });
      clock.advance(24 * 3_600_000 + 1);
      const afterWindow = await send({ v: 2 });
      expect(afterWindow.status).toBe(201);
      expect(afterWindow.text).not.toBe(first.text);
    });
  });
});
