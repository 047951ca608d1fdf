/** Service-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 over "{t}.{raw body}">`, keyed by the secret's UTF-8 bytes. */
import { createHmac, randomBytes } from 'node:crypto';

export function signatureHeader(secret: string, rawBody: string | Buffer, timestampSeconds: number): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestampSeconds}.`)
    .update(rawBody)
    .digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}
