/**
 * Fault injection for /v2 requests and webhook deliveries, driven by a seeded generator so a test that sets the
 * same faults with the same seed sees the same sequence of outcomes.
 */
import { validationError } from '../http/problem.js';
import { seededRandom } from '../platform/ids.js';
import type { WebhookFaults } from '../webhooks/dispatcher.js';

export interface FaultSettings {
  /** Share of /v2 requests answered 500 internal_error. */
  error_rate: number;
  /** Share of /v2 requests whose connection is destroyed without an answer. */
  reset_rate: number;
  /** The next N /v2 requests get 429 rate_limited. */
  rate_limit_burst: number;
  /** Added latency for the share latency_rate of requests (real milliseconds). */
  latency_ms: number;
  latency_rate: number;
  /** Share of webhook sends posted twice. */
  webhook_duplicate_rate: number;
  /** Share of new webhook deliveries held back by webhook_reorder_delay_ms so later events overtake them. */
  webhook_reorder: number;
  webhook_reorder_delay_ms: number;
  /** Added to the t= of Service-Signature. */
  signature_skew_seconds: number;
  seed: number;
}

export const NO_FAULTS: FaultSettings = {
  error_rate: 0,
  reset_rate: 0,
  rate_limit_burst: 0,
  latency_ms: 0,
  latency_rate: 0,
  webhook_duplicate_rate: 0,
  webhook_reorder: 0,
  webhook_reorder_delay_ms: 1000,
  signature_skew_seconds: 0,
  seed: 1,
};

const RATES = [
  'error_rate',
  'reset_rate',
  'latency_rate',
  'webhook_duplicate_rate',
  'webhook_reorder',
] as const;
const COUNTS = ['rate_limit_burst', 'latency_ms', 'webhook_reorder_delay_ms', 'seed'] as const;

export type RequestFault = { kind: 'none' | 'reset' | 'error' | 'rate_limited'; latencyMs: number };

export class FaultInjector implements WebhookFaults {
  private settings: FaultSettings = { ...NO_FAULTS };
  private random = seededRandom(NO_FAULTS.seed);

  /** Replaces the settings (unspecified fields fall back to no fault) and reseeds. */
  configure(input: unknown): FaultSettings {
    const body = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
    const next: FaultSettings = { ...NO_FAULTS };
    const items: { field: string; code: string; message?: string }[] = [];
    for (const name of Object.keys(body)) {
      if (!(name in NO_FAULTS))
        items.push({ field: name, code: 'unsupported_value', message: 'Unknown fault.' });
    }
    for (const name of RATES) {
      const value =
        name === 'webhook_reorder' && typeof body[name] === 'boolean' ? (body[name] ? 1 : 0) : body[name];
      if (value === undefined) continue;
      if (typeof value !== 'number' || value < 0 || value > 1)
        items.push({ field: name, code: 'out_of_range', message: '0 to 1.' });
      else next[name] = value;
    }
    for (const name of COUNTS) {
      const value = body[name];
      if (value === undefined) continue;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
        items.push({ field: name, code: 'out_of_range' });
      else next[name] = value;
    }
    const skew = body['signature_skew_seconds'];
    if (skew !== undefined) {
      if (typeof skew !== 'number' || !Number.isInteger(skew))
        items.push({ field: 'signature_skew_seconds', code: 'invalid_format' });
      else next.signature_skew_seconds = skew;
    }
    if (items.length > 0) throw validationError(items);
    this.settings = next;
    this.random = seededRandom(next.seed);
    return this.current();
  }

  clear(): void {
    this.settings = { ...NO_FAULTS };
    this.random = seededRandom(NO_FAULTS.seed);
  }

  current(): FaultSettings {
    return { ...this.settings };
  }

  /** Draws the fate of one /v2 request. */
  nextRequest(): RequestFault {
    const s = this.settings;
    const latencyMs = s.latency_rate > 0 && this.random() < s.latency_rate ? s.latency_ms : 0;
    if (s.rate_limit_burst > 0) {
      s.rate_limit_burst--;
      return { kind: 'rate_limited', latencyMs };
    }
    if (s.reset_rate > 0 && this.random() < s.reset_rate) return { kind: 'reset', latencyMs };
    if (s.error_rate > 0 && this.random() < s.error_rate) return { kind: 'error', latencyMs };
    return { kind: 'none', latencyMs };
  }

  duplicate(): boolean {
    return this.settings.webhook_duplicate_rate > 0 && this.random() < this.settings.webhook_duplicate_rate;
  }

  holdBackMs(): number {
    return this.settings.webhook_reorder > 0 && this.random() < this.settings.webhook_reorder
      ? this.settings.webhook_reorder_delay_ms
      : 0;
  }

  skewSeconds(): number {
    return this.settings.signature_skew_seconds;
  }
}
