import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyValueStore } from '../../src/state/kv.js';
import { createOpsMetrics, createOpsServer } from '../../src/ops/index.js';
import type { ConnectorCheck, JobStatus, OpsMetrics, OpsProviders, OpsServer } from '../../src/ops/index.js';
import { createWebhookReceiver, signatureHeader, stateInbox } from '../../src/webhooks/index.js';
import { eventBody, fixedClock, openTempState } from '../webhooks/support.js';
import type { TempState } from '../webhooks/support.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const HOUR = 3_600_000;
const SECRET = 'whsec_ops_secret_value';
const DB_PASSWORD = 'Erp-Db-Pa55word-planted';

interface World {
  apiLastReachedAt: number | undefined;
  connectors: ConnectorCheck[];
  jobs: JobStatus[];
  jobsThrow: boolean;
}

const nightlyNotDue: JobStatus = {
  name: 'journal-export',
  schedule: '0 2 * * * Asia/Jerusalem',
  lastRunAt: NOW - 8 * HOUR,
  lastOutcome: 'ok',
  lastSuccessAt: NOW - 8 * HOUR,
  nextRunAt: NOW + 16 * HOUR,
  freshnessMs: HOUR,
};

function healthyWorld(): World {
  return {
    apiLastReachedAt: NOW - 60_000,
    connectors: [{ name: 'erp', ok: true, checkedAt: NOW - 60_000 }],
    jobs: [
      nightlyNotDue,
      {
        name: 'orders',
        schedule: '*/5 * * * *',
        lastOutcome: 'ok',
        lastSuccessAt: NOW - 120_000,
        freshnessMs: 15 * 60_000,
      },
    ],
    jobsThrow: false,
  };
}

describe('operations server over HTTP', () => {
  const clock = fixedClock(NOW);
  let state: TempState;
  let world: World;
  let metrics: OpsMetrics;
  let ops: OpsServer;
  let base: string;

  beforeEach(async () => {
    state = openTempState(clock);
    world = healthyWorld();
    const kv = new KeyValueStore(state.db, clock);
    const providers: OpsProviders = {
      checkStateWritable: () => kv.set('ops', 'readiness_probe', clock.now()),
      api: () => ({
        baseUrl: 'https://api.example.test/v2',
        environment: 'test',
        ...(world.apiLastReachedAt === undefined ? {} : { lastReachedAt: world.apiLastReachedAt }),
      }),
      connectors: () => world.connectors,
      jobs: () => {
        if (world.jobsThrow) throw new Error(`scheduler unavailable (mssql://sa:${DB_PASSWORD}@erp/db)`);
        return world.jobs;
      },
      outbox: () => ({ pending: 3, dead: 1 }),
      deadLetters: () => ({ open: 2, byFlow: { orders: 2 } }),
    };
    metrics = createOpsMetrics({
      outboxDepth: () => 3,
      deadLettersOpen: () => ({ orders: 2 }),
      lagSeconds: () => ({ orders: 42 }),
    });
    const receiver = createWebhookReceiver({
      inbox: stateInbox(state.inbox),
      secrets: [SECRET],
      clock,
      observer: metrics.webhookObserver,
    });
    ops = createOpsServer({
      port: 0,
      providers,
      metrics,
      clock,
      webhook: { path: '/webhooks', receiver },
      knownSecrets: () => [SECRET, DB_PASSWORD],
    });
    base = (await ops.listen()).url;
  });

  afterEach(async () => {
    await ops.close();
    state.close();
  });

  const readyz = async () => {
    const response = await fetch(`${base}/readyz`);
    return {
      status: response.status,
      body: (await response.json()) as { status: string; reasons: Array<Record<string, unknown>> },
    };
  };

  it('answers /healthz', async () => {
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('is ready when everything is fine, with a nightly job that is not due counted as ready', async () => {
    const { status, body } = await readyz();
    expect(status).toBe(200);
    expect(body.status).toBe('ready');
    expect(body.reasons).toEqual([]);
    const checks = (body as unknown as { checks: Array<{ name?: string; state: string }> }).checks;
    expect(checks.find((c) => c.name === 'journal-export')?.state).toBe('not_due');
    expect(checks.find((c) => c.name === 'orders')?.state).toBe('fresh');
  });

  it('stays ready while a due job is within its freshness window', async () => {
    world.jobs = [{ ...nightlyNotDue, dueSince: NOW - 30 * 60_000 }];
    expect((await readyz()).status).toBe(200);
  });

  const failures: Array<[string, (w: World) => void, Record<string, unknown>]> = [
    ['API never reached', (w) => (w.apiLastReachedAt = undefined), { check: 'api', state: 'never_reached' }],
    [
      'API silent too long',
      (w) => (w.apiLastReachedAt = NOW - 2 * HOUR),
      { check: 'api', state: 'unreachable' },
    ],
    [
      'connector unreachable',
      (w) => (w.connectors = [{ name: 'erp', ok: false, checkedAt: NOW, detail: 'ECONNREFUSED' }]),
      { check: 'connector', name: 'erp', state: 'unreachable', detail: 'ECONNREFUSED' },
    ],
    [
      'connector check result too old',
      (w) => (w.connectors = [{ name: 'erp', ok: true, checkedAt: NOW - 2 * HOUR }]),
      { check: 'connector', name: 'erp', state: 'stale' },
    ],
    [
      'nightly job failing',
      (w) =>
        (w.jobs = [
          {
            ...nightlyNotDue,
            lastOutcome: 'failed',
            lastError: 'deadlock',
            dueSince: NOW - 8 * HOUR,
            lastSuccessAt: NOW - 32 * HOUR,
          },
        ]),
      { check: 'job', name: 'journal-export', state: 'failing' },
    ],
    [
      'job overdue (never ran since due)',
      (w) =>
        (w.jobs = [
          {
            name: 'orders',
            freshnessMs: 15 * 60_000,
            dueSince: NOW - HOUR,
            lastSuccessAt: NOW - 65 * 60_000,
            lastOutcome: 'ok',
          },
        ]),
      { check: 'job', name: 'orders', state: 'overdue' },
    ],
    ['jobs provider error', (w) => (w.jobsThrow = true), { check: 'job', state: 'error' }],
  ];

  it.each(failures)('answers 503 with the reason when %s', async (_name, breakIt, expected) => {
    breakIt(world);
    const { status, body } = await readyz();
    expect(status).toBe(503);
    expect(body.status).toBe('not_ready');
    expect(body.reasons).toHaveLength(1);
    expect(body.reasons[0]).toMatchObject({ ok: false, ...expected });
    expect(JSON.stringify(body)).not.toContain(DB_PASSWORD);
  });

  it('answers 503 when the state file cannot be written', async () => {
    state.db.close();
    const { status, body } = await readyz();
    expect(status).toBe(503);
    expect(body.reasons).toEqual([expect.objectContaining({ check: 'state', state: 'not_writable' })]);
  });

  it('serves Prometheus metrics counting what happened, from its own registry', async () => {
    const post = (body: string, header: string) =>
      fetch(`${base}/webhooks`, { method: 'POST', body, headers: { 'service-signature': header } });
    const body = eventBody('evt_m1');
    const header = signatureHeader([SECRET], NOW / 1000, Buffer.from(body));
    expect((await post(body, header)).status).toBe(200);
    expect((await post(body, header)).status).toBe(200);
    expect((await post(body, 't=1,v1=00')).status).toBe(400);
    metrics.runs.inc({ sync_job: 'orders', outcome: 'ok' });
    metrics.runs.inc({ sync_job: 'orders', outcome: 'ok' });
    metrics.apiCalls.inc({ route: 'GET /supplier/orders', status: '200' });
    metrics.schemaDrift.inc({ resource: 'order', kind: 'unknown_enum' });

    const response = await fetch(`${base}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const samples = parsePrometheus(await response.text());
    expect(samples.get('supply_sync_webhooks_received_total{type="order.created"}')).toBe(1);
    expect(samples.get('supply_sync_webhooks_duplicate_total{type="order.created"}')).toBe(1);
    expect(samples.get('supply_sync_webhooks_rejected_total{reason="timestamp_out_of_tolerance"}')).toBe(1);
    expect(samples.get('supply_sync_runs_total{sync_job="orders",outcome="ok"}')).toBe(2);
    expect(samples.get('supply_sync_api_calls_total{route="GET /supplier/orders",status="200"}')).toBe(1);
    expect(samples.get('supply_sync_schema_drift_total{resource="order",kind="unknown_enum"}')).toBe(1);
    expect(samples.get('supply_sync_outbox_depth')).toBe(3);
    expect(samples.get('supply_sync_dead_letters_open{flow="orders"}')).toBe(2);
    expect(samples.get('supply_sync_lag_seconds{stream="orders"}')).toBe(42);
    expect([...samples.keys()].some((key) => key.startsWith('process_'))).toBe(true);
    expect([...samples.keys()].some((key) => /\bjob="/.test(key))).toBe(false);
    // A second instance in the same process has its own registry: no "already registered" clash.
    expect(createOpsMetrics().registry).not.toBe(metrics.registry);
  });

  it('serves the status page as HTML and JSON without any secret', async () => {
    world.jobs = [
      {
        ...nightlyNotDue,
        lastOutcome: 'failed',
        lastError: `login failed for sa with password ${DB_PASSWORD}`,
        dueSince: NOW - 8 * HOUR,
      },
    ];
    world.connectors = [
      { name: 'erp', ok: false, checkedAt: NOW, detail: `Server=erp;User Id=sa;Password=${DB_PASSWORD}` },
    ];
    const html = await (await fetch(`${base}/status`, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('<h1>supply-sync status</h1>');
    expect(html).toContain('journal-export');
    expect(html).toContain('Not ready');
    expect(html).not.toContain(DB_PASSWORD);
    expect(html).not.toContain(SECRET);

    const response = await fetch(`${base}/status`, { headers: { accept: 'application/json' } });
    expect(response.headers.get('content-type')).toContain('application/json');
    const text = await response.text();
    expect(text).not.toContain(DB_PASSWORD);
    const json = JSON.parse(text) as {
      jobs: Array<{ name: string; lastOutcome: string; freshness: string }>;
      outbox: unknown;
      deadLetters: unknown;
      ready: boolean;
    };
    expect(json.ready).toBe(false);
    expect(json.jobs).toEqual([
      expect.objectContaining({ name: 'journal-export', lastOutcome: 'failed', freshness: 'failing' }),
    ]);
    expect(json.outbox).toEqual({ pending: 3, dead: 1 });
    expect(json.deadLetters).toEqual({ open: 2, byFlow: { orders: 2 } });
  });

  it('escapes HTML in values it shows', async () => {
    world.jobs = [{ name: '<script>alert(1)</script>' }];
    const html = await (await fetch(`${base}/status`)).text();
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&lt;script&gt;');
  });

  it('answers 404 for unknown paths and 405 for other methods', async () => {
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`, { method: 'POST' })).status).toBe(405);
  });
});

/** Sample lines `name{labels} value` into a map; comments skipped. */
function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*(?:\{.*\})?) (\S+)$/.exec(line);
    if (match?.[1] === undefined || match[2] === undefined)
      throw new Error(`unparseable metrics line: ${line}`);
    samples.set(match[1], Number(match[2]));
  }
  return samples;
}
