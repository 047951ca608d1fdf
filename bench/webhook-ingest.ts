/**
 * Webhook ingest: verified, durably stored events per second and p99 time to 2xx through the daemon's webhook
 * receiver (signature check on the raw bytes, envelope check, group-committed inbox insert that is on disk
 * before the 2xx), against a bare node:http server that only reads the body and answers 204. The same
 * child-process generator signs every event with a unique id for both servers.
 */
import { join } from 'node:path';
import { systemClock } from '../src/shared/clock.js';
import { openStateStore } from '../src/state/index.js';
import { createWebhookReceiver, stateInbox, WalSyncedInbox, type InboxStore } from '../src/webhooks/index.js';
import { bareBodyReader, listen } from './lib/bare-servers.js';
import { generateLoadInChild } from './lib/child-load.js';
import type { LoadConfig, LoadResult } from './lib/load-generator.js';
import { check, measured } from './lib/result.js';
import { meets, ratio } from './lib/stats.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

const SECRET = 'whsec_benchmark_only_not_a_real_secret';
const WEBHOOK_PATH = '/webhooks';

export const webhookIngest: Benchmark = {
  name: 'webhook-ingest',
  title: 'Webhook ingest (verified, durable before 2xx)',
  target: 'ratio >= 0.4 of the bare server, p99 < 20 ms',
  run,
};

interface ReceiverRun {
  load: LoadResult;
  stored: number;
}

/** Serves the real receiver on a fresh state file and drives it; counts the events that reached the inbox. */
async function measureReceiver(
  dir: string,
  inboxKind: 'wal-synced' | 'state',
  load: (origin: string) => LoadConfig,
): Promise<ReceiverRun> {
  const file = join(dir, `${inboxKind}.db`);
  const state = openStateStore({ file, clock: systemClock });
  const walInbox = inboxKind === 'wal-synced' ? WalSyncedInbox.open({ file, clock: systemClock }) : undefined;
  const inbox: InboxStore = walInbox ?? stateInbox(state.inbox);
  const receiver = createWebhookReceiver({
    inbox,
    secrets: [SECRET],
    clock: systemClock,
    ...(walInbox === undefined ? {} : { maxCommitsInFlight: 4 }),
  });
  const server = await listen((req, res) => {
    if (req.url === WEBHOOK_PATH) receiver.handle(req, res);
    else res.writeHead(404).end();
  });
  try {
    const result = await generateLoadInChild(load(server.origin));
    await receiver.drain();
    const counts = state.inbox.counts();
    return { load: result, stored: counts.pending + counts.dispatched };
  } finally {
    await server.close();
    await walInbox?.close();
    state.close();
  }
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const durationMs = options.quick ? 1_500 : 10_000;
  const load = (origin: string): LoadConfig => ({
    origin,
    connections: 16,
    pipelining: 1,
    durationMs,
    warmupMs: options.quick ? 300 : 1_000,
    maxRequests: 2_000_000,
    request: { kind: 'webhook', path: WEBHOOK_PATH, secret: SECRET, eventType: 'order.created' },
  });

  return withTempDir('webhook', async (dir) => {
    options.log('  baseline: bare node:http, read body, 204');
    const bare = await bareBodyReader();
    const baseline = await generateLoadInChild(load(bare.origin)).finally(() => bare.close());

    options.log('  receiver with the WAL-synced inbox (recommended for the daemon)');
    const wal = await measureReceiver(dir, 'wal-synced', load);
    options.log('  receiver with the state store inbox (synchronous=FULL on the shared connection)');
    const full = await measureReceiver(dir, 'state', load);

    const figure = wal.load.okPerSecond;
    const r = ratio(figure, baseline.okPerSecond);
    const p99 = wal.load.latencyMs.p99;
    // Every 2xx must stand for a stored event (the warm-up's events are stored too, so stored >= counted 2xx).
    const durable = wal.stored >= wal.load.ok && wal.load.completed === wal.load.ok;
    return measured({
      name: webhookIngest.name,
      title: webhookIngest.title,
      startedAt,
      figure: { label: 'receiver + WAL-synced inbox', value: figure, unit: 'events/s' },
      baseline: { label: 'bare node:http (read body, 204)', value: baseline.okPerSecond, unit: 'requests/s' },
      ratio: r,
      checks: [
        check('ratio >= 0.4', r, '', meets(r, '>=', 0.4)),
        check('p99 < 20 ms', p99, 'ms', meets(p99, '<', 20)),
        check('every 2xx stored, no errors', wal.load.completed - wal.load.ok, 'non-2xx', durable),
      ],
      details: {
        'receiver p50 / p99 / max to 2xx (ms)': `${wal.load.latencyMs.p50.toFixed(2)} / ${p99.toFixed(2)} / ${wal.load.latencyMs.max.toFixed(1)}`,
        'baseline p50 / p99 (ms)': `${baseline.latencyMs.p50.toFixed(2)} / ${baseline.latencyMs.p99.toFixed(2)}`,
        'events stored (incl. warm-up) / 2xx counted': `${wal.stored} / ${wal.load.ok}`,
        'state store inbox (what src/daemon/runtime.ts wires today): events/s': full.load.okPerSecond,
        'state store inbox: ratio to bare': ratio(full.load.okPerSecond, baseline.okPerSecond),
        'state store inbox: p50 / p99 (ms)': `${full.load.latencyMs.p50.toFixed(2)} / ${full.load.latencyMs.p99.toFixed(2)}`,
        'state store inbox: stored / 2xx': `${full.stored} / ${full.load.ok}`,
        load: '16 keep-alive connections from a child process, closed loop; every event signed (t=, v1= HMAC-SHA256), unique id',
      },
      notes: [
        'Durability: the receiver answers 2xx only after the group commit that holds the event is on disk (the WAL-synced inbox fsyncs the -wal file asynchronously before resolving).',
      ],
    });
  });
}
