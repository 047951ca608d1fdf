/** Resolves the Bearer credential (API key or access token) to a client, enforcing part 5's rules. */
import { ProblemError } from '../http/types.js';
import type { Caller } from '../http/types.js';
import { ipAllowed } from './ip.js';
import { looksLikeJwt, verifyJwt } from './jwt.js';
import type { ApiClient } from './state.js';

export interface Authenticated {
  client: ApiClient;
  caller: Caller;
}

const unauthorized = (detail: string) => new ProblemError(401, 'unauthorized', detail);

export function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1] ?? null;
}

/** Key state checks shared by Bearer keys and the token endpoint's client_secret. */
export function checkClientUsable(client: ApiClient, nowMs: number, ip: string): void {
  if (client.revoked) throw new ProblemError(401, 'key_revoked', 'This API key has been revoked.');
  if (client.expiresAt !== null && Date.parse(client.expiresAt) <= nowMs) {
    throw new ProblemError(401, 'key_expired', 'This API key has expired; generate a new one.');
  }
  if (client.suspended) throw new ProblemError(403, 'client_suspended', 'This integration is suspended.');
  if (!ipAllowed(ip, client.ipAllowlist)) {
    throw new ProblemError(403, 'ip_not_allowed', 'Requests from this address are not in the allowlist.');
  }
}

export function toCaller(client: ApiClient, scopes: readonly string[]): Caller {
  return {
    accountId: client.accountId,
    accountType: client.accountType,
    clientId: client.id,
    clientName: client.name,
    keyId: client.keyId,
    scopes,
    plan: client.plan,
    branchIds: client.branchIds,
  };
}

export function authenticate(
  authorization: string | undefined,
  clients: readonly ApiClient[],
  jwtSecret: string,
  nowMs: number,
  ip: string,
): Authenticated {
  const token = bearerToken(authorization);
  if (token === null) throw unauthorized('Send the API key or an access token as a Bearer token.');
  if (looksLikeJwt(token)) {
    const claims = verifyJwt(token, jwtSecret);
    if (claims === null) throw unauthorized('The access token is not valid.');
    if (claims.exp * 1000 <= nowMs) throw unauthorized('The access token has expired; request a new one.');
    const client = clients.find((candidate) => candidate.id === claims.sub);
    if (!client) throw unauthorized('The access token is not valid.');
    checkClientUsable(client, nowMs, ip);
    const granted = claims.scope.split(' ').filter((scope) => scope !== '' && client.scopes.includes(scope));
    return { client, caller: toCaller(client, granted) };
  }
  const client = clients.find((candidate) => candidate.key === token);
  if (!client) throw unauthorized('The API key is not valid.');
  checkClientUsable(client, nowMs, ip);
  return { client, caller: toCaller(client, client.scopes) };
}
