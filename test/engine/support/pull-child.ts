/**
 * Child process of the kill -9 test: pulls the loopback source into a staging table of a real state file until a
 * pass completes, then prints "converged". The parent kills it with SIGKILL at random points.
 * Usage: node --import tsx pull-child.ts <state-file> <source-url> <overlap-ms> <page-size>
 */
import { pino } from 'pino';
import { RunBudget, pullIncremental, runJob, type Job, type PullResult } from '../../../src/engine/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import type { SourcePage, SourceRecord } from './source.js';

const [file, sourceUrl, overlapArg, pageSizeArg] = process.argv.slice(2);
if (!file || !sourceUrl || !overlapArg || !pageSizeArg)
  throw new Error('usage: pull-child <file> <url> <overlap> <size>');
const overlapMs = Number(overlapArg);
const pageSize = Number(pageSizeArg);

const state = openStateStore({ file, clock: systemClock });
state.runs.closeInterrupted();
state.db.exec(
  'CREATE TABLE IF NOT EXISTS staged (seq INTEGER NOT NULL, id TEXT NOT NULL, updated_at TEXT NOT NULL)',
);
const insert = state.db.prepare('INSERT INTO staged (seq, id, updated_at) VALUES (?, ?, ?)');
process.stdout.write('ready\n');

let last: PullResult | null = null;
const job: Job = {
  name: 'pull-items',
  run: async (ctx) => {
    last = await pullIncremental<SourceRecord>({
      state: ctx.state,
      stream: 'items',
      overlapMs,
      budget: new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal),
      fetchPage: async (request, signal) => {
        const url = new URL('/items', sourceUrl);
        url.searchParams.set('limit', String(pageSize));
        if (request.cursor) url.searchParams.set('cursor', request.cursor);
        if (request.updatedSince) url.searchParams.set('updated_since', request.updatedSince);
        const response = await fetch(url, { signal });
        if (!response.ok) throw new Error(`source answered ${response.status}`);
        const page = (await response.json()) as SourcePage;
        return { items: page.data, nextCursor: page.next_cursor, hasMore: page.has_more };
      },
      identify: (item) => ({ id: item.id, updatedAt: item.updated_at }),
      stageRecord: (item) => {
        insert.run(item.seq, item.id, item.updated_at);
      },
    });
    return last;
  },
};

const logger = pino({ level: 'silent' });
for (let attempt = 0; attempt < 50; attempt += 1) {
  // Converged means a pass that started after the last change to the source has ended; finishing a pass begun
  // before late rows were committed behind its position does not count.
  const freshPass = !state.cursors.get('items')?.passCursor;
  const result = await runJob(job, {
    signal: new AbortController().signal,
    budgetMs: 60_000,
    dryRun: false,
    logger,
    clock: systemClock,
    state,
    trigger: 'cli',
  });
  const pull = last as PullResult | null;
  if (freshPass && result.outcome === 'ok' && pull?.passComplete) {
    state.close();
    process.stdout.write('converged\n');
    process.exit(0);
  }
}
state.close();
process.stdout.write('gave up\n');
process.exit(1);
