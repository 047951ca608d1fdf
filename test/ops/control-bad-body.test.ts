/**
 * Bad JSON bodies to the control API of a running daemon: a body over the limit is a 413 stating the limit; a field
 * of the wrong type, a field the route does not take, or a body that is not an object is a 400 naming the field and
 * what is expected; and none of them queues a command or changes the state (a cursor is left where it stands).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { ROOT } from '../contract/openapi/tools.js';
import { openHealthWorld, type HealthWorld } from '../daemon/health-support.js';

const TOKEN = 'ops-token-for-the-bad-body-test';
const STREAM = 'orders:/supplier/orders';

const document = JSON.parse(readFileSync(join(ROOT, 'docs', 'control-api.json'), 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
};

describe('bad bodies to a running daemon', () => {
  let world: HealthWorld;
  let daemon: Daemon;
  const send = (path: string, body: string) =>
    fetch(`${daemon.opsUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body,
    });
  const commandCount = (): number =>
    (daemon.env.state.db.prepare('SELECT COUNT(*) AS n FROM commands').get() as { n: number }).n;

  beforeAll(async () => {
    world = await openHealthWorld();
    daemon = await world.start({
      server: { port: 0, auth: { token: TOKEN, role: 'operator' } },
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
    });
    daemon.env.state.cursors.save({
      stream: STREAM,
      watermarkMs: Date.parse('2025-03-01T00:00:00Z'),
      passCursor: null,
      passSince: null,
      passMaxMs: null,
    });
  });
  afterAll(async () => world?.close());

  it('answers 413 body_too_large stating the limit for a valid JSON body that is too large', async () => {
    const before = commandCount();
    // Just over the limit, and far over it (the rest is not read, and the answer still arrives).
    for (const length of [20_000, 1_000_000]) {
      const response = await send('/jobs/orders/pause', JSON.stringify({ reason: 'x'.repeat(length) }));
      expect({ length, status: response.status }).toEqual({ length, status: 413 });
      expect(await response.json()).toEqual({
        error: 'body_too_large',
        detail: expect.stringContaining('at most 16384 bytes'),
      });
    }
    expect(commandCount()).toBe(before);
    expect(daemon.env.state.pausedJobs.get('orders')).toBeNull();
  });

  it('answers 400 naming `reason` when it is not a string, and pauses nothing', async () => {
    const before = commandCount();
    const response = await send('/jobs/orders/pause', JSON.stringify({ reason: 123 }));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'usage',
      detail: expect.stringMatching(/^reason: expected a string, got a number; send /),
    });
    expect(commandCount()).toBe(before);
    expect(daemon.env.state.pausedJobs.get('orders')).toBeNull();
  });

  it('answers 400 naming `to` on a cursor reset, and leaves the cursor where it stands', async () => {
    const cursor = daemon.env.state.cursors.get(STREAM);
    expect(cursor).not.toBeNull();
    const before = commandCount();
    const response = await send(
      `/cursors/${encodeURIComponent(STREAM)}/reset`,
      JSON.stringify({ to: 'garbage' }),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; detail: string };
    expect(body.error).toBe('usage');
    expect(body.detail).toMatch(/^unknown field "to"; send \{\}/);
    expect(body.detail).toContain('always starts the stream over from the beginning');
    expect(commandCount()).toBe(before);
    expect(daemon.env.state.cursors.get(STREAM)).toEqual(cursor);
  });

  it('answers 400 naming the field for a wrong type or an unknown field on every route with a body', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/jobs/orders/pause', { reason: 'ERP upgrade', until: 'tomorrow' }, 'unknown field "until"'],
      ['/jobs/orders/pause', { reason: ['ERP'] }, 'reason: expected a string, got an array'],
      ['/jobs/orders/resume', { reason: 'done' }, 'unknown field "reason"'],
      ['/jobs/orders/run', { job: 'orders' }, 'unknown field "job"'],
      ['/dead-letters/1/retry', { reason: 'x' }, 'unknown field "reason"'],
      ['/dead-letters/1/discard', { id: 1 }, 'unknown field "id"'],
      ['/dead-letters/retry', {}, 'flow: required, a string'],
      ['/dead-letters/retry', { flow: 7 }, 'flow: expected a string, got a number'],
      ['/dead-letters/retry', { flow: '' }, 'flow: expected a non-empty string, got ""'],
      ['/dead-letters/discard', { flow: 'orders', reason: 5 }, 'reason: expected a string, got a number'],
      ['/dead-letters/discard', { flow: 'orders', missing: 'skus:X' }, 'missing: expected an object'],
      [
        '/dead-letters/retry',
        { flow: 'orders', missing: { table: 'skus', key: 1 } },
        'missing.key: expected a string, got a number',
      ],
      [
        '/dead-letters/retry',
        { flow: 'orders', missing: { table: 'skus', key: 'X', row: 2 } },
        'unknown field "missing.row"',
      ],
      ['/dead-letters/retry', { flow: 'orders', ids: [1] }, 'unknown field "ids"'],
      ['/config/reload', { force: true }, 'unknown field "force"'],
      ['/commands/1/cancel', { reason: 'x' }, 'unknown field "reason"'],
      ['/jobs/orders/pause', ['reason'], 'the body: expected a JSON object, got an array'],
      ['/jobs/orders/pause', 'ERP upgrade', 'the body: expected a JSON object, got a string'],
    ];
    const before = commandCount();
    for (const [path, body, named] of cases) {
      const response = await send(path, JSON.stringify(body));
      const answer = (await response.json()) as { error: string; detail: string };
      expect({ path, body, status: response.status, error: answer.error }).toEqual({
        path,
        body,
        status: 400,
        error: 'usage',
      });
      expect(answer.detail, path).toContain(`${named}`);
      expect(answer.detail, path).toContain('; send ');
    }
    expect(commandCount()).toBe(before);
    expect(daemon.env.state.pausedJobs.get('orders')).toBeNull();
  });

  it('answers 400 saying so for a body that is not JSON at all', async () => {
    const response = await send('/jobs/orders/pause', '{"reason": ');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'usage',
      detail: expect.stringMatching(/^the body is not valid JSON \(.+\); send a JSON object/),
    });
  });

  it('still takes what the CLI docs and the status page send', async () => {
    const paused = await send('/jobs/orders/pause', JSON.stringify({ reason: 'ERP upgrade' }));
    expect(paused.status).toBe(200);
    expect(daemon.env.state.pausedJobs.get('orders')).toMatchObject({ reason: 'ERP upgrade' });
    expect((await send('/jobs/orders/resume', '')).status).toBe(200);
    const group = await send(
      '/dead-letters/retry',
      JSON.stringify({ flow: 'orders', reason: 'no ERP item' }),
    );
    expect(group.status).toBe(404);
    expect(await group.json()).toMatchObject({ error: 'dead_letter_not_found' });
  });

  it('documents the 413 on every route that takes a body', () => {
    const posts = Object.entries(document.paths).filter(([, operations]) => 'post' in operations);
    expect(posts.length).toBeGreaterThan(5);
    const without = posts.filter(([, operations]) => operations['post']?.responses['413'] === undefined);
    expect(without.map(([path]) => path)).toEqual([]);
  });
});
