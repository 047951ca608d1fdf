import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createJournalExportJob,
  journalExportOptionsSchema,
  LEDGER_FLOW,
  type JournalExportApi,
} from '../../../src/flows/journal-export/index.js';
import { SqlAccountingWriter, journalTableSchema } from '../../../connectors/sql/index.js';
import { SqliteDriver } from '../../../src/kit/sql/index.js';
import { HashavshevetWriter, hashavshevetConfigSchema } from '../../../connectors/hashavshevet/index.js';
import { ConnectorError, type AccountingWriter } from '../../../src/connector-contract/index.js';
import { expectBooksMatchLines, hashavshevetTotals } from './targets.js';
import { readPublishedImport } from '../../connectors/hashavshevet/published-reader.js';
import { jobContext, sandboxExportBatches, sandboxLines, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await (h as Harness | undefined)?.close();
});

async function approvedLines() {
  return (await sandboxLines(h.sandbox)).filter((line) => line.status === 'approved_for_export');
}

describe('journal-export against the sandbox', () => {
  it('writes every approved line once, marks each exported once, and a second run finds nothing to do', async () => {
    await h.sandbox.control.action('approve_journal_lines', { count: 30 });
    const approved = await approvedLines();
    expect(approved.length).toBeGreaterThanOrEqual(30);
    const job = createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: h.writer,
      connectorName: 'books',
      options: journalExportOptionsSchema.parse({}),
    });

    const logged: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logged.push(line) });
    const first = await job.run(jobContext(h.state, { logger }));
    expect(first.outcome).toBe('ok');
    expect(logged.join('\n')).toContain('journal batch written and marked exported');
    expect(logged.join('\n')).not.toContain(h.sandbox.keys.buyer);
    expect(first.counts['lines_exported']).toBe(approved.length);

    const after = new Map((await sandboxLines(h.sandbox)).map((line) => [line.id, line]));
    const ours = new Set(
      (await sandboxExportBatches(h.sandbox))
        .filter((b) => b.external_ref?.startsWith('je-'))
        .map((b) => b.id),
    );
    for (const line of approved) {
      expect(after.get(line.id)?.status).toBe('exported');
      expect(ours.has(after.get(line.id)?.export_batch_id ?? '')).toBe(true);
    }
    const totals = hashavshevetTotals(h.importDir);
    expect(totals.files).toHaveLength(1);
    expectBooksMatchLines(totals, approved);
    const batchKey = totals.files[0]?.replace(/^MOVEIN-|\.DOC$/g, '') ?? '';
    const ledger = h.state.ledger.get({
      flow: LEDGER_FLOW,
      connector: 'books',
      recordKey: batchKey,
      version: 'exported',
    });
    expect(ledger?.externalRef?.split(',').sort()).toEqual([...ours].sort());

    const second = await job.run(jobContext(h.state));
    expect(second).toMatchObject({ outcome: 'ok', counts: { lines_fetched: 0 } });
    expect(hashavshevetTotals(h.importDir).files).toHaveLength(1);
  });

  it('writes each line exactly once into a SQL journal table', async () => {
    await h.sandbox.control.action('approve_journal_lines', { count: 45 });
    const approved = await approvedLines();
    const driver = new SqliteDriver(join(h.dir, 'books.db'));
    try {
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
      const writer = new SqlAccountingWriter(driver, config, 'books');
      const job = createJournalExportJob({
        name: 'journal',
        api: h.api,
        writer,
        options: journalExportOptionsSchema.parse({ max_lines_per_batch: 20 }),
      });
      expect((await job.run(jobContext(h.state))).outcome).toBe('ok');
      const { rows } = await driver.query('SELECT source, batch FROM gl_journal', {});
      const ids = rows.map((row) => String(row['source']));
      expect(ids.sort()).toEqual(approved.map((line) => line.id).sort());
      expect(new Set(rows.map((row) => row['batch'])).size).toBeGreaterThan(1);
    } finally {
      await driver.close();
    }
  });

  it('a dry run into a table whose schema is missing fails as the real run does, naming the key', async () => {
    await h.sandbox.control.action('approve_journal_lines', { count: 4 });
    const driver = new SqliteDriver(join(h.dir, 'books.db'));
    try {
      const config = journalTableSchema.parse({
        table: 'gl.journal',
        columns: { batch_key: 'batch', side: 'side', account: 'account', amount: 'amount' },
        create_tables: true,
      });
      const writer = new SqlAccountingWriter(driver, config, 'books');
      const job = createJournalExportJob({
        name: 'journal',
        api: h.api,
        writer,
        options: journalExportOptionsSchema.parse({ preview_path: join(h.dir, 'preview.json') }),
      });
      const dry = await job.run(jobContext(h.state, { dryRun: true }));
      expect(dry.outcome).toBe('failed');
      expect(dry.error).toContain('connectors.books.journal.table: ');
      expect(dry.error).toContain('journal.table: journal');
      const real = await job.run(jobContext(h.state));
      expect(real).toMatchObject({ outcome: 'failed', error: dry.error });
    } finally {
      await driver.close();
    }
  });

  it('files an unbalanced document and an unmapped account as dead letters while the rest goes through', async () => {
    const { document_ids: docs } = (await h.sandbox.control.action('approve_journal_lines', {
      count: 9,
    })) as {
      document_ids: string[];
    };
    const [tampered] = docs;
    const approved = await approvedLines();
    // The API answers with one line of `tampered` off by one agora: a document that does not balance.
    const api: JournalExportApi = {
      accounting: {
        ...h.api.accounting,
        journalLines: (options) => {
          const real = h.api.accounting.journalLines(options);
          return {
            ...real,
            async *pages() {
              for await (const page of real.pages()) {
                const items = page.items.map((line) =>
                  line.document_id === tampered && line.side === 'credit'
                    ? { ...line, amount: (Number(line.amount) + 0.01).toFixed(2) }
                    : line,
                );
                yield { ...page, items };
              }
            },
          };
        },
      },
    };
    // Every account mapped except one that only some documents use: those documents are unmappable.
    const accountsOf = (doc: string) =>
      new Set(
        approved
          .filter((l) => l.document_id === doc)
          .flatMap((l) => [l.account, l.counter_account ?? l.account]),
      );
    const documents = [...new Set(approved.map((l) => l.document_id))];
    const allAccounts = [
      ...new Set(approved.flatMap((l) => [l.account, l.counter_account ?? l.account])),
    ].sort();
    const missing = allAccounts.find((a) => {
      const users = documents.filter((d) => accountsOf(d).has(a));
      return users.length > 0 && users.length < documents.length - 1 && !users.includes(tampered ?? '');
    });
    expect(missing).toBeDefined();
    const unmappedDocs = documents.filter((d) => accountsOf(d).has(missing ?? ''));
    const accounts = Object.fromEntries(allAccounts.filter((a) => a !== missing).map((a) => [a, `G${a}`]));
    const job = (table: Record<string, string>) =>
      createJournalExportJob({
        name: 'journal',
        api,
        writer: h.writer,
        options: journalExportOptionsSchema.parse({ mappings: { accounts: 'gl' } }),
        mappings: { gl: table },
      });

    const run = await job(accounts).run(jobContext(h.state));
    expect(run.outcome).toBe('ok');
    const letters = h.state.deadLetters.list({ flow: 'journal' });
    const byKey = new Map(letters.map((l) => [l.recordKey, l]));
    expect(byKey.get(`document:${tampered}`)?.reason).toMatch(/does not balance.*difference -0\.01/);
    for (const doc of unmappedDocs) {
      expect(byKey.get(`document:${doc}`)?.reason).toMatch(
        new RegExp(`"${missing ?? ''}".*has no entry in mappings\\.gl`),
      );
    }
    expect(letters).toHaveLength(unmappedDocs.length + 1);
    expect(run.counts['dead_lettered']).toBe(letters.length);
    const after = new Map((await sandboxLines(h.sandbox)).map((line) => [line.id, line]));
    const deadDocs = new Set(letters.map((l) => l.recordKey.replace('document:', '')));
    for (const line of approved) {
      expect(after.get(line.id)?.status).toBe(
        deadDocs.has(line.document_id) ? 'approved_for_export' : 'exported',
      );
    }

    // Fixing the mapping lets the unmapped document through on the next run, and its dead letter resolves.
    const fixed = { ...accounts, [missing ?? '']: 'G-fixed' };
    const rerun = await job(fixed).run(jobContext(h.state));
    expect(rerun.outcome).toBe('ok');
    for (const doc of unmappedDocs) {
      expect(h.state.deadLetters.get('journal', `document:${doc}`)?.status).toBe('resolved');
    }
    expect(h.state.deadLetters.get('journal', `document:${tampered}`)?.status).toBe('open');
    const final = new Map((await sandboxLines(h.sandbox)).map((line) => [line.id, line]));
    for (const line of approved) {
      expect(final.get(line.id)?.status).toBe(
        line.document_id === tampered ? 'approved_for_export' : 'exported',
      );
    }
  });

  it('files documents the target would refuse, and lets them through once the connector is fixed', async () => {
    await h.sandbox.control.action('approve_journal_lines', { count: 9 });
    const approved = await approvedLines();
    // The default rule refuses document numbers such as BULK-1234 that are not plain 9-digit numbers.
    const strict = new HashavshevetWriter(
      hashavshevetConfigSchema.parse({ import_dir: h.importDir }),
      'books',
    );
    const run = await createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: strict,
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(run.outcome).toBe('ok');
    const letters = h.state.deadLetters.list({ flow: 'journal' });
    expect(letters.length).toBeGreaterThan(0);
    expect(letters.every((l) => /long_references/.test(l.reason))).toBe(true);
    // Every demo document number has letters, so every document waits and nothing is exported.
    expect(new Set(letters.map((l) => l.recordKey.replace('document:', '')))).toEqual(
      new Set(approved.map((l) => l.document_id)),
    );
    expect(await approvedLines()).toHaveLength(approved.length);
    expect(hashavshevetTotals(h.importDir).files).toEqual([]);

    const fixed = await createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: h.writer,
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(fixed.counts['lines_exported']).toBe(approved.length);
    expect(h.state.deadLetters.countOpen('journal')).toBe(0);
    expect(await approvedLines()).toEqual([]);
  });

  it('fills the costing code and the VAT number from the API lines; details too wide wait as dead letters', async () => {
    await h.sandbox.control.action('approve_journal_lines', { count: 12 });
    const approved = await approvedLines();
    const branches = [...new Set(approved.map((line) => line.branch_id))];
    const codes = Object.fromEntries(branches.map((branch, i) => [branch, `C${i + 1}`]));
    const writer = new HashavshevetWriter(
      hashavshevetConfigSchema.parse({
        import_dir: h.importDir,
        long_references: 'last_digits',
        costing_code: 'branch',
        costing_code_map: codes,
        vat_number: 'vendor_tax_id',
      }),
      'books',
    );
    // The sandbox's descriptions already name the document: this template makes details longer than 50 characters.
    const tooLong = { description_template: '{document_type} {document_number} {description}' };
    const refused = await createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer,
      options: journalExportOptionsSchema.parse(tooLong),
    }).run(jobContext(h.state));
    expect(refused.outcome).toBe('ok');
    const letters = h.state.deadLetters.list({ flow: 'journal' });
    expect(letters.length).toBe(new Set(approved.map((line) => line.document_id)).size);
    for (const letter of letters) {
      expect(letter.reason).toMatch(
        /details \(PRM line 9\) ".*" is \d+ characters; the importer reads at most 50/,
      );
    }
    expect(hashavshevetTotals(h.importDir).files).toEqual([]);
    expect(await approvedLines()).toHaveLength(approved.length);

    const run = await createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer,
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(run.counts['lines_exported']).toBe(approved.length);
    expect(h.state.deadLetters.countOpen('journal')).toBe(0);
    const totals = hashavshevetTotals(h.importDir);
    expectBooksMatchLines(totals, approved);
    const byReference = new Map(approved.map((line) => [line.reference.replace(/\D/g, '').slice(-9), line]));
    const [file = ''] = totals.files;
    const { movements } = readPublishedImport(
      join(h.importDir, file.replace(/\.DOC$/, '.PRM')),
      join(h.importDir, file),
    );
    for (const movement of movements) {
      const line = byReference.get(movement.reference1);
      expect(movement.costingCode).toBe(codes[line?.branch_id ?? '']);
      expect(movement.vatNumber).toBe(line?.vendor_tax_id ?? '');
    }
    expect(movements.some((movement) => /^\d{9}$/.test(movement.vatNumber))).toBe(true);
  });

  it('splits a batch the target refuses and files only the document at fault until a retry is asked for', async () => {
    const { document_ids: docs } = (await h.sandbox.control.action('approve_journal_lines', {
      count: 9,
    })) as {
      document_ids: string[];
    };
    const bad = docs[1] ?? '';
    const badLines = new Set((await approvedLines()).filter((l) => l.document_id === bad).map((l) => l.id));
    const harness = h;
    let refuse = true;
    const picky: AccountingWriter = {
      hasBatch: (key) => harness.writer.hasBatch(key),
      writeJournalBatch: (batch) => {
        if (refuse && batch.entries.some((e) => e.sourceIds.some((id) => badLines.has(id)))) {
          return Promise.reject(
            new ConnectorError('connector_input_invalid', 'account 99999 is closed', {
              connector: 'books',
              retryable: false,
            }),
          );
        }
        return harness.writer.writeJournalBatch(batch);
      },
    };
    const job = createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: picky,
      options: journalExportOptionsSchema.parse({}),
    });
    const run = await job.run(jobContext(h.state));
    expect(run.outcome).toBe('ok');
    expect(run.counts['batches_split']).toBe(1);
    const letter = h.state.deadLetters.get('journal', `document:${bad}`);
    expect(letter?.reason).toMatch(/refused the document: account 99999 is closed/);
    expect((await approvedLines()).map((l) => l.id).sort()).toEqual([...badLines].sort());

    // Without a retry request the document waits; after one it goes alone and, with the target fixed, through.
    const idle = await job.run(jobContext(h.state));
    expect(idle.counts['documents_skipped']).toBe(1);
    expect(idle.counts['batches_planned']).toBeUndefined();
    refuse = false;
    expect(h.state.deadLetters.replay({ id: letter?.id ?? -1 })).toBe(1);
    const retried = await job.run(jobContext(h.state));
    expect(retried.counts['lines_exported']).toBe(badLines.size);
    expect(h.state.deadLetters.get('journal', `document:${bad}`)?.status).toBe('resolved');
    expect(await approvedLines()).toEqual([]);
  });

  it('dry run writes the preview and exports nothing', async () => {
    await h.sandbox.control.action('approve_journal_lines', { count: 12 });
    const approved = await approvedLines();
    const preview = join(h.dir, 'preview.json');
    const job = createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: h.writer,
      options: journalExportOptionsSchema.parse({ preview_path: preview }),
    });
    const run = await job.run(jobContext(h.state, { dryRun: true }));
    expect(run).toMatchObject({ outcome: 'ok', counts: { lines_previewed: approved.length } });
    const content = JSON.parse(readFileSync(preview, 'utf8')) as { batches: { line_ids: string[] }[] };
    expect(content.batches.flatMap((b) => b.line_ids).sort()).toEqual(approved.map((l) => l.id).sort());
    expect(existsSync(h.importDir) ? readdirSync(h.importDir) : []).toEqual([]);
    expect((await approvedLines()).length).toBe(approved.length);
    expect(h.state.kv.keys('journal-export:journal:plans')).toEqual([]);
    expect(h.state.ledger.count()).toBe(0);
  });
});
