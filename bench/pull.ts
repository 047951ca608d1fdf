/**
 * Pull: items per second staged into the state file by the engine's incremental pull (pullIncremental with the
 * client's paginated GET /supplier/orders, each page's rows staged and checkpointed in one transaction), against
 * a plain undici loop that only fetches and parses the same pages. The sandbox runs in a child process.
 */
import { join } from 'node:path';
import { request } from 'undici';
import type { Order } from '../src/contract/index.js';
import { pullIncremental, RunBudget } from '../src/engine/index.js';
import { systemClock } from '../src/shared/clock.js';
import { openStateStore } from '../src/state/index.js';
import { listen, type Listening } from './lib/bare-servers.js';
import { benchClient } from './lib/harness.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { check, measured } from './lib/result.js';
import { meets, perSecond, ratio } from './lib/stats.js';
import { seedOrders } from './lib/seed.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

export const pull: Benchmark = {
  name: 'pull',
  title: 'Pull into the state (orders, 200 a page)',
  target: 'ratio >= 0.5 of a plain fetch-and-parse loop',
  run,
};

interface PageBody {
  data: unknown[];
  next_cursor: string | null;
  has_more: boolean;
}

/** Fetches and parses every page; with `record`, keeps each page's bytes by the cursor that asked for it. */
async function plainLoop(
  origin: string,
  key: string,
  record?: Map<string, string>,
): Promise<{ items: number; ms: number }> {
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
function replayServer(pages: ReadonlyMap<string, string>): Promise<Listening> {
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

interface PullRun {
  staged: number;
  pages: number;
  ms: number;
  outcome: string;
}

/** The engine's pull of GET /supplier/orders into a fresh state file, staging each order in the page transaction. */
async function enginePull(file: string, baseUrl: string, key: string): Promise<PullRun> {
  const state = openStateStore({ file, clock: systemClock });
  const api = benchClient(baseUrl, key);
  try {
    state.db.exec(
      'CREATE TABLE bench_staged (id TEXT PRIMARY KEY, updated_at TEXT NOT NULL, body TEXT NOT NULL)',
    );
    const insert = state.db.prepare(
      'INSERT INTO bench_staged (id, updated_at, body) VALUES (?, ?, ?) ' +
        'ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, body = excluded.body',
    );
    const started = performance.now();
    const result = await pullIncremental<Order>({
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
          .firstPage();
        return { items: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore };
      },
      identify: (order) => ({ id: order.id, updatedAt: order.updated_at }),
      stageRecord: (order) => {
        insert.run(order.id, order.updated_at, JSON.stringify(order));
      },
      overlapMs: 5_000,
      budget: new RunBudget(systemClock, 10 * 60_000, new AbortController().signal),
    });
    const ms = performance.now() - started;
    const staged = (state.db.prepare('SELECT count(*) AS n FROM bench_staged').get() as { n: number }).n;
    if (result.outcome !== 'ok') throw new Error(`pull ended ${result.outcome}: ${result.error ?? ''}`);
    return { staged, pages: result.counts.pages, ms, outcome: result.outcome };
  } finally {
    await api.close();
    state.close();
  }
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const orders = options.quick ? 600 : 10_000;
  const sandbox = await startSandboxProcess();
  try {
    options.log(`  seeding ${orders} orders`);
    await seedOrders(sandbox, orders);
    return await withTempDir('pull', async (dir) => {
      options.log('  baseline: plain undici loop against the sandbox (pages recorded)');
      const recorded = new Map<string, string>();
      const baseline = await plainLoop(sandbox.origin, sandbox.keys.supplier, recorded);
      options.log('  engine pull against the sandbox');
      const pulled = await enginePull(join(dir, 'sandbox.db'), sandbox.baseUrl, sandbox.keys.supplier);

      options.log('  the same pages replayed by a bare server: plain loop, then engine pull');
      const replay = await replayServer(recorded);
      let replayBaseline: { items: number; ms: number };
      let replayPull: PullRun;
      try {
        replayBaseline = await plainLoop(replay.origin, sandbox.keys.supplier);
        replayPull = await enginePull(join(dir, 'replay.db'), `${replay.origin}/v2`, sandbox.keys.supplier);
      } finally {
        await replay.close();
      }

      const figure = perSecond(pulled.staged, pulled.ms);
      const base = perSecond(baseline.items, baseline.ms);
      const r = ratio(figure, base);
      const replayRatio = ratio(
        perSecond(replayPull.staged, replayPull.ms),
        perSecond(replayBaseline.items, replayBaseline.ms),
      );
      return measured({
        name: pull.name,
        title: pull.title,
        startedAt,
        figure: {
          label: 'engine pull from the sandbox, staged + checkpointed',
          value: figure,
          unit: 'items/s',
        },
        baseline: { label: 'plain undici fetch + JSON.parse, same sandbox', value: base, unit: 'items/s' },
        ratio: r,
        checks: [
          check('ratio >= 0.5', r, '', meets(r, '>=', 0.5)),
          check('every listed order staged once', pulled.staged, 'rows', pulled.staged === baseline.items),
        ],
        details: {
          'orders listed (baseline) / staged (pull)': `${baseline.items} / ${pulled.staged}`,
          'pages (pull)': pulled.pages,
          'pull / baseline time (ms)': `${pulled.ms.toFixed(0)} / ${baseline.ms.toFixed(0)}`,
          'replayed pages: engine pull items/s': perSecond(replayPull.staged, replayPull.ms),
          'replayed pages: plain loop items/s': perSecond(replayBaseline.items, replayBaseline.ms),
          'replayed pages: ratio (engine cost without the sandbox as bottleneck)': replayRatio,
          'replayed pages: staged': replayPull.staged,
        },
        notes: [
          'The pull parses every item leniently (schema drift counted), stages it in the page transaction with the seen-set and cursor (synchronous=FULL), and prefetches the next page while the current one commits. The sandbox runs in a child process.',
          'Against the sandbox both sides wait mostly on the sandbox (see the sandbox serve row), so the second pair replays the recorded pages from a bare node:http server: that ratio shows what the client, the engine and SQLite cost per item.',
        ],
      });
    });
  } finally {
    await sandbox.close();
  }
}
