/**
 * The expenses flow against the sandbox over HTTP, reading a back-office database through the `sql` connector:
 * receipts uploaded first, each expense created once with its values mapped, the API id written back once; the
 * buyer's blocking rules and field errors filed as dead letters naming the rule and the field, retried once the
 * source is fixed; a 5xx or a lost answer retried without a second expense.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { csvExpensesConnectorDefinition, SENT_LEDGER } from '../../../connectors/csv-expenses/index.js';
import { parseCsv } from '../../../src/kit/csv.js';
import { NetworkApiError } from '../../../src/client/index.js';
import { runJob, type Job, type RunResult } from '../../../src/engine/index.js';
import {
  createExpensesJob,
  expenseIdempotencyKey,
  expensesOptionsSchema,
  MAX_ATTACHMENT_BYTES,
} from '../../../src/flows/expenses/index.js';
import type { ExpensesApi } from '../../../src/flows/expenses/api.js';
import { systemClock } from '../../../src/shared/clock.js';
import { jobContext } from '../job-context.js';
import {
  EXPENSE_MAPPINGS,
  sandboxExpenses,
  sandboxFileCount,
  startExpensesHarness,
  writeBack,
  type ExpensesHarness,
} from './harness.js';

let h: ExpensesHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function job(harness: ExpensesHarness, api: ExpensesApi = harness.api, mappings = EXPENSE_MAPPINGS): Job {
  return createExpensesJob({
    name: 'expenses',
    api,
    source: () => harness.source,
    options: expensesOptionsSchema.parse({}),
    mappings,
  });
}

const run = (harness: ExpensesHarness, j: Job): Promise<RunResult> => runJob(j, jobContext(harness.state));

describe('expenses flow', () => {
  it('uploads receipts, creates each expense once with mapped values and writes the id back once', async () => {
    const harness = (h = await startExpensesHarness());
    await harness.insert({
      id: 'E-1',
      vendor: 'ELEC',
      docType: 'tax_invoice',
      branch: 'TLV01',
      purchaseType: 'OTHER',
      receipt: await harness.receipt('e1.pdf'),
      lines: [
        { category: 'UTIL', net: '100', vat: '18', description: 'Electricity' },
        { category: 'CLEAN', net: '20.5', vat: '3.69' },
      ],
    });
    await harness.insert({
      id: 'E-2',
      vendor: 'BRIK',
      docType: 'none',
      branch: 'HRZ02',
      lines: [{ category: 'CLEAN', net: '55.00' }],
    });
    const j = job(harness);
    const first = await run(harness, j);
    expect(first.outcome).toBe('ok');
    expect(first.counts).toMatchObject({ expenses_pending: 2, expenses_created: 2, files_uploaded: 1 });

    const stored = await sandboxExpenses(harness.sandbox, 'E-');
    expect(stored).toHaveLength(2);
    const e1 = stored.find((expense) => expense.external_ref === 'E-1');
    expect(e1).toMatchObject({
      vendor_id: 'ven_electric',
      branch_id: 'br_tlv',
      purchase_type: 'OC',
      totals: { before_vat: '120.50', vat: '21.69', with_vat: '142.19' },
    });
    expect(e1?.lines.map((line) => line.category_id)).toEqual(['cat_utilities', 'cat_cleaning']);
    expect(e1?.files).toHaveLength(1);
    const back = await writeBack(harness.driver);
    expect(back.get('E-1')).toEqual({ apiId: e1?.id, marks: 1 });
    expect(back.get('E-2')?.marks).toBe(1);

    const again = await run(harness, j);
    expect(again.outcome).toBe('ok');
    expect(again.counts['expenses_pending']).toBe(0);
    expect(await sandboxExpenses(harness.sandbox, 'E-')).toHaveLength(2);
  }, 60_000);

  it('files each blocking rule as a dead letter naming the rule and the field, and retries once the source is fixed', async () => {
    const harness = (h = await startExpensesHarness());
    // Above 5,000 ILS without an allocation number.
    await harness.insert({
      id: 'B-alloc',
      docType: 'tax_invoice',
      receipt: await harness.receipt('alloc.pdf'),
      lines: [{ category: 'UTIL', net: '6000.00', vat: '1080.00' }],
    });
    // A tax invoice the buyer requires an attachment for.
    await harness.insert({
      id: 'B-file',
      docType: 'tax_invoice',
      lines: [{ category: 'UTIL', net: '10.00' }],
    });
    // A category without an account mapping.
    await harness.insert({ id: 'B-map', docType: 'none', lines: [{ category: 'MISC', net: '10.00' }] });
    const j = job(harness);
    const first = await run(harness, j);
    expect(first.counts).toMatchObject({ dead_lettered: 3 });
    // Every expense it tried went to dead letters: the run says so, and why, each reason with its count.
    expect(first.outcome).toBe('failed');
    // The most frequent first, then alphabetically; whole reasons as many as fit, the others left to the letters.
    expect(first.error).toBe(
      "delivered nothing: all 3 expenses held back: the API refused the expense: blocked by the buyer's account " +
        'mapping rule: lines[].category_id no_account_mapping (No expense account is mapped for category ' +
        'cat_misc.); map the category to an expense account in the API, or use a mapped category (1 expense); ' +
        'and 2 more reasons (supply-sync dead-letters list)',
    );
    const letters = new Map(
      harness.state.deadLetters.list({ flow: 'expenses' }).map((l) => [l.recordKey, l.reason]),
    );
    expect(letters.get('B-alloc')).toMatch(/allocation number rule: allocation_number required/);
    expect(letters.get('B-file')).toMatch(/attachment required rule: file_ids attachment_required/);
    expect(letters.get('B-map')).toMatch(/account mapping rule: lines\[0\]\.category_id no_account_mapping/);
    expect(await sandboxExpenses(harness.sandbox, 'B-')).toEqual([]);

    // Unchanged in the source: they wait, nothing is sent again.
    const waiting = await run(harness, j);
    expect(waiting.counts).toMatchObject({ expenses_pending: 3, dead_letters_waiting: 3 });
    expect(waiting.counts['dead_lettered']).toBeUndefined();

    await harness.driver.query(
      "UPDATE bo_expenses SET allocation_number = 'AL-123456789' WHERE id = 'B-alloc'",
    );
    await harness.driver.query("UPDATE bo_expenses SET receipt = :path WHERE id = 'B-file'", {
      path: await harness.receipt('file.pdf'),
    });
    await harness.driver.query("UPDATE bo_expense_lines SET category = 'SOFT' WHERE expense_id = 'B-map'");
    const fixed = await run(harness, j);
    expect(fixed.outcome).toBe('ok');
    expect(fixed.counts).toMatchObject({ expenses_created: 3 });
    expect(await sandboxExpenses(harness.sandbox, 'B-')).toHaveLength(3);
    expect(harness.state.deadLetters.countOpen('expenses')).toBe(0);
  }, 60_000);

  it('refuses an attachment above 25 MB before uploading it, and a value missing from a mapping table', async () => {
    const harness = (h = await startExpensesHarness());
    await harness.insert({
      id: 'L-big',
      docType: 'receipt',
      receipt: await harness.receipt('big.pdf', MAX_ATTACHMENT_BYTES + 1),
      lines: [{ category: 'UTIL', net: '10.00' }],
    });
    await harness.insert({
      id: 'L-vendor',
      vendor: 'NOBODY',
      docType: 'none',
      lines: [{ category: 'UTIL', net: '10.00' }],
    });
    const result = await run(harness, job(harness));
    expect(result.counts).toMatchObject({ dead_lettered: 2 });
    expect(result.counts['files_uploaded']).toBeUndefined();
    expect(await sandboxFileCount(harness.sandbox)).toBe(0);
    const letters = new Map(
      harness.state.deadLetters.list({ flow: 'expenses' }).map((l) => [l.recordKey, l]),
    );
    expect(letters.get('L-big')?.reason).toMatch(
      /file_ids: attachment big\.pdf is 26214401 bytes, above the API's 25 MB limit/,
    );
    expect(letters.get('L-vendor')?.reason).toMatch(/vendor_id: vendor "NOBODY" is not in mappings\.vendors/);
    expect(letters.get('L-vendor')?.record).toMatchObject({ refusals: [{ field: 'vendor_id' }] });

    // The same receipt name, scanned again smaller: a fix, so the expense is sent.
    await harness.receipt('big.pdf', 4096);
    const fixed = await run(harness, job(harness));
    expect(fixed.counts).toMatchObject({ expenses_created: 1, files_uploaded: 1, dead_letters_waiting: 1 });
  }, 60_000);

  it('retries a 5xx and a lost answer without creating a second expense', async () => {
    const harness = (h = await startExpensesHarness());
    await harness.insert({ id: 'F-1', docType: 'none', lines: [{ category: 'UTIL', net: '10.00' }] });
    await harness.insert({ id: 'F-2', docType: 'none', lines: [{ category: 'UTIL', net: '20.00' }] });
    let lose = true;
    const api: ExpensesApi = {
      files: harness.api.files,
      expenses: {
        list: (options) => harness.api.expenses.list(options),
        async create(body, options) {
          const created = await harness.api.expenses.create(body, options);
          if (lose) {
            lose = false;
            throw new NetworkApiError({
              status: 0,
              code: 'network_error',
              message: 'socket closed before the answer',
              method: 'POST',
              path: '/expenses',
              retryable: true,
            });
          }
          return created;
        },
      },
    };
    const j = job(harness, api);
    await harness.sandbox.control.setFaults({ error_rate: 1, seed: 3 });
    const failing = await run(harness, j);
    expect(failing.outcome).toBe('partial');
    expect(failing.counts).toMatchObject({ expenses_failed: 2 });
    await harness.sandbox.control.clearFaults();

    const lost = await run(harness, j);
    expect(lost.outcome).toBe('partial');
    expect(lost.counts).toMatchObject({ expenses_failed: 1, expenses_created: 1 });
    const settled = await run(harness, j);
    expect(settled.outcome).toBe('ok');
    expect(settled.counts).toMatchObject({ expenses_created: 1 });

    const stored = await sandboxExpenses(harness.sandbox, 'F-');
    expect(stored.map((expense) => expense.external_ref).sort()).toEqual(['F-1', 'F-2']);
    const back = await writeBack(harness.driver);
    expect([...back.values()].map((row) => row.marks)).toEqual([1, 1]);
  }, 60_000);

  it('past the 24-hour idempotency window, finds an unanswered expense by its reference instead of sending it again', async () => {
    const harness = (h = await startExpensesHarness());
    await harness.insert({ id: 'W-1', docType: 'none', lines: [{ category: 'UTIL', net: '30.00' }] });
    const api: ExpensesApi = {
      files: harness.api.files,
      expenses: {
        list: (options) => harness.api.expenses.list(options),
        async create(body, options) {
          await harness.api.expenses.create(body, options);
          throw new NetworkApiError({
            status: 0,
            code: 'network_error',
            message: 'socket closed before the answer',
            method: 'POST',
            path: '/expenses',
            retryable: true,
          });
        },
      },
    };
    const lost = await job(harness, api).run(jobContext(harness.state));
    expect(lost.counts).toMatchObject({ expenses_failed: 1 });
    // A day later the API no longer replays the key; the expense is read back by external_ref.
    const dayLater = { now: () => Date.now() + 25 * 3_600_000, sleep: systemClock.sleep.bind(systemClock) };
    const found = await job(harness).run(jobContext(harness.state, { clock: dayLater }));
    expect(found).toMatchObject({ outcome: 'ok', counts: { expenses_found: 1 } });
    const stored = await sandboxExpenses(harness.sandbox, 'W-');
    expect(stored).toHaveLength(1);
    expect((await writeBack(harness.driver)).get('W-1')).toEqual({ apiId: stored[0]?.id, marks: 1 });
  }, 60_000);

  it('previews in a dry run without sending or writing back', async () => {
    const harness = (h = await startExpensesHarness());
    await harness.insert({ id: 'D-1', docType: 'none', lines: [{ category: 'UTIL', net: '10.00' }] });
    await harness.insert({ id: 'D-2', docType: 'none', lines: [{ category: 'UTIL', net: '10.001' }] });
    const result = await job(harness).run({ ...jobContext(harness.state), dryRun: true });
    expect(result.counts).toMatchObject({ expenses_would_send: 1, expenses_would_dead_letter: 1 });
    expect(await sandboxExpenses(harness.sandbox, 'D-')).toEqual([]);
    expect((await writeBack(harness.driver)).get('D-1')?.marks).toBe(0);
  }, 60_000);

  it('reads a CSV drop folder: lines grouped by reference, receipts from the folder, ids written back, files moved', async () => {
    const harness = (h = await startExpensesHarness());
    const drop = join(harness.dir, 'drop');
    await mkdir(drop);
    await writeFile(join(drop, 'scan-1.pdf'), 'receipt scan');
    await writeFile(
      join(drop, 'november.csv'),
      [
        'reference,vendor,doc_type,doc_date,branch,doc_number,category,amount_before_vat,vat_amount,description,attachment',
        'C-1,ELEC,tax_invoice,2026-11-20,TLV01,INV-9,UTIL,100.00,18.00,Power,scan-1.pdf',
        'C-2,BRIK,none,2026-11-21,JLM03,,CLEAN,40.00,,Mops,',
        'C-1,ELEC,tax_invoice,2026-11-20,TLV01,INV-9,CLEAN,10.00,1.80,Soap,scan-1.pdf',
      ].join('\r\n'),
    );
    const connector = await csvExpensesConnectorDefinition.create(
      csvExpensesConnectorDefinition.configSchema.parse({ in_dir: 'drop', min_age: 0 }),
      { name: 'receipts', baseDir: harness.dir },
    );
    const source = connector.capabilities.expenseSource;
    if (source === undefined) throw new Error('csv-expenses offers no expenseSource');
    const j = createExpensesJob({
      name: 'folder-expenses',
      api: harness.api,
      source: () => source,
      options: expensesOptionsSchema.parse({}),
      mappings: EXPENSE_MAPPINGS,
    });
    const result = await run(harness, j);
    expect(result).toMatchObject({ outcome: 'ok', counts: { expenses_created: 2, files_uploaded: 1 } });
    const stored = await sandboxExpenses(harness.sandbox, 'C-');
    const c1 = stored.find((expense) => expense.external_ref === 'C-1');
    expect(c1?.totals).toEqual({
      before_vat: '110.00',
      vat: '19.80',
      with_vat: '129.80',
      deductible_vat: '19.80',
    });
    expect(c1?.files).toHaveLength(1);
    expect((await readdir(join(drop, 'done'))).sort()).toEqual(['november.csv', 'scan-1.pdf']);
    const ledger = parseCsv(await readFile(join(drop, SENT_LEDGER), 'utf8'), ',').slice(1);
    expect(ledger.map((row) => [row[0], row[1]]).sort()).toEqual(
      stored.map((expense) => [expense.external_ref, expense.id]).sort(),
    );
    expect((await run(harness, j)).counts['expenses_pending']).toBe(0);
  }, 60_000);
});

const CSV_HEADER =
  'reference,vendor,doc_type,doc_date,branch,doc_number,category,amount_before_vat,vat_amount,description,attachment';

/** A second expenses job, `folder-expenses`, over a CSV drop folder holding `rows`. */
async function folderJob(
  harness: ExpensesHarness,
  rows: string[],
  api: ExpensesApi = harness.api,
): Promise<Job> {
  const drop = join(harness.dir, 'drop');
  await mkdir(drop, { recursive: true });
  await writeFile(join(drop, 'shared.csv'), [CSV_HEADER, ...rows].join('\r\n'));
  const connector = await csvExpensesConnectorDefinition.create(
    csvExpensesConnectorDefinition.configSchema.parse({ in_dir: 'drop', min_age: 0 }),
    { name: 'receipts', baseDir: harness.dir },
  );
  const source = connector.capabilities.expenseSource;
  if (source === undefined) throw new Error('csv-expenses offers no expenseSource');
  return createExpensesJob({
    name: 'folder-expenses',
    api,
    source: () => source,
    options: expensesOptionsSchema.parse({}),
    mappings: EXPENSE_MAPPINGS,
  });
}

describe('expenses of two jobs sharing a reference', () => {
  it('keys each request by its job and reference, with the generation suffix after a refusal', () => {
    expect(expenseIdempotencyKey('expenses', 'E-1')).toBe('expense:expenses:E-1');
    expect(expenseIdempotencyKey('expenses', 'E-1', 2)).toBe('expense:expenses:E-1:r2');
    // A request saved before keys named the job is sent again under the key it was first sent with.
    expect(expenseIdempotencyKey(null, 'E-1')).toBe('expense:E-1');
  });

  it('creates one expense per job within the idempotency window, each written back with its own id', async () => {
    const harness = (h = await startExpensesHarness());
    await harness.insert({
      id: 'S-1',
      vendor: 'ELEC',
      docType: 'none',
      lines: [{ category: 'UTIL', net: '30.00' }],
    });
    const keys: string[] = [];
    const api: ExpensesApi = {
      files: harness.api.files,
      expenses: {
        list: (options) => harness.api.expenses.list(options),
        create(body, options) {
          keys.push(options.idempotencyKey);
          return harness.api.expenses.create(body, options);
        },
      },
    };
    expect((await run(harness, job(harness, api))).outcome).toBe('ok');
    const folder = await folderJob(harness, ['S-1,BRIK,none,2026-11-21,JLM03,,CLEAN,40.00,,Mops,'], api);
    expect(await run(harness, folder)).toMatchObject({ outcome: 'ok', counts: { expenses_created: 1 } });
    expect(keys).toEqual(['expense:expenses:S-1', 'expense:folder-expenses:S-1']);

    const stored = await sandboxExpenses(harness.sandbox, 'S-1');
    expect(stored.map((expense) => expense.vendor_id).sort()).toEqual(['ven_cleaning', 'ven_electric']);
    const sqlId = stored.find((expense) => expense.vendor_id === 'ven_electric')?.id;
    const csvId = stored.find((expense) => expense.vendor_id === 'ven_cleaning')?.id;
    expect((await writeBack(harness.driver)).get('S-1')).toEqual({ apiId: sqlId, marks: 1 });
    const ledger = parseCsv(await readFile(join(harness.dir, 'drop', SENT_LEDGER), 'utf8'), ',').slice(1);
    expect(ledger.map((row) => [row[0], row[1]])).toEqual([['S-1', csvId]]);
  }, 60_000);

  it("past the idempotency window, does not take another job's expense of the same reference for its own", async () => {
    const harness = (h = await startExpensesHarness());
    await harness.insert({
      id: 'S-2',
      vendor: 'ELEC',
      docType: 'none',
      lines: [{ category: 'UTIL', net: '30.00' }],
    });
    expect((await run(harness, job(harness))).outcome).toBe('ok');
    // The folder job's request is lost before it reaches the API.
    const lostApi: ExpensesApi = {
      files: harness.api.files,
      expenses: {
        list: (options) => harness.api.expenses.list(options),
        create() {
          return Promise.reject(
            new NetworkApiError({
              status: 0,
              code: 'network_error',
              message: 'connection refused',
              method: 'POST',
              path: '/expenses',
              retryable: true,
            }),
          );
        },
      },
    };
    const row = 'S-2,BRIK,none,2026-11-21,JLM03,,CLEAN,40.00,,Mops,';
    const lost = await run(harness, await folderJob(harness, [row], lostApi));
    expect(lost.counts).toMatchObject({ expenses_failed: 1 });

    const dayLater = { now: () => Date.now() + 25 * 3_600_000, sleep: systemClock.sleep.bind(systemClock) };
    const settled = await (
      await folderJob(harness, [row])
    ).run(jobContext(harness.state, { clock: dayLater }));
    expect(settled).toMatchObject({ outcome: 'ok', counts: { expenses_created: 1 } });
    expect(settled.counts['expenses_found']).toBeUndefined();
    const stored = await sandboxExpenses(harness.sandbox, 'S-2');
    expect(stored).toHaveLength(2);
    const sqlId = stored.find((expense) => expense.vendor_id === 'ven_electric')?.id;
    const csvId = stored.find((expense) => expense.vendor_id === 'ven_cleaning')?.id;
    expect((await writeBack(harness.driver)).get('S-2')).toEqual({ apiId: sqlId, marks: 1 });
    const ledger = parseCsv(await readFile(join(harness.dir, 'drop', SENT_LEDGER), 'utf8'), ',').slice(1);
    expect(ledger.map((r) => [r[0], r[1]])).toEqual([['S-2', csvId]]);
  }, 60_000);
});
