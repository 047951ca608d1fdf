/** GET /me (part 2.3) and POST /oauth/token (part 4.1, gap G29). */
import { ProblemError } from '../http/types.js';
import type { PlanName, Reply, RouteDef } from '../http/types.js';
import { validationError } from '../http/problem.js';
import { checkClientUsable } from './auth.js';
import type { PlatformContext } from './context.js';
import { newId } from './ids.js';
import { signJwt } from './jwt.js';
import { keyPrefix } from './keys.js';
import { limitFor } from './rate-limit.js';
import type { ApiClient } from './state.js';

export const TOKEN_LIFETIME_SECONDS = 3600;

const FEATURES: Record<PlanName, string[]> = {
  supplier: ['webhooks', 'ip_allowlist'],
  Basic: ['webhooks'],
  Pro: ['buyer_api', 'webhooks', 'ip_allowlist'],
  Enterprise: ['buyer_api', 'webhooks', 'events', 'bulk_export', 'ip_allowlist', 'mtls', 'audit_api'],
};

export function meRoute(ctx: PlatformContext): RouteDef {
  return {
    method: 'GET',
    path: '/me',
    group: 'account',
    handle(req) {
      const client = ctx.state.clients.find((c) => c.id === req.caller.clientId);
      if (!client) throw new ProblemError(401, 'unauthorized', 'Unknown client.');
      return {
        status: 200,
        body: {
          account: {
            id: client.accountId,
            name: ctx.domain().accountName?.(client.accountId) ?? client.accountName,
            type: client.accountType,
            parent_id: null,
          },
          client: {
            id: client.id,
            name: client.name,
            environment: 'sandbox',
            key_prefix: keyPrefix(client.key),
            ip_allowlist: client.ipAllowlist,
            branch_ids: client.branchIds,
          },
          scopes: req.caller.scopes,
          plan: client.plan,
          features: FEATURES[client.plan],
          rate_limit: limitFor(client.plan, ctx.rateLimitOverrides),
          api_version: '2',
        },
      };
    },
  };
}

function field(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Validates the token request and finds the client; the caller applies the client's rate limit before `issue`.
 * 400 validation_error for a malformed request, 401 for unknown credentials, the key-state errors otherwise.
 */
export function resolveTokenClient(ctx: PlatformContext, body: unknown, ip: string): ApiClient {
  const grantType = field(body, 'grant_type');
  if (grantType !== 'client_credentials') {
    throw validationError(
      [
        grantType === undefined
          ? { field: 'grant_type', code: 'required', message: 'grant_type is required.' }
          : {
              field: 'grant_type',
              code: 'unsupported_value',
              message: 'Only client_credentials is supported.',
            },
      ],
      'The token request is not valid.',
      400,
    );
  }
  const clientId = field(body, 'client_id');
  const secret = field(body, 'client_secret');
  const missing = [
    ...(clientId === undefined ? [{ field: 'client_id', code: 'required' }] : []),
    ...(secret === undefined ? [{ field: 'client_secret', code: 'required' }] : []),
  ];
  if (missing.length > 0) throw validationError(missing, 'The token request is not valid.', 400);
  const client = ctx.state.clients.find((c) => c.id === clientId && c.key === secret);
  if (!client) throw new ProblemError(401, 'unauthorized', 'Unknown client_id or client_secret.');
  checkClientUsable(client, ctx.clock.now(), ip);
  return client;
}

export function issueToken(ctx: PlatformContext, client: ApiClient, body: unknown): Reply {
  const requested = field(body, 'scope');
  let scopes = client.scopes;
  if (requested !== undefined && requested.trim() !== '') {
    scopes = requested.trim().split(/\s+/);
    const unknown = scopes.filter((scope) => !client.scopes.includes(scope));
    if (unknown.length > 0) {
      throw validationError(
        [
          {
            field: 'scope',
            code: 'unsupported_value',
            message: `The client does not hold: ${unknown.join(' ')}.`,
          },
        ],
        'The token request is not valid.',
        400,
      );
    }
  }
  const iat = Math.floor(ctx.clock.now() / 1000);
  const scope = scopes.join(' ');
  const token = signJwt(
    { sub: client.id, scope, iat, exp: iat + TOKEN_LIFETIME_SECONDS, jti: newId('tok') },
    ctx.state.jwtSecret,
  );
  return {
    status: 200,
    headers: { 'Cache-Control': 'no-store' },
    body: { access_token: token, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_SECONDS, scope },
  };
}
