/** Signed, expiring download links served by the sandbox itself (files and export results). */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DOWNLOAD_URL_TTL_MS = 3_600_000;

function signature(secret: string, path: string, expiresSeconds: number): string {
  return createHmac('sha256', secret).update(`${path}:${expiresSeconds}`).digest('hex');
}

/** `{origin}{path}?expires=<unix seconds>&signature=<hex>`. */
export function signUrl(origin: string, path: string, secret: string, expiresMs: number): string {
  const expires = Math.floor(expiresMs / 1000);
  return `${origin}${path}?expires=${expires}&signature=${signature(secret, path, expires)}`;
}

export function verifySignedUrl(
  path: string,
  query: URLSearchParams,
  secret: string,
  nowMs: number,
): boolean {
  const expires = Number(query.get('expires'));
  const given = query.get('signature') ?? '';
  if (!Number.isInteger(expires) || expires * 1000 <= nowMs || !/^[0-9a-f]{64}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(signature(secret, path, expires), 'hex'));
}
