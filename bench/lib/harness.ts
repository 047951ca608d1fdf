/** The real parts the flow benchmarks assemble: a sandbox, a client, a state file and a job context. */
import { pino } from 'pino';
import { createApiClient, type ApiCallEvent, type ApiClient } from '../../src/client/index.js';
import type { JobContext } from '../../src/engine/index.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { systemClock } from '../../src/shared/clock.js';
import type { StateStore } from '../../src/state/index.js';

/** A sandbox whose rate limit is out of the way (the rate-limit benchmark sets its own). */
export function unthrottledSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ rateLimitOverrides: { all: { per_minute: 1_000_000_000 } }, ...options });
}

export function benchClient(
  baseUrl: string,
  apiKey: string,
  extra: { onCall?: (event: ApiCallEvent) => void; maxConcurrency?: number } = {},
): ApiClient {
  return createApiClient({
    baseUrl,
    apiKey,
    ...(extra.onCall === undefined ? {} : { onCall: extra.onCall }),
    rateLimit: { maxConcurrency: extra.maxConcurrency ?? 8 },
  });
}

export const silentLogger = pino({ level: 'silent' });

export function jobContext(
  state: StateStore,
  budgetMs: number,
  signal = new AbortController().signal,
): JobContext {
  return {
    signal,
    budgetMs,
    dryRun: false,
    logger: silentLogger,
    clock: systemClock,
    state,
    trigger: 'cli',
  };
}
