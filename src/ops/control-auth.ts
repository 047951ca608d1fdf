/**
 * Who calls the control API, and whether they may: a viewer reads (the GET routes), an operator acts (POST). The
 * caller is a user of server.auth or the local operator (see ops-identity.ts); nobody acts without credentials.
 * A change (POST) must also come as JSON: a browser sends a cross-site form or a simple request without that
 * content type, and a cross-site JSON request needs a CORS preflight this server never grants.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { shownAddress } from './caller-address.js';
import { writeRefusal, type Identity, type OpsIdentity } from './ops-identity.js';

export interface ControlAuthOptions {
  readonly identity: OpsIdentity;
}

export type ControlCaller =
  | { readonly ok: true; readonly who: string }
  | {
      readonly ok: false;
      readonly status: 401 | 403 | 429;
      readonly body: Record<string, unknown>;
      readonly retryAfter?: number | undefined;
      /** For the log line: the name when known, and the address. */
      readonly who: string;
    };

function refusedFor(identity: Identity, method: string): ControlCaller | undefined {
  const from = shownAddress(identity.address);
  if (identity.kind === 'anonymous') {
    const detail = 'credentials needed: a user of server.auth, or on this host the local token';
    return {
      ok: false,
      status: 401,
      body: { error: 'unauthorized', detail },
      who: `unauthenticated@${from}`,
    };
  }
  if (identity.kind === 'refused') {
    const error = { 401: 'unauthorized', 403: 'forbidden', 429: 'too_many_failed_logins' }[identity.status];
    const { status, detail, retryAfter } = identity;
    return { ok: false, status, body: { error, detail }, retryAfter, who: `unauthenticated@${from}` };
  }
  if (method !== 'GET' && identity.role !== 'operator') {
    const detail = `${identity.name} is a viewer: changes need a user with role operator in server.auth.users`;
    return { ok: false, status: 403, body: { error: 'forbidden', detail }, who: identity.who };
  }
  return undefined;
}

/** The caller, or why not; null when the control API is not served at all (nobody could act). */
export function controlAuth(
  options: ControlAuthOptions,
): ((req: IncomingMessage, method: string) => ControlCaller) | null {
  const { identity } = options;
  if (!identity.servesControl) return null;
  return (req, method) => {
    const caller = identity.identify(req);
    const refused = refusedFor(caller, method);
    if (refused !== undefined) return refused;
    return { ok: true, who: caller.kind === 'user' ? caller.who : 'unknown' };
  };
}

export function sendControlRefusal(
  res: ServerResponse,
  options: ControlAuthOptions,
  caller: Extract<ControlCaller, { ok: false }>,
): void {
  writeRefusal(res, options.identity, caller, caller.body);
}

/** A change must come as JSON (see above). */
export function isJsonRequest(req: IncomingMessage): boolean {
  return /^application\/json\b/i.test(req.headers['content-type'] ?? '');
}
