import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeBatch } from './batch.js';
import { FaultPlan, type Fault } from './faults.js';
import { Gate, Unauthorized, type GateStats } from './gate.js';
import { metadataXml, type ErpModel } from './model.js';
import { PRIORITY_MODEL, PRIORITY_SEED, PRIORITY_SEED_DOCUMENTS } from './priority.js';
import { Resources, type Answer } from './resources.js';
import { SAP_B1_MODEL, SAP_B1_SEED, SAP_B1_SEED_DOCUMENTS } from './sap-b1.js';
import { ErpStore, ODataFault } from './store.js';

export type EmulatedErp = 'sap-b1-service-layer' | 'priority-rest';

/** One request as it reached the service, for a test's independent check of what the connector sends. */
export interface SeenRequest {
  readonly method: string;
  /** The path and query after the service root, as sent (percent-encoded). */
  readonly target: string;
  readonly body: string;
  /** True for a request inside a $batch. */
  readonly inBatch: boolean;
  /** The HTTP request's headers (none for a request inside a $batch). */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
}

export interface EmulatorOptions {
  readonly erp: EmulatedErp;
  readonly port?: number;
  readonly host?: string;
  /** Replaces the vendor model (a model without a user-defined field, for doctor's tests). */
  readonly model?: ErpModel;
  /** SAP: the company databases that exist. */
  readonly companies?: readonly string[];
  /** User name -> password (SAP Login, Priority Basic). */
  readonly users?: Readonly<Record<string, string>>;
  /** Priority personal access tokens. */
  readonly tokens?: readonly string[];
  /** SAP: a session unused this long answers 401 (the Service Layer's default is 30 minutes). */
  readonly sessionTimeoutMs?: number;
  /** SAP: entities per page before a next link (the Service Layer's default is 20). */
  readonly pageSize?: number;
  /** Priority: the most results one answer holds, with no next link (MAXAPILINES, 2,000 by default). */
  readonly maxResultLines?: number;
  /** SAP: Login answers a redirect there instead of a session (a proxy's sign-in page in front of the service). */
  readonly loginRedirect?: string;
  /**
   * Edm.Decimal and Edm.Int64 answered as strings, as for a client that asks IEEE754Compatible=true (OData JSON
   * Format 4.0, section 3.2); a request whose Accept asks for it gets them so too.
   */
  readonly ieee754Compatible?: boolean;
  /** Priority before 19.1: error answers as XML. */
  readonly xmlErrors?: boolean;
  /** An ERP that repeats the credentials it was given in its error messages (a test of redaction). */
  readonly echoCredentials?: boolean;
  readonly inspect?: (request: SeenRequest) => void;
  /** Called once a write was committed and its answer handed to the connection (kill -9 tests cut there). */
  readonly onCommit?: (write: { method: string; path: string; status: number }) => void;
}

export interface OdataEmulator {
  readonly serviceUrl: string;
  readonly store: ErpStore;
  readonly faults: FaultPlan;
  readonly stats: GateStats & { requests: number };
  /** Ends every session now, as a timeout or a restart of the service would. */
  expireSessions(): void;
  /**
   * Holds the next request whose path matches before its session is checked, until `release`; `reached` resolves
   * once it arrived. For tests of answers that come late (a 401 of a session ended meanwhile).
   */
  holdNext(path: RegExp): { reached: Promise<void>; release: () => void };
  close(): Promise<void>;
}

const ROOTS: Record<EmulatedErp, string> = {
  'sap-b1-service-layer': '/b1s/v2/',
  'priority-rest': '/odata/Priority/tabula.ini/demo/',
};

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** Sample data, less what a reduced model (without a field or an entity set) cannot hold. */
function seed(store: ErpStore, sap: boolean): void {
  const has = (set: string) => store.model.entitySets.some((candidate) => candidate.name === set);
  const fit = (set: string, entity: Record<string, unknown>) => {
    const type = store.typeOfSet(set);
    const names = new Set([...type.properties.map((p) => p.name), ...type.collections.map((c) => c.name)]);
    return Object.fromEntries(Object.entries(entity).filter(([name]) => names.has(name)));
  };
  for (const [set, rows] of Object.entries(sap ? SAP_B1_SEED : PRIORITY_SEED)) {
    if (has(set))
      store.seed(
        set,
        rows.map((row) => fit(set, row)),
      );
  }
  for (const { set, entity } of sap ? SAP_B1_SEED_DOCUMENTS : PRIORITY_SEED_DOCUMENTS) {
    if (has(set)) store.create(set, fit(set, entity));
  }
}

/** One emulated ERP over HTTP: sign-in, $metadata, resources, $batch and injected faults. */
class EmulatedService {
  readonly sap: boolean;
  readonly store: ErpStore;
  readonly faults = new FaultPlan();
  readonly stats = { logins: 0, logouts: 0, expired: 0, requests: 0 };
  readonly gate: Gate;
  readonly hanging = new Set<ServerResponse>();
  readonly holds: Array<{ path: RegExp; arrived: () => void; released: Promise<void> }> = [];
  readonly #resources: Resources;
  readonly #root: string;

  constructor(private readonly options: EmulatorOptions) {
    this.sap = options.erp === 'sap-b1-service-layer';
    this.store = new ErpStore(options.model ?? (this.sap ? SAP_B1_MODEL : PRIORITY_MODEL));
    seed(this.store, this.sap);
    this.#root = ROOTS[options.erp];
    this.gate = new Gate(
      {
        sap: this.sap,
        companies: options.companies ?? ['SBODEMOUS'],
        users: options.users ?? { manager: 'manager' },
        tokens: options.tokens ?? [],
        timeoutMs: options.sessionTimeoutMs ?? 30 * 60_000,
        echoCredentials: options.echoCredentials === true,
      },
      this.stats,
    );
    this.#resources = new Resources(
      this.store,
      this.sap
        ? { kind: 'links', pageSize: options.pageSize ?? 20 }
        : { kind: 'cap', maxLines: options.maxResultLines ?? 2000 },
      this.sap,
      (message) => this.errorBody(message),
      (request) =>
        options.inspect?.({
          method: request.method,
          target: request.path,
          body: request.body,
          inBatch: true,
        }),
    );
  }

  get root(): string {
    return this.#root;
  }

  /**
   * SAP: `{ error: { code, message: { lang, value } } }` ("Working with SAP Business One Service Layer", error
   * handling). Priority: the form's errors, `FORM.InterfaceErrors.text` (_restapi/6.restModify.md "Error
   * Handling"), as JSON since 19.1 and XML before (_restapi/1.introduction.md "Error Message Format"). The guide
   * shows only the XML; the JSON keeps the same element names (choice E1 in connectors/odata/README.md, "Emulator choices": not confirmed
   * on a real installation).
   */
  errorBody(message: string, code = -1): unknown {
    if (this.sap) return { error: { code, message: { lang: 'en-us', value: message } } };
    if (this.options.xmlErrors === true) {
      const text = message.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
      return `<FORM TYPE="FORM"><InterfaceErrors><text>${text}</text></InterfaceErrors></FORM>`;
    }
    return { FORM: { InterfaceErrors: { text: message } } };
  }

  send(
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string | string[]> = {},
  ): void {
    const json =
      typeof body !== 'string'
        ? 'application/json; odata.metadata=minimal'
        : body.startsWith('<')
          ? 'application/xml'
          : 'text/plain';
    response.writeHead(status, { 'content-type': json, 'odata-version': '4.0', ...headers });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.stats.requests += 1;
    const body = await readBody(request);
    const target = new URL(request.url ?? '/', 'http://emulator');
    const method = request.method ?? 'GET';
    if (!target.pathname.startsWith(this.#root)) throw new ODataFault(404, 'not a path of this service');
    const path = decodeURIComponent(target.pathname.slice(this.#root.length));
    this.options.inspect?.({
      method,
      target: (request.url ?? '').slice(this.#root.length),
      body,
      inBatch: false,
      headers: request.headers,
    });
    const hold = this.holds.findIndex((candidate) => candidate.path.test(path));
    if (hold >= 0) {
      const [held] = this.holds.splice(hold, 1);
      held?.arrived();
      await held?.released;
    }
    if (this.sap && path === 'Login' && method === 'POST') {
      if (this.options.loginRedirect !== undefined) {
        return this.send(response, 302, '', { location: this.options.loginRedirect });
      }
      const { body: session, cookies } = this.gate.login(body);
      return this.send(response, 200, session, { 'set-cookie': cookies });
    }
    this.gate.authorize(request);
    if (this.sap && path === 'Logout' && method === 'POST') {
      this.gate.logout(request);
      return this.send(response, 204, '');
    }
    if (path === '$metadata') {
      response.writeHead(200, { 'content-type': 'application/xml' });
      return void response.end(metadataXml(this.store.model));
    }
    const fault = this.faults.take(method, path);
    if (fault?.kind === 'refuse') {
      return this.send(response, fault.status ?? 503, this.errorBody('Service is busy'), {
        'retry-after': '0',
      });
    }
    const numbersAsStrings =
      this.options.ieee754Compatible === true || /IEEE754Compatible=true/i.test(request.headers.accept ?? '');
    const answer = this.#answer(
      method,
      target,
      path,
      body,
      request.headers['content-type'] ?? '',
      numbersAsStrings,
    );
    this.#reply(request, response, answer, fault);
    if (method !== 'GET' && answer.status < 300)
      this.options.onCommit?.({ method, path, status: answer.status });
  }

  #answer(
    method: string,
    target: URL,
    path: string,
    body: string,
    contentType: string,
    numbersAsStrings: boolean,
  ): Answer & { type?: string } {
    if (method === 'GET') return { status: 200, body: this.#resources.read(target, path, numbersAsStrings) };
    if (path !== '$batch') return this.#resources.write(method, path, body);
    const boundary = `batchresponse_${randomUUID()}`;
    const results = this.#resources.batch(body, contentType);
    const text = results.map((result) => writeBatch(result.answers, boundary, result.failed)).join('');
    return { status: 200, body: text, type: `multipart/mixed; boundary=${boundary}` };
  }

  /** The answer, or the fault that replaces it once the change is committed. */
  #reply(
    request: IncomingMessage,
    response: ServerResponse,
    answer: Answer & { type?: string },
    fault: Fault | null,
  ): void {
    if (fault?.kind === 'fail-after-commit')
      return this.send(response, fault.status ?? 500, this.errorBody('Internal error'));
    if (fault?.kind === 'drop-after-commit') return void request.socket.destroy();
    if (fault?.kind === 'hang-after-commit') return void this.hanging.add(response);
    const headers: Record<string, string> = answer.type === undefined ? {} : { 'content-type': answer.type };
    this.send(response, answer.status, answer.body, headers);
  }
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve) =>
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port)),
  );
}

/** Starts the emulated service of one ERP, seeded with sample master data and documents. */
export async function startOdataEmulator(options: EmulatorOptions): Promise<OdataEmulator> {
  const service = new EmulatedService(options);
  const server = createServer((request, response) => {
    service.handle(request, response).catch((error: unknown) => {
      const status = error instanceof ODataFault ? error.status : error instanceof SyntaxError ? 400 : 500;
      const message = error instanceof Error ? error.message : String(error);
      const code = error instanceof Unauthorized ? error.code : undefined;
      if (!response.headersSent) service.send(response, status, service.errorBody(message, code));
    });
  });
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port ?? 0, host);
  return {
    serviceUrl: `http://${host}:${port}${service.root}`,
    store: service.store,
    faults: service.faults,
    stats: service.stats,
    expireSessions: () => service.gate.expireAll(),
    holdNext: (path) => {
      let arrived = () => {};
      let release = () => {};
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      service.holds.push({ path, arrived, released });
      return { reached, release };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of service.hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
