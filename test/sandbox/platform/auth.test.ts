import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { createManualClock } from '../../../src/sandbox/index.js';
import { call, field, withSandbox } from './fixtures.js';

function expectProblem(
  response: { status: number; headers: Record<string, unknown>; json: unknown },
  status: number,
  code: string,
) {
  expect(response.status).toBe(status);
  expect(String(response.headers['content-type'])).toContain('application/problem+json');
  expect(field(response.json, 'code')).toBe(code);
}

describe('sandbox authentication, scopes, plans (contract part 5)', () => {
  it('rejects a missing or unknown credential with 401 unauthorized', async () => {
    await withSandbox({}, async (sandbox) => {
      expectProblem(await call(`${sandbox.baseUrl}/me`), 401, 'unauthorized');
      expectProblem(
        await call(`${sandbox.baseUrl}/me`, { key: 'svc_test_not_a_real_key' }),
        401,
        'unauthorized',
      );
      expectProblem(
        await call(`${sandbox.baseUrl}/me`, { headers: { authorization: `Basic ${sandbox.keys.supplier}` } }),
        401,
        'unauthorized',
      );
    });
  });

  it('answers the key-state errors: key_expired, key_revoked, client_suspended', async () => {
    await withSandbox({}, async (sandbox) => {
      expectProblem(await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.expired }), 401, 'key_expired');
      expectProblem(await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.revoked }), 401, 'key_revoked');
      expectProblem(
        await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.suspended }),
        403,
        'client_suspended',
      );
    });
  });

  it('answers 403 ip_not_allowed for a key whose allowlist excludes 127.0.0.1', async () => {
    await withSandbox({}, async (sandbox) => {
      expectProblem(
        await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.ipRestricted }),
        403,
        'ip_not_allowed',
      );
      expect((await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier })).status).toBe(200);
    });
  });

  it('answers 403 scope_missing when the key lacks the route scope', async () => {
    await withSandbox({}, async (sandbox) => {
      const response = await call(`${sandbox.baseUrl}/supplier/things`, {
        key: sandbox.keys.readOnly,
        body: {},
        headers: { 'idempotency-key': 'k1' },
      });
      expectProblem(response, 403, 'scope_missing');
      expect(field(response.json, 'detail')).toContain('supplier.documents:write');
    });
  });

  it('answers 403 plan_required with upgrade_url for a Basic key on a Pro endpoint and an Enterprise endpoint', async () => {
    await withSandbox({}, async (sandbox) => {
      const branches = await call(`${sandbox.baseUrl}/branches`, { key: sandbox.keys.basic });
      expectProblem(branches, 403, 'plan_required');
      expect(String(field(branches.json, 'upgrade_url'))).toMatch(/^https:\/\//);
      expect((await call(`${sandbox.baseUrl}/branches`, { key: sandbox.keys.buyer })).status).toBe(200);
      expectProblem(
        await call(`${sandbox.baseUrl}/audit/requests`, { key: sandbox.keys.buyer }),
        403,
        'plan_required',
      );
      expect((await call(`${sandbox.baseUrl}/audit/requests`, { key: sandbox.keys.enterprise })).status).toBe(
        200,
      );
    });
  });

  it('GET /me reports account, client, scopes, plan, features, rate_limit and api_version 2', async () => {
    await withSandbox({}, async (sandbox) => {
      const me = await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.buyer });
      expect(me.status).toBe(200);
      expect(field(me.json, 'account', 'type')).toBe('buyer');
      expect(field(me.json, 'client', 'id')).toBe('cli_buyer');
      expect(field(me.json, 'client', 'environment')).toBe('sandbox');
      expect(field(me.json, 'plan')).toBe('Pro');
      expect(field(me.json, 'features')).toContain('buyer_api');
      expect(field(me.json, 'rate_limit')).toEqual({ per_minute: 300, per_day: null });
      expect(field(me.json, 'api_version')).toBe('2');
      expect(me.text).not.toContain(sandbox.keys.buyer);
      expect(sandbox.keys.buyer).toMatch(/^svc_test_[A-Za-z0-9]{32}$/);
    });
  });

  it('exchanges a key for an HS256 JWT (form and JSON) that then authenticates, valid 3600 s', async () => {
    const clock = createManualClock();
    await withSandbox({ clock }, async (sandbox) => {
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'cli_supplier',
        client_secret: sandbox.keys.supplier,
      });
      const viaForm = await call(`${sandbox.baseUrl}/oauth/token`, {
        raw: form.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(viaForm.status).toBe(200);
      expect(field(viaForm.json, 'token_type')).toBe('Bearer');
      expect(field(viaForm.json, 'expires_in')).toBe(3600);
      const token = String(field(viaForm.json, 'access_token'));
      const [header = '', payload = ''] = token.split('.');
      expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ alg: 'HS256' });
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      expect(claims).toMatchObject({ sub: 'cli_supplier' });
      expect(Number(claims['exp']) - Number(claims['iat'])).toBe(3600);

      const me = await call(`${sandbox.baseUrl}/me`, { key: token });
      expect(me.status).toBe(200);
      expect(field(me.json, 'client', 'id')).toBe('cli_supplier');

      const narrowed = await call(`${sandbox.baseUrl}/oauth/token`, {
        body: {
          grant_type: 'client_credentials',
          client_id: 'cli_supplier',
          client_secret: sandbox.keys.supplier,
          scope: 'supplier.orders:read',
        },
      });
      expect(field(narrowed.json, 'scope')).toBe('supplier.orders:read');
      const narrowToken = String(field(narrowed.json, 'access_token'));
      const denied = await call(`${sandbox.baseUrl}/supplier/things`, {
        key: narrowToken,
        body: {},
        headers: { 'idempotency-key': 'n1' },
      });
      expectProblem(denied, 403, 'scope_missing');

      clock.advance(3600 * 1000);
      expectProblem(await call(`${sandbox.baseUrl}/me`, { key: token }), 401, 'unauthorized');
    });
  });

  it('rejects a forged or re-signed token', async () => {
    await withSandbox({}, async (sandbox) => {
      const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
      const payload = Buffer.from(
        JSON.stringify({ sub: 'cli_supplier', scope: 'supplier.orders:read', iat: 0, exp: 9_999_999_999 }),
      ).toString('base64url');
      const signature = createHmac('sha256', 'guessed-secret')
        .update(`${header}.${payload}`)
        .digest('base64url');
      expectProblem(
        await call(`${sandbox.baseUrl}/me`, { key: `${header}.${payload}.${signature}` }),
        401,
        'unauthorized',
      );
    });
  });

  it('answers 400 validation_error for a bad grant_type or a scope the client lacks, 401 for a wrong secret', async () => {
    await withSandbox({}, async (sandbox) => {
      const badGrant = await call(`${sandbox.baseUrl}/oauth/token`, {
        body: { grant_type: 'password', client_id: 'cli_supplier', client_secret: sandbox.keys.supplier },
      });
      expectProblem(badGrant, 400, 'validation_error');
      expect(field(badGrant.json, 'errors', 0)).toMatchObject({
        field: 'grant_type',
        code: 'unsupported_value',
      });
      const badScope = await call(`${sandbox.baseUrl}/oauth/token`, {
        body: {
          grant_type: 'client_credentials',
          client_id: 'cli_supplier',
          client_secret: sandbox.keys.supplier,
          scope: 'buyer.sales:read',
        },
      });
      expectProblem(badScope, 400, 'validation_error');
      expect(field(badScope.json, 'errors', 0)).toMatchObject({ field: 'scope', code: 'unsupported_value' });
      const malformed = await call(`${sandbox.baseUrl}/oauth/token`, {
        raw: '{"grant_type":',
        headers: { 'content-type': 'application/json' },
      });
      expectProblem(malformed, 400, 'validation_error');
      const wrong = await call(`${sandbox.baseUrl}/oauth/token`, {
        body: {
          grant_type: 'client_credentials',
          client_id: 'cli_supplier',
          client_secret: sandbox.keys.buyer,
        },
      });
      expectProblem(wrong, 401, 'unauthorized');
      const revoked = await call(`${sandbox.baseUrl}/oauth/token`, {
        body: {
          grant_type: 'client_credentials',
          client_id: 'cli_revoked',
          client_secret: sandbox.keys.revoked,
        },
      });
      expectProblem(revoked, 401, 'key_revoked');
    });
  });

  it('derives the same keys from the same seed and different keys otherwise', async () => {
    const first = await withSandbox({ seed: 'conformance' }, async (sandbox) => sandbox.keys);
    const second = await withSandbox({ seed: 'conformance' }, async (sandbox) => sandbox.keys);
    const random = await withSandbox({}, async (sandbox) => sandbox.keys);
    expect(second).toEqual(first);
    expect(random.supplier).not.toBe(first.supplier);
  });
});
