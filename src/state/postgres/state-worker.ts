/**
 * The worker behind the synchronous PostgreSQL ports: one thread for the whole process, holding one session per
 * port (one pg client each, so a transaction's statements all go to the same connection), each answering one
 * request at a time. After posting an answer it wakes the main thread, which waits on the session's own signal
 * (see channel.ts). One thread serves every port because the main thread waits for each answer anyway: an office
 * of many companies on PostgreSQL then holds one worker, not one per company.
 */
import { type MessagePort, parentPort } from 'node:worker_threads';
import pg from 'pg';
import type {
  QueryRequest,
  RequestEnvelope,
  ResponseEnvelope,
  WorkerFailure,
  WorkerPing,
  WorkerRequest,
  WorkerResponse,
  WorkerSetup,
} from './protocol.js';

/** What the main thread sends to open a session (SessionOpening): its own port, wake-up signal and settings. */
interface SessionOpening {
  readonly port: MessagePort;
  readonly signal: SharedArrayBuffer;
  readonly setup: WorkerSetup;
}

const INT8_OID = 20;
const RECONNECT_AFTER_MS = 2_000;
/**
 * How long a close waits for the server to see the connection end. pg's end() waits for the socket to close, which
 * a server that stopped answering never does: after this the socket is destroyed.
 */
const END_GRACE_MS = 1_000;

/** Ends the client's connection, within END_GRACE_MS whatever the server does. */
function endWithin(client: pg.Client): Promise<void> {
  const ended = client.end().catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const destroyed = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      resolve();
    }, END_GRACE_MS);
  });
  return Promise.race([ended, destroyed]).finally(() => clearTimeout(timer));
}

/** Epoch milliseconds and counts fit a double exactly; pg would return int8 as a string. */
function parseInt8(value: string): number {
  return Number(value);
}

/** Uint8Arrays arrive from the main thread without Buffer's prototype; pg sends only Buffers as bytea. */
function asPgParam(value: unknown): unknown {
  return value instanceof Uint8Array && !Buffer.isBuffer(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : value;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);

function failure(error: unknown): WorkerFailure {
  const code = (error as { code?: unknown } | null)?.code;
  const text = typeof code === 'string' ? code : null;
  const message = error instanceof Error ? error.message : String(error);
  const connection =
    (text !== null && (CONNECTION_CODES.has(text) || /^(08|28|3D|57P)/.test(text))) ||
    /Connection terminated|connection timeout|not queryable/i.test(message);
  return { message, code: text, connection };
}

/** One port's connection: its client, its last failed attempt, its answers. */
class Session {
  readonly #port: MessagePort;
  readonly #flag: Int32Array;
  readonly #setup: WorkerSetup;
  #client: pg.Client | null = null;
  /** The last failed connection attempt, answered again to calls made within RECONNECT_AFTER_MS of it. */
  #lastFailure: { at: number; failure: WorkerFailure } | null = null;
  /** The main thread closed its end: a connection that finishes after that is closed at once, never kept. */
  #gone = false;

  constructor(opening: SessionOpening) {
    this.#port = opening.port;
    this.#flag = new Int32Array(opening.signal);
    this.#setup = opening.setup;
    this.#port.on('message', ({ id, request }: RequestEnvelope) => {
      void this.#answer(request)
        .then((response) => this.#reply(id, response))
        // An answer that cannot be posted (a row that cannot be copied) fails this call, not the worker.
        .catch((error: unknown) => this.#reply(id, { ok: false, failure: failure(error) }))
        .finally(() => {
          if (request.kind === 'close') this.#port.close();
        });
    });
    // The main thread closed its end (closed, or gave up on an answer): the connection goes with it.
    this.#port.on('close', () => {
      this.#gone = true;
      this.#drop();
    });
  }

  #reply(id: number, response: WorkerResponse): void {
    try {
      this.#port.postMessage({ id, response } satisfies ResponseEnvelope);
    } catch (error) {
      this.#port.postMessage({ id, response: { ok: false, failure: failure(error) } } satisfies ResponseEnvelope);
    }
    Atomics.store(this.#flag, 0, 1);
    Atomics.notify(this.#flag, 0);
  }

  #drop(): void {
    const client = this.#client;
    this.#client = null;
    if (client !== null) void endWithin(client);
  }

  async #connect(): Promise<pg.Client> {
    const setup = this.#setup;
    const fresh = new pg.Client({
      connectionString: setup.url,
      connectionTimeoutMillis: setup.connectTimeoutMs,
      statement_timeout: setup.statementTimeoutMs,
      idle_in_transaction_session_timeout:
        setup.idleInTransactionTimeoutMs ?? Math.max(setup.statementTimeoutMs * 2, 60_000),
      ...(setup.lockTimeoutMs === null ? {} : { lock_timeout: setup.lockTimeoutMs }),
      application_name: setup.applicationName,
      ...(setup.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
      // A peer that vanished without closing is found within about a minute instead of the system's two hours.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // A connection lost while idle must not kill the worker; the next request finds the client gone.
    fresh.on('error', () => {
      if (this.#client === fresh) this.#client = null;
    });
    fresh.on('end', () => {
      if (this.#client === fresh) this.#client = null;
    });
    await fresh.connect();
    return fresh;
  }

  async #query(request: QueryRequest): Promise<WorkerResponse> {
    if (this.#client === null) {
      if (request.inTransaction) {
        // The server rolled the transaction back when the connection went; so does the main thread.
        if (/^ROLLBACK/i.test(request.sql)) return { ok: true, rows: [], rowCount: 0 };
        return {
          ok: false,
          failure: { message: 'the connection to PostgreSQL was lost during a transaction', code: '08006', connection: true },
        };
      }
      // Right after a failed attempt, fail at once: the main thread waits for every answer, and a server that does
      // not answer would otherwise hold it for the whole connect timeout on every call (readiness checks included).
      const last = this.#lastFailure;
      if (last !== null && Date.now() - last.at < RECONNECT_AFTER_MS) return { ok: false, failure: last.failure };
      try {
        const fresh = await this.#connect();
        if (this.#gone) {
          void endWithin(fresh);
          return { ok: false, failure: { message: 'the state database connection is closed', code: null, connection: true } };
        }
        this.#client = fresh;
        this.#lastFailure = null;
      } catch (error) {
        this.#lastFailure = { at: Date.now(), failure: failure(error) };
        throw error;
      }
    }
    // Without values or a name pg uses the simple protocol, which runs several statements (migrations) at once.
    const result = await this.#client.query({
      text: request.sql,
      values: request.params.length === 0 ? undefined : request.params.map(asPgParam),
      rowMode: request.rowMode === 'array' ? 'array' : undefined,
      ...(request.name === undefined ? {} : { name: request.name }),
    } as pg.QueryConfig);
    // Several statements at once answer with one result each; the last one is the answer.
    const answer = (Array.isArray(result) ? result.at(-1) : result) as pg.QueryResult | undefined;
    return { ok: true, rows: (answer?.rows ?? []) as unknown[], rowCount: answer?.rowCount ?? 0 };
  }

  async #answer(request: WorkerRequest): Promise<WorkerResponse> {
    if (request.kind === 'close') {
      const closing = this.#client;
      this.#client = null;
      if (closing !== null) await endWithin(closing);
      return { ok: true, rows: [], rowCount: 0 };
    }
    try {
      return await this.#query(request);
    } catch (error) {
      const reported = failure(error);
      if (reported.connection && this.#client !== null) this.#drop();
      return { ok: false, failure: reported };
    }
  }
}

parentPort?.on('message', (message: SessionOpening | WorkerPing) => {
  if ('ping' in message) {
    const flag = new Int32Array(message.ping);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
    return;
  }
  void new Session(message);
});
