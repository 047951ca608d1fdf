/**
 * Access checks run before any operations route: a viewer (or operator) on /metrics and /status when server.auth
 * is configured (/healthz and /readyz stay open for probes; /readyz keeps its details for a viewer), and the
 * sender's address range on the webhook path, in addition to the signature the receiver checks afterwards.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { addressList, familyOf, plainAddress } from './caller-address.js';
import { writeRefusal, type OpsIdentity } from './ops-identity.js';
import { pageSecurityPolicy } from './security-headers.js';
import { renderSignInPage } from './status-html.js';

export interface OpsAccessOptions {
  readonly identity: OpsIdentity;
  /** Address ranges (CIDR) allowed on the webhook path; empty allows any. */
  readonly webhookAllowCidrs?: readonly string[];
}

/** Paths that need a viewer when server.auth is configured. */
const PROTECTED_PATHS = new Set(['/metrics', '/status']);

/**
 * A person's browser gets the console's sign-in form (401, nothing of the daemon in it), challenged for a bearer
 * token only: a Basic challenge would make the browser prompt and then send the login by itself, to any page.
 */
function writeSignInPage(res: ServerResponse): void {
  const html = renderSignInPage();
  res.writeHead(401, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': pageSecurityPolicy(html),
    'www-authenticate': 'Bearer realm="supply-sync"',
  });
  res.end(html);
}

export type OpsAccessCheck = (req: IncomingMessage, path: string, res: ServerResponse) => boolean;

/** Returns a check that answers 401/403/429 itself and returns true when the request must go no further. */
export function createOpsAccessCheck(
  options: OpsAccessOptions,
  webhookPath: string | undefined,
): OpsAccessCheck {
  const allowed = addressList(options.webhookAllowCidrs ?? []);
  const { identity } = options;
  return (req, path, res) => {
    if (path === webhookPath && allowed !== undefined) {
      const peer = plainAddress(req.socket.remoteAddress ?? '');
      if (peer !== '' && allowed.check(peer, familyOf(peer))) return false;
      writeRefusal(res, identity, { status: 403 }, { error: 'forbidden' });
      return true;
    }
    if (!identity.protectsReading || !PROTECTED_PATHS.has(path)) return false;
    const caller = identity.identify(req);
    if (caller.kind === 'user') return false;
    const refusal = caller.kind === 'refused' ? caller : { status: 401 as const };
    if (refusal.status === 401 && path === '/status' && /\btext\/html\b/i.test(req.headers.accept ?? '')) {
      writeSignInPage(res);
      return true;
    }
    const error = { 401: 'unauthorized', 403: 'forbidden', 429: 'too_many_failed_logins' }[refusal.status];
    const detail = refusal.status === 401 ? {} : { detail: (caller as { detail: string }).detail };
    writeRefusal(res, identity, refusal, { error, ...detail });
    return true;
  };
}
