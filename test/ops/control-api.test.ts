/**
 * The control API: docs/control-api.json checked by tools we did not write (the OpenAPI 3.1 schema validator and
 * Redocly's recommended rules, as docs/openapi.json is), the server's routes against the document, and the API on a
 * running daemon: 401 without credentials, 404 naming an unknown job or id, 409 for an action that no longer
 * applies, 415 for a form post, each change carried out once and logged with its caller, no secret in the log.
 */
import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { CONTROL_ROUTES } from '../../src/daemon/control/control-routes.js';
import { ROOT, binScript, requireTool } from '../contract/openapi/tools.js';
import { openHealthWorld, type HealthWorld } from '../daemon/health-support.js';

const DOCUMENT = join(ROOT, 'docs', 'control-api.json');
const run = promisify(execFile);
const redocly = binScript('@redocly/cli', 'redocly');
const redoclyInstalled = requireTool('Redocly CLI (@redocly/cli)', redocly);
const TOKEN = 'ops-token-for-the-control-api-test';

describe('docs/control-api.json', () => {
  const document = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(document as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(validator.version).toBe('3.1');
  });

  it.runIf(redoclyInstalled)(
    'lints clean with Redocly CLI (recommended rules)',
    async () => {
      let stdout = '';
      try {
        ({ stdout } = await run(process.execPath, [redocly ?? '', 'lint', DOCUMENT, '--format=json'], {
          env: {
            ...process.env,
            REDOCLY_TELEMETRY: 'off',
            REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
            NO_COLOR: '1',
          },
          timeout: 50_000,
          killSignal: 'SIGKILL',
        }));
      } catch (error) {
        stdout = (error as { stdout?: string }).stdout ?? String(error);
      }
      const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; message: string }[];
      };
      expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    },
    60_000,
  );

  it('describes exactly the routes the server answers', () => {
    const documented = Object.entries(document.paths)
      .flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    const served = CONTROL_ROUTES.map((route) => `${route.method} ${route.path}`).sort();
    expect(served).toEqual(documented);
  });
});

describe('the control API on a running daemon', () => {
  let world: HealthWorld;
  let daemon: Daemon;
  const call = (
    method: string,
    path: string,
    init: { auth?: string | null; body?: unknown; type?: string } = {},
  ) =>
    fetch(`${daemon.opsUrl}${path}`, {
      method,
      headers: {
        ...(init.auth === null ? {} : { authorization: init.auth ?? `Bearer ${TOKEN}` }),
        ...(method === 'POST' ? { 'content-type': init.type ?? 'application/json' } : {}),
      },
      ...(method === 'POST'
        ? { body: init.type === undefined ? JSON.stringify(init.body ?? {}) : 'job=orders' }
        : {}),
    });

  beforeAll(async () => {
    world = await openHealthWorld();
    daemon = await world.start({
      server: { port: 0, auth: { token: TOKEN, role: 'operator' } },
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
      mappings: {
        branches: {
          br_tlv: 'TLV01',
          br_hrz: 'HRZ02',
          br_jlm: 'JLM03',
          br_hfa: 'HFA04',
          br_bsh: 'BSH05',
          br_rnn: 'RNN06',
        },
      },
    });
  });
  afterAll(async () => world?.close());

  it('answers 401 without or with wrong credentials, and changes nothing', async () => {
    for (const auth of [null, 'Bearer wrong-token', 'Basic b3BzOndyb25n']) {
      const response = await call('POST', '/jobs/orders/pause', { auth });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
    }
    expect((await call('GET', '/runs', { auth: null })).status).toBe(401);
    expect(daemon.env.state.pausedJobs.get('orders')).toBeNull();
    expect(daemon.env.state.commands.unfinished()).toEqual([]);
  });

  it('refuses a change sent as a form (what another site could forge), and changes nothing', async () => {
    const response = await call('POST', '/jobs/orders/pause', { type: 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(415);
    const broken = await fetch(`${daemon.opsUrl}/jobs/orders/pause`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"reason": ',
    });
    expect(broken.status).toBe(400);
    expect(daemon.env.state.pausedJobs.get('orders')).toBeNull();
  });

  it('pauses and resumes, 404 naming an unknown job, 409 when the action no longer applies', async () => {
    const paused = await call('POST', '/jobs/orders/pause', { body: { reason: 'month-end close' } });
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({
      status: 'done',
      requestedBy: 'api:token@127.0.0.1',
      result: { paused: true },
    });
    expect(daemon.env.state.pausedJobs.get('orders')).toMatchObject({
      pausedBy: 'api:token@127.0.0.1',
      reason: 'month-end close',
    });
    const again = await call('POST', '/jobs/orders/pause');
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: 'job_paused_already' });
    const run = await call('POST', '/jobs/orders/run?wait=true');
    expect(run.status).toBe(409);
    expect(await run.json()).toMatchObject({
      error: 'job_paused',
      detail: expect.stringContaining('resume it first'),
    });
    const syncs = () =>
      daemon.env.state.db.prepare("SELECT COUNT(*) AS n FROM commands WHERE kind = 'sync'").get() as {
        n: number;
      };
    const queuedBefore = syncs().n;
    // Without ?wait=true as well: refused before anything is queued, not 202.
    const pausedRun = await call('POST', '/jobs/orders/run');
    expect(pausedRun.status).toBe(409);
    expect(await pausedRun.json()).toMatchObject({
      error: 'job_paused',
      detail: expect.stringMatching(
        /^job "orders" is paused \(since .* by api:token@127\.0\.0\.1: month-end close\); resume it first with `supply-sync jobs resume orders`$/,
      ),
    });
    const unknownRun = await call('POST', '/jobs/ordres/run');
    expect(unknownRun.status).toBe(404);
    expect(await unknownRun.json()).toMatchObject({
      error: 'unknown_job',
      detail: expect.stringContaining('no job "ordres"'),
    });
    expect(syncs().n).toBe(queuedBefore);
    expect(daemon.env.state.commands.unfinished()).toEqual([]);
    expect((await call('POST', '/jobs/orders/resume')).status).toBe(200);
    const unknown = await call('POST', '/jobs/ordres/pause');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      error: 'unknown_job',
      detail: expect.stringContaining('no job "ordres"'),
    });
    expect(daemon.env.state.pausedJobs.list()).toEqual([]);
  });

  it('retries and discards dead letters: 404 for an unknown id, 409 for a resolved one', async () => {
    const { state } = daemon.env;
    const letter = state.deadLetters.add('orders', 'ord_1', { id: 'ord_1' }, 'no ERP item for SKU X-1');
    const resolved = state.deadLetters.add('orders', 'ord_2', { id: 'ord_2' }, 'no ERP item for SKU X-2');
    state.deadLetters.resolve('orders', 'ord_2');
    expect((await call('POST', `/dead-letters/${letter.id}/retry`)).status).toBe(200);
    expect(state.deadLetters.byId(letter.id)?.status).toBe('retrying');
    const gone = await call('POST', '/dead-letters/424242/discard');
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ detail: 'no dead letter #424242' });
    const closed = await call('POST', `/dead-letters/${resolved.id}/retry`);
    expect(closed.status).toBe(409);
    expect(await closed.json()).toMatchObject({
      error: 'dead_letter_closed',
      detail: expect.stringContaining('is resolved'),
    });
    const group = await call('POST', '/dead-letters/discard', {
      body: { flow: 'orders', reason: 'no ERP item for SKU X-1' },
    });
    expect(await group.json()).toMatchObject({ status: 'done', result: { count: 1 } });
    const listed = (await (await call('GET', '/dead-letters')).json()) as { deadLetters: unknown[] };
    expect(listed.deadLetters).toEqual([]);
  });

  it('retries the dead letters held back for one missing mapping, and refuses a malformed one with 400', async () => {
    const { state } = daemon.env;
    const missing = (key: string) => ({ kind: 'SKU', table: 'skus', key, pickup: 'retry' });
    const one = state.deadLetters.add(
      'orders',
      'ord_m1',
      { id: 'ord_m1', missing: missing('X-7') },
      'SKU X-7 a',
    );
    const two = state.deadLetters.add(
      'orders',
      'ord_m2',
      { id: 'ord_m2', missing: missing('X-7') },
      'SKU X-7 b',
    );
    const other = state.deadLetters.add(
      'orders',
      'ord_m3',
      { id: 'ord_m3', missing: missing('X-8') },
      'SKU X-8',
    );
    const bad = await call('POST', '/dead-letters/retry', {
      body: { flow: 'orders', missing: { table: 'skus' } },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: 'usage',
      detail: expect.stringMatching(/^missing\.key: required, a string; send .*"missing": \{"table"/),
    });
    const retried = await call('POST', '/dead-letters/retry', {
      body: { flow: 'orders', missing: { table: 'skus', key: 'X-7' } },
    });
    expect(await retried.json()).toMatchObject({ status: 'done', result: { count: 2 } });
    expect([one, two, other].map((letter) => state.deadLetters.byId(letter.id)?.status)).toEqual([
      'retrying',
      'retrying',
      'open',
    ]);
    state.deadLetters.discard({ flow: 'orders' });
  });

  it('resets a cursor (404 for a stream with none), runs a job now and lists it in the history', async () => {
    expect((await call('POST', '/cursors/nope/reset')).status).toBe(404);
    const queued = await call('POST', '/jobs/orders/run');
    expect(queued.status).toBe(202);
    const { command } = (await queued.json()) as { command: number };
    expect(queued.headers.get('location')).toBe(`/commands/${command}`);
    let outcome: Response;
    do outcome = await call('GET', `/commands/${command}`);
    while (outcome.status === 202);
    expect(outcome.status).toBe(200);
    expect(await outcome.json()).toMatchObject({ result: { job: 'orders', outcome: 'ok' } });
    const runs = (await (await call('GET', '/runs?job=orders')).json()) as {
      runs: Array<{ trigger: string }>;
    };
    expect(runs.runs[0]?.trigger).toBe('operator');
  });

  it('answers 404 naming a job it has no runs for, 400 naming a since or limit it cannot read', async () => {
    const unknown = await call('GET', '/runs?job=nope');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      error: 'unknown_job',
      detail: expect.stringContaining('no job "nope"'),
    });
    for (const [query, named] of [
      ['since=yesterday', 'since: expected a time in epoch milliseconds, got "yesterday"'],
      ['since=-5', 'since: expected a time in epoch milliseconds, got "-5"'],
      ['limit=0', 'limit: expected a whole number from 1 to 1000, got "0"'],
      ['limit=lots', 'limit: expected a whole number from 1 to 1000, got "lots"'],
    ]) {
      const refused = await call('GET', `/runs?${query}`);
      expect(refused.status, query).toBe(400);
      expect(await refused.json()).toEqual({ error: 'usage', detail: named });
    }
    const since = await call('GET', `/runs?job=orders&since=${Date.now() - 3_600_000}&limit=1`);
    expect(since.status).toBe(200);
    expect(((await since.json()) as { runs: unknown[] }).runs).toHaveLength(1);
  });

  it('replaces the configured secrets in run errors, dead-letter reasons and command errors it answers', async () => {
    const { state } = daemon.env;
    const secret = world.sandbox.keys.supplier;
    const run = state.runs.start('orders', 'operator');
    state.runs.finish(run, 'failed', {}, `401 from the API with key ${secret}`);
    state.deadLetters.add('orders', 'ord_9', { id: 'ord_9' }, `rejected: key=${secret} was refused`);
    const runs = await (await call('GET', '/runs?job=orders&failed=true')).text();
    expect(runs).toContain('401 from the API with key');
    expect(runs).not.toContain(secret);
    const letters = await (await call('GET', '/dead-letters?flow=orders')).text();
    expect(letters).toContain('was refused');
    expect(letters).not.toContain(secret);
    state.deadLetters.resolve('orders', 'ord_9');
  });

  it('logs every call with its caller and never the token', () => {
    const calls = world.logs.filter((line) => line.msg === 'control API call');
    expect(calls.some((line) => line['who'] === 'api:token@127.0.0.1' && line['status'] === 200)).toBe(true);
    expect(calls.some((line) => line['who'] === 'unauthenticated@127.0.0.1' && line['status'] === 401)).toBe(
      true,
    );
    expect(JSON.stringify(world.logs)).not.toContain(TOKEN);
  });
});

/** A raw call, so the headers are the test's own (fetch would set Host itself). */
function rawCall(
  url: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const req = httpRequest(target, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

describe('the control API for a caller on this host, with the local token file', () => {
  let world: HealthWorld;
  let daemon: Daemon;
  let token: string;
  const user = userInfo().username;

  beforeAll(async () => {
    world = await openHealthWorld();
    daemon = await world.start({
      server: { host: '127.0.0.1', port: 0 },
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
    });
    const file = join(dirname(daemon.env.loaded.config.state.path), 'control-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    token = readFileSync(file, 'utf8').trim();
  });
  afterAll(async () => world?.close());

  it('acts as the local operator named after the OS user; nothing without the token', async () => {
    const bare = await rawCall(daemon.opsUrl, '/runs');
    expect(bare.status).toBe(401);
    const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const paused = await rawCall(daemon.opsUrl, '/jobs/orders/pause', json, 'POST');
    expect(paused.status).toBe(200);
    expect(daemon.env.state.pausedJobs.get('orders')).toMatchObject({
      pausedBy: `local:${user}@127.0.0.1`,
    });
    expect((await rawCall(daemon.opsUrl, '/jobs/orders/resume', json, 'POST')).status).toBe(200);
  });

  it('never takes the token from a request a proxy forwarded (any forwarding header)', async () => {
    for (const header of ['x-forwarded-for', 'x-real-ip', 'forwarded']) {
      const value = header === 'forwarded' ? 'for=203.0.113.9' : '203.0.113.9';
      const headers = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        [header]: value,
      };
      const answer = await rawCall(daemon.opsUrl, '/jobs/orders/pause', headers, 'POST');
      expect(answer.status, header).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({
        detail: expect.stringContaining('never through a proxy'),
      });
    }
    expect(daemon.env.state.pausedJobs.get('orders')).toBeNull();
    expect(JSON.stringify(world.logs)).not.toContain(token);
  });
});
