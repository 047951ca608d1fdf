import fc from 'fast-check';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver, signatureHeader, stateInbox } from '../../src/webhooks/index.js';
import type { TempState, TestServer } from './support.js';
import { eventBody, fixedClock, openTempState, post, serveReceiver } from './support.js';

const SECRET = 'whsec_property_secret';
const NOW_S = 1_795_000_000;
const MAX_BODY = 2048;

const printable = fc
  .array(fc.integer({ min: 0x21, max: 0x7e }), { maxLength: 200 })
  .map((codes) => String.fromCharCode(...codes));

/** Bodies: random bytes, random text, and near-valid envelopes (missing a field, wrong types, oversized). */
const bodies = fc.oneof(
  fc.uint8Array({ maxLength: MAX_BODY * 2 }),
  fc.string({ maxLength: 500 }).map((text) => Buffer.from(text)),
  fc
    .record(
      {
        id: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        type: fc.string(),
        occurred_at: fc.string(),
      },
      { requiredKeys: [] },
    )
    .map((envelope) => Buffer.from(JSON.stringify(envelope))),
  fc
    .integer({ min: MAX_BODY + 1, max: MAX_BODY * 4 })
    .map((size) => Buffer.from(eventBody('evt_big', 'ping', { pad: 'x'.repeat(size) }))),
);

type HeaderMaker = (body: Buffer) => Record<string, string>;

const headerMakers: fc.Arbitrary<HeaderMaker> = fc.oneof(
  fc.constant<HeaderMaker>(() => ({})),
  printable.map<HeaderMaker>((value) => () => ({ 'service-signature': value })),
  fc.integer({ min: -100_000, max: 100_000 }).map<HeaderMaker>((skew) => (body) => ({
    'service-signature': Stripe.webhooks.generateTestHeaderString({
      payload: body.toString('latin1'),
      secret: 'whsec_wrong',
      timestamp: NOW_S + skew,
    }),
  })),
  fc
    .integer({ min: 301, max: 1_000_000 })
    .chain((offset) => fc.constantFrom(offset, -offset))
    .map<HeaderMaker>((skew) => (body) => ({
      'service-signature': signatureHeader([SECRET], NOW_S + skew, body),
    })),
  // Correctly signed: whatever the body is, it must still fail the envelope or size check.
  fc.constant<HeaderMaker>((body) => ({ 'service-signature': signatureHeader([SECRET], NOW_S, body) })),
);

describe('webhook receiver under random input', () => {
  const clock = fixedClock(NOW_S * 1000);
  let state: TempState;
  let server: TestServer;

  beforeAll(async () => {
    state = openTempState(clock);
    const receiver = createWebhookReceiver({
      inbox: stateInbox(state.inbox),
      secrets: [SECRET],
      clock,
      maxBodyBytes: MAX_BODY,
    });
    server = await serveReceiver(receiver);
  });

  afterAll(async () => {
    await server.close();
    state.close();
  });

  it('always answers 400 or 413 and stores nothing, then still accepts a valid event', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, headerMakers, async (body, makeHeaders) => {
        const response = await post(server.url, body, makeHeaders(Buffer.from(body)));
        expect([400, 413]).toContain(response.status);
        if (body.length > MAX_BODY) expect(response.status).toBe(413);
        expect(state.rowCount()).toBe(0);
      }),
      { numRuns: 150, seed: 20261122 },
    );
    const valid = eventBody('evt_after_fuzz');
    const response = await post(server.url, valid, {
      'service-signature': signatureHeader([SECRET], NOW_S, Buffer.from(valid)),
    });
    expect(response.status).toBe(200);
    expect(state.rowCount()).toBe(1);
  });
});
