import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { parseSignatureHeader, signatureHeader, verifySignature } from '../../src/webhooks/index.js';

const SECRET = 'whsec_test_rotation_one';
const OTHER_SECRET = 'whsec_test_rotation_two';
const NOW_S = 1_795_000_000;
const NOW_MS = NOW_S * 1000;
const BODY = '{"id":"evt_1","type":"order.created","occurred_at":"2026-11-22T08:00:00Z"}';

function stripeHeader(payload: string, secret: string, timestamp: number): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

function hexOf(header: string): string {
  const match = /v1=([0-9a-f]+)/.exec(header);
  if (match?.[1] === undefined) throw new Error('no v1 in header');
  return match[1];
}

const verify = (
  header: string | undefined,
  body: Uint8Array | string,
  secrets: string[] = [SECRET],
  nowMs = NOW_MS,
) =>
  verifySignature({ header, rawBody: typeof body === 'string' ? Buffer.from(body) : body, secrets, nowMs });

describe('verifySignature against the stripe signer', () => {
  it('accepts every header the independent signer produces, and rejects it for a changed body', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.string({ minLength: 1, maxLength: 60 }),
        fc.integer({ min: -300, max: 300 }),
        (payload, secret, skew) => {
          const header = stripeHeader(payload, secret, NOW_S + skew);
          expect(verify(header, payload, [secret])).toEqual({ ok: true, timestamp: NOW_S + skew });
          expect(verify(header, `${payload} `, [secret]).ok).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('signs exactly what the stripe signer signs', () => {
    expect(signatureHeader([SECRET], NOW_S, Buffer.from(BODY))).toBe(stripeHeader(BODY, SECRET, NOW_S));
  });
});

describe('verifySignature: what the contract adds to the common scheme', () => {
  it('rejects a timestamp more than 5 minutes in the future or the past, and accepts the boundary', () => {
    expect(verify(stripeHeader(BODY, SECRET, NOW_S + 301), BODY)).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verify(stripeHeader(BODY, SECRET, NOW_S - 301), BODY)).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verify(stripeHeader(BODY, SECRET, NOW_S + 300), BODY).ok).toBe(true);
    expect(verify(stripeHeader(BODY, SECRET, NOW_S - 300), BODY).ok).toBe(true);
  });

  it('trims spaces around parts, keys and values', () => {
    const hex = hexOf(stripeHeader(BODY, SECRET, NOW_S));
    expect(verify(`  t = ${NOW_S} ,   v1=${hex}  `, BODY).ok).toBe(true);
    expect(verify(`t=${NOW_S},\tv1 =\t${hex}`, BODY).ok).toBe(true);
  });

  it('accepts uppercase hex', () => {
    const hex = hexOf(stripeHeader(BODY, SECRET, NOW_S));
    expect(verify(`t=${NOW_S},v1=${hex.toUpperCase()}`, BODY).ok).toBe(true);
  });

  it('rejects a header with two t values, even when both are equal', () => {
    const hex = hexOf(stripeHeader(BODY, SECRET, NOW_S));
    expect(verify(`t=${NOW_S},t=${NOW_S},v1=${hex}`, BODY)).toEqual({
      ok: false,
      reason: 'malformed_header',
    });
  });

  it.each(['abc', '1.5', '-1', '1e9', '0x10', '', ' ', '17950000001234567'])('rejects t=%j', (t) => {
    const hex = hexOf(stripeHeader(BODY, SECRET, NOW_S));
    const result = verify(`t=${t},v1=${hex}`, BODY);
    expect(result.ok).toBe(false);
  });

  it('HMACs the raw bytes of an invalid UTF-8 body, never a re-encoded string', () => {
    const raw = Buffer.concat([
      Buffer.from('{"id":"evt_1","x":"'),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('"}'),
    ]);
    const overBytes = signatureHeader([SECRET], NOW_S, raw);
    expect(verify(overBytes, raw).ok).toBe(true);
    const reEncoded = createHmac('sha256', SECRET)
      .update(`${NOW_S}.${raw.toString('utf8')}`)
      .digest('hex');
    expect(reEncoded).not.toBe(hexOf(overBytes));
    expect(verify(`t=${NOW_S},v1=${reEncoded}`, raw)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('rejects a v1 of the wrong length without throwing', () => {
    const hex = hexOf(stripeHeader(BODY, SECRET, NOW_S));
    expect(verify(`t=${NOW_S},v1=${hex.slice(0, 62)}`, BODY)).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verify(`t=${NOW_S},v1=${hex}00`, BODY)).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verify(`t=${NOW_S},v1=`, BODY)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('rejects everything when no secret is active', () => {
    const header = stripeHeader(BODY, SECRET, NOW_S);
    expect(verify(header, BODY, [])).toEqual({ ok: false, reason: 'no_active_secret' });
    expect(verify(header, BODY, [''])).toEqual({ ok: false, reason: 'no_active_secret' });
  });

  it('accepts either secret during a rotation, and a header carrying two v1 values', () => {
    const secrets = [SECRET, OTHER_SECRET];
    expect(verify(stripeHeader(BODY, SECRET, NOW_S), BODY, secrets).ok).toBe(true);
    expect(verify(stripeHeader(BODY, OTHER_SECRET, NOW_S), BODY, secrets).ok).toBe(true);
    expect(verify(stripeHeader(BODY, 'whsec_retired', NOW_S), BODY, secrets).ok).toBe(false);
    const both = signatureHeader(['whsec_unknown', OTHER_SECRET], NOW_S, Buffer.from(BODY));
    expect(both.split('v1=')).toHaveLength(3);
    expect(verify(both, BODY, [OTHER_SECRET]).ok).toBe(true);
  });

  it('splits each part on its first equals sign', () => {
    const hex = hexOf(stripeHeader(BODY, SECRET, NOW_S));
    expect(parseSignatureHeader(`t=${NOW_S},v1=${hex}=`)).toEqual({
      ok: true,
      value: { timestamp: NOW_S, signatures: [`${hex}=`] },
    });
    expect(verify(`t=${NOW_S},v1=${hex}=`, BODY).ok).toBe(false);
    expect(verify(`t==${NOW_S},v1=${hex}`, BODY).ok).toBe(false);
  });

  it('ignores other schemes and rejects headers without t, without v1, or with a bare part', () => {
    const hex = hexOf(stripeHeader(BODY, SECRET, NOW_S));
    expect(verify(`t=${NOW_S},v0=abc,v1=${hex}`, BODY).ok).toBe(true);
    expect(verify(`v1=${hex}`, BODY)).toEqual({ ok: false, reason: 'malformed_header' });
    expect(verify(`t=${NOW_S},v0=${hex}`, BODY)).toEqual({ ok: false, reason: 'no_signature' });
    expect(verify(`t=${NOW_S},garbage,v1=${hex}`, BODY)).toEqual({ ok: false, reason: 'malformed_header' });
    expect(verify(undefined, BODY)).toEqual({ ok: false, reason: 'missing_header' });
    expect(verify('', BODY)).toEqual({ ok: false, reason: 'missing_header' });
  });
});
