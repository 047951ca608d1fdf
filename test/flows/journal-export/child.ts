/**
 * Child process for the kill -9 test: runs the journal-export job in a loop against the parent's sandbox until a run
 * finds nothing left. With KILL_AT_STEP it kills itself with SIGKILL at that step (write, export, each before and
 * after), so every crash point is reached; otherwise the parent kills it at a random moment.
 */
import { createApiClient } from '../../../src/client/index.js';
import type { AccountingWriter } from '../../../src/connector-contract/index.js';
import {
  createJournalExportJob,
  journalExportOptionsSchema,
  type JournalExportApi,
} from '../../../src/flows/journal-export/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { jobContext } from '../job-context.js';

interface ChildArgs {
  baseUrl: string;
  apiKey: string;
  stateFile: string;
  target: 'sql' | 'hashavshevet';
  targetPath: string;
  killAtStep?: number;
}

const args = JSON.parse(process.env['JOURNAL_CHILD'] ?? '{}') as ChildArgs;
let step = 0;
function point(): void {
  step += 1;
  if (step === args.killAtStep) process.kill(process.pid, 'SIGKILL');
}

/** Loads only the target's own modules, so a restart stays quick (the SQL index would load every driver). */
async function openTarget(): Promise<AccountingWriter> {
  if (args.target === 'sql') {
    const { SqliteDriver } = await import('../../../src/kit/sql/sqlite-driver.js');
    const { SqlAccountingWriter } = await import('../../../connectors/sql/accounting-writer.js');
    const { journalTableSchema } = await import('../../../connectors/sql/journal-config.js');
    const config = journalTableSchema.parse({
      table: 'gl_journal',
      columns: {
        batch_key: 'batch',
        side: 'side',
        account: 'account',
        amount: 'amount',
        source_ids: 'source',
      },
      create_tables: true,
    });
    return new SqlAccountingWriter(new SqliteDriver(args.targetPath), config, 'books');
  }
  const { HashavshevetWriter, hashavshevetConfigSchema } =
    await import('../../../connectors/hashavshevet/index.js');
  const config = hashavshevetConfigSchema.parse({
    import_dir: args.targetPath,
    long_references: 'last_digits',
  });
  return new HashavshevetWriter(config, 'books');
}

const real = await openTarget();
const writer: AccountingWriter = {
  hasBatch: (key) => real.hasBatch(key),
  async writeJournalBatch(batch) {
    point();
    const result = await real.writeJournalBatch(batch);
    point();
    return result;
  },
};
const client = createApiClient({
  baseUrl: args.baseUrl,
  apiKey: args.apiKey,
  retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, deadlineMs: 20_000 },
});
const api: JournalExportApi = {
  accounting: {
    ...client.accounting,
    async exportJournalLines(body, options) {
      point();
      const result = await client.accounting.exportJournalLines(body, options);
      point();
      return result;
    },
  },
};

const state = openStateStore({ file: args.stateFile, clock: systemClock });
process.stdout.write('started\n');
const job = createJournalExportJob({
  name: 'journal',
  api,
  writer,
  connectorName: 'books',
  options: journalExportOptionsSchema.parse({ max_lines_per_batch: 9 }),
});
for (;;) {
  const result = await job.run(jobContext(state, { budgetMs: 60_000, trigger: 'cli' }));
  if (result.outcome === 'ok' && (result.counts['lines_fetched'] ?? 0) === 0) {
    process.stdout.write(`converged ${JSON.stringify(result.counts)}\n`);
    break;
  }
  if (result.outcome === 'failed') process.stderr.write(`run failed: ${result.error ?? ''}\n`);
}
state.close();
await client.close();
