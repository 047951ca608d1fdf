/**
 * `node --import tsx bench/profile-pull.ts [orders] [rounds]`: CPU profile of the engine pull against replayed
 * pages (no sandbox on the path), written to bench/out/profile-pull.cpuprofile, with the self time per category
 * printed in percent. Only the engine rounds are profiled, not the seeding or the recording.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProfiler, summarizeProfile, topFunctions, type CategoryRule } from './lib/cpu-profile.js';
import { enginePull } from './lib/pull-runs.js';
import { withReplayedOrders } from './lib/replayed-orders.js';

/** First match wins; a sample whose own frame matches nothing counts for its nearest matching caller. */
export const PULL_CATEGORIES: readonly CategoryRule[] = [
  { category: 'garbage collection', pattern: /^\(garbage collector\)/ },
  { category: 'idle (waiting on the network or the disk)', pattern: /^\(idle\)/ },
  { category: 'item schema parse (zod)', pattern: /node_modules\/zod\// },
  { category: 'item schema check (the exact check)', pattern: /src\/contract\/exact-check\.ts/ },
  {
    category: 'drift counting / lenient parse',
    pattern: /src\/contract\/drift\.ts|src\/client\/(parsing|parsers)\.ts/,
  },
  {
    category: 'page commit (BEGIN/COMMIT: WAL write, checkpoint, fsync)',
    pattern: /^sqliteTransaction /,
  },
  { category: 'seen-set and cursor (SQLite)', pattern: /src\/state\/cursors\.ts|^classifyPage / },
  {
    category: "staging (the benchmark's stageRecord: INSERT of the item's JSON)",
    pattern: /^stageRecord |bench\/lib\/pull-runs\.ts/,
  },
  { category: 'item texts (cut from the page body)', pattern: /src\/client\/item-texts\.ts/ },
  {
    category: 'HTTP client (undici, body, JSON.parse)',
    pattern: /node_modules\/undici\/|src\/client\/|node:internal\/deps\/undici/,
  },
  { category: 'engine bookkeeping', pattern: /src\/engine\// },
  { category: 'replay server (same process)', pattern: /node:_http_server|node:_http_outgoing|bare-servers/ },
];

const orders = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 5);
const outDir = fileURLToPath(new URL('./out/', import.meta.url));
await mkdir(outDir, { recursive: true });
await withReplayedOrders('profile-pull', orders, async ({ dir, key, baseUrl }) => {
  await enginePull(join(dir, 'warm.db'), baseUrl, key);
  const profiler = await startProfiler();
  let items = 0;
  let ms = 0;
  for (let round = 0; round < rounds; round++) {
    const run = await enginePull(join(dir, `r${round}.db`), baseUrl, key);
    items += run.staged;
    ms += run.ms;
  }
  const file = join(outDir, 'profile-pull.cpuprofile');
  const profile = await profiler.stop(file);
  process.stdout.write(
    `${items} items in ${ms.toFixed(0)} ms (${((items * 1000) / ms).toFixed(0)} items/s); ${file}\n`,
  );
  for (const share of summarizeProfile(profile, PULL_CATEGORIES))
    process.stdout.write(`${share.percent.toFixed(1).padStart(5)} %  ${share.category}\n`);
  process.stdout.write('top functions (self time):\n');
  for (const share of topFunctions(profile, 25))
    process.stdout.write(`${share.percent.toFixed(1).padStart(5)} %  ${share.category}\n`);
});
