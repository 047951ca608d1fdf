import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBatch, writeBatch, type BatchAnswer } from './batch.js';
import { FaultPlan } from './faults.js';
import { metadataXml, type ErpModel } from './model.js';
import { PRIORITY_MODEL, PRIORITY_SEED, PRIORITY_SEED_DOCUMENTS } from './priority.js';
import { SAP_B1_MODEL, SAP_B1_SEED, SAP_B1_SEED_DOCUMENTS } from './sap-b1.js';
import { ErpStore, ODataFault, type Entity } from './store.js';

export type EmulatedErp = 'sap-b1-service-layer' | 'priority-rest';

/** One request as it reached the service, for a test's independent check of what the connector sends. */
export interface SeenRequest {
  readonly method: string;
  /** The path and query after the service root, as sent (percent-encoded). */
  readonly target: string;
  readonly body: string;
  /** True for a request inside a $batch. */
  readonly inBatch: boolean;
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
  readonly pageSize?: number;
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
  readonly stats: { logins: number; logouts: number; requests: number; expired: number };
  /** Ends every session now, as a timeout or a restart of the service would. */
  expireSessions(): void;
  close(): Promise<void>;
}

const ROOTS: Record<EmulatedErp, string> = {
  'sap-b1-service-layer': '/b1s/v2/',
  'priority-rest': '/odata/Priority/tabula.ini/demo/',
};

class Unauthorized extends ODataFault {
  constructor(message: string) {
    super(401, message);
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** `(5)`, `('SO1')`, `(IVNUM='T1',IVTYPE='A')` against the type's key names. */
function parseKey(text: string, keyNames: readonly string[]): Record<string, unknown> {
  const literal = (raw: string): unknown => {
    if (raw.startsWith("'") && raw.endsWith("'")) return raw.slice(1, -1).replaceAll("''", "'");
    if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
    throw new ODataFault(400, `key literal ${raw} is malformed`);
  };
  const pieces = [...text.matchAll(/(?:([A-Za-z_]\w*)=)?('(?:[^']|'')*'|[^,]+)/g)];
  if (pieces.length === 1 && pieces[0]?.[1] === undefined && keyNames.length === 1) {
    return { [keyNames[0] ?? '']: literal(pieces[0]?.[2] ?? '') };
  }
  const key: Record<string, unknown> = {};
  for (const piece of pieces) key[piece[1] ?? ''] = literal(piece[2] ?? '');
  if (keyNames.some((name) => !(name in key)))
    throw new ODataFault(400, `the key needs ${keyNames.join(', ')}`);
  return key;
}

interface Route {
  readonly set: string;
  readonly key: Record<string, unknown> | null;
  readonly segment: string | null;
}

function route(store: ErpStore, path: string): Route {
  const match = /^([A-Za-z_]\w*)(?:\(([^)]*)\))?(?:\/([A-Za-z_]\w*))?$/.exec(path);
  if (match === null) throw new ODataFault(404, `Resource not found for the segment '${path}'`);
  const set = match[1] ?? '';
  const type = store.typeOfSet(set);
  return {
    set,
    key: match[2] === undefined ? null : parseKey(match[2], type.key),
    segment: match[3] ?? null,
  };
}

/** The JSON of an entity as a read returns it: $select applied, navigation collections only when expanded. */
function shaped(
  store: ErpStore,
  set: string,
  entity: Entity,
  select: string[] | null,
  expand: string | null,
): Entity {
  const type = store.typeOfSet(set);
  const out: Entity = {};
  for (const property of type.properties) {
    if (select === null || select.includes(property.name) || type.key.includes(property.name))
      out[property.name] = entity[property.name] ?? null;
  }
  for (const collection of type.collections) {
    const wanted =
      collection.kind === 'complex'
        ? select === null || select.includes(collection.name)
        : expand === collection.name;
    if (wanted) out[collection.name] = entity[collection.name] ?? [];
  }
  return out;
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

/** Starts the emulated service of one ERP, seeded with sample master data and documents. */
export async function startOdataEmulator(options: EmulatorOptions): Promise<OdataEmulator> {
  const sap = options.erp === 'sap-b1-service-layer';
  const store = new ErpStore(options.model ?? (sap ? SAP_B1_MODEL : PRIORITY_MODEL));
  seed(store, sap);
  const faults = new FaultPlan();
  const stats = { logins: 0, logouts: 0, requests: 0, expired: 0 };
  const sessions = new Map<string, number>();
  const users = options.users ?? { manager: 'manager' };
  const companies = options.companies ?? ['SBODEMOUS'];
  const timeoutMs = options.sessionTimeoutMs ?? 30 * 60_000;
  const pageSize = options.pageSize ?? 20;
  const root = ROOTS[options.erp];
  const hanging = new Set<ServerResponse>();

  const errorBody = (message: string) =>
    sap
      ? { error: { code: -1, message: { lang: 'en-us', value: message } } }
      : { error: { code: '', message } };

  const send = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    response.writeHead(status, {
      'content-type': 'application/json; odata.metadata=minimal',
      'odata-version': '4.0',
      ...headers,
    });
    response.end(text);
  };

  const login = (body: string): { status: number; body: unknown; headers?: Record<string, string> } => {
    const credentials = JSON.parse(body === '' ? '{}' : body) as Record<string, unknown>;
    const [company, user, password] = [
      credentials['CompanyDB'],
      credentials['UserName'],
      credentials['Password'],
    ];
    const echo =
      options.echoCredentials === true ? ` (user ${String(user)}, password ${String(password)})` : '';
    if (typeof company !== 'string' || !companies.includes(company)) {
      throw new Unauthorized(`Company database '${String(company)}' does not exist${echo}`);
    }
    if (typeof user !== 'string' || users[user] !== password)
      throw new Unauthorized(`Invalid login credential${echo}`);
    const session = randomUUID();
    sessions.set(session, Date.now());
    stats.logins += 1;
    return {
      status: 200,
      body: { SessionId: session, Version: '1000000', SessionTimeout: Math.round(timeoutMs / 60_000) },
      headers: { 'set-cookie': `B1SESSION=${session}; path=/b1s; HttpOnly, ROUTEID=.node1; path=/b1s` },
    };
  };

  const authorize = (request: IncomingMessage): void => {
    if (sap) {
      const session = /B1SESSION=([^;\s]+)/.exec(request.headers.cookie ?? '')?.[1];
      const last = session === undefined ? undefined : sessions.get(session);
      if (session === undefined || last === undefined || Date.now() - last > timeoutMs) {
        if (session !== undefined && sessions.delete(session)) stats.expired += 1;
        throw new Unauthorized('Invalid session or session already timeout.');
      }
      sessions.set(session, Date.now());
      return;
    }
    const [user, password] = Buffer.from(
      (request.headers.authorization ?? '').replace(/^Basic /, ''),
      'base64',
    )
      .toString('utf8')
      .split(':');
    const byToken = password === 'PAT' && (options.tokens ?? []).includes(user ?? '');
    if (!byToken && (user === undefined || users[user] !== password)) throw new Unauthorized('Unauthorized');
  };

  const read = (target: URL, path: string): unknown => {
    const { set, key, segment } = route(store, path);
    const select =
      target.searchParams
        .get('$select')
        ?.split(',')
        .map((name) => name.trim()) ?? null;
    const expand = target.searchParams.get('$expand');
    const type = store.typeOfSet(set);
    for (const name of select ?? []) {
      if (!type.properties.some((p) => p.name === name) && !type.collections.some((c) => c.name === name)) {
        throw new ODataFault(400, `Property '${name}' of '${type.name}' is invalid`);
      }
    }
    if (expand !== null && !type.collections.some((c) => c.name === expand && c.kind === 'navigation')) {
      throw new ODataFault(400, `$expand: ${expand} is not a navigation property of ${type.name}`);
    }
    if (key !== null && segment === null) return shaped(store, set, store.find(set, key), select, expand);
    const rows = store.query(set, target.searchParams.get('$filter') ?? undefined);
    const skip = Number(target.searchParams.get('$skip') ?? '0');
    const top = target.searchParams.get('$top');
    const end = top === null ? rows.length : Math.min(rows.length, skip + Number(top));
    const page = rows.slice(skip, Math.min(end, skip + pageSize));
    const value = page.map((entity) => shaped(store, set, entity, select, expand));
    if (skip + page.length >= end) return { value };
    const next = new URLSearchParams(target.searchParams);
    next.set('$skip', String(skip + page.length));
    return { value, '@odata.nextLink': `${set}?${next.toString().replaceAll('+', '%20')}` };
  };

  const write = (method: string, path: string, body: string): { status: number; body: unknown } => {
    const entity = (body === '' ? {} : JSON.parse(body)) as Entity;
    const { set, key, segment } = route(store, path);
    if (method === 'PATCH' && key !== null && segment === null) {
      store.patch(set, key, entity);
      return { status: 204, body: '' };
    }
    if (method !== 'POST') throw new ODataFault(405, `${method} is not supported on ${path}`);
    if (key === null) return { status: 201, body: store.create(set, entity) };
    if (segment !== null && store.typeOfSet(set).collections.some((c) => c.name === segment)) {
      return { status: 201, body: store.createChild(set, key, segment, entity) };
    }
    if (segment !== null) {
      store.action(set, key, segment);
      return { status: 204, body: '' };
    }
    throw new ODataFault(405, `POST is not supported on ${path}`);
  };

  /** One change set: every request applied, or none (the store is restored). */
  const changeSet = (
    requests: ReturnType<typeof readBatch>[number],
  ): { answers: BatchAnswer[]; failed: boolean } => {
    const saved = store.snapshot();
    const created = new Map<string, string>();
    const answers: BatchAnswer[] = [];
    for (const request of requests) {
      options.inspect?.({ method: request.method, target: request.path, body: request.body, inBatch: true });
      const path = request.path.replace(/^\$(\d+)/, (whole, id: string) => created.get(id) ?? whole);
      try {
        const answer = write(request.method, path, request.body);
        if (request.contentId !== null && answer.status === 201) {
          const { set } = route(store, path);
          const type = store.typeOfSet(set);
          const entity = answer.body as Entity;
          const keyText = type.key.map(
            (name) =>
              `${name}=${typeof entity[name] === 'number' ? String(entity[name]) : `'${String(entity[name])}'`}`,
          );
          created.set(request.contentId, `${set}(${keyText.join(',')})`);
        }
        answers.push({ ...answer, contentId: request.contentId });
      } catch (error) {
        store.restore(saved);
        const fault = error instanceof ODataFault ? error : new ODataFault(400, String(error));
        answers.push({ status: fault.status, body: errorBody(fault.message), contentId: request.contentId });
        return { answers, failed: true };
      }
    }
    return { answers, failed: false };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    stats.requests += 1;
    const body = await readBody(request);
    const target = new URL(request.url ?? '/', 'http://emulator');
    const method = request.method ?? 'GET';
    if (!target.pathname.startsWith(root)) throw new ODataFault(404, 'not a path of this service');
    const rawTarget = (request.url ?? '').slice(root.length);
    const path = decodeURIComponent(target.pathname.slice(root.length));
    options.inspect?.({ method, target: rawTarget, body, inBatch: false });
    if (sap && path === 'Login' && method === 'POST') {
      const answer = login(body);
      return send(response, answer.status, answer.body, answer.headers);
    }
    authorize(request);
    if (sap && path === 'Logout' && method === 'POST') {
      const session = /B1SESSION=([^;\s]+)/.exec(request.headers.cookie ?? '')?.[1];
      if (session !== undefined) sessions.delete(session);
      stats.logouts += 1;
      return send(response, 204, '');
    }
    if (path === '$metadata') {
      response.writeHead(200, { 'content-type': 'application/xml' });
      return void response.end(metadataXml(store.model));
    }
    const fault = faults.take(method, path);
    if (fault?.kind === 'refuse')
      return send(response, fault.status ?? 503, errorBody('Service is busy'), { 'retry-after': '0' });
    let status: number;
    let answer: unknown;
    if (method === 'GET') [status, answer] = [200, read(target, path)];
    else if (path === '$batch') {
      const contentType = request.headers['content-type'] ?? '';
      const boundary = `batchresponse_${randomUUID()}`;
      const results = readBatch(body, contentType).map(changeSet);
      const text = results.map((result) => writeBatch(result.answers, boundary, result.failed)).join('');
      [status, answer] = [200, text];
      response.setHeader('content-type', `multipart/mixed; boundary=${boundary}`);
    } else ({ status, body: answer } = write(method, path, body));
    if (fault?.kind === 'fail-after-commit')
      return send(response, fault.status ?? 500, errorBody('Internal error'));
    if (fault?.kind === 'drop-after-commit') return void request.socket.destroy();
    if (fault?.kind === 'hang-after-commit') return void hanging.add(response);
    if (typeof answer === 'string') {
      response.writeHead(status);
      response.end(answer);
    } else send(response, status, answer);
    if (method !== 'GET' && status < 300) options.onCommit?.({ method, path, status });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const fault =
        error instanceof ODataFault
          ? error
          : new ODataFault(error instanceof SyntaxError ? 400 : 500, String(error));
      if (!response.headersSent) send(response, fault.status, errorBody(fault.message));
    });
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  return {
    serviceUrl: `http://${options.host ?? '127.0.0.1'}:${port}${root}`,
    store,
    faults,
    stats,
    expireSessions: () => {
      stats.expired += sessions.size;
      sessions.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
