/**
 * `node --import tsx bench/pull-costs.ts [rounds]`: the CPU time (user + system) per order of the pull's parts,
 * each measured alone on the same 10,048 recorded orders (200 a page), so the share of each in the engine's cost
 * against replayed pages can be read without a profiler:
 * - "fetch + JSON.parse": the plain loop against a bare server replaying the pages (both in this process);
 * - "API client pages": the same pages read with the API client as the engine's benchmark reads them (undici,
 *   JSON.parse, each order checked against the contract's schema, the item texts);
 * - "engine, no staging": pullIncremental over the pages already parsed (seen-set, cursor, page transaction);
 * - "engine + staging": the same with the pull benchmark's stageRecord (an INSERT of each order's JSON);
 * - "SQLite insert only": the same INSERTs, 200 to a transaction, with no engine around them.
 * Rounds alternate the four; each round uses a fresh state file (synchronous=FULL, WAL).
 */
import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import type { Order } from '../src/contract/index.js';
import { pullIncremental, RunBudget, type Page } from '../src/engine/index.js';
import { systemClock } from '../src/shared/clock.js';
import { openStateStore } from '../src/state/index.js';
import { plainLoop } from './lib/pull-runs.js';
import { withReplayedOrders } from './lib/replayed-orders.js';
import { spreadOf } from './lib/stats.js';
import { benchClient } from './lib/harness.js';

interface ParsedPage {
  orders: Order[];
  texts: string[];
  nextCursor: string | null;
  hasMore: boolean;
}

const STAGING_TABLE =
  'CREATE TABLE bench_staged (id TEXT PRIMARY KEY, updated_at TEXT NOT NULL, body TEXT NOT NULL)';
const STAGE =
  'INSERT INTO bench_staged (id, updated_at, body) VALUES (?, ?, ?) ' +
  'ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, body = excluded.body';

function cpuMicros(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

async function cpuMicrosAsync(work: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

/** Every page through the API client, as the pull benchmark's engine reads them. */
async function clientRound(baseUrl: string, key: string): Promise<number> {
  const api = benchClient(baseUrl, key);
  try {
    return await cpuMicrosAsync(async () => {
      let cursor: string | undefined;
      do {
        const page = await api.orders
          .list({ limit: 200, ...(cursor === undefined ? {} : { cursor }) })
          .firstPage({ itemTexts: true });
        cursor = page.hasMore && page.nextCursor !== null ? page.nextCursor : undefined;
      } while (cursor !== undefined);
    });
  } finally {
    await api.close();
  }
}

async function engineRound(
  file: string,
  pages: ReadonlyMap<string, ParsedPage>,
  stage: boolean,
): Promise<number> {
  const state = openStateStore({ file, clock: systemClock });
  try {
    state.db.exec(STAGING_TABLE);
    const insert = state.db.prepare(STAGE);
    return await cpuMicrosAsync(() =>
      pullIncremental<{ order: Order; json: string }>({
        state,
        stream: 'bench:/supplier/orders',
        fetchPage: ({ cursor }) => {
          const page = pages.get(cursor ?? '');
          if (page === undefined) throw new Error(`no recorded page for cursor ${cursor ?? '(first)'}`);
          const items = page.orders.map((order, i) => ({ order, json: page.texts[i] ?? '' }));
          const result: Page<{ order: Order; json: string }> = {
            items,
            nextCursor: page.nextCursor,
            hasMore: page.hasMore,
          };
          return Promise.resolve(result);
        },
        identify: ({ order }) => ({ id: order.id, updatedAt: order.updated_at }),
        ...(stage
          ? { stageRecord: ({ order, json }) => void insert.run(order.id, order.updated_at, json) }
          : {}),
        overlapMs: 5_000,
        budget: new RunBudget(systemClock, 10 * 60_000, new AbortController().signal),
      }),
    );
  } finally {
    state.close();
  }
}

function insertRound(file: string, pages: ReadonlyMap<string, ParsedPage>): number {
  const db = new BetterSqlite3(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(STAGING_TABLE);
    const insert = db.prepare(STAGE);
    const commit = db.transaction((page: ParsedPage) => {
      page.orders.forEach((order, i) => insert.run(order.id, order.updated_at, page.texts[i] ?? ''));
    });
    return cpuMicros(() => {
      for (const page of pages.values()) commit(page);
    });
  } finally {
    db.close();
  }
}

const rounds = Number(process.argv[2] ?? 5);
await withReplayedOrders('pull-costs', 10_000, async ({ dir, key, recorded, origin, baseUrl }) => {
  const pages = new Map<string, ParsedPage>();
  for (const [cursor, body] of recorded) {
    const parsed = JSON.parse(body) as { data: Order[]; next_cursor: string | null; has_more: boolean };
    pages.set(cursor, {
      orders: parsed.data,
      texts: parsed.data.map((order) => JSON.stringify(order)),
      nextCursor: parsed.next_cursor,
      hasMore: parsed.has_more,
    });
  }
  const count = [...pages.values()].reduce((sum, page) => sum + page.orders.length, 0);
  const parts: Record<string, number[]> = {
    'fetch + JSON.parse (plain loop, replayed pages)': [],
    'API client pages (same pages, parsed and checked)': [],
    'engine, no staging': [],
    'engine + staging': [],
    'SQLite insert only': [],
  };
  await engineRound(join(dir, 'warm.db'), pages, true);
  for (let round = 0; round < rounds; round++) {
    parts['fetch + JSON.parse (plain loop, replayed pages)']?.push(
      await cpuMicrosAsync(() => plainLoop(origin, key)),
    );
    parts['API client pages (same pages, parsed and checked)']?.push(await clientRound(baseUrl, key));
    parts['engine, no staging']?.push(await engineRound(join(dir, `bare-${round}.db`), pages, false));
    parts['engine + staging']?.push(await engineRound(join(dir, `staged-${round}.db`), pages, true));
    parts['SQLite insert only']?.push(insertRound(join(dir, `insert-${round}.db`), pages));
  }
  process.stdout.write(`${count} orders, ${rounds} rounds, load average ${loadavg()[0]?.toFixed(2)}\n`);
  process.stdout.write('CPU per order (user + system, us): median (min to max)\n');
  for (const [part, micros] of Object.entries(parts)) {
    const perItem = spreadOf(micros.map((value) => value / count));
    process.stdout.write(
      `- ${part}: ${perItem.median.toFixed(1)} (${perItem.min.toFixed(1)} to ${perItem.max.toFixed(1)})\n`,
    );
  }
});
