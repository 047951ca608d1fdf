/** Runs the external webhook sender (webhook-load-child.ts, autocannon) in a process of its own. */
import { fileURLToPath } from 'node:url';
import { runJsonChild } from './run-child.js';

export interface WebhookLoadConfig {
  /** http://127.0.0.1:PORT */
  origin: string;
  path: string;
  connections: number;
  durationMs: number;
  /** A first stretch of the same load, sent and stored but not counted. */
  warmupMs: number;
  secret: string;
  eventType: string;
  /** The event's `data` object, the same in every event. */
  data: Record<string, unknown>;
  /** Event ids are `<prefix><n>`; a prefix is used by one run only. */
  prefix: string;
  /** Ids answered 2xx are appended here, one a line. */
  acceptedFile: string;
}

export interface WebhookRunFigures {
  /** 2xx responses in the counted stretch. */
  ok: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
  elapsedMs: number;
  /** Date.now() at the start and the end of the counted stretch, to cut a profile of the server to it. */
  startedAt: number;
  endedAt: number;
  okPerSecond: number;
  /** Time to the complete response of 2xx answers, as autocannon records it (ms). */
  latencyMs: { p50: number; p99: number; max: number };
}

export interface WebhookLoadResult extends WebhookRunFigures {
  /** Events sent in all, warm-up included. */
  sent: number;
}

const CHILD = fileURLToPath(new URL('./webhook-load-child.ts', import.meta.url));

export function sendWebhookLoad(config: WebhookLoadConfig): Promise<WebhookLoadResult> {
  return runJsonChild<WebhookLoadResult>(CHILD, config, config.warmupMs + config.durationMs + 90_000);
}
