/**
 * Who calls the control API. Credentials are those of server.auth: a bearer token (the caller is `api:token`) or
 * basic authentication (`api:<username>`). A change (POST) must also come as JSON: a browser sends a cross-site
 * form or a simple request without that content type, and a cross-site JSON request needs a CORS preflight this
 * server never grants; so browser-cached basic credentials cannot be used by another site to forge a change.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface ControlAuthOptions {
  readonly token?: string | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** No credentials needed: the API listens on loopback only and the operator asked for it. */
  readonly loopbackWithoutAuth?: boolean;
}

export type ControlCaller =
  { readonly ok: true; readonly who: string } | { readonly ok: false; readonly refused?: string };

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** The host part of a Host header or URL host (the port and a trailing dot dropped, lower case). */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  const name = lower.startsWith('[') ? lower.slice(0, lower.indexOf(']') + 1) : lower.replace(/:\d*$/, '');
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(hostName(url.host));
  } catch {
    return false;
  }
}

/**
 * Without credentials only a call from this machine to a loopback name is taken: a page on another site that got
 * its name resolved to 127.0.0.1 (DNS rebinding) still sends its own Host and Origin, and is refused.
 */
export function loopbackRefusal(req: IncomingMessage): string | null {
  if (!isLoopbackAddress(req.socket.remoteAddress)) {
    return 'the control API without credentials only answers calls from this machine (loopback)';
  }
  const host = req.headers.host;
  if (host === undefined || !LOOPBACK_HOSTS.has(hostName(host))) {
    return `the control API without credentials only answers for a loopback host (127.0.0.1, localhost or [::1]), not "${host ?? ''}"`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin)) {
    return `the control API without credentials refuses calls from another site (origin "${origin}")`;
  }
  return null;
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The caller, or not ok; null when the control API is not served at all (no server.auth, no loopback setting). */
export function controlAuth(options: ControlAuthOptions): ((req: IncomingMessage) => ControlCaller) | null {
  const hasCredentials = options.token !== undefined || options.username !== undefined;
  if (!hasCredentials && options.loopbackWithoutAuth !== true) return null;
  return (req) => {
    if (!hasCredentials) {
      const refused = loopbackRefusal(req);
      return refused === null ? { ok: true, who: 'api:loopback' } : { ok: false, refused };
    }
    const header = req.headers.authorization;
    if (header !== undefined) {
      const [scheme = '', value = ''] = header.trim().split(/\s+/, 2);
      if (
        scheme.toLowerCase() === 'bearer' &&
        options.token !== undefined &&
        sameSecret(value, options.token)
      ) {
        return { ok: true, who: 'api:token' };
      }
      if (
        scheme.toLowerCase() === 'basic' &&
        options.username !== undefined &&
        options.password !== undefined
      ) {
        const decoded = Buffer.from(value, 'base64').toString('utf8');
        const separator = decoded.indexOf(':');
        const user = decoded.slice(0, separator);
        if (
          separator >= 0 &&
          sameSecret(user, options.username) &&
          sameSecret(decoded.slice(separator + 1), options.password)
        ) {
          return { ok: true, who: `api:${options.username}` };
        }
      }
    }
    return { ok: false };
  };
}

/** A change must come as JSON (see above). */
export function isJsonRequest(req: IncomingMessage): boolean {
  return /^application\/json\b/i.test(req.headers['content-type'] ?? '');
}
