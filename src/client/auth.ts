/**
 * Credentials: the API key as a Bearer token, or a client_credentials exchange at POST /oauth/token whose
 * access token is cached, refreshed shortly before it expires, and refreshed once after a 401.
 */
import type { Clock } from '../shared/clock.js';
import { ApiError } from './errors.js';
import { parsers } from './parsers.js';
import type { Redactor } from './redact.js';
import type { Authenticator, Transport } from './transport.js';

export type AuthOptions =
  | { mode: 'api_key' }
  | {
      mode: 'client_credentials';
      /** The API client id; the API key is the client secret. */
      clientId: string;
      /** Space-separated scopes; default every scope of the client. */
      scope?: string;
      /** Refresh this long before expiry. Default 60 s. */
      refreshMarginMs?: number;
    };

export class ApiKeyAuthenticator implements Authenticator {
  constructor(private readonly apiKey: string) {}
  async authorization(): Promise<string> {
    return `Bearer ${this.apiKey}`;
  }
  async refreshAfterUnauthorized(): Promise<boolean> {
    return false;
  }
}

export interface AccessToken {
  accessToken: string;
  expiresAt: number;
  scope: string | undefined;
}

export const TOKEN_ROUTE = '/oauth/token';

export class ClientCredentialsAuthenticator implements Authenticator {
  private token: AccessToken | undefined;
  private pending: Promise<AccessToken> | undefined;
  private readonly refreshMarginMs: number;

  constructor(
    private readonly transport: Transport,
    private readonly clock: Clock,
    private readonly redactor: Redactor,
    private readonly credentials: { clientId: string; clientSecret: string; scope?: string },
    refreshMarginMs = 60_000,
  ) {
    this.refreshMarginMs = refreshMarginMs;
  }

  async authorization(signal?: AbortSignal): Promise<string> {
    const current = this.token;
    if (current && this.clock.now() < current.expiresAt - this.refreshMarginMs) {
      return `Bearer ${current.accessToken}`;
    }
    const fresh = await this.exchange(signal);
    return `Bearer ${fresh.accessToken}`;
  }

  async refreshAfterUnauthorized(signal?: AbortSignal): Promise<boolean> {
    this.token = undefined;
    await this.exchange(signal);
    return true;
  }

  /** One exchange at a time; concurrent callers share it. */
  private exchange(signal?: AbortSignal): Promise<AccessToken> {
    this.pending ??= this.requestToken(signal).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async requestToken(signal?: AbortSignal): Promise<AccessToken> {
    const { clientId, clientSecret, scope } = this.credentials;
    const response = await this.transport.request({
      method: 'POST',
      route: TOKEN_ROUTE,
      authenticate: false,
      json: {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
        ...(scope === undefined ? {} : { scope }),
      },
      ...(signal ? { call: { signal } } : {}),
    });
    const raw = response.body as { access_token?: unknown } | undefined;
    // Known as a secret before anything else can put it into a message.
    if (typeof raw?.access_token === 'string') this.redactor.add(raw.access_token);
    const parsed = parsers.token.parse(response.body);
    if (!parsed.ok || !(parsed.value.expires_in > 0)) {
      throw new ApiError({
        status: response.status,
        code: 'invalid_response',
        method: 'POST',
        path: TOKEN_ROUTE,
        requestId: response.requestId,
        message: this.redactor.redact(
          `POST /oauth/token returned no usable token: ${parsed.ok ? 'expires_in is 0' : parsed.reason}`,
        ),
      });
    }
    const token: AccessToken = {
      accessToken: parsed.value.access_token,
      expiresAt: this.clock.now() + parsed.value.expires_in * 1000,
      scope: parsed.value.scope,
    };
    this.token = token;
    return token;
  }
}
