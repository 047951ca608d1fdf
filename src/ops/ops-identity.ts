/**
 * Who is calling the operations server: a named user of server.auth with its role, the local operator (the token
 * file only this host's service user can read, sent from this host without a proxy), an anonymous caller, or one
 * refused (wrong credentials: 401; too many of them from one address: 429). Asked once per request, so the ops
 * routes and the control API count a failed login once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  addressList,
  callerAddress,
  hasForwardingHeaders,
  isLoopbackPeer,
  shownAddress,
  type CallerAddress,
} from './caller-address.js';
import { matchCredential, type Credential, type Role } from './credentials.js';
import { createLoginThrottle, type LoginThrottle } from './login-throttle.js';

export type Identity =
  | { readonly kind: 'anonymous'; readonly address: CallerAddress }
  | {
      readonly kind: 'refused';
      readonly status: 401 | 403 | 429;
      readonly detail: string;
      readonly retryAfter?: number;
      readonly address: CallerAddress;
    }
  | {
      readonly kind: 'user';
      readonly name: string;
      readonly role: Role;
      /** As recorded: `api:alice@203.0.113.9 via 127.0.0.1`, `local:svc@127.0.0.1`. */
      readonly who: string;
      readonly address: CallerAddress;
    };

export interface OpsIdentityOptions {
  readonly credentials: readonly Credential[];
  /** The local operator's token and the OS user it is named after; undefined when none was written. */
  readonly local?: { readonly token: string; readonly user: string } | undefined;
  readonly trustedProxies?: readonly string[];
  readonly throttle?: LoginThrottle;
}

export interface OpsIdentity {
  identify(req: IncomingMessage): Identity;
  /** server.auth is configured: /metrics and /status need a viewer. */
  readonly protectsReading: boolean;
  /** Someone can act at all (a user of server.auth or the local token): the control API is served. */
  readonly servesControl: boolean;
  /** The WWW-Authenticate challenges of a 401. */
  readonly challenges: readonly string[];
}

const LOCAL_ONLY =
  'the local token is taken only from this host, never through a proxy: use a user of server.auth there';

export function createOpsIdentity(options: OpsIdentityOptions): OpsIdentity {
  const trusted = addressList(options.trustedProxies ?? []);
  const throttle = options.throttle ?? createLoginThrottle();
  const local = options.local;
  const localCredential: Credential[] =
    local === undefined ? [] : [{ name: local.user, role: 'operator', token: local.token }];
  const seen = new WeakMap<IncomingMessage, Identity>();

  const decide = (req: IncomingMessage): Identity => {
    const address = callerAddress(req, trusted);
    const header = req.headers.authorization;
    if (header === undefined) return { kind: 'anonymous', address };
    const key = address.forwardedFor ?? address.peer;
    const wait = throttle.retryAfterSeconds(key);
    if (wait > 0) {
      const detail = `too many failed logins from ${key}: try again in ${wait} s`;
      return { kind: 'refused', status: 429, detail, retryAfter: wait, address };
    }
    const at = shownAddress(address);
    if (matchCredential(header, localCredential) !== undefined) {
      if (hasForwardingHeaders(req) || !isLoopbackPeer(req))
        return { kind: 'refused', status: 403, detail: LOCAL_ONLY, address };
      return {
        kind: 'user',
        name: local?.user ?? 'local',
        role: 'operator',
        who: `local:${local?.user}@${at}`,
        address,
      };
    }
    const user = matchCredential(header, options.credentials);
    if (user !== undefined) {
      return { kind: 'user', name: user.name, role: user.role, who: `api:${user.name}@${at}`, address };
    }
    throttle.failed(key);
    return { kind: 'refused', status: 401, detail: 'missing or wrong credentials', address };
  };

  const hasBasic = options.credentials.some((c) => c.password !== undefined);
  return {
    identify(req) {
      const known = seen.get(req);
      if (known !== undefined) return known;
      const identity = decide(req);
      seen.set(req, identity);
      return identity;
    },
    protectsReading: options.credentials.length > 0,
    servesControl: options.credentials.length > 0 || local !== undefined,
    challenges: [
      'Bearer realm="supply-sync"',
      ...(hasBasic ? ['Basic realm="supply-sync", charset="UTF-8"'] : []),
    ],
  };
}

/** The answer to a caller who may not go on: 401 with the challenges, 403, or 429 with Retry-After. */
export function writeRefusal(
  res: ServerResponse,
  identity: OpsIdentity,
  refusal: { status: 401 | 403 | 429; retryAfter?: number | undefined },
  body: Record<string, unknown>,
): void {
  const headers: Record<string, string | string[]> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  };
  if (refusal.status === 401) headers['www-authenticate'] = [...identity.challenges];
  if (refusal.retryAfter !== undefined) headers['retry-after'] = String(refusal.retryAfter);
  res.writeHead(refusal.status, headers);
  res.end(JSON.stringify(body));
}
