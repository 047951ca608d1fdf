/**
 * Sandbox serve rate: 200-item pages per second from GET /supplier/orders?limit=200 (authentication, rate
 * limiting, paging, serialization), against a bare node:http server sending the same page's bytes. The load
 * generator runs in a child process so the server keeps a core to itself.
 */
import { startSandbox } from '../src/sandbox/index.js';
import { cannedJson } from './lib/bare-servers.js';
import { generateLoadInChild } from './lib/child-load.js';
import type { LoadConfig } from './lib/load-generator.js';
import { check, measured } from './lib/result.js';
import { ratio } from './lib/stats.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

const PAGE_PATH = '/v2/supplier/orders?limit=200';

export const sandboxServe: Benchmark = {
  name: 'sandbox-serve',
  title: 'Sandbox serve rate (200-item pages)',
  target: 'reported (no target): shows the sandbox is not the bottleneck of the other benchmarks',
  run,
};

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const durationMs = options.quick ? 1_000 : 10_000;
  const load = (origin: string, headers: Record<string, string>): LoadConfig => ({
    origin,
    connections: 8,
    pipelining: 1,
    durationMs,
    warmupMs: options.quick ? 200 : 1_000,
    maxRequests: 1_000_000,
    request: { kind: 'static', method: 'GET', path: PAGE_PATH, headers },
  });

  const sandbox = await startSandbox({ rateLimitOverrides: { all: { per_minute: 1_000_000_000 } } });
  try {
    await sandbox.control.action('buyer_send_order', { count: 200 });
    const headers = { authorization: `Bearer ${sandbox.keys.supplier}` };
    const sample = await fetch(`${sandbox.origin}${PAGE_PATH}`, { headers });
    const pageBody = await sample.text();
    const items = (JSON.parse(pageBody) as { data: unknown[] }).data.length;
    if (sample.status !== 200 || items !== 200) {
      throw new Error(`expected a 200-item page, got status ${sample.status} with ${items} items`);
    }

    options.log(`  baseline: bare node:http with the same ${pageBody.length}-byte page`);
    const bare = await cannedJson(pageBody);
    const baseline = await generateLoadInChild(load(bare.origin, headers)).finally(() => bare.close());

    options.log('  sandbox');
    const served = await generateLoadInChild(load(sandbox.origin, headers));
    const nonOk = served.completed - served.ok;
    return measured({
      name: sandboxServe.name,
      title: sandboxServe.title,
      startedAt,
      figure: { label: 'sandbox', value: served.okPerSecond, unit: 'pages/s' },
      baseline: { label: 'bare node:http, same bytes', value: baseline.okPerSecond, unit: 'pages/s' },
      ratio: ratio(served.okPerSecond, baseline.okPerSecond),
      checks: [check('every response 200', nonOk, 'non-200', nonOk === 0)],
      details: {
        'page size': `${pageBody.length} bytes, 200 orders`,
        'sandbox items/s': served.okPerSecond * 200,
        'sandbox p50 / p99 latency (ms)': `${served.latencyMs.p50.toFixed(1)} / ${served.latencyMs.p99.toFixed(1)}`,
        'baseline p50 / p99 latency (ms)': `${baseline.latencyMs.p50.toFixed(1)} / ${baseline.latencyMs.p99.toFixed(1)}`,
        load: '8 keep-alive connections from a child process, closed loop',
        'sandbox statuses': JSON.stringify(served.statuses),
      },
      notes: [],
    });
  } finally {
    await sandbox.close();
  }
}
