/**
 * Rate-limit use: the client drives GET /me as fast as four callers can against a sandbox with a tight limit,
 * for two minutes (20 s with --quick). Figure: successful requests per second; baseline: the rate the sandbox
 * allows (its RateLimit-Limit per minute / 60); also the 429s received after the first minute (after the first
 * half with --quick, which never leaves the first window).
 */
import { ApiError, type ApiCallEvent } from '../src/client/index.js';
import { benchClient } from './lib/harness.js';
import { check, measured } from './lib/result.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { meets, ratio } from './lib/stats.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

const PER_MINUTE = 300;
const CALLERS = 4;

export const rateLimit: Benchmark = {
  name: 'rate-limit',
  title: 'Rate-limit use (tight limit, 2 minutes)',
  target: 'achieved / allowed >= 0.95, zero 429s after the first minute',
  run,
};

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const durationMs = options.quick ? 20_000 : 120_000;
  const graceMs = options.quick ? durationMs / 2 : 60_000;
  const sandbox = await startSandboxProcess({ rateLimitOverrides: { all: { per_minute: PER_MINUTE } } });
  const attempts: (ApiCallEvent & { at: number })[] = [];
  const api = benchClient(sandbox.baseUrl, sandbox.keys.supplier, {
    onCall: (event) => attempts.push({ ...event, at: performance.now() }),
    maxConcurrency: CALLERS,
  });
  const stop = new AbortController();
  try {
    options.log(`  ${CALLERS} callers for ${durationMs / 1000} s against ${PER_MINUTE} requests/minute`);
    const runStart = performance.now();
    const timer = setTimeout(() => stop.abort(new Error('benchmark time is up')), durationMs);
    let otherErrors = 0;
    const caller = async (): Promise<void> => {
      while (!stop.signal.aborted) {
        try {
          await api.account.me({ signal: stop.signal });
        } catch (error) {
          if (stop.signal.aborted) return;
          if (!(error instanceof ApiError)) throw error;
          otherErrors += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: CALLERS }, () => caller()));
    clearTimeout(timer);
    const endAt = runStart + durationMs;

    const inRun = attempts.filter((a) => a.at <= endAt);
    const ok = inRun.filter((a) => a.status !== null && a.status >= 200 && a.status < 300).length;
    const tooMany = inRun.filter((a) => a.status === 429);
    const lateTooMany = tooMany.filter((a) => a.at - runStart > graceMs).length;
    const achieved = (ok * 1000) / durationMs;
    const allowed = PER_MINUTE / 60;
    const r = ratio(achieved, allowed);
    return measured({
      name: rateLimit.name,
      title: options.quick ? 'Rate-limit use (tight limit, 20 s, quick)' : rateLimit.title,
      startedAt,
      figure: { label: 'achieved 2xx', value: achieved, unit: 'requests/s' },
      baseline: { label: `allowed (${PER_MINUTE}/min)`, value: allowed, unit: 'requests/s' },
      ratio: r,
      checks: [
        check('achieved / allowed >= 0.95', r, '', meets(r, '>=', 0.95)),
        check(`429s after ${graceMs / 1000} s == 0`, lateTooMany, '429s', lateTooMany === 0),
      ],
      details: {
        'requests answered 2xx': ok,
        '429 received (whole run)': tooMany.length,
        'other API errors': otherErrors,
        'client rate limiter': JSON.stringify(api.rateLimiterStats()),
        callers: CALLERS,
      },
      notes: [
        'The sandbox counts requests in fixed one-minute windows per client; the client paces request starts evenly from GET /me rate_limit and the RateLimit-* headers. The sandbox runs in a child process.',
      ],
    });
  } finally {
    stop.abort();
    await api.close();
    await sandbox.close();
  }
}
