/**
 * Roles on the control API, walked from docs/control-api.json itself (a route added later is covered): every
 * operation answers 401 without credentials, 403 to a caller below the role its `x-required-role` names, and to a
 * caller with that role a status the document lists for it. The single server.auth login of older configs is a
 * viewer; failed logins are throttled per address (the forwarded one behind a trusted proxy); calls are logged with
 * the caller's name and address; every answer of the ops server carries the anti-framing headers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { ROOT } from '../contract/openapi/tools.js';
import { openHealthWorld, type HealthWorld } from '../daemon/health-support.js';

interface Operation {
  'x-required-role': 'viewer' | 'operator';
  responses: Record<string, unknown>;
}
const document = JSON.parse(readFileSync(join(ROOT, 'docs', 'control-api.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};
const EXAMPLE_PARAMS: Record<string, string> = { job: 'orders', id: '424242', stream: 'nope' };
const operations = Object.entries(document.paths).flatMap(([template, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    method: method.toUpperCase(),
    path: template.replace(/\{(\w+)\}/g, (_, name: string) => EXAMPLE_PARAMS[name] ?? 'x'),
    template,
    operation,
  })),
);

const VIEWER_TOKEN = 'viewer-token-5b8e1d0c2a7f4e93';
const OPERATOR_PASSWORD = 'operator-password-9c4d7e2b1a';
const LEGACY_TOKEN = 'legacy-monitoring-token-3e6f';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const CALLERS = {
  none: undefined,
  viewer: `Bearer ${VIEWER_TOKEN}`,
  operator: basic('olga', OPERATOR_PASSWORD),
} as const;

let world: HealthWorld;
let daemon: Daemon;

beforeAll(async () => {
  world = await openHealthWorld();
  daemon = await world.start({
    server: {
      port: 0,
      trusted_proxies: ['127.0.0.1/32'],
      auth: {
        token: LEGACY_TOKEN,
        users: [
          { name: 'vera', role: 'viewer', token: VIEWER_TOKEN },
          { name: 'olga', role: 'operator', password: OPERATOR_PASSWORD },
        ],
      },
    },
    connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
    jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
  });
});
afterAll(async () => world?.close());

const call = (method: string, path: string, headers: Record<string, string | undefined> = {}) =>
  fetch(`${daemon.opsUrl}${path}`, {
    method,
    headers: Object.fromEntries(
      Object.entries({ 'content-type': 'application/json', ...headers }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    ),
    ...(method === 'POST' ? { body: '{}' } : {}),
  });

describe('every route of docs/control-api.json, by role', () => {
  it('finds the routes in the document, each naming its role', () => {
    expect(operations.length).toBeGreaterThanOrEqual(13);
    for (const { operation } of operations)
      expect(['viewer', 'operator']).toContain(operation['x-required-role']);
  });

  for (const { method, path, template, operation } of operations) {
    for (const [caller, authorization] of Object.entries(CALLERS)) {
      it(`${method} ${template} as ${caller}`, async () => {
        const response = await call(method, path, { authorization });
        const allowed =
          caller === 'operator' || (caller === 'viewer' && operation['x-required-role'] === 'viewer');
        const expected = caller === 'none' ? 401 : allowed ? undefined : 403;
        if (expected !== undefined) expect(response.status).toBe(expected);
        else expect([401, 403, 429, 500]).not.toContain(response.status);
        expect(Object.keys(operation.responses)).toContain(String(response.status));
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        if (response.status === 401) expect(response.headers.get('www-authenticate')).toContain('Bearer');
      });
    }
  }
});

describe('roles', () => {
  it('makes the single server.auth token of older configs a viewer: it reads, it cannot act', async () => {
    const legacy = `Bearer ${LEGACY_TOKEN}`;
    expect((await call('GET', '/jobs', { authorization: legacy })).status).toBe(200);
    const pause = await call('POST', '/jobs/orders/pause', { authorization: legacy });
    expect(pause.status).toBe(403);
    expect(await pause.json()).toMatchObject({ detail: expect.stringContaining('role operator') });
    expect(daemon.env.state.pausedJobs.get('orders')).toBeNull();
  });

  it('records the operator by name and address, the forwarded one only from a trusted proxy', async () => {
    const operator = CALLERS.operator;
    const paused = await call('POST', '/jobs/orders/pause', {
      authorization: operator,
      'x-forwarded-for': '198.51.100.23',
    });
    expect(paused.status).toBe(200);
    expect(daemon.env.state.pausedJobs.get('orders')).toMatchObject({
      pausedBy: 'api:olga@198.51.100.23 via 127.0.0.1',
    });
    const resumed = await call('POST', '/jobs/orders/resume', { authorization: operator });
    expect(await resumed.json()).toMatchObject({ requestedBy: 'api:olga@127.0.0.1' });
    const logged = world.logs.filter((line) => line.msg === 'control API call').map((line) => line['who']);
    expect(logged).toContain('api:olga@198.51.100.23 via 127.0.0.1');
    expect(logged).toContain('api:vera@127.0.0.1');
  });

  it('throttles failed logins per address with 429 and Retry-After, other addresses unaffected', async () => {
    const from = (address: string, authorization: string) =>
      call('GET', '/jobs', { authorization, 'x-forwarded-for': address });
    for (let i = 0; i < 10; i++) expect((await from('203.0.113.7', 'Bearer guess')).status).toBe(401);
    const blocked = await from('203.0.113.7', CALLERS.viewer);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(
      (await call('GET', '/status', { authorization: 'Bearer guess', 'x-forwarded-for': '203.0.113.7' }))
        .status,
    ).toBe(429);
    expect((await from('203.0.113.8', CALLERS.viewer)).status).toBe(200);
  });

  it('never writes a secret of the new credentials into the log, /status or the control answers', async () => {
    const status = await (
      await call('GET', '/status', { authorization: CALLERS.viewer, accept: 'application/json' })
    ).text();
    const jobs = await (await call('GET', '/jobs', { authorization: CALLERS.viewer })).text();
    for (const secret of [VIEWER_TOKEN, OPERATOR_PASSWORD, LEGACY_TOKEN]) {
      expect(JSON.stringify(world.logs)).not.toContain(secret);
      expect(status).not.toContain(secret);
      expect(jobs).not.toContain(secret);
    }
  });
});

describe('/readyz', () => {
  it('tells a caller without credentials only the state, "paused" included; a viewer the checks in the zone', async () => {
    daemon.env.state.pausedJobs.pause('orders', 'api:olga@127.0.0.1', 'ERP upgrade tonight');
    try {
      const bare = await call('GET', '/readyz');
      const body = (await bare.json()) as Record<string, unknown>;
      expect(body).toEqual({ status: bare.status === 200 ? 'paused' : 'not_ready' });
      const detailed = (await (await call('GET', '/readyz', { authorization: CALLERS.viewer })).json()) as {
        status: string;
        checks: { name?: string; state: string; detail?: string }[];
      };
      const zone = daemon.env.loaded.config.timezone;
      expect(detailed.checks.find((check) => check.name === 'orders')).toMatchObject({
        state: 'paused',
        detail: expect.stringMatching(
          new RegExp(
            `^paused since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d ${zone} by api:olga@127\\.0\\.0\\.1: ERP upgrade tonight$`,
          ),
        ),
      });
    } finally {
      daemon.env.state.pausedJobs.resume('orders');
    }
  });
});

describe('/status of a paused job', () => {
  interface JobJson {
    name: string;
    nextRunAt: string | null;
    paused: { since: string; by: string; reason: string | null } | null;
  }
  const statusJson = async () =>
    (
      (await (
        await call('GET', '/status', { authorization: CALLERS.viewer, accept: 'application/json' })
      ).json()) as { jobs: JobJson[] }
    ).jobs.find((job) => job.name === 'orders');
  const ordersRow = async () => {
    const page = await (
      await call('GET', '/status', { authorization: CALLERS.viewer, accept: 'text/html' })
    ).text();
    return page.split('\n').find((row) => row.startsWith('<tr><td>orders'));
  };

  it('shows no next run while the job is paused, but since when, by whom and why; the next run again after the resume', async () => {
    expect((await statusJson())?.nextRunAt).toMatch(/^\d{4}-/);
    daemon.env.state.pausedJobs.pause('orders', 'api:olga@127.0.0.1', 'ERP upgrade tonight');
    try {
      const paused = await statusJson();
      expect(paused?.nextRunAt).toBeNull();
      expect(paused?.paused).toMatchObject({ by: 'api:olga@127.0.0.1', reason: 'ERP upgrade tonight' });
      const cells = [...((await ordersRow()) ?? '').matchAll(/<td>(.*?)<\/td>/g)].map((match) => match[1]);
      // Job, Schedule, Last run, Outcome, Last success, Next run: the sixth cell.
      expect(cells[5]).toMatch(
        /^paused since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(.+\) by api:olga@127\.0\.0\.1: ERP upgrade tonight$/,
      );
    } finally {
      daemon.env.state.pausedJobs.resume('orders');
    }
    expect((await statusJson())?.nextRunAt).toMatch(/^\d{4}-/);
  });
});

describe('headers on every answer of the operations server', () => {
  const paths = ['/healthz', '/readyz', '/metrics', '/status', '/nowhere', '/jobs', '/jobs/orders/pause'];
  for (const path of paths) {
    for (const authorization of [undefined, CALLERS.viewer]) {
      it(`${path} ${authorization === undefined ? 'without' : 'with'} credentials`, async () => {
        const response = await call(path === '/jobs/orders/pause' ? 'POST' : 'GET', path, { authorization });
        expect(response.headers.get('x-frame-options')).toBe('DENY');
        expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      });
    }
  }

  it('serves the console page with no-store and a policy that allows only its own script', async () => {
    const page = await call('GET', '/status', { authorization: CALLERS.viewer, accept: 'text/html' });
    expect(page.headers.get('cache-control')).toBe('no-store');
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/default-src 'none'/);
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(policy).not.toContain('unsafe-inline');
  });
});
