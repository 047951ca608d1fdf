import { createHash } from 'node:crypto';

/** The contract's limit on Idempotency-Key length. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;

/** Parts that can be joined with ':' without ambiguity. */
const READABLE = /^[A-Za-z0-9._-]+$/;

/**
 * A stable idempotency key for a logical write: the same parts give the same key in every process and after
 * every restart. Readable when short and plain (`documents:invoice:INV-1001`), else a namespaced SHA-256.
 */
export function idempotencyKey(namespace: string, ...parts: readonly string[]): string {
  const readable = [namespace, ...parts].join(':');
  const plain = READABLE.test(namespace) && parts.every((p) => READABLE.test(p));
  if (plain && readable.length <= MAX_IDEMPOTENCY_KEY_LENGTH) return readable;
  const digest = createHash('sha256')
    .update(JSON.stringify([namespace, ...parts]))
    .digest('hex');
  const prefix = READABLE.test(namespace) ? namespace.slice(0, 40) : 'key';
  return `${prefix}:${digest}`;
}
