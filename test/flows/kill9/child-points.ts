/**
 * Child-process side of the kill -9 tests of the mirror, buyers and sales-push flows (see rounds.ts for the
 * parent side). A child reads its settings from one environment variable, numbers the instrumented points it
 * passes (before and after each write), prints `step N` at each one so the parent can tell a kill inside a run from
 * one before it, and with `killAtStep` kills itself with SIGKILL there. It runs its job until a run finds nothing
 * to do and prints `converged`.
 */
import { createApiClient, type ApiClient } from '../../../src/client/index.js';
import type { Job, RunResult } from '../../../src/engine/index.js';
import type { StateStore } from '../../../src/state/index.js';
import { jobContext } from '../job-context.js';

/** The API client a child uses: quick retries within a short deadline, no client-side rate limit to speak of. */
export function childApiClient(settings: { baseUrl: string; apiKey: string }): ApiClient {
  return createApiClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 100, deadlineMs: 20_000 },
    rateLimit: { perMinute: 100_000 },
  });
}

export interface ChildPointSettings {
  killAtStep?: number;
}

export function childSettings<T extends ChildPointSettings>(envName: string): T {
  const text = process.env[envName];
  if (text === undefined) throw new Error(`${envName} is not set`);
  return JSON.parse(text) as T;
}

/** Counts instrumented points; `around` marks one before and one after a call. */
export function killPoints(killAtStep: number | undefined) {
  let step = 0;
  const point = (): void => {
    step += 1;
    // The parent's kill timer starts when it reads "started": at the first write, so that timed kills land inside
    // runs rather than while the process is still loading. Writes to a pipe are synchronous on Linux, so the
    // parent sees each line even when the next statement kills this process. "started" and "step 1" go out in
    // one write: in two, a timer of 0 ms could kill the child between them.
    const line = `step ${step}\n`;
    process.stdout.write(step === 1 ? `writes started\n${line}` : line);
    if (step === killAtStep) process.kill(process.pid, 'SIGKILL');
  };
  return {
    point,
    async around<T>(call: () => Promise<T>): Promise<T> {
      point();
      const result = await call();
      point();
      return result;
    },
  };
}

/**
 * Runs the job until a run ends ok and `quiet` says it found nothing to do, then prints `converged` and exits 0;
 * after `maxRuns` runs without that it exits 1.
 */
export async function runUntilQuiet(
  job: Job,
  state: StateStore,
  quiet: (result: RunResult) => boolean,
  close: () => Promise<void>,
  maxRuns = 30,
): Promise<never> {
  process.stdout.write(`pid ${process.pid}\n`);
  for (let run = 0; run < maxRuns; run += 1) {
    const result = await job.run(jobContext(state, { budgetMs: 60_000, trigger: 'schedule' }));
    process.stdout.write(`run ${JSON.stringify({ outcome: result.outcome, counts: result.counts })}\n`);
    if (result.outcome === 'failed') process.stdout.write(`run failed: ${result.error ?? ''}\n`);
    if (result.outcome === 'ok' && quiet(result)) {
      process.stdout.write('converged\n');
      state.close();
      await close();
      process.exit(0);
    }
  }
  process.stdout.write('not converged\n');
  process.exit(1);
}
