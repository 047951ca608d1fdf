import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../src/webhooks/index.js';
import {
  createWebhookReceiver,
  signatureHeader,
  stateInbox,
  WebhookDispatcher,
} from '../../src/webhooks/index.js';
import type { RejectReason } from '../../src/webhooks/index.js';
import type { TempState, TestServer } from './support.js';
import { eventBody, fixedClock, openTempState, post, serveReceiver } from './support.js';

const SECRET = 'whsec_receiver_test_secret';
const NOW_S = 1_795_000_000;

describe('webhook receiver over HTTP with a real state file', () => {
  const clock = fixedClock(NOW_S * 1000);
  let state: TempState;
  let server: TestServer;
  let rejected: RejectReason[];
  let received: string[];
  let duplicates: string[];
  let triggers: Array<{ job: string; eventIds: readonly string[] }>;
  let dispatcher: WebhookDispatcher;

  beforeEach(async () => {
    state = openTempState(clock);
    rejected = [];
    received = [];
    duplicates = [];
    triggers = [];
    const inbox = stateInbox(state.inbox);
    dispatcher = new WebhookDispatcher({
      inbox,
      mapping: { 'order.created': ['orders'], 'order.updated': ['orders'] },
      trigger: (job, cause) => {
        triggers.push({ job, eventIds: cause.eventIds });
      },
    });
    const receiver = createWebhookReceiver({
      inbox,
      secrets: [SECRET],
      clock,
      maxBodyBytes: 4096,
      observer: {
        received: (type) => received.push(type),
        rejected: (reason) => rejected.push(reason),
        duplicate: (type) => duplicates.push(type),
      },
      onStored: () => dispatcher.kick(),
    });
    server = await serveReceiver(receiver);
  });

  afterEach(async () => {
    await server.close();
    await dispatcher.idle();
    state.close();
  });

  const signed = (body: string | Buffer, t = NOW_S) => ({
    'content-type': 'application/json',
    'service-signature': signatureHeader([SECRET], t, Buffer.from(body)),
  });

  it('stores a verified event before answering 200, and dispatches it once', async () => {
    const body = eventBody('evt_a');
    const response = await post(server.url, body, signed(body));
    expect(response).toEqual({ status: 200, body: { received: true, duplicate: false } });
    const stored = state.inbox.get('evt_a');
    expect(stored?.type).toBe('order.created');
    expect(Buffer.from(stored?.payload ?? []).toString('utf8')).toBe(body);
    await dispatcher.idle();
    expect(triggers).toEqual([{ job: 'orders', eventIds: ['evt_a'] }]);
    expect(state.inbox.get('evt_a')?.status).toBe('dispatched');
    expect(received).toEqual(['order.created']);
  });

  it('answers a duplicate with 200, stores it once and never dispatches it twice', async () => {
    const body = eventBody('evt_dup');
    await post(server.url, body, signed(body));
    await dispatcher.idle();
    const again = await post(server.url, body, signed(body, NOW_S + 60));
    expect(again).toEqual({ status: 200, body: { received: true, duplicate: true } });
    await dispatcher.idle();
    expect(state.rowCount()).toBe(1);
    expect(triggers).toHaveLength(1);
    expect(duplicates).toEqual(['order.created']);
  });

  it('stores concurrent copies of one event once', async () => {
    const body = eventBody('evt_race');
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(server.url, body, signed(body))));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => (a.body as { duplicate: boolean }).duplicate === false)).toHaveLength(1);
    await dispatcher.idle();
    expect(state.rowCount()).toBe(1);
    expect(triggers).toHaveLength(1);
  });

  it('stores unknown event types and ignores them', async () => {
    const body = eventBody('evt_new_kind', 'warehouse.teleported');
    expect((await post(server.url, body, signed(body))).status).toBe(200);
    await dispatcher.idle();
    expect(state.inbox.get('evt_new_kind')?.status).toBe('dispatched');
    expect(triggers).toEqual([]);
  });

  const invalidUtf8 = Buffer.concat([
    Buffer.from('{"id":"evt_u","type":"ping","occurred_at":"2026-11-22T08:00:00Z","x":"'),
    Buffer.from([0xc3, 0x28]),
    Buffer.from('"}'),
  ]);
  const cases: Array<
    [string, () => { body: string | Buffer; headers: Record<string, string> }, RejectReason]
  > = [
    [
      'bad signature',
      () => ({
        body: eventBody('e1'),
        headers: {
          'service-signature': signatureHeader(['whsec_other'], NOW_S, Buffer.from(eventBody('e1'))),
        },
      }),
      'signature_mismatch',
    ],
    [
      'stale t',
      () => ({ body: eventBody('e2'), headers: signed(eventBody('e2'), NOW_S - 301) }),
      'timestamp_out_of_tolerance',
    ],
    [
      'future t',
      () => ({ body: eventBody('e3'), headers: signed(eventBody('e3'), NOW_S + 301) }),
      'timestamp_out_of_tolerance',
    ],
    [
      'malformed header',
      () => ({ body: eventBody('e4'), headers: { 'service-signature': 'v1' } }),
      'malformed_header',
    ],
    ['missing header', () => ({ body: eventBody('e5'), headers: {} }), 'missing_header'],
    [
      'non-JSON body',
      () => ({ body: 'id=e6&type=ping', headers: signed('id=e6&type=ping') }),
      'invalid_json',
    ],
    [
      'JSON without id',
      () => ({
        body: '{"type":"ping","occurred_at":"2026-11-22T08:00:00Z"}',
        headers: signed('{"type":"ping","occurred_at":"2026-11-22T08:00:00Z"}'),
      }),
      'invalid_envelope',
    ],
    [
      'JSON without type',
      () => ({
        body: '{"id":"e7","occurred_at":"2026-11-22T08:00:00Z"}',
        headers: signed('{"id":"e7","occurred_at":"2026-11-22T08:00:00Z"}'),
      }),
      'invalid_envelope',
    ],
    [
      'occurred_at without offset',
      () => ({
        body: eventBody('e8', 'ping', { occurred_at: '2026-11-22T08:00:00' }),
        headers: signed(eventBody('e8', 'ping', { occurred_at: '2026-11-22T08:00:00' })),
      }),
      'invalid_envelope',
    ],
    ['JSON array', () => ({ body: '[1]', headers: signed('[1]') }), 'invalid_envelope'],
    ['invalid UTF-8 body', () => ({ body: invalidUtf8, headers: signed(invalidUtf8) }), 'invalid_utf8'],
  ];

  it.each(cases)('answers 400 and stores nothing for %s', async (_name, make, reason) => {
    const { body, headers } = make();
    const response = await post(server.url, body, headers);
    expect(response).toEqual({ status: 400, body: { error: reason } });
    expect(state.rowCount()).toBe(0);
    expect(rejected).toEqual([reason]);
  });

  it('answers 413 for a body over the limit, by Content-Length or by counting, and stores nothing', async () => {
    const big = eventBody('evt_big', 'ping', { pad: 'x'.repeat(5000) });
    expect((await post(server.url, big, signed(big))).status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(Buffer.from(big));
        controller.close();
      },
    });
    const chunked = await fetch(server.url, {
      method: 'POST',
      body: stream,
      headers: signed(big),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(state.rowCount()).toBe(0);
    expect(rejected).toEqual(['body_too_large', 'body_too_large']);
  });

  it('answers 405 to anything but POST', async () => {
    const response = await fetch(server.url);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('webhook receiver when the inbox cannot store', () => {
  it('answers 503 so the sender retries, and does not dispatch', async () => {
    const clock = fixedClock(NOW_S * 1000);
    let stored: WebhookEvent[] = [];
    const receiver = createWebhookReceiver({
      inbox: {
        insertMany: () => {
          throw new Error('SQLITE_FULL: database or disk is full');
        },
        listUndispatched: () => [],
        markDispatched: () => undefined,
      },
      secrets: [SECRET],
      clock,
      onStored: (events) => {
        stored = [...stored, ...events];
      },
    });
    const server = await serveReceiver(receiver);
    try {
      const body = eventBody('evt_full');
      const response = await post(server.url, body, {
        'service-signature': signatureHeader([SECRET], NOW_S, Buffer.from(body)),
      });
      expect(response).toEqual({ status: 503, body: { error: 'store_failed' } });
      expect(stored).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
