/** Shapes shared by the transport, the authenticators and the endpoint modules. */
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { PreparedRequest } from './http-attempt.js';
import type { RateLimiter } from './rate-limiter.js';
import type { Redactor } from './redact.js';
import type { HeaderLookup, ResolvedRetryOptions } from './retry-policy.js';
import type { QueryInput } from './url.js';

export type HttpMethod = PreparedRequest['method'];

/** Per-call options every client method accepts. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-call deadline (attempts and waits included). */
  deadlineMs?: number;
  /** POST only: a stable business key (for example a document number); otherwise one is generated per call. */
  idempotencyKey?: string;
}

export interface RequestSpec {
  method: HttpMethod;
  /** Route template below the base URL, e.g. /supplier/orders/{order_id}; metrics and logs use it. */
  route: string;
  params?: Readonly<Record<string, string>>;
  query?: QueryInput;
  json?: unknown;
  /** A pre-serialized non-JSON body (multipart uploads). */
  raw?: { bytes: Uint8Array; contentType: string };
  ifMatch?: string;
  /** False only for the token exchange. */
  authenticate?: boolean;
  call?: CallOptions;
}

export interface RawResponse {
  status: number;
  header: HeaderLookup;
  /** Parsed JSON body, or undefined for an empty body (204). */
  body: unknown;
  /** The body as received (for Page.itemTexts). */
  text?: string;
  requestId: string | null;
}

/** One attempt's outcome, for metrics (API calls by status, rate-limit waits). */
export interface ApiCallEvent {
  method: HttpMethod;
  route: string;
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  /** Error code for failed attempts (contract code or network_error), null on success. */
  errorCode: string | null;
  durationMs: number;
  attempt: number;
  rateLimitWaitMs: number;
  requestId: string | null;
}

export interface Authenticator {
  /** The Authorization header value for the next attempt. */
  authorization(signal?: AbortSignal): Promise<string>;
  /** After a 401: obtain a fresh credential; true when repeating the request may help. */
  refreshAfterUnauthorized(signal?: AbortSignal): Promise<boolean>;
}

export interface TransportOptions {
  baseUrl: string;
  /** The dispatcher, made at the first request. */
  dispatcher: () => Promise<Dispatcher>;
  clock: Clock;
  random: () => number;
  retry: ResolvedRetryOptions;
  limiter: RateLimiter;
  redactor: Redactor;
  newIdempotencyKey: () => string;
  userAgent: string;
  logger?: Logger | undefined;
  onCall?: ((event: ApiCallEvent) => void) | undefined;
  /** See ApiClientOptions.beforeWrite. */
  beforeWrite?: BeforeWrite | undefined;
}

/** What beforeWrite may allow: the attempt is cut off after `timeoutMs` (the leader's remaining lease). */
export interface WriteAllowance {
  readonly timeoutMs: number;
}

export type BeforeWrite = () =>
  void | WriteAllowance | Promise<void | WriteAllowance | undefined> | undefined;
