/**
 * `node --import tsx bench/pull-ceiling.ts [rounds]`: how close to the plain loop any pull engine could come on
 * this machine against replayed pages, in wall-clock time per order (the pull benchmark's measure), over the same
 * 10,048 recorded orders (200 a page), the replay server in this process as in the benchmark:
 * - "plain loop": undici fetch + JSON.parse, the benchmark's baseline;
 * - "API client": the same pages read with the API client (each order checked against the contract's schema,
 *   drift counted), without and with the item texts the benchmark stages;
 * - "API client + staging thread": the client's pages, each page handed to a worker thread that stages its orders
 *   in its own SQLite file (WAL, synchronous=FULL, one transaction a page). Nothing else runs on the main thread:
 *   no seen-set, no cursor, no classification. This bounds an engine that moves every SQLite write off the thread
 *   that fetches and checks. Two ways of handing a page over: the orders' rows with the item texts cut on the main
 *   thread, or the page's body and the orders' ids, the thread cutting the texts. The body handed over is the one
 *   recorded for the replay (the client keeps its own copy to itself): the same text, at the same cost to post;
 * - "engine": the pull benchmark's engine (bench/lib/pull-runs.ts enginePull).
 * Rounds alternate the variants, each variant reading every page three times a round (a fresh file each time
 * where it stages). Each round's ratio is the plain loop's time per order over the variant's; the median and
 * range over the rounds are printed.
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import type { Page } from '../src/client/index.js';
import type { Order } from '../src/contract/index.js';
import { enginePull, plainLoop } from './lib/pull-runs.js';
import { withReplayedOrders } from './lib/replayed-orders.js';
import { spreadOf, spreadText } from './lib/stats.js';
import { startStagingThread } from './lib/staging-thread-start.js';
import type { StagingMessage } from './lib/staging-thread.js';
import { benchClient } from './lib/harness.js';

interface Timed {
  items: number;
  ms: number;
}

/** Every page through the API client, each handed to `onPage`. */
async function clientPass(
  baseUrl: string,
  key: string,
  itemTexts: boolean,
  onPage?: (page: Page<Order>) => void,
): Promise<Timed> {
  const api = benchClient(baseUrl, key);
  try {
    const started = performance.now();
    let items = 0;
    let cursor: string | undefined;
    do {
      const page = await api.orders
        .list({ limit: 200, ...(cursor === undefined ? {} : { cursor }) })
        .firstPage({ itemTexts });
      items += page.items.length;
      onPage?.(page);
      cursor = page.hasMore && page.nextCursor !== null ? page.nextCursor : undefined;
    } while (cursor !== undefined);
    return { items, ms: performance.now() - started };
  } finally {
    await api.close();
  }
}

/** The page's orders as [id, updated_at, json, ...], the JSON cut on this thread. */
function rowsOf(page: Page<Order>): { rows: string[] } {
  const texts = page.itemTexts ?? [];
  const rows: string[] = [];
  page.items.forEach((order, i) => rows.push(order.id, order.updated_at, texts[i] ?? JSON.stringify(order)));
  return { rows };
}

/** The page's body and its orders' [id, updated_at, ...]: the staging thread cuts the JSON. */
function bodyOf(recorded: ReadonlyMap<string, string>, page: Page<Order>): { body: string; keys: string[] } {
  const body = recorded.get(page.cursor ?? '');
  if (body === undefined) throw new Error(`no recorded body for cursor ${page.cursor ?? '(first)'}`);
  return { body, keys: page.items.flatMap((order) => [order.id, order.updated_at]) };
}

async function stagedPass(
  baseUrl: string,
  key: string,
  file: string,
  handOver: (page: Page<Order>) => Exclude<StagingMessage, null>,
  itemTexts: boolean,
): Promise<Timed> {
  const thread = await startStagingThread(file);
  const started = performance.now();
  const read = await clientPass(baseUrl, key, itemTexts, (page) => thread.stage(handOver(page)));
  const staged = await thread.finish();
  const ms = performance.now() - started;
  if (staged !== read.items) throw new Error(`the staging thread holds ${staged} rows of ${read.items}`);
  return { items: staged, ms };
}

const PASSES_PER_ROUND = 3;

/** Wall-clock microseconds per order over PASSES_PER_ROUND passes. */
async function perOrder(pass: (index: number) => Promise<Timed>): Promise<number> {
  let items = 0;
  let ms = 0;
  for (let index = 0; index < PASSES_PER_ROUND; index++) {
    const run = await pass(index);
    items += run.items;
    ms += run.ms;
  }
  return (ms * 1000) / items;
}

const rounds = Number(process.argv[2] ?? 7);
await withReplayedOrders('pull-ceiling', 10_000, async ({ dir, key, recorded, origin, baseUrl }) => {
  const variants: Record<string, (pass: string) => Promise<Timed>> = {
    'API client, no item texts': () => clientPass(baseUrl, key, false),
    'API client with item texts': () => clientPass(baseUrl, key, true),
    'API client + staging thread, rows handed over': (pass) =>
      stagedPass(baseUrl, key, join(dir, `rows-${pass}.db`), rowsOf, true),
    'API client + staging thread, body handed over': (pass) =>
      stagedPass(baseUrl, key, join(dir, `body-${pass}.db`), (page) => bodyOf(recorded, page), false),
    'engine (the pull benchmark)': async (pass) => {
      const run = await enginePull(join(dir, `engine-${pass}.db`), baseUrl, key);
      return { items: run.staged, ms: run.ms };
    },
  };
  const plain: number[] = [];
  const ratios = new Map<string, number[]>(Object.keys(variants).map((name) => [name, []]));
  const times = new Map<string, number[]>(Object.keys(variants).map((name) => [name, []]));
  await stagedPass(baseUrl, key, join(dir, 'warm-rows.db'), rowsOf, true);
  await stagedPass(baseUrl, key, join(dir, 'warm-body.db'), (page) => bodyOf(recorded, page), false);
  await enginePull(join(dir, 'warm-engine.db'), baseUrl, key);
  for (let round = 0; round < rounds; round++) {
    const base = await perOrder(() => plainLoop(origin, key));
    plain.push(base);
    for (const [name, variant] of Object.entries(variants)) {
      const us = await perOrder((index) => variant(`${round}-${index}`));
      times.get(name)?.push(us);
      ratios.get(name)?.push(base / us);
    }
  }
  process.stdout.write(
    `${recorded.size} pages, ${rounds} rounds, load average ${loadavg()[0]?.toFixed(2)}\n` +
      `plain loop: ${spreadOf(plain).median.toFixed(1)} us per order (wall), median\n` +
      'variant: us per order (wall), median; ratio to the plain loop, median (range, spread)\n',
  );
  for (const name of Object.keys(variants)) {
    const us = spreadOf(times.get(name) ?? []).median;
    process.stdout.write(`- ${name}: ${us.toFixed(1)} us; ${spreadText(spreadOf(ratios.get(name) ?? []))}\n`);
  }
});
