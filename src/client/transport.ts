/**
 * The request loop every endpoint goes through: rate limiting, authentication (with one refresh on 401),
 * idempotency keys, retries with server-directed delays, deadlines, logging and call metrics.
 */
import { abortedError, deadlineError, errorFromOutcome, slotDeadlineError } from './call-errors.js';
import { ApiError, ClientConfigError } from './errors.js';
import { sendAttempt, type AttemptOutcome, type PreparedRequest } from './http-attempt.js';
import { SlotBeyondDeadlineError } from './rate-limiter.js';
import { retryDelay, type HeaderLookup } from './retry-policy.js';
import type {
  ApiCallEvent,
  Authenticator,
  RawResponse,
  RequestSpec,
  TransportOptions,
} from './transport-types.js';
import { buildPath, buildQueryString } from './url.js';

export type * from './transport-types.js';

const MAX_IDEMPOTENCY_KEY_LENGTH = 128;

/** A request that changes data at the API: any method but GET, the token exchange aside. */
export function changesData(spec: RequestSpec): boolean {
  return spec.method !== 'GET' && spec.authenticate !== false;
}

interface AttemptTiming {
  attempt: number;
  startedAt: number;
  waitMs: number;
}

interface FailedAttempt {
  outcome: AttemptOutcome;
  error: ApiError;
  attempt: number;
  deadlineAt: number;
}

export class Transport {
  authenticator: Authenticator | undefined;
  private readonly warnedDeprecations = new Set<string>();

  constructor(private readonly options: TransportOptions) {}

  async request(spec: RequestSpec): Promise<RawResponse> {
    const { clock } = this.options;
    const path = buildPath(spec.route, spec.params ?? {});
    const prepared = this.prepare(spec, path);
    const signal = spec.call?.signal;
    const deadlineAt = clock.now() + (spec.call?.deadlineMs ?? this.options.retry.deadlineMs);
    let refreshedAfter401 = false;
    for (let attempt = 1; ; attempt += 1) {
      if (signal?.aborted) throw abortedError(spec, path, attempt - 1);
      // Authorize before taking a limiter slot: a token exchange needs a slot of its own.
      const authorization =
        spec.authenticate !== false && this.authenticator
          ? await this.authenticator.authorization(signal)
          : undefined;
      const waitMs = await this.acquireSlot(spec, path, attempt, signal, deadlineAt);
      const startedAt = clock.now();
      const { outcome, cutoff } = await this.runAttempt(spec, prepared, authorization, {
        signal,
        remainingMs: deadlineAt - startedAt,
      });
      if (outcome.kind === 'aborted') {
        if (cutoff === 'deadline' && !signal?.aborted) {
          throw this.deadlineCutoff(spec, path, { attempt, startedAt, waitMs });
        }
        this.report(spec, path, outcome, undefined, { attempt, startedAt, waitMs });
        throw abortedError(spec, path, attempt);
      }
      if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) {
        this.report(spec, path, outcome, undefined, { attempt, startedAt, waitMs });
        return this.success(spec, path, outcome);
      }
      const error = errorFromOutcome(spec, path, outcome, attempt, this.options.redactor, clock.now());
      this.report(spec, path, outcome, error, { attempt, startedAt, waitMs });
      if (!refreshedAfter401 && this.mayRefresh(spec, outcome)) {
        refreshedAfter401 = true;
        if (await this.authenticator?.refreshAfterUnauthorized(signal)) continue;
      }
      if (!error.retryable || attempt >= this.options.retry.maxAttempts) throw error;
      await this.waitToRetry(spec, path, { outcome, error, attempt, deadlineAt });
    }
  }

  /** The attempt was cut off at the deadline: reported as a network failure, thrown as the deadline's error. */
  private deadlineCutoff(spec: RequestSpec, path: string, timing: AttemptTiming): ApiError {
    const timedOut: AttemptOutcome = { kind: 'network', error: new Error('no answer before the deadline') };
    const last = errorFromOutcome(
      spec,
      path,
      timedOut,
      timing.attempt,
      this.options.redactor,
      this.options.clock.now(),
    );
    this.report(spec, path, timedOut, last, timing);
    return deadlineError(spec, path, last, timing.attempt);
  }

  /** A 401 to an authenticated call earns one token refresh. */
  private mayRefresh(spec: RequestSpec, outcome: AttemptOutcome): boolean {
    return (
      outcome.kind === 'response' &&
      outcome.status === 401 &&
      spec.authenticate !== false &&
      this.authenticator !== undefined
    );
  }

  /**
   * Waits the delay the retry policy (or the server) sets before the next attempt; a 429 pauses every call. Throws
   * when the delay would pass the deadline, or when the call is aborted while waiting.
   */
  private async waitToRetry(spec: RequestSpec, path: string, failed: FailedAttempt): Promise<void> {
    const { clock } = this.options;
    const { outcome, error, attempt, deadlineAt } = failed;
    const header = outcome.kind === 'response' ? outcome.header : undefined;
    const decision = retryDelay(attempt, header, clock.now(), this.options.retry, this.options.random);
    if (outcome.kind === 'response' && outcome.status === 429) {
      this.options.limiter.pauseUntil(clock.now() + decision.delayMs);
    }
    if (clock.now() + decision.delayMs > deadlineAt) throw deadlineError(spec, path, error, attempt);
    this.options.logger?.warn(
      {
        method: spec.method,
        path,
        status: error.status,
        code: error.code,
        attempt,
        delayMs: decision.delayMs,
      },
      'API call failed; retrying',
    );
    try {
      await clock.sleep(decision.delayMs, spec.call?.signal);
    } catch {
      throw abortedError(spec, path, attempt);
    }
  }

  private prepare(spec: RequestSpec, path: string): PreparedRequest {
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      'user-agent': this.options.userAgent,
    };
    let body: Uint8Array | undefined;
    if (spec.raw) {
      body = spec.raw.bytes;
      headers['content-type'] = spec.raw.contentType;
    } else if (spec.json !== undefined) {
      body = Buffer.from(JSON.stringify(spec.json), 'utf8');
      headers['content-type'] = 'application/json';
    }
    if (spec.method === 'POST') {
      const key = spec.call?.idempotencyKey ?? this.options.newIdempotencyKey();
      if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
        throw new ClientConfigError('invalid_idempotency_key', 'Idempotency-Key must be 1 to 128 characters');
      }
      headers['idempotency-key'] = key;
    }
    if (spec.ifMatch !== undefined) headers['if-match'] = spec.ifMatch;
    const base = this.options.baseUrl.replace(/\/+$/, '');
    return { method: spec.method, url: `${base}${path}${buildQueryString(spec.query)}`, headers, body };
  }

  private async acquireSlot(
    spec: RequestSpec,
    path: string,
    attempt: number,
    signal: AbortSignal | undefined,
    deadlineAt: number,
  ): Promise<number> {
    try {
      return await this.options.limiter.acquire(signal, deadlineAt);
    } catch (error) {
      if (error instanceof SlotBeyondDeadlineError)
        throw slotDeadlineError(spec, path, attempt - 1, error.waitMs);
      throw abortedError(spec, path, attempt - 1);
    }
  }

  /**
   * One attempt, cut off at the call's deadline or, for a write, at the end of what beforeWrite allows (the lease
   * time left): `cutoff` says which one ended it. An attempt cut at the allowance is a network failure, retried
   * like one after a new check.
   */
  private async runAttempt(
    spec: RequestSpec,
    prepared: PreparedRequest,
    authorization: string | undefined,
    limits: { signal: AbortSignal | undefined; remainingMs: number },
  ): Promise<{ outcome: AttemptOutcome; cutoff: 'deadline' | 'allowance' | null }> {
    const { limiter } = this.options;
    let outcome: AttemptOutcome;
    let cutoff: 'deadline' | 'allowance' | null = null;
    try {
      const allowance = changesData(spec) ? await this.options.beforeWrite?.() : undefined;
      const allowedMs = allowance?.timeoutMs ?? Number.POSITIVE_INFINITY;
      const cut = attemptCutoff(limits.signal, Math.min(limits.remainingMs, allowedMs));
      const headers = { ...prepared.headers };
      if (authorization !== undefined) headers['authorization'] = authorization;
      outcome = await sendAttempt(this.options.dispatcher, { ...prepared, headers }, cut.signal).finally(
        cut.clear,
      );
      if (cut.expired()) cutoff = allowedMs < limits.remainingMs ? 'allowance' : 'deadline';
    } finally {
      limiter.release();
    }
    if (outcome.kind === 'aborted' && cutoff === 'allowance' && !limits.signal?.aborted) {
      outcome = {
        kind: 'network',
        error: new Error('no answer within the time the leader lease allows a write'),
      };
    }
    if (outcome.kind === 'response') {
      limiter.observe(outcome.header);
      this.warnOnDeprecation(spec, outcome.header);
    }
    return { outcome, cutoff };
  }

  /** Metrics hook and log line for one attempt; never includes headers, keys or tokens. */
  private report(
    spec: RequestSpec,
    path: string,
    outcome: AttemptOutcome,
    error: ApiError | undefined,
    timing: { attempt: number; startedAt: number; waitMs: number },
  ): void {
    const status = outcome.kind === 'response' ? outcome.status : null;
    const requestId = outcome.kind === 'response' ? (outcome.header('x-request-id') ?? null) : null;
    const event: ApiCallEvent = {
      method: spec.method,
      route: spec.route,
      status,
      errorCode: outcome.kind === 'aborted' ? 'aborted' : (error?.code ?? null),
      durationMs: this.options.clock.now() - timing.startedAt,
      attempt: timing.attempt,
      rateLimitWaitMs: timing.waitMs,
      requestId,
    };
    this.options.onCall?.(event);
    this.options.logger?.debug(
      {
        method: spec.method,
        path,
        status,
        code: event.errorCode,
        durationMs: event.durationMs,
        requestId,
        attempt: timing.attempt,
        rateLimitWaitMs: timing.waitMs,
      },
      'API call',
    );
  }

  private success(
    spec: RequestSpec,
    path: string,
    outcome: Extract<AttemptOutcome, { kind: 'response' }>,
  ): RawResponse {
    const requestId = outcome.header('x-request-id') ?? null;
    let body: unknown;
    if (outcome.text.length > 0) {
      try {
        body = JSON.parse(outcome.text) as unknown;
      } catch (cause) {
        throw new ApiError({
          status: outcome.status,
          code: 'invalid_response',
          method: spec.method,
          path,
          requestId,
          message: `${spec.method} ${path} returned HTTP ${outcome.status} with a body that is not JSON`,
          cause,
        });
      }
    }
    return { status: outcome.status, header: outcome.header, body, text: outcome.text, requestId };
  }

  private warnOnDeprecation(spec: RequestSpec, header: HeaderLookup): void {
    const sunset = header('sunset');
    const deprecation = header('deprecation');
    if ((sunset === undefined && deprecation === undefined) || this.warnedDeprecations.has(spec.route))
      return;
    this.warnedDeprecations.add(spec.route);
    this.options.logger?.warn(
      { method: spec.method, route: spec.route, sunset, deprecation },
      'API route is deprecated',
    );
  }
}

/**
 * The caller's signal, also aborted when the call's deadline passes during an attempt: a server that accepts the
 * connection and never answers must not hold the call past its deadline (undici's own timeouts are minutes).
 */
function attemptCutoff(
  signal: AbortSignal | undefined,
  remainingMs: number,
): { signal: AbortSignal; expired: () => boolean; clear: () => void } {
  const combined = new AbortController();
  let expired = false;
  const timer = setTimeout(
    () => {
      expired = true;
      combined.abort(new Error('deadline passed'));
    },
    Math.max(0, remainingMs),
  );
  timer.unref();
  const forward = (): void => combined.abort(signal?.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  return {
    signal: combined.signal,
    expired: () => expired,
    clear: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    },
  };
}
