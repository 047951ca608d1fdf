/** The messages between the synchronous PostgreSQL port (main thread) and its worker (worker.ts). */

export interface QueryRequest {
  readonly kind: 'query';
  readonly sql: string;
  readonly params: readonly unknown[];
  /** A server-side prepared statement name, reused for every run of the same SQL text. */
  readonly name?: string;
  readonly rowMode: 'object' | 'array';
  /**
   * Whether the main thread is inside a transaction. A connection lost then is not replaced: the transaction
   * is gone, and the statements after it must fail until the main thread rolls back.
   */
  readonly inTransaction: boolean;
}

export interface CloseRequest {
  readonly kind: 'close';
}

export type WorkerRequest = QueryRequest | CloseRequest;

export interface WorkerFailure {
  readonly message: string;
  /** The SQLSTATE or the Node error code (ECONNREFUSED...). */
  readonly code: string | null;
  /** The connection could not be made or was lost. */
  readonly connection: boolean;
}

export type WorkerResponse =
  | { readonly ok: true; readonly rows: unknown[]; readonly rowCount: number }
  | { readonly ok: false; readonly failure: WorkerFailure };

/** A request and its answer carry the same number. */
export interface RequestEnvelope {
  readonly id: number;
  readonly request: WorkerRequest;
}

export interface ResponseEnvelope {
  readonly id: number;
  readonly response: WorkerResponse;
}

/** Sent to the worker itself (not to a session): it raises the flag at once, showing that its thread still runs. */
export interface WorkerPing {
  readonly ping: SharedArrayBuffer;
}

export interface WorkerSetup {
  readonly url: string;
  readonly connectTimeoutMs: number;
  readonly statementTimeoutMs: number;
  readonly applicationName: string;
  /** Every transaction of the session is read-only (reports, CLI reads). */
  readonly readOnly: boolean;
  /** The server ends a transaction left idle this long; null for the default (twice the statement timeout). */
  readonly idleInTransactionTimeoutMs: number | null;
  /** A statement waiting this long for a lock fails; null for the server's default. */
  readonly lockTimeoutMs: number | null;
}
