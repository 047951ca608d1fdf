/**
 * The state on PostgreSQL against the state in a SQLite file, on the work a pull does per page: for every record a
 * seen-version lookup, a ledger row and a seen row, then the cursor, all in one transaction per page. Figure:
 * records/s with the state in a fresh PostgreSQL database (PG_URL, on this machine); baseline: the same on a
 * SQLite file (synchronous=FULL, as the daemon runs). The ratio is the price of a shared state: every statement
 * is a round trip to the server, waited for synchronously.
 */
import { join } from 'node:path';
import { systemClock } from '../src/shared/clock.js';
import { openPgStateStore, openStateStore, type StateStore } from '../src/state/index.js';
import { check, measured, notMeasured } from './lib/result.js';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { perSecond, spreadOf, spreadText } from './lib/stats.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

const PAGE = 200;
const TARGET = 'informative: PostgreSQL records/s as a share of SQLite records/s (no target)';

export const stateBackends: Benchmark = {
  name: 'state-backends',
  title: 'State on PostgreSQL vs a SQLite file (a page of records and its cursor per transaction)',
  target: TARGET,
  run,
};

/** Records per second over `pages` pages; the stream name keeps repetitions apart. */
function pagesPerRun(state: StateStore, stream: string, pages: number): number {
  const started = performance.now();
  for (let page = 0; page < pages; page += 1) {
    state.transaction(() => {
      for (let i = 0; i < PAGE; i += 1) {
        const id = `${page}-${i}`;
        if (state.seen.has(stream, id, 'v1')) continue;
        state.ledger.record({ flow: stream, connector: 'bench', recordKey: id, version: 'v1' });
        state.seen.add(stream, id, 'v1', page);
      }
      state.cursors.save({ stream, watermarkMs: page, passCursor: null, passSince: null, passMaxMs: null });
    });
  }
  return perSecond(pages * PAGE, performance.now() - started);
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  let database: ScratchDatabase;
  try {
    database = await createScratchDatabase('ss_bench');
  } catch (error) {
    return notMeasured(
      stateBackends,
      `PostgreSQL not reachable at PG_URL: ${(error as Error).message}`,
      startedAt,
    );
  }
  const pages = options.quick ? 10 : 50;
  const repetitions = options.quick ? 3 : 5;
  try {
    return await withTempDir('state-backends', async (dir) => {
      const sqlite = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
      const postgres = openPgStateStore({ url: database.url, clock: systemClock });
      try {
        const sqliteRates: number[] = [];
        const postgresRates: number[] = [];
        // Alternating, so a slower moment of the machine falls on both.
        for (let round = 0; round < repetitions; round += 1) {
          sqliteRates.push(pagesPerRun(sqlite, `s${round}`, pages));
          postgresRates.push(pagesPerRun(postgres, `s${round}`, pages));
        }
        const stored = postgres.ledger.count() === repetitions * pages * PAGE;
        const figure = spreadOf(postgresRates).median;
        const baseline = spreadOf(sqliteRates).median;
        options.log(`  ${pages} pages of ${PAGE} records, ${repetitions} rounds each`);
        return measured({
          name: stateBackends.name,
          title: stateBackends.title,
          figure: { label: 'PostgreSQL state (same machine), median', value: figure, unit: 'records/s' },
          baseline: {
            label: 'SQLite state file, synchronous=FULL, median',
            value: baseline,
            unit: 'records/s',
          },
          checks: [check('every record stored once on PostgreSQL', postgres.ledger.count(), 'rows', stored)],
          details: {
            'PostgreSQL records/s per round': spreadText(spreadOf(postgresRates)),
            'SQLite records/s per round': spreadText(spreadOf(sqliteRates)),
            'statements per page': PAGE * 3 + 3,
          },
          notes: ['A server on another host adds its network round trip to every statement.'],
          startedAt,
        });
      } finally {
        sqlite.close();
        postgres.close();
      }
    });
  } finally {
    await database.drop();
  }
}
