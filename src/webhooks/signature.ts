import { createHmac, timingSafeEqual } from 'node:crypto';

/** Contract part 8: webhook signature tolerance, applied in both directions. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type SignatureFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'no_signature'
  | 'no_active_secret'
  | 'signature_mismatch';

export type SignatureResult = { ok: true; timestamp: number } | { ok: false; reason: SignatureFailure };

export interface ParsedSignatureHeader {
  timestamp: number;
  signatures: string[];
}

const INTEGER_SECONDS = /^[0-9]{1,15}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/i;

/**
 * Parses `t=<seconds>,v1=<hex>[,v1=<hex>...]`: split on commas, each part on its first '=', parts trimmed.
 * Exactly one integer t is required; other schemes are ignored; v1 values are kept as given.
 */
export function parseSignatureHeader(
  header: string,
): { ok: true; value: ParsedSignatureHeader } | { ok: false; reason: SignatureFailure } {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const rawPart of header.split(',')) {
    const part = rawPart.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return { ok: false, reason: 'malformed_header' };
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined) return { ok: false, reason: 'malformed_header' };
      if (!INTEGER_SECONDS.test(value)) return { ok: false, reason: 'invalid_timestamp' };
      timestamp = Number(value);
    } else if (key === 'v1') {
      signatures.push(value);
    }
  }
  if (timestamp === undefined) return { ok: false, reason: 'malformed_header' };
  if (signatures.length === 0) return { ok: false, reason: 'no_signature' };
  return { ok: true, value: { timestamp, signatures } };
}

/** HMAC-SHA256 of the raw bytes `{t}.{body}`, keyed with the secret's UTF-8 bytes. */
export function computeSignature(secret: string, timestamp: number, rawBody: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody).digest();
}

/** Builds a header value the way the service signs (for the sandbox and tests). */
export function signatureHeader(secrets: readonly string[], timestamp: number, rawBody: Uint8Array): string {
  const parts = secrets.map((secret) => `v1=${computeSignature(secret, timestamp, rawBody).toString('hex')}`);
  return [`t=${timestamp}`, ...parts].join(',');
}

export interface VerifyOptions {
  header: string | undefined;
  rawBody: Uint8Array;
  /** Active secrets; more than one during rotation. */
  secrets: readonly string[];
  nowMs: number;
  toleranceSeconds?: number;
}

/** Verifies a Service-Signature header per contract part 6.1. Never throws. */
export function verifySignature(options: VerifyOptions): SignatureResult {
  if (options.header === undefined || options.header.trim() === '')
    return { ok: false, reason: 'missing_header' };
  const parsed = parseSignatureHeader(options.header);
  if (!parsed.ok) return parsed;
  const { timestamp, signatures } = parsed.value;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(options.nowMs / 1000 - timestamp) > tolerance) {
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  }
  const secrets = options.secrets.filter((secret) => secret !== '');
  if (secrets.length === 0) return { ok: false, reason: 'no_active_secret' };
  const candidates = signatures.filter((sig) => SHA256_HEX.test(sig)).map((sig) => Buffer.from(sig, 'hex'));
  let matched = false;
  // Every secret is checked against every candidate, so the time taken does not reveal which one matched.
  for (const secret of secrets) {
    const expected = computeSignature(secret, timestamp, options.rawBody);
    for (const candidate of candidates) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  return matched ? { ok: true, timestamp } : { ok: false, reason: 'signature_mismatch' };
}
