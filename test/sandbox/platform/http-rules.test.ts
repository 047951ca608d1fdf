import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/sandbox/index.js';
import { call, field, withSandbox } from './fixtures.js';

describe('sandbox HTTP rules (contract parts 4, 7, 8)', () => {
  it('sets X-Request-Id on every response, success, error, control plane and unknown paths', async () => {
    await withSandbox({}, async (sandbox) => {
      const responses = [
        await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier }),
        await call(`${sandbox.baseUrl}/me`),
        await call(`${sandbox.baseUrl}/no/such/path`, { key: sandbox.keys.supplier }),
        await call(`${sandbox.controlUrl}/state`),
        await call(`${sandbox.origin}/elsewhere`),
      ];
      const ids = responses.map((response) => String(response.headers['x-request-id']));
      for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9]{20}$/);
      expect(new Set(ids).size).toBe(ids.length);
    });
  });

  it('renders errors as application/problem+json with type, title, status, code, detail, instance, request_id', async () => {
    await withSandbox({}, async (sandbox) => {
      const response = await call(`${sandbox.baseUrl}/supplier/items?limit=0`, {
        key: sandbox.keys.supplier,
      });
      expect(response.status).toBe(422);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json).toMatchObject({
        type: expect.stringMatching(/\/errors\/validation_error$/),
        title: expect.any(String),
        status: 422,
        code: 'validation_error',
        detail: expect.any(String),
        instance: '/v2/supplier/items',
        request_id: response.headers['x-request-id'],
        errors: [{ field: 'limit', code: 'out_of_range', message: expect.any(String) }],
      });
    });
  });

  it('answers 404 not_found for unknown paths and methods', async () => {
    await withSandbox({}, async (sandbox) => {
      for (const response of [
        await call(`${sandbox.baseUrl}/does-not-exist`, { key: sandbox.keys.supplier }),
        await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier, method: 'DELETE' }),
      ]) {
        expect(response.status).toBe(404);
        expect(field(response.json, 'code')).toBe('not_found');
      }
    });
  });

  it('validates limit (1..200, default 50) and cursor', async () => {
    await withSandbox({}, async (sandbox) => {
      const url = `${sandbox.baseUrl}/supplier/items`;
      for (const bad of ['0', '201', '-1', 'abc', '1.5']) {
        const response = await call(`${url}?limit=${bad}`, { key: sandbox.keys.supplier });
        expect(response.status, `limit=${bad}`).toBe(422);
        expect(field(response.json, 'errors', 0, 'field')).toBe('limit');
      }
      expect((await call(`${url}?limit=200`, { key: sandbox.keys.supplier })).status).toBe(200);
      expect(field((await call(`${url}?limit=1`, { key: sandbox.keys.supplier })).json, 'data')).toHaveLength(
        1,
      );
      const cursor = await call(`${url}?cursor=not-a-cursor`, { key: sandbox.keys.supplier });
      expect(cursor.status).toBe(422);
      expect(field(cursor.json, 'errors', 0)).toMatchObject({ field: 'cursor', code: 'invalid_format' });
    });
  });

  it('pages by (updated_at, id): no row version skipped or repeated while rows change between pages', async () => {
    await withSandbox({}, async (sandbox, store) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let page = 0;
      do {
        const query: string = cursor === null ? 'limit=4' : `limit=4&cursor=${cursor}`;
        const response = await call(`${sandbox.baseUrl}/supplier/items?${query}`, {
          key: sandbox.keys.supplier,
        });
        expect(response.status).toBe(200);
        for (const item of field(response.json, 'data') as { id: string; updated_at: string }[])
          seen.push(`${item.id}@${item.updated_at}`);
        cursor = field(response.json, 'next_cursor') as string | null;
        expect(field(response.json, 'has_more')).toBe(cursor !== null);
        // Concurrent writers: touch one row already read and one not yet read.
        if (page === 1) {
          for (const id of ['itm_000', 'itm_020']) {
            const patched = await call(`${sandbox.baseUrl}/supplier/items/${id}`, {
              key: sandbox.keys.supplier,
              method: 'PATCH',
              body: {},
            });
            expect(patched.status).toBe(200);
          }
        }
        page++;
      } while (cursor !== null && page < 50);
      expect(new Set(seen).size).toBe(seen.length);
      const latest = store.items.map((item) => `${item.id}@${item.updated_at}`);
      for (const version of latest) expect(seen).toContain(version);
      expect(seen.filter((v) => v.startsWith('itm_000@'))).toHaveLength(2);
      expect(seen.filter((v) => v.startsWith('itm_020@'))).toHaveLength(1);
    });
  });

  it('filters updated_since strictly after and rejects a timestamp without offset', async () => {
    await withSandbox({}, async (sandbox, store) => {
      const pivot = store.items[9]?.updated_at ?? '';
      const response = await call(
        `${sandbox.baseUrl}/supplier/items?limit=200&updated_since=${encodeURIComponent(pivot)}`,
        { key: sandbox.keys.supplier },
      );
      const ids = (field(response.json, 'data') as { id: string }[]).map((item) => item.id);
      expect(ids[0]).toBe('itm_010');
      expect(ids).toHaveLength(15);
      const bad = await call(`${sandbox.baseUrl}/supplier/items?updated_since=2026-01-01T00:00:00`, {
        key: sandbox.keys.supplier,
      });
      expect(bad.status).toBe(422);
    });
  });

  it('answers 413 payload_too_large above 10 MiB and 422 for malformed JSON', async () => {
    await withSandbox({}, async (sandbox) => {
      const big = Buffer.alloc(10 * 1024 * 1024 + 10, 0x20);
      const tooLarge = await call(`${sandbox.baseUrl}/webhooks`, {
        key: sandbox.keys.supplier,
        raw: big,
        headers: { 'content-type': 'application/json' },
      });
      expect(tooLarge.status).toBe(413);
      expect(field(tooLarge.json, 'code')).toBe('payload_too_large');
      const malformed = await call(`${sandbox.baseUrl}/webhooks`, {
        key: sandbox.keys.supplier,
        raw: '{"url":',
        headers: { 'content-type': 'application/json' },
      });
      expect(malformed.status).toBe(422);
      expect(field(malformed.json, 'code')).toBe('validation_error');
    });
  });

  it('takes a client that closes its connection mid-body for no error of its own, and answers the next request', async () => {
    const reported: unknown[] = [];
    await withSandbox({ onError: (error) => reported.push(error) }, async (sandbox) => {
      const { hostname, port } = new URL(sandbox.baseUrl);
      const socket = connect(Number(port), hostname);
      await once(socket, 'connect');
      socket.write(
        [
          'POST /v2/webhooks HTTP/1.1',
          `Host: ${hostname}:${port}`,
          `Authorization: Bearer ${sandbox.keys.supplier}`,
          'Content-Type: application/json',
          'Content-Length: 1000',
          '',
          '{"url":"https://',
        ].join('\r\n'),
      );
      socket.destroy();
      await once(socket, 'close');
      // The sandbox sees the close at once; a few whole requests after it leave it time to have handled it.
      for (let round = 0; round < 5; round += 1) {
        const after = await call(`${sandbox.baseUrl}/webhooks`, { key: sandbox.keys.supplier });
        expect(after.status).toBe(200);
      }
      expect(reported).toEqual([]);
    });
  });

  it('rate limits per client: RateLimit headers on every response, 429 with Retry-After, then recovery', async () => {
    const clock = createManualClock();
    await withSandbox({ clock, rateLimitOverrides: { all: { per_minute: 3 } } }, async (sandbox) => {
      const url = `${sandbox.baseUrl}/me`;
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await call(url, { key: sandbox.keys.supplier });
        expect(response.status).toBe(200);
        expect(response.headers['ratelimit-limit']).toBe('3');
        remaining.push(String(response.headers['ratelimit-remaining']));
      }
      expect(remaining).toEqual(['2', '1', '0']);
      const limited = await call(url, { key: sandbox.keys.supplier });
      expect(limited.status).toBe(429);
      expect(field(limited.json, 'code')).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.headers['ratelimit-remaining']).toBe('0');
      expect(Number(limited.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
      // Another client keeps its own budget.
      expect((await call(url, { key: sandbox.keys.buyer })).status).toBe(200);
      clock.advance(Number(limited.headers['retry-after']) * 1000);
      const recovered = await call(url, { key: sandbox.keys.supplier });
      expect(recovered.status).toBe(200);
      expect(recovered.headers['ratelimit-remaining']).toBe('2');
    });
  });

  it('counts token requests against the client limit', async () => {
    await withSandbox({ rateLimitOverrides: { all: { per_minute: 1 } } }, async (sandbox) => {
      const body = {
        grant_type: 'client_credentials',
        client_id: 'cli_supplier',
        client_secret: sandbox.keys.supplier,
      };
      expect((await call(`${sandbox.baseUrl}/oauth/token`, { body })).status).toBe(200);
      expect((await call(`${sandbox.baseUrl}/oauth/token`, { body })).status).toBe(429);
    });
  });
});
