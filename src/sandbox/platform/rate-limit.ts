/** Per-client request budgets (gap G21): a fixed one-minute window and, for Basic, a daily window. */
import type { PlanName } from '../http/types.js';

export interface RateLimit {
  per_minute: number;
  per_day: number | null;
}

export const PLAN_RATE_LIMITS: Record<PlanName, RateLimit> = {
  supplier: { per_minute: 600, per_day: null },
  Basic: { per_minute: 60, per_day: 10_000 },
  Pro: { per_minute: 300, per_day: null },
  Enterprise: { per_minute: 1200, per_day: null },
};

export type RateLimitOverrides = Partial<Record<PlanName | 'all', Partial<RateLimit>>>;

export function limitFor(plan: PlanName, overrides: RateLimitOverrides | undefined): RateLimit {
  return { ...PLAN_RATE_LIMITS[plan], ...overrides?.all, ...overrides?.[plan] };
}

interface Window {
  startMs: number;
  count: number;
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

export class RateLimiter {
  private readonly minute = new Map<string, Window>();
  private readonly day = new Map<string, Window>();

  constructor(private readonly now: () => number) {}

  /** Counts one request for `clientId` and says whether it fits. */
  take(clientId: string, limit: RateLimit): RateDecision {
    const nowMs = this.now();
    const minute = this.window(this.minute, clientId, nowMs, MINUTE);
    const day = limit.per_day === null ? null : this.window(this.day, clientId, nowMs, DAY);
    const minuteFull = minute.count >= limit.per_minute;
    const dayFull = day !== null && limit.per_day !== null && day.count >= limit.per_day;
    const allowed = !minuteFull && !dayFull;
    if (allowed) {
      minute.count++;
      if (day) day.count++;
    }
    const minuteReset = Math.max(1, Math.ceil((minute.startMs + MINUTE - nowMs) / 1000));
    const dayReset = day ? Math.max(1, Math.ceil((day.startMs + DAY - nowMs) / 1000)) : 0;
    const retryAfterSeconds = dayFull ? dayReset : minuteReset;
    return {
      allowed,
      retryAfterSeconds,
      headers: {
        'RateLimit-Limit': String(limit.per_minute),
        'RateLimit-Remaining': String(Math.max(0, limit.per_minute - minute.count)),
        'RateLimit-Reset': String(minuteReset),
      },
    };
  }

  clear(): void {
    this.minute.clear();
    this.day.clear();
  }

  private window(map: Map<string, Window>, clientId: string, nowMs: number, length: number): Window {
    const current = map.get(clientId);
    if (current && nowMs - current.startMs < length && nowMs >= current.startMs) return current;
    const fresh = { startMs: nowMs, count: 0 };
    map.set(clientId, fresh);
    return fresh;
  }
}
