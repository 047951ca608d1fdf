/**
 * A closed-loop HTTP load generator on undici: a Pool keeps `connections x pipelining` requests in flight and
 * starts a new one as each completes, as fast as the server answers, for a bounded time and count. Latency is
 * time to the complete response. Runs in-process or in a child process (load-child.ts).
 */
import { createHmac, randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { summarize, type Summary } from './stats.js';

export interface StaticRequest {
  kind: 'static';
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Every request a new, signed webhook event with a unique id (contract part 6.1 signature). */
export interface WebhookRequest {
  kind: 'webhook';
  path: string;
  secret: string;
  eventType: string;
}

export interface LoadConfig {
  /** http://127.0.0.1:PORT */
  origin: string;
  connections: number;
  pipelining: number;
  durationMs: number;
  /** Requests in this first stretch are sent but not counted. */
  warmupMs: number;
  /** Hard cap on counted requests. */
  maxRequests: number;
  request: StaticRequest | WebhookRequest;
}

export interface LoadResult {
  /** Counted requests completed (any status). */
  completed: number;
  /** Counted responses with a 2xx status. */
  ok: number;
  statuses: Record<string, number>;
  errors: number;
  elapsedMs: number;
  /** 2xx responses per second over the counted stretch. */
  okPerSecond: number;
  /** Milliseconds from sending to the complete response, 2xx responses only. */
  latencyMs: Summary;
}

interface Prepared {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function requestMaker(request: StaticRequest | WebhookRequest): () => Prepared {
  if (request.kind === 'static') {
    const prepared: Prepared = {
      method: request.method,
      path: request.path,
      headers: request.headers ?? {},
      ...(request.body === undefined ? {} : { body: request.body }),
    };
    return () => prepared;
  }
  const prefix = `evt_bench_${randomUUID().slice(0, 8)}_`;
  let sequence = 0;
  return () => {
    sequence += 1;
    const body = JSON.stringify({
      id: `${prefix}${sequence}`,
      type: request.eventType,
      occurred_at: new Date().toISOString(),
      data: { object: 'ping', sequence },
    });
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', request.secret).update(`${t}.${body}`).digest('hex');
    return {
      method: 'POST',
      path: request.path,
      headers: { 'content-type': 'application/json', 'service-signature': `t=${t},v1=${v1}` },
      body,
    };
  };
}

export async function generateLoad(config: LoadConfig): Promise<LoadResult> {
  const pool = new Pool(config.origin, {
    connections: config.connections,
    pipelining: config.pipelining,
    keepAliveTimeout: 30_000,
  });
  const next = requestMaker(config.request);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let completed = 0;
  let ok = 0;
  let errors = 0;
  const startedAt = performance.now();
  const countFrom = startedAt + config.warmupMs;
  const stopAt = countFrom + config.durationMs;
  let countedLast = countFrom;

  const worker = async (): Promise<void> => {
    for (;;) {
      const now = performance.now();
      if (now >= stopAt || completed >= config.maxRequests) return;
      const prepared = next();
      const sentAt = performance.now();
      let status: number;
      try {
        const response = await pool.request({
          method: prepared.method,
          path: prepared.path,
          headers: prepared.headers,
          ...(prepared.body === undefined ? {} : { body: prepared.body }),
        });
        // Read every byte: a client that drops the body would flatter a server sending large pages.
        await response.body.arrayBuffer();
        status = response.statusCode;
      } catch {
        status = 0;
      }
      const doneAt = performance.now();
      if (sentAt < countFrom || doneAt > stopAt) continue;
      if (completed >= config.maxRequests) return;
      countedLast = doneAt;
      completed += 1;
      if (status === 0) errors += 1;
      else statuses[String(status)] = (statuses[String(status)] ?? 0) + 1;
      if (status >= 200 && status < 300) {
        ok += 1;
        latencies.push(doneAt - sentAt);
      }
    }
  };

  try {
    const inFlight = Math.max(1, config.connections * config.pipelining);
    await Promise.all(Array.from({ length: inFlight }, () => worker()));
  } finally {
    await pool.close();
  }
  // The counted stretch is the whole window, unless the count cap ended it early.
  const elapsedMs = completed >= config.maxRequests ? countedLast - countFrom : config.durationMs;
  return {
    completed,
    ok,
    statuses,
    errors,
    elapsedMs,
    okPerSecond: elapsedMs > 0 ? (ok * 1000) / elapsedMs : 0,
    latencyMs: summarize(latencies),
  };
}
