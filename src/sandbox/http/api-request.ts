/** What the steps of the /v2 pipeline share: the sandbox's parts and the request as it goes through them. */
import type { IncomingMessage } from 'node:http';
import type { RouteDef } from './types.js';
import type { CompiledRoute } from './router.js';
import type { PlatformContext } from '../platform/context.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { IdempotencyStore } from '../platform/idempotency.js';
import type { ApiClient } from '../platform/state.js';
import type { FaultInjector } from '../harness/faults.js';

export interface ApiDeps {
  ctx: PlatformContext;
  routes: () => readonly CompiledRoute<RouteDef>[];
  limiter: RateLimiter;
  idempotency: IdempotencyStore;
  faults: FaultInjector;
  onError(error: unknown): void;
}

export interface ApiRequest {
  req: IncomingMessage;
  url: URL;
  /** Upper case. */
  method: string;
  /** Below /v2, e.g. /supplier/orders. */
  path: string;
  headers: Record<string, string | undefined>;
  requestId: string;
  ip: string;
  trace: RequestTrace;
}

/** Learned while the request runs, for the response headers and the audit record, whether it succeeds or not. */
export interface RequestTrace {
  client: ApiClient | null;
  rateHeaders: Record<string, string>;
  scopeUsed: string | null;
  requestBytes: number;
}
