/**
 * The two sides of the pull benchmark: a plain undici fetch + JSON.parse loop over GET /supplier/orders, and the
 * engine's incremental pull of the same pages into a fresh state file; plus a bare server that replays recorded
 * pages, so the engine's own cost per item can be measured without the sandbox as the bottleneck.
 */
import { request } from 'undici';
import type { Order } from '../../src/contract/index.js';
import { pullIncremental, RunBudget } from '../../src/engine/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore, type SyncMode } from '../../src/state/index.js';
import { listen, type Listening } from './bare-servers.js';
import { startCheckpointThread, type CheckpointThread } from './checkpoint-thread-start.js';
import { benchClient } from './harness.js';

interface PageBody {
  data: unknown[];
  next_cursor: string | null;
  has_more: boolean;
}

export interface LoopRun {
  items: number;
  ms: number;
}

/** Fetches and parses every page; with `record`, keeps each page's bytes by the cursor that asked for it. */
export async function plainLoop(origin: string, key: string, record?: Map<string, string>): Promise<LoopRun> {
  const started = performance.now();
  let items = 0;
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: '200' });
    if (cursor !== null) query.set('cursor', cursor);
    const response = await request(`${origin}/v2/supplier/orders?${query.toString()}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (response.statusCode !== 200) throw new Error(`plain loop: status ${response.statusCode}`);
    const text = await response.body.text();
    record?.set(cursor ?? '', text);
    const page = JSON.parse(text) as PageBody;
    items += page.data.length;
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor !== null);
  return { items, ms: performance.now() - started };
}

/** Serves recorded pages by their cursor (the first page for no cursor), ignoring everything else. */
export function replayServer(pages: ReadonlyMap<string, string>): Promise<Listening> {
  return listen((req, res) => {
    req.resume();
    const cursor = new URL(req.url ?? '/', 'http://replay').searchParams.get('cursor') ?? '';
    const body = pages.get(cursor);
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
      .end(body);
  });
}

export interface PullRun {
  staged: number;
  pages: number;
  ms: number;
  outcome: string;
}

/** A listed order with its JSON as the API sent it. */
interface ListedOrder {
  order: Order;
  json: string;
}

/** Settings of the state file other than the daemon's, for the comparisons of bench/pull-checkpoints.ts. */
export interface StateTuning {
  synchronous?: SyncMode;
  /** wal_autocheckpoint of the store's connection (0: no checkpoint until the store closes). */
  walAutocheckpoint?: number;
  /** Checkpoints on a thread of their own (bench/lib/checkpoint-thread.ts), at most one per this many ms. */
  checkpointThreadMs?: number;
}

/**
 * The engine's pull of GET /supplier/orders into a fresh state file, staging each order (its JSON as received) in
 * the page transaction. Without `tuning`, the state file is opened as the daemon opens it.
 */
export async function enginePull(
  file: string,
  baseUrl: string,
  key: string,
  tuning: StateTuning = {},
): Promise<PullRun & { framesCopiedByThread: number | null }> {
  const state = openStateStore({
    file,
    clock: systemClock,
    ...(tuning.synchronous === undefined ? {} : { synchronous: tuning.synchronous }),
  });
  if (tuning.walAutocheckpoint !== undefined)
    state.db.pragma(`wal_autocheckpoint = ${tuning.walAutocheckpoint}`);
  let thread: CheckpointThread | null = null;
  const api = benchClient(baseUrl, key);
  try {
    state.db.exec(
      'CREATE TABLE bench_staged (id TEXT PRIMARY KEY, updated_at TEXT NOT NULL, body TEXT NOT NULL)',
    );
    const insert = state.db.prepare(
      'INSERT INTO bench_staged (id, updated_at, body) VALUES (?, ?, ?) ' +
        'ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, body = excluded.body',
    );
    if (tuning.checkpointThreadMs !== undefined) {
      thread = await startCheckpointThread(state.file, tuning.checkpointThreadMs);
      // The store's own checkpoint stays as a backstop should the thread fall behind (about 40 MB of WAL).
      state.db.pragma('wal_autocheckpoint = 10000');
    }
    const started = performance.now();
    const result = await pullIncremental<ListedOrder>({
      state,
      stream: 'bench:/supplier/orders',
      fetchPage: async ({ cursor, updatedSince }, signal) => {
        const page = await api.orders
          .list({
            limit: 200,
            ...(cursor === null ? {} : { cursor }),
            ...(updatedSince === null ? {} : { updated_since: updatedSince }),
            signal,
          })
          .firstPage({ itemTexts: true });
        const texts = page.itemTexts ?? [];
        const items = page.items.map((order, i) => ({ order, json: texts[i] ?? JSON.stringify(order) }));
        return { items, nextCursor: page.nextCursor, hasMore: page.hasMore };
      },
      identify: ({ order }) => ({ id: order.id, updatedAt: order.updated_at }),
      stageRecord: ({ order, json }) => {
        insert.run(order.id, order.updated_at, json);
      },
      overlapMs: 5_000,
      budget: new RunBudget(systemClock, 10 * 60_000, new AbortController().signal),
      ...(thread === null ? {} : { onPage: () => thread?.committed() }),
    });
    const ms = performance.now() - started;
    const staged = (state.db.prepare('SELECT count(*) AS n FROM bench_staged').get() as { n: number }).n;
    if (result.outcome !== 'ok') throw new Error(`pull ended ${result.outcome}: ${result.error ?? ''}`);
    return {
      staged,
      pages: result.counts.pages,
      ms,
      outcome: result.outcome,
      framesCopiedByThread: thread?.framesCopied ?? null,
    };
  } finally {
    try {
      await api.close();
      // The thread's connection closes first, so that the store's, the last, checkpoints and removes the WAL.
      await thread?.close();
    } finally {
      state.close();
    }
  }
}
