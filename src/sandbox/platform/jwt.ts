/** HS256 JSON Web Tokens for POST /oauth/token (gap G29). */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface TokenClaims {
  sub: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function signJwt(claims: TokenClaims, secret: string): string {
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

export function looksLikeJwt(token: string): boolean {
  return token.split('.').length === 3 && token.startsWith('eyJ');
}

/** The claims when the signature and algorithm are valid (expiry is the caller's check), else null. */
export function verifyJwt(token: string, secret: string): TokenClaims | null {
  const [header, payload, signature] = token.split('.');
  if (header === undefined || payload === undefined || signature === undefined) return null;
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown };
    if (head.alg !== 'HS256') return null;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<TokenClaims>;
    if (
      typeof claims.sub !== 'string' ||
      typeof claims.scope !== 'string' ||
      typeof claims.exp !== 'number'
    ) {
      return null;
    }
    return {
      sub: claims.sub,
      scope: claims.scope,
      exp: claims.exp,
      iat: claims.iat ?? 0,
      jti: claims.jti ?? '',
    };
  } catch {
    return null;
  }
}
