/**
 * Headers on every answer of the operations server: no page of another origin may frame it (a click inside a
 * frame could otherwise act through the console), no content sniffing, no referrer. The console's page gets a
 * policy that allows exactly its own inline script and style (by hash) and calls to its own origin.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

const NOTHING = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('content-security-policy', NOTHING);
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
}

function hashes(html: string, tag: 'script' | 'style'): string {
  const pattern = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
  return [...html.matchAll(pattern)]
    .map(
      (match) =>
        `'sha256-${createHash('sha256')
          .update(match[1] ?? '')
          .digest('base64')}'`,
    )
    .join(' ');
}

/** The policy of one rendered page: its inline blocks by hash, fetch to its own origin, nothing else. */
export function pageSecurityPolicy(html: string): string {
  const scripts = hashes(html, 'script');
  const styles = hashes(html, 'style');
  return [
    "default-src 'none'",
    `script-src ${scripts === '' ? "'none'" : scripts}`,
    `style-src ${styles === '' ? "'none'" : styles}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
