/**
 * An external webhook sender for the daemon benchmark, in a process of its own: autocannon (from npm) keeps
 * `connections` keep-alive connections busy, one request in flight on each, and every request is a new event: a
 * fresh id (`<prefix><n>`), the current time, and a Service-Signature over the exact bytes sent.
 * `node --import tsx bench/lib/webhook-load-child.ts '<WebhookLoadConfig JSON>'` prints one WebhookLoadResult
 * JSON line; the ids answered 2xx (warm-up included) are appended to `acceptedFile`, one a line.
 */
import { createHmac } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { WebhookLoadConfig, WebhookLoadResult, WebhookRunFigures } from './webhook-load.js';

interface RequestData {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

interface Histogram {
  p50: number;
  p99: number;
  max: number;
}

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  latency: Histogram;
  statusCodeStats: Record<string, { count: number }>;
}

interface AutocannonOptions {
  url: string;
  connections: number;
  pipelining: number;
  duration: number;
  /** Milliseconds between the samples that also decide when a run ends; short, so it ends on time. */
  sampleInt: number;
  timeout: number;
  requests: Array<{
    method: string;
    path: string;
    setupRequest: (request: RequestData, context: Record<string, unknown>) => RequestData;
    onResponse: (status: number, body: string, context: Record<string, unknown>) => void;
  }>;
}

type Autocannon = (
  options: AutocannonOptions,
  done: (error: Error | null, result: AutocannonResult) => void,
) => unknown;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const raw = process.argv[2];
if (raw === undefined) {
  process.stderr.write('usage: webhook-load-child.ts <WebhookLoadConfig JSON>\n');
  process.exit(2);
}
const config = JSON.parse(raw) as WebhookLoadConfig;

let sequence = 0;
let accepted: string[] = [];

const flushAccepted = (): void => {
  if (accepted.length === 0) return;
  appendFileSync(config.acceptedFile, `${accepted.join('\n')}\n`);
  accepted = [];
};

function signedEvent(request: RequestData, context: Record<string, unknown>): RequestData {
  sequence += 1;
  const id = `${config.prefix}${sequence}`;
  const body = JSON.stringify({
    id,
    type: config.eventType,
    api_version: '2',
    occurred_at: new Date().toISOString(),
    account_id: 'acc_bench',
    data: config.data,
  });
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', config.secret).update(`${t}.${body}`).digest('hex');
  context['id'] = id;
  return {
    ...request,
    headers: {
      ...request.headers,
      'content-type': 'application/json',
      'service-signature': `t=${t},v1=${v1}`,
    },
    body,
  };
}

function load(durationMs: number): Promise<WebhookRunFigures> {
  return new Promise((resolve, reject) => {
    const startedAt = Date.now();
    autocannon(
      {
        url: config.origin,
        connections: config.connections,
        pipelining: 1,
        duration: durationMs / 1000,
        sampleInt: 100,
        timeout: 30,
        requests: [
          {
            method: 'POST',
            path: config.path,
            setupRequest: signedEvent,
            onResponse: (status, _body, context) => {
              const id = context['id'];
              if (status >= 200 && status < 300 && typeof id === 'string') accepted.push(id);
              if (accepted.length >= 10_000) flushAccepted();
            },
          },
        ],
      },
      (error, result) => {
        if (error !== null) return reject(error);
        const statuses: Record<string, number> = {};
        for (const [status, { count }] of Object.entries(result.statusCodeStats))
          statuses[status] = Number(count);
        const elapsedMs = result.duration * 1000;
        resolve({
          ok: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statuses,
          elapsedMs,
          startedAt,
          endedAt: Date.now(),
          okPerSecond: elapsedMs > 0 ? (result['2xx'] * 1000) / elapsedMs : 0,
          latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
        });
      },
    );
  });
}

// The warm-up's events are stored too (their ids are recorded), but its figures are not counted.
if (config.warmupMs > 0) await load(config.warmupMs);
const measuredRun = await load(config.durationMs);
flushAccepted();
const result: WebhookLoadResult = { ...measuredRun, sent: sequence };
process.stdout.write(`${JSON.stringify(result)}\n`);
