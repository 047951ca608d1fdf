import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ODataFault } from './store.js';

export class Unauthorized extends ODataFault {
  constructor(
    message: string,
    /** SAP's error code in the body: 301 for a session that is gone. */
    readonly code = -1,
  ) {
    super(401, message);
  }
}

export interface GateOptions {
  readonly sap: boolean;
  readonly companies: readonly string[];
  readonly users: Readonly<Record<string, string>>;
  readonly tokens: readonly string[];
  readonly timeoutMs: number;
  readonly echoCredentials: boolean;
}

export interface GateStats {
  logins: number;
  logouts: number;
  expired: number;
}

const sessionOf = (request: IncomingMessage) => /B1SESSION=([^;\s]+)/.exec(request.headers.cookie ?? '')?.[1];
const ROUTE = '.node1';
const routedHere = (request: IncomingMessage) =>
  /(^|;\s*)ROUTEID=([^;\s]+)/.exec(request.headers.cookie ?? '')?.[2] === ROUTE;

/**
 * Who may call the emulated service.
 *
 * SAP ("Working with SAP Business One Service Layer", Login and Logout; Session Timeout; load balancing): Login with
 * CompanyDB, UserName and Password opens a session, answered with two Set-Cookie headers, B1SESSION and ROUTEID (the
 * load balancer's route to the node holding the session). A request without the ROUTEID of that node reaches another
 * node, which does not know the session (choice E4 in connectors/odata/README.md: a 401 as for an unknown session).
 * A session ends on Logout or after `timeoutMs` unused; from then on requests answer 401 with error code 301.
 *
 * Priority (_restapi/3.restAuthenticate.md "Basic Authentication", "Personal Access Token (PAT)"): Basic with an
 * API user's password, or a personal access token as the user name with the password PAT.
 */
export class Gate {
  readonly #sessions = new Map<string, number>();

  constructor(
    private readonly options: GateOptions,
    readonly stats: GateStats,
  ) {}

  login(body: string): { body: unknown; cookies: string[] } {
    const credentials = JSON.parse(body === '' ? '{}' : body) as Record<string, unknown>;
    const { CompanyDB: company, UserName: user, Password: password } = credentials;
    const echo = this.options.echoCredentials ? ` (user ${String(user)}, password ${String(password)})` : '';
    if (typeof company !== 'string' || !this.options.companies.includes(company)) {
      throw new Unauthorized(`Company database '${String(company)}' does not exist${echo}`);
    }
    if (typeof user !== 'string' || this.options.users[user] !== password) {
      throw new Unauthorized(`Invalid login credential${echo}`);
    }
    const session = randomUUID();
    this.#sessions.set(session, Date.now());
    this.stats.logins += 1;
    return {
      body: {
        SessionId: session,
        Version: '1000000',
        SessionTimeout: Math.round(this.options.timeoutMs / 60_000),
      },
      cookies: [`B1SESSION=${session}; path=/b1s; HttpOnly`, `ROUTEID=${ROUTE}; path=/b1s`],
    };
  }

  logout(request: IncomingMessage): void {
    const session = sessionOf(request);
    if (session !== undefined) this.#sessions.delete(session);
    this.stats.logouts += 1;
  }

  /** Throws Unauthorized unless the request carries a live session (SAP) or valid Basic credentials. */
  authorize(request: IncomingMessage): void {
    if (!this.options.sap) return this.#authorizeBasic(request);
    const session = sessionOf(request);
    const last = session === undefined ? undefined : this.#sessions.get(session);
    if (session === undefined || last === undefined || Date.now() - last > this.options.timeoutMs) {
      if (session !== undefined && this.#sessions.delete(session)) this.stats.expired += 1;
      throw new Unauthorized('Invalid session or session already timeout.', 301);
    }
    if (!routedHere(request))
      throw new Unauthorized('Invalid session (no route to the node of this session).', 301);
    this.#sessions.set(session, Date.now());
  }

  expireAll(): void {
    this.stats.expired += this.#sessions.size;
    this.#sessions.clear();
  }

  #authorizeBasic(request: IncomingMessage): void {
    const encoded = (request.headers.authorization ?? '').replace(/^Basic /, '');
    const [user, password] = Buffer.from(encoded, 'base64').toString('utf8').split(':');
    const byToken = password === 'PAT' && this.options.tokens.includes(user ?? '');
    if (!byToken && (user === undefined || this.options.users[user] !== password)) {
      throw new Unauthorized('Unauthorized');
    }
  }
}
