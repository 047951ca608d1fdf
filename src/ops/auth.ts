/**
 * Access checks run before any operations route: credentials on /metrics and /status (bearer token or basic
 * authentication; /healthz and /readyz stay open for probes), and the sender's address range on the webhook
 * path, in addition to the signature the receiver checks afterwards.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BlockList, isIP } from 'node:net';

export interface OpsAccessOptions {
  readonly token?: string | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** Address ranges (CIDR) allowed on the webhook path; empty allows any. */
  readonly webhookAllowCidrs?: readonly string[];
}

/** Paths that need credentials when credentials are configured. */
const PROTECTED_PATHS = new Set(['/metrics', '/status']);

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function allowList(cidrs: readonly string[]): BlockList | undefined {
  if (cidrs.length === 0) return undefined;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix = ''] = cidr.split('/');
    list.addSubnet(address, Number(prefix), isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d; ranges are written for a.b.c.d. */
function peerAddress(req: IncomingMessage): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const raw = req.socket.remoteAddress;
  if (raw === undefined) return undefined;
  const address = /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(raw) ? raw.slice(7) : raw;
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export type OpsAccessCheck = (req: IncomingMessage, path: string, res: ServerResponse) => boolean;

/** Returns a check that answers 401/403 itself and returns true when the request must go no further. */
export function createOpsAccessCheck(
  options: OpsAccessOptions,
  webhookPath: string | undefined,
): OpsAccessCheck {
  const allowed = allowList(options.webhookAllowCidrs ?? []);
  const needsCredentials = options.token !== undefined || options.username !== undefined;

  const credentialsOk = (header: string | undefined): boolean => {
    if (header === undefined) return false;
    const [scheme = '', value = ''] = header.trim().split(/\s+/, 2);
    if (scheme.toLowerCase() === 'bearer' && options.token !== undefined)
      return sameSecret(value, options.token);
    if (
      scheme.toLowerCase() === 'basic' &&
      options.username !== undefined &&
      options.password !== undefined
    ) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const separator = decoded.indexOf(':');
      if (separator < 0) return false;
      const userOk = sameSecret(decoded.slice(0, separator), options.username);
      const passwordOk = sameSecret(decoded.slice(separator + 1), options.password);
      return userOk && passwordOk;
    }
    return false;
  };

  const refuse = (
    res: ServerResponse,
    status: 401 | 403,
    headers: Record<string, string | string[]> = {},
  ) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
    res.end(JSON.stringify({ error: status === 401 ? 'unauthorized' : 'forbidden' }));
    return true;
  };

  return (req, path, res) => {
    if (path === webhookPath && allowed !== undefined) {
      const peer = peerAddress(req);
      if (peer === undefined || !allowed.check(peer.address, peer.family)) return refuse(res, 403);
      return false;
    }
    if (!needsCredentials || !PROTECTED_PATHS.has(path)) return false;
    if (credentialsOk(req.headers.authorization)) return false;
    const challenges = [
      ...(options.token === undefined ? [] : ['Bearer realm="supply-sync"']),
      ...(options.username === undefined ? [] : ['Basic realm="supply-sync", charset="UTF-8"']),
    ];
    return refuse(res, 401, { 'www-authenticate': challenges });
  };
}
