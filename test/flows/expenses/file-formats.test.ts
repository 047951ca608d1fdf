/**
 * A back office's own formats in the expenses drop folder: dates as DD/MM/YYYY, amounts with thousands separators
 * and a shekel sign are read when the connector's config names them; a file that breaks them is a dead letter of
 * its own (file, line, reason), a log line and a failed run, never a file silently moved to failed/.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { csvExpensesConnectorDefinition } from '../../../connectors/csv-expenses/index.js';
import { runJob } from '../../../src/engine/index.js';
import { createExpensesJob, expensesOptionsSchema } from '../../../src/flows/expenses/index.js';
import { jobContext } from '../job-context.js';
import { EXPENSE_MAPPINGS, sandboxExpenses, startExpensesHarness, type ExpensesHarness } from './harness.js';

let h: ExpensesHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const BACK_OFFICE_FILE = [
  'reference,vendor,doc_type,doc_date,branch,doc_number,category,amount_before_vat,vat_amount,description,attachment',
  'F-1,ELEC,tax_invoice,20/11/2026,TLV01,INV-31,UTIL,"1,250.00",₪ 225.00,Power,scan-31.pdf',
  'F-2,BRIK,none,21/11/2026,JLM03,,CLEAN,₪40.00,,Mops,',
].join('\r\n');

/** A job over a drop folder holding the back office's file, with the connector's config `formats`. */
async function folderJob(harness: ExpensesHarness, formats: Record<string, string>) {
  const drop = join(harness.dir, 'drop');
  await mkdir(drop, { recursive: true });
  await writeFile(join(drop, 'scan-31.pdf'), 'receipt scan');
  await writeFile(join(drop, 'november.csv'), BACK_OFFICE_FILE);
  const connector = await csvExpensesConnectorDefinition.create(
    csvExpensesConnectorDefinition.configSchema.parse({ in_dir: 'drop', min_age: 0, ...formats }),
    { name: 'receipts', baseDir: harness.dir },
  );
  const source = connector.capabilities.expenseSource;
  if (source === undefined) throw new Error('csv-expenses offers no expenseSource');
  const job = createExpensesJob({
    name: 'folder-expenses',
    api: harness.api,
    source: () => source,
    options: expensesOptionsSchema.parse({}),
    mappings: EXPENSE_MAPPINGS,
  });
  return { job, drop };
}

describe('expenses drop folder in the back office formats', () => {
  it('reads DD/MM/YYYY, "1,250.00" and ₪ when the config names them', async () => {
    const harness = (h = await startExpensesHarness());
    const formats = { date_format: 'DD/MM/YYYY', thousands: ',', currency_sign: '₪' };
    const { job, drop } = await folderJob(harness, formats);
    const result = await runJob(job, jobContext(harness.state));
    expect(result).toMatchObject({
      outcome: 'ok',
      counts: { expenses_created: 2, delivered: 2, held_back: 0 },
    });
    const stored = await sandboxExpenses(harness.sandbox, 'F-');
    const f1 = stored.find((expense) => expense.external_ref === 'F-1');
    expect(f1).toMatchObject({ doc_date: '2026-11-20' });
    expect(f1?.totals).toMatchObject({ before_vat: '1250.00', vat: '225.00' });
    expect(stored.find((expense) => expense.external_ref === 'F-2')?.totals).toMatchObject({
      before_vat: '40.00',
    });
    expect((await readdir(join(drop, 'done'))).sort()).toEqual(['november.csv', 'scan-31.pdf']);
  }, 60_000);

  it('a file that breaks the formats is a dead letter with its file, line and reason, a log line and a failed run', async () => {
    const harness = (h = await startExpensesHarness());
    const { job, drop } = await folderJob(harness, {});
    const logged: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    const result = await runJob(job, jobContext(harness.state, { logger: pino({ level: 'warn' }, sink) }));
    expect(result).toMatchObject({
      outcome: 'failed',
      counts: { files_rejected: 1, delivered: 0, held_back: 1 },
    });
    expect(result.error).toMatch(
      /^delivered nothing: 1 expense held back: file november\.csv rejected at line 2/,
    );
    const letter = harness.state.deadLetters.get('folder-expenses', 'file:november.csv');
    expect(letter?.status).toBe('open');
    expect(letter?.reason).toContain('expenses file november.csv rejected whole at line 2');
    expect(letter?.reason).toContain('doc_date "20/11/2026" is not a date (YYYY-MM-DD)');
    expect(letter?.reason).toContain('amount_before_vat "1,250.00" is not a number like 250.00');
    expect(letter?.record).toMatchObject({ file: 'november.csv', line: 2 });
    const line = logged
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry['msg'] === 'expenses file rejected');
    expect(line).toMatchObject({ file: 'november.csv', line: 2 });
    expect(harness.state.runs.recent('folder-expenses', 1)[0]).toMatchObject({
      outcome: 'failed',
      deadLetters: 1,
    });
    expect((await readdir(join(drop, 'failed'))).sort()).toEqual(['november.csv', 'november.csv.error.txt']);
    expect(await sandboxExpenses(harness.sandbox, 'F-')).toEqual([]);
  }, 60_000);

  it('a dry run reports a file that breaks the formats and leaves it in the drop folder', async () => {
    const harness = (h = await startExpensesHarness());
    const { job, drop } = await folderJob(harness, {});
    const result = await job.run({ ...jobContext(harness.state), dryRun: true });
    expect(result.counts).toMatchObject({ files_rejected: 1 });
    expect(await readdir(drop)).toContain('november.csv');
    expect(existsSync(join(drop, 'failed', 'november.csv'))).toBe(false);
    expect(harness.state.deadLetters.get('folder-expenses', 'file:november.csv')).toBeNull();
    expect(await sandboxExpenses(harness.sandbox, 'F-')).toEqual([]);
  }, 60_000);
});
