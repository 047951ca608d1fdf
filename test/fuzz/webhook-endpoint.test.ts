/**
 * Random requests at the daemon's webhook endpoint over real HTTP: bodies of any bytes and size, any headers and
 * content encodings, signatures that are missing, malformed, from another secret, too old or too far ahead, or
 * correct over a body that is not an event. Every answer is 400 or 413, nothing reaches the inbox, and the daemon
 * stays healthy.
 */
import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/webhooks/index.js';
import { FUZZ_SECRET, MAX_BODY_BYTES, startFuzzDaemon, type DaemonFixture } from './daemon-fixture.js';

interface RawResponse {
  status: number;
  body: string;
}

function post(url: string, headers: Record<string, string>, body: Uint8Array): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    // A 413 may close the connection before the whole body is written; the answer still counts.
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    req.end(body);
  });
}

const headerValue = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789=,;:/+-_. '.split('')),
});
const now = (): number => Math.floor(Date.now() / 1000);

/** Signature headers that must never verify for the body they travel with. */
const badSignature = fc.oneof(
  fc.constant(null),
  headerValue,
  fc.integer({ min: 0, max: 2 ** 31 }).map((t) => `t=${t},v1=${'0'.repeat(64)}`),
  fc.constantFrom('t=,v1=', 'v1=abc', 't=1', 't=abc,v1=zz', ',,,', '=', 't==1,v1==2'),
);

const body = fc.oneof(
  fc.uint8Array({ maxLength: 4096 }),
  fc.string().map((text) => new TextEncoder().encode(text)),
  fc.json().map((text) => new TextEncoder().encode(text)),
  fc
    .record({ id: fc.string(), type: fc.string(), data: fc.anything() }, { requiredKeys: [] })
    .map((value) => new TextEncoder().encode(JSON.stringify(value))),
);

const extraHeaders = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
      'multipart/form-data; boundary=x',
    ),
    'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown'),
    'x-random': headerValue,
  },
  { requiredKeys: [] },
);

describe('webhook endpoint under random input', () => {
  let fixture: DaemonFixture;

  beforeAll(async () => {
    fixture = await startFuzzDaemon();
  });
  afterAll(async () => {
    await fixture.close();
  });

  const inboxTotal = (): number => {
    const counts = fixture.daemon.env.state.inbox.counts();
    return counts.pending + counts.dispatched;
  };

  it(
    'answers 400 to anything unsigned or wrongly signed, and stores nothing',
    { timeout: 60_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(body, badSignature, extraHeaders, async (payload, signature, headers) => {
          const response = await post(
            fixture.daemon.webhookUrl,
            { ...headers, ...(signature === null ? {} : { 'service-signature': signature }) },
            payload,
          );
          expect(response.status).toBe(400);
        }),
        { numRuns: 300, seed: 7 },
      );
      expect(inboxTotal()).toBe(0);
    },
  );

  it('answers 400 to a correct signature over a body that is not an event', { timeout: 60_000 }, async () => {
    const notAnEvent = fc.oneof(
      fc.uint8Array({ maxLength: 2048 }).filter((bytes) => {
        try {
          JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
          return false;
        } catch {
          return true;
        }
      }),
      fc
        .oneof(fc.array(fc.anything()), fc.integer(), fc.string(), fc.constant(null))
        .map((value) => new TextEncoder().encode(JSON.stringify(value))),
      fc
        .record({ type: fc.string(), data: fc.anything() })
        .map((value) => new TextEncoder().encode(JSON.stringify(value))),
    );
    await fc.assert(
      fc.asyncProperty(notAnEvent, async (payload) => {
        const response = await post(
          fixture.daemon.webhookUrl,
          {
            'content-type': 'application/json',
            'service-signature': signatureHeader([FUZZ_SECRET], now(), payload),
          },
          payload,
        );
        expect(response.status).toBe(400);
      }),
      { numRuns: 200, seed: 11 },
    );
    expect(inboxTotal()).toBe(0);
  });

  it(
    'answers 400 to a valid event signed outside the time tolerance, either way',
    { timeout: 60_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 301, max: 10 * 86_400 }),
          fc.boolean(),
          fc.uuid(),
          async (skew, ahead, id) => {
            const payload = new TextEncoder().encode(
              JSON.stringify({
                id: `evt_${id}`,
                type: 'ping',
                occurred_at: new Date().toISOString(),
                data: {},
              }),
            );
            const t = ahead ? now() + skew : now() - skew;
            const response = await post(
              fixture.daemon.webhookUrl,
              {
                'content-type': 'application/json',
                'service-signature': signatureHeader([FUZZ_SECRET], t, payload),
              },
              payload,
            );
            expect(response.status).toBe(400);
            // Refused for its time, not for its shape: the event itself is valid.
            expect(response.body).toContain('timestamp');
          },
        ),
        { numRuns: 100, seed: 13 },
      );
      expect(inboxTotal()).toBe(0);
    },
  );

  it('answers 413 to a body over the limit, signed or not', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: MAX_BODY_BYTES + 1, max: MAX_BODY_BYTES * 4 }),
        fc.boolean(),
        async (size, signed) => {
          const payload = new Uint8Array(size).fill(0x7b);
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (signed) headers['service-signature'] = signatureHeader([FUZZ_SECRET], now(), payload);
          const response = await post(fixture.daemon.webhookUrl, headers, payload);
          expect(response.status).toBe(413);
        },
      ),
      { numRuns: 20, seed: 17 },
    );
    expect(inboxTotal()).toBe(0);
  });

  it('is still healthy afterwards and still accepts a correctly signed event', async () => {
    expect((await fetch(`${fixture.daemon.opsUrl}/healthz`)).status).toBe(200);
    const payload = new TextEncoder().encode(
      JSON.stringify({
        id: 'evt_fuzz_control',
        type: 'ping',
        occurred_at: new Date().toISOString(),
        data: {},
      }),
    );
    const response = await post(
      fixture.daemon.webhookUrl,
      {
        'content-type': 'application/json',
        'service-signature': signatureHeader([FUZZ_SECRET], now(), payload),
      },
      payload,
    );
    // The control case: the endpoint is not simply refusing everything.
    expect(response.status, response.body).toBeLessThan(300);
    expect(fixture.daemon.env.state.inbox.get('evt_fuzz_control')).not.toBeNull();
  });
});
