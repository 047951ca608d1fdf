/**
 * Profiling aid for the sandbox's list endpoints (not part of `npm run bench`): seeds a sandbox, then walks 200-item
 * pages of a list to the end over HTTP and prints pages/s for each walk.
 *
 *   node --import tsx [--cpu-prof --cpu-prof-dir=/tmp/prof] bench/sandbox-profile.ts \
 *     [--lines 20000] [--orders 20000] [--walks 3] [--only journal,orders,products]
 */
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { startSandbox } from '../src/sandbox/index.js';
import { seedJournalLines, seedOrders } from './lib/seed.js';

interface Walk {
  name: string;
  path: string;
  key: 'supplier' | 'buyer';
}

const WALKS: Walk[] = [
  {
    name: 'journal',
    path: '/v2/accounting/journal-lines?limit=200&status=approved_for_export',
    key: 'buyer',
  },
  { name: 'orders', path: '/v2/supplier/orders?limit=200', key: 'supplier' },
  { name: 'products', path: '/v2/products?limit=200', key: 'buyer' },
];

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '20000' },
    orders: { type: 'string', default: '20000' },
    walks: { type: 'string', default: '3' },
    only: { type: 'string', default: 'journal,orders,products' },
  },
});
const selected = new Set((values.only ?? '').split(','));

async function walkOnce(
  pool: Pool,
  walk: Walk,
  token: string,
): Promise<{ pages: number; rows: number; ms: number }> {
  const started = performance.now();
  let pages = 0;
  let rows = 0;
  let cursor: string | null = null;
  do {
    const path: string = cursor === null ? walk.path : `${walk.path}&cursor=${encodeURIComponent(cursor)}`;
    const response = await pool.request({
      method: 'GET',
      path,
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.body.json()) as { data: unknown[]; next_cursor: string | null };
    if (response.statusCode !== 200) throw new Error(`${walk.name}: status ${response.statusCode}`);
    pages += 1;
    rows += body.data.length;
    cursor = body.next_cursor;
  } while (cursor !== null);
  return { pages, rows, ms: performance.now() - started };
}

async function main(): Promise<void> {
  const sandbox = await startSandbox({ rateLimitOverrides: { all: { per_minute: 1_000_000_000 } } });
  const pool = new Pool(sandbox.origin, { connections: 1 });
  try {
    const seedStarted = performance.now();
    if (selected.has('journal')) await seedJournalLines(sandbox, Number(values.lines), 5_000);
    if (selected.has('orders')) await seedOrders(sandbox, Number(values.orders), 1_000);
    console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
    for (const walk of WALKS.filter((candidate) => selected.has(candidate.name))) {
      const token = walk.key === 'supplier' ? sandbox.keys.supplier : sandbox.keys.buyer;
      for (let run = 0; run < Number(values.walks); run++) {
        const { pages, rows, ms } = await walkOnce(pool, walk, token);
        const perSecond = (pages / ms) * 1000;
        console.log(
          `${walk.name}: ${rows} rows in ${pages} pages, ${(ms / 1000).toFixed(2)} s, ${perSecond.toFixed(1)} pages/s`,
        );
      }
    }
  } finally {
    await pool.close();
    await sandbox.close();
  }
}

await main();
