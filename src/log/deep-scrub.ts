import { isSecretKeyName, REDACTED, scrubSecrets } from './scrub.js';

const MAX_DEPTH = 8;

/**
 * Returns a copy of a log value with secret-named keys censored and every string scrubbed. Errors become plain
 * objects (type, message, stack, code) so their text is scrubbed too.
 */
export function deepScrub(value: unknown, knownSecrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return scrubSecrets(value, knownSecrets);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[Object]';
  if (value instanceof Error) return scrubError(value, knownSecrets, depth);
  if (Array.isArray(value)) return value.map((item) => deepScrub(item, knownSecrets, depth + 1));
  if (Buffer.isBuffer(value) || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      isSecretKeyName(key) && item !== undefined ? REDACTED : deepScrub(item, knownSecrets, depth + 1);
  }
  return out;
}

function scrubError(error: Error, knownSecrets: readonly string[], depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    type: error.name,
    message: scrubSecrets(error.message, knownSecrets),
  };
  if (error.stack !== undefined) out['stack'] = scrubSecrets(error.stack, knownSecrets);
  for (const [key, item] of Object.entries(error)) {
    if (key === 'message' || key === 'stack') continue;
    out[key] = isSecretKeyName(key) ? REDACTED : deepScrub(item, knownSecrets, depth + 1);
  }
  if (error.cause !== undefined) out['cause'] = deepScrub(error.cause, knownSecrets, depth + 1);
  return out;
}
