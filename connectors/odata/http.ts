import { performance } from 'node:perf_hooks';
import type { Agent, Dispatcher } from 'undici';
import type { CommitGate } from '../../src/connector-contract/commit-gate.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import { lazy, loadUndici, type Lazy } from '../../src/shared/lazy-packages.js';
import type { OdataAuth } from './config.js';
import { httpError, odataErrorMessage, withoutSecrets } from './errors.js';

export interface OdataResponse {
  readonly status: number;
  readonly body: unknown;
  readonly text: string;
}

export interface SendOptions {
  readonly body?: string;
  readonly contentType?: string;
  /** What the request does, for errors (`orders.create`). */
  readonly what: string;
  /**
   * For a write: asked right before each attempt (the first, and the repeat after a new sign-in); the attempt is
   * not sent once the allowance's deadline has passed, and is abandoned when it is not answered by then.
   */
  readonly gate?: CommitGate;
}

/** How often a write whose allowance ran out before it left asks the gate again before giving up. */
const ADMISSIONS = 3;

/** An attempt whose allowance ended before the request left: nothing was sent. */
class NotSent extends Error {}

const JSON_TYPE = 'application/json';

/** An answer with the session cookies it set and the ones its request was sent with. */
type SentResponse = OdataResponse & { cookies: string; sentWith: string | null };

/**
 * HTTP to one OData service, signed in as the config says: Basic (user and password, or a Priority personal access
 * token with the password `PAT`), or an SAP Business One Service Layer session (Login, B1SESSION and ROUTEID cookies,
 * a new Login when the service answers 401 because the session expired, Logout on close). Errors never carry a
 * credential: every text from the network passes withoutSecrets.
 */
export class OdataHttp {
  /** Made at the first request. */
  readonly #agent: Lazy<Agent>;
  readonly #root: URL;
  #cookies: string | null = null;
  #login: Promise<void> | null = null;
  /** Logins made, for tests and doctor. */
  logins = 0;

  constructor(
    serviceUrl: string,
    private readonly auth: OdataAuth,
    private readonly timeoutMs: number,
    private readonly connector: string,
    /** Priority's per-application license headers (_restapi/1.introduction.md "Application License"). */
    private readonly license?: { readonly app_id: string; readonly app_key: string },
  ) {
    this.#root = new URL(serviceUrl.endsWith('/') ? serviceUrl : `${serviceUrl}/`);
    this.#agent = lazy(async () => {
      const undici = await loadUndici();
      return new undici.Agent({
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        connectTimeout: timeoutMs,
      });
    });
  }

  /** Where the service is, without credentials. */
  get where(): string {
    return `${this.#root.origin}${this.#root.pathname}`;
  }

  /** A path relative to the service root (or an absolute next link) as a URL. */
  url(path: string): URL {
    return new URL(path, this.#root);
  }

  async send(method: Dispatcher.HttpMethod, path: string, options: SendOptions): Promise<OdataResponse> {
    await this.#ensureSession();
    const first = await this.#attempt(method, path, options);
    if (first.status !== 401 || this.auth.kind !== 'sap-b1-session')
      return this.#checked(first, options.what);
    // The session expired (or the service restarted): sign in again and repeat the request, a write asking its
    // gate again, since the sign-in took time of its allowance. One Login per expired session: a late 401 of a
    // request sent with the old session, answered after another request already signed in again, keeps the new
    // session and repeats with it (dropping it would leave a live session behind, never logged out).
    if (this.#cookies === first.sentWith) this.#cookies = null;
    await this.#ensureSession();
    return this.#checked(await this.#attempt(method, path, options), options.what);
  }

  /**
   * One attempt; a write asks its gate first and is cut at the allowance's deadline. An allowance found already
   * over when the request is about to leave (the process was stopped in between) sends nothing and asks again.
   */
  async #attempt(method: Dispatcher.HttpMethod, path: string, options: SendOptions): Promise<SentResponse> {
    const { gate } = options;
    if (gate === undefined) return this.#raw(method, path, options);
    for (let asked = 1; ; asked += 1) {
      const allowance = await gate();
      try {
        return await this.#raw(method, path, options, true, allowance?.deadline);
      } catch (error) {
        if (!(error instanceof NotSent)) throw error;
        if (asked >= ADMISSIONS) {
          throw new ConnectorError(
            'connector_unreachable',
            `${options.what}: not sent: the time the commit gate allowed had passed before the request could leave, ${asked} times`,
            { connector: this.connector, retryable: true },
          );
        }
      }
    }
  }

  /** Signs in now unless signed in (doctor and health), so a wrong password shows before any capability runs. */
  signIn(): Promise<void> {
    return this.#ensureSession();
  }

  async close(): Promise<void> {
    try {
      if (this.auth.kind === 'sap-b1-session' && this.#cookies !== null) {
        await this.#raw('POST', 'Logout', { what: 'Logout' });
        this.#cookies = null;
      }
    } catch {
      // A failed Logout leaves a session that expires by itself; closing goes on.
    } finally {
      const made = await this.#agent.started()?.catch(() => undefined);
      await made?.close();
    }
  }

  get #secrets(): string[] {
    const own = this.auth.kind === 'personal-access-token' ? [this.auth.token] : [this.auth.password];
    return this.license === undefined ? own : [...own, this.license.app_key];
  }

  #checked(response: OdataResponse, what: string): OdataResponse {
    if (response.status < 400) return response;
    const said = odataErrorMessage(response.body, response.text);
    const message = said === undefined ? undefined : withoutSecrets(said, this.#secrets);
    if (response.status !== 401) throw httpError(this.connector, what, response.status, message);
    const keys =
      this.auth.kind === 'personal-access-token' ? 'auth.token' : 'auth.username and auth.password';
    throw new ConnectorError(
      'connector_config_invalid',
      `${what}: HTTP 401 (sign-in refused); check ${keys}`,
      {
        connector: this.connector,
        retryable: false,
      },
    );
  }

  #ensureSession(): Promise<void> {
    if (this.auth.kind !== 'sap-b1-session' || this.#cookies !== null) return Promise.resolve();
    this.#login ??= this.#signInToServiceLayer(this.auth).finally(() => {
      this.#login = null;
    });
    return this.#login;
  }

  async #signInToServiceLayer(auth: Extract<OdataAuth, { kind: 'sap-b1-session' }>): Promise<void> {
    const body = JSON.stringify({
      CompanyDB: auth.company_db,
      UserName: auth.username,
      Password: auth.password,
    });
    const response = await this.#raw('POST', 'Login', { body, contentType: JSON_TYPE, what: 'Login' }, false);
    if (response.status >= 400) {
      const message = odataErrorMessage(response.body, response.text);
      const said = message === undefined ? '' : `: ${withoutSecrets(message, this.#secrets)}`;
      if (response.status === 401 || response.status === 400) {
        throw new ConnectorError(
          'connector_config_invalid',
          `Login refused (HTTP ${response.status}${said}); check auth.company_db ("${auth.company_db}"), ` +
            `auth.username ("${auth.username}") and auth.password`,
          { connector: this.connector, retryable: false },
        );
      }
      throw httpError(this.connector, 'Login', response.status, said === '' ? undefined : said.slice(2));
    }
    // Only a session counts as signed in: a redirect (a proxy's sign-in page) or an answer without B1SESSION is not.
    if (response.status !== 200 || !/(^|; )B1SESSION=/.test(response.cookies)) {
      throw new ConnectorError(
        'connector_config_invalid',
        `Login answered HTTP ${response.status} without a B1SESSION session cookie; check service_url: it must ` +
          'name the Service Layer itself (https://<server>:50000/b1s/v2/), not a page in front of it',
        { connector: this.connector, retryable: false },
      );
    }
    this.#cookies = response.cookies;
    this.logins += 1;
  }

  /**
   * One request. With a `deadline` (performance.now()), it is not sent once the deadline has passed, and is
   * abandoned, its connection closed, when it has no whole answer by then: a failure of unknown outcome.
   */
  async #raw(
    method: Dispatcher.HttpMethod,
    path: string,
    options: SendOptions,
    signed = true,
    deadline?: number,
  ): Promise<SentResponse> {
    const headers: Record<string, string> = { accept: JSON_TYPE, 'odata-version': '4.0' };
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    const authorization = signed ? this.#authorization() : undefined;
    if (authorization !== undefined) headers['authorization'] = authorization;
    if (this.license !== undefined) {
      headers['x-app-id'] = this.license.app_id;
      headers['x-app-key'] = this.license.app_key;
    }
    const sentWith = signed ? this.#cookies : null;
    if (sentWith !== null) headers['cookie'] = sentWith;
    const [{ request }, agent] = await Promise.all([loadUndici(), this.#agent.get()]);
    const cut = deadline === undefined ? undefined : cutAt(deadline);
    try {
      const response = await request(this.url(path), {
        method,
        headers,
        body: options.body ?? null,
        dispatcher: agent,
        ...(cut === undefined ? {} : { signal: cut.signal }),
      });
      const text = await response.body.text();
      return {
        status: response.statusCode,
        text,
        body: parseJson(text),
        cookies: sessionCookies(response.headers['set-cookie']),
        sentWith,
      };
    } catch (error) {
      if (error instanceof NotSent) throw error;
      const reason =
        cut?.signal.aborted === true
          ? `no answer within the time the commit gate allowed (${Math.round(cut.allowedMs)} ms); the request may or may not have been applied`
          : error instanceof Error
            ? error.message
            : String(error);
      throw new ConnectorError(
        'connector_unreachable',
        `${options.what}: ${this.where} did not answer: ${withoutSecrets(reason, this.#secrets)}`,
        { connector: this.connector, retryable: true },
      );
    } finally {
      cut?.clear();
    }
  }

  #authorization(): string | undefined {
    if (this.auth.kind === 'basic') return basic(this.auth.username, this.auth.password);
    // Priority: the token as user name and the fixed password PAT.
    if (this.auth.kind === 'personal-access-token') return basic(this.auth.token, 'PAT');
    return undefined;
  }
}

/**
 * A signal that aborts at `deadline` (performance.now()); throws NotSent when that has passed already, checked
 * here, right before the request is handed to the network. A timer of a stopped process fires as soon as it runs
 * again, so a request left unanswered by a freeze is abandoned then.
 */
function cutAt(deadline: number): { signal: AbortSignal; allowedMs: number; clear: () => void } {
  const allowedMs = deadline - performance.now();
  if (allowedMs <= 0) throw new NotSent();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('the write allowance ended')), allowedMs);
  timer.unref();
  return { signal: controller.signal, allowedMs, clear: () => clearTimeout(timer) };
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** `name=value` pairs of the Set-Cookie headers (B1SESSION, ROUTEID), as one Cookie header. */
function sessionCookies(header: string | string[] | undefined): string {
  const all = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return all
    .map((cookie) => cookie.split(';')[0]?.trim() ?? '')
    .filter((pair) => pair.includes('='))
    .join('; ');
}
