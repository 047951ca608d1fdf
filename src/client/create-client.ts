/** createApiClient: assembles transport, authentication, rate limiter and the endpoint modules. */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../shared/clock.js';
import { createAccountApi } from './areas/account.js';
import { createAccountingApi } from './areas/accounting.js';
import { createAuditApi } from './areas/audit.js';
import { createCatalogApi } from './areas/catalog.js';
import { createDocumentsApi } from './areas/documents.js';
import { createEventsApi } from './areas/events.js';
import { createExpensesApi } from './areas/expenses.js';
import { createExportsApi } from './areas/exports.js';
import { createFilesApi } from './areas/files.js';
import { createInventoryApi } from './areas/inventory.js';
import { createOrdersApi } from './areas/orders.js';
import { createPriceListsApi } from './areas/price-lists.js';
import { createPurchasesApi } from './areas/purchases.js';
import { createReferenceApi } from './areas/reference.js';
import { createReportsApi } from './areas/reports.js';
import { createSalesApi } from './areas/sales.js';
import { createSupplierBuyersApi } from './areas/supplier-buyers.js';
import { createWebhooksApi } from './areas/webhooks.js';
import { ApiKeyAuthenticator, ClientCredentialsAuthenticator, type AuthOptions } from './auth.js';
import type { ClientContext } from './context.js';
import { assertEnvironmentsMatch, type ApiEnvironment } from './environment.js';
import {
  createNetworkDispatcher,
  proxySecrets,
  resolveProxySettings,
  type LazyDispatcher,
  type NetworkOptions,
} from './network.js';
import { DriftCounter, type DriftListener } from './parsing.js';
import { RateLimiter, type RateLimiterOptions, type RateLimiterStats } from './rate-limiter.js';
import { Redactor } from './redact.js';
import { DEFAULT_RETRY, type RetryOptions } from './retry-policy.js';
import { ClientConfigError } from './errors.js';
import {
  changesData,
  Transport,
  type ApiCallEvent,
  type Authenticator,
  type BeforeWrite,
} from './transport.js';
import type { RequestSender } from './context.js';
import { buildPath } from './url.js';

export interface ApiClientOptions {
  /** Includes the version prefix, e.g. http://127.0.0.1:4010/v2. */
  baseUrl: string;
  /** svc_test_... or svc_live_...; with client_credentials it is the client secret. */
  apiKey: string;
  /** Default: the API key as Bearer token. */
  auth?: AuthOptions;
  /** What `baseUrl` is; default derived from it (see environment.ts for the rule). */
  environment?: ApiEnvironment;
  /** Base URLs (prefixes) treated as sandbox when `environment` is not given. */
  sandboxBaseUrls?: readonly string[];
  /** HTTP dispatcher; default a keep-alive proxy-aware Agent owned (and closed) by this client. */
  dispatcher?: Dispatcher;
  /** Proxy and private CAs of the default dispatcher (ignored with an injected one). */
  network?: Pick<NetworkOptions, 'proxy' | 'extraCaCertificates' | 'env'>;
  clock?: Clock;
  /** Random source in [0, 1) for backoff jitter. */
  random?: () => number;
  /** Idempotency keys for POSTs without a caller key; default random UUIDs. */
  newIdempotencyKey?: () => string;
  retry?: RetryOptions;
  rateLimit?: RateLimiterOptions;
  logger?: Logger;
  /** Called after every attempt (metrics: calls by status, rate-limit waits). */
  onCall?: (event: ApiCallEvent) => void;
  /** Called for every quarantined item and every drift finding. */
  onDrift?: DriftListener;
  userAgent?: string;
  /** Per-attempt limits of the default Agent (real time). */
  connectTimeoutMs?: number;
  attemptTimeoutMs?: number;
  /**
   * Called right before each attempt of a request that changes data (not a GET, not the token exchange) is
   * sent, after any rate-limit wait or retry delay; what it throws ends the call unsent. The daemon checks there
   * that it still leads: a leader paused past its lease must not send a write it prepared before the takeover.
   * It may return an allowance: the attempt is then cut off after its `timeoutMs` (the lease time it may use).
   */
  beforeWrite?: BeforeWrite;
}

/** The injected dispatcher, or one the client owns (made at its first request, closed with the client). */
function clientDispatcher(options: ApiClientOptions): {
  dispatcher: () => Promise<Dispatcher>;
  owned: LazyDispatcher | undefined;
} {
  const injected = options.dispatcher;
  if (injected !== undefined) return { dispatcher: () => Promise.resolve(injected), owned: undefined };
  const owned = createNetworkDispatcher({
    ...options.network,
    connections: options.rateLimit?.maxConcurrency ?? 8,
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    ...(options.attemptTimeoutMs === undefined ? {} : { attemptTimeoutMs: options.attemptTimeoutMs }),
  });
  return { dispatcher: owned.get, owned };
}

/** The client's areas, each sending through `context` (the client's transport, or a view refusing writes). */
function apiAreas(context: ClientContext, limiter: RateLimiter) {
  return {
    account: createAccountApi(context, (me) => limiter.setPerMinute(me.rate_limit.per_minute)),
    supplierBuyers: createSupplierBuyersApi(context),
    orders: createOrdersApi(context),
    documents: createDocumentsApi(context),
    catalog: createCatalogApi(context),
    priceLists: createPriceListsApi(context),
    reference: createReferenceApi(context),
    purchases: createPurchasesApi(context),
    expenses: createExpensesApi(context),
    accounting: createAccountingApi(context),
    sales: createSalesApi(context),
    inventory: createInventoryApi(context),
    reports: createReportsApi(context),
    files: createFilesApi(context),
    exports: createExportsApi(context),
    audit: createAuditApi(context),
    webhooks: createWebhooksApi(context),
    events: createEventsApi(context),
  };
}

/** The key, and the proxy credentials of a dispatcher the client builds, are never logged or thrown. */
function clientRedactor(options: ApiClientOptions): Redactor {
  const redactor = new Redactor();
  redactor.add(options.apiKey);
  if (options.dispatcher === undefined) {
    const settings = resolveProxySettings(options.network ?? {});
    for (const value of proxySecrets(settings, options.network?.proxy)) redactor.add(value);
  }
  return redactor;
}

function authenticatorFor(
  options: ApiClientOptions,
  transport: Transport,
  clock: Clock,
  redactor: Redactor,
): Authenticator {
  const auth = options.auth ?? { mode: 'api_key' };
  if (auth.mode === 'api_key') return new ApiKeyAuthenticator(options.apiKey);
  return new ClientCredentialsAuthenticator(
    transport,
    clock,
    redactor,
    {
      clientId: auth.clientId,
      clientSecret: options.apiKey,
      ...(auth.scope === undefined ? {} : { scope: auth.scope }),
    },
    auth.refreshMarginMs,
  );
}

export function createApiClient(options: ApiClientOptions) {
  const environment = assertEnvironmentsMatch(options.apiKey, options.baseUrl, {
    ...(options.environment ? { environment: options.environment } : {}),
    ...(options.sandboxBaseUrls ? { sandboxBaseUrls: options.sandboxBaseUrls } : {}),
  });
  const clock = options.clock ?? systemClock;
  const { dispatcher, owned } = clientDispatcher(options);
  const redactor = clientRedactor(options);
  const limiter = new RateLimiter(clock, options.rateLimit);
  const drift = new DriftCounter(options.onDrift);
  const logger = options.logger?.child({ component: 'api-client', environment });
  const transport = new Transport({
    baseUrl: options.baseUrl,
    dispatcher,
    clock,
    random: options.random ?? Math.random,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    limiter,
    redactor,
    newIdempotencyKey: options.newIdempotencyKey ?? randomUUID,
    userAgent: options.userAgent ?? 'supply-sync',
    logger,
    onCall: options.onCall,
    beforeWrite: options.beforeWrite,
  });
  transport.authenticator = authenticatorFor(options, transport, clock, redactor);
  const client = {
    environment,
    ...apiAreas({ transport, drift }, limiter),
    /** Quarantine and drift counts per resource since the client was created. */
    driftStats: (): Record<string, { quarantined: number; drift: number }> => drift.snapshot(),
    rateLimiterStats: (): RateLimiterStats => limiter.stats(),
    /** This client's dispatcher (made at its first call), for downloads from signed URLs (same proxy and CAs). */
    dispatcher,
    /** Closes the client's own dispatcher if it was made (an injected one is left to its owner). */
    async close(): Promise<void> {
      await owned?.close();
    },
  };
  readOnlyViews.set(client, (refusal) => ({
    ...client,
    ...apiAreas({ transport: refusingWrites(transport, refusal), drift }, limiter),
    // The view shares the client's dispatcher; closing it is the client's owner's business.
    close: () => Promise.resolve(),
  }));
  return client;
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** How each client builds its read-only views (a client made by createApiClient is always here). */
const readOnlyViews = new WeakMap<object, (refusal: string) => ApiClient>();

function refusingWrites(transport: Transport, refusal: string): RequestSender {
  return {
    request(spec) {
      if (changesData(spec)) {
        const path = buildPath(spec.route, spec.params ?? {});
        return Promise.reject(
          new ClientConfigError('read_only', `${refusal}: ${spec.method} ${path} was not sent`),
        );
      }
      return transport.request(spec);
    },
  };
}

/**
 * The same client that refuses, before anything is sent, every request that would change data (any method but
 * GET): for work that must only read, such as a reconciliation, whatever the code it calls tries. Reads go through
 * the client's own transport (its rate limit, retries and write fence); `refusal` starts the error's message.
 */
export function readOnlyApiClient(client: ApiClient, refusal: string): ApiClient {
  const view = readOnlyViews.get(client);
  if (view === undefined)
    throw new ClientConfigError('read_only', 'not an API client made by createApiClient');
  return view(refusal);
}
