/**
 * The documents flow against the sandbox over HTTP, a real SQLite state file and the demo ERP on SQLite:
 * documents land once with their PDFs, rule violations are dead-lettered while the rest go through, buyer
 * reactions are written back once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SqlParams } from '../../../src/kit/sql/driver.js';
import type { DocumentReaction, DocumentReactionSink } from '../../../src/connector-contract/index.js';
import { runJob } from '../../../src/engine/index.js';
import {
  createDocumentsJob,
  documentsOptionsSchema,
  type DocumentsOptionsInput,
} from '../../../src/flows/documents/index.js';
import {
  documentSourceOf,
  issueDocuments,
  jobContext,
  sandboxDocuments,
  startSupplierHarness,
  type SupplierHarness,
} from './supplier-harness.js';

let h: SupplierHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function countingSink(harness: SupplierHarness): DocumentReactionSink & { written: DocumentReaction[] } {
  const real = harness.connector.capabilities.documentReactionSink;
  if (real === undefined) throw new Error('the demo ERP offers no reaction sink');
  const written: DocumentReaction[] = [];
  return {
    written,
    async writeDocumentReaction(reaction) {
      written.push(reaction);
      await real.writeDocumentReaction(reaction);
    },
  };
}

function documentsJob(
  harness: SupplierHarness,
  options: DocumentsOptionsInput = {},
  sink = countingSink(harness),
) {
  return {
    sink,
    job: createDocumentsJob({
      name: 'docs',
      api: harness.api,
      source: () => documentSourceOf(harness),
      reactionSink: () => sink,
      connectorName: 'erp',
      options: documentsOptionsSchema.parse(options),
    }),
  };
}

async function erpRows(harness: SupplierHarness, sql: string, params: SqlParams = {}) {
  return (await harness.erp.driver.query(sql, params)).rows;
}

describe('documents flow', () => {
  it('sends each ERP document once with its PDF and writes the API id back', async () => {
    h = await startSupplierHarness();
    const numbers = await issueDocuments(h, 4);
    const { job } = documentsJob(h);
    const first = await job.run(jobContext(h.state));
    expect(first.outcome).toBe('ok');
    expect(first.counts['documents_created']).toBe(4);
    expect(first.counts['files_uploaded']).toBe(4);

    const { documents, tallies } = await sandboxDocuments(h.sandbox);
    const ours = documents.filter((doc) => numbers.includes(doc.number));
    expect(ours.map((doc) => doc.number).sort()).toEqual([...numbers].sort());
    for (const doc of ours) {
      expect(tallies[doc.id]).toEqual({ creations: 1, duplicateAttempts: 0 });
      expect(doc.files).toHaveLength(1);
      expect(doc.type).toBe('invoice');
      expect(doc.buyer.id).toBe('byr_demo');
      const file = await h.api.files.get(doc.files[0]?.id ?? '');
      expect(file.id).toBe(doc.files[0]?.id);
    }
    expect(new Set(ours.flatMap((doc) => doc.files.map((f) => f.id))).size).toBe(4);

    const marked = await erpRows(
      h,
      'SELECT IVNUM, API_DOCUMENT_ID FROM DOCUMENTS WHERE API_DOCUMENT_ID IS NOT NULL',
    );
    expect(new Map(marked.map((row) => [row['IVNUM'], row['API_DOCUMENT_ID']]))).toEqual(
      new Map(ours.map((doc) => [doc.number, doc.id])),
    );

    const second = await job.run(jobContext(h.state));
    expect(second.outcome).toBe('ok');
    expect(second.counts['documents_pending']).toBe(0);
    const after = await sandboxDocuments(h.sandbox);
    expect(after.documents).toHaveLength(documents.length);
  });

  it('ends failed when every document was held back, and the run is no success (docs/operations.md, "Run outcomes")', async () => {
    h = await startSupplierHarness();
    const numbers = await issueDocuments(h, 2, 7);
    for (const n of numbers) {
      await erpRows(h, `UPDATE DOCUMENTS SET VAT = VAT || '5' WHERE IVNUM = :n`, { n });
    }
    const { job } = documentsJob(h);
    const run = await runJob(job, jobContext(h.state));
    expect(run).toMatchObject({
      outcome: 'failed',
      counts: { delivered: 0, held_back: 2, dead_lettered: 2 },
    });
    expect(run.error).toMatch(/^delivered nothing: all 2 documents held back/);
    const [record] = h.state.runs.recent('docs', 1);
    expect(record).toMatchObject({ outcome: 'failed', counts: { delivered: 0, held_back: 2 } });
    expect(h.state.runs.last('docs', ['ok', 'partial'])).toBeNull();
  });

  it('dead-letters documents that break the contract rules and sends the rest; a fix in the ERP sends it', async () => {
    h = await startSupplierHarness();
    const [badSum, noAllocation, inexact, good] = await issueDocuments(h, 4, 7);
    // totals.before_vat no longer equals the sum of the lines
    await erpRows(
      h,
      `UPDATE DOCUMENTS SET QPRICE = '1.00', TOTPRICE = printf('%.2f', 1.00 + VAT) WHERE IVNUM = :n`,
      { n: badSum },
    );
    // above 5,000 ILS before VAT without an allocation number
    await erpRows(
      h,
      `UPDATE DOCUMENTITEMS SET QPRICE = '6000.00', PRICE = '6000.00', TQUANT = '1' WHERE IVNUM = :n AND LINE = 1`,
      { n: noAllocation },
    );
    await erpRows(h, `DELETE FROM DOCUMENTITEMS WHERE IVNUM = :n AND LINE > 1`, { n: noAllocation });
    await erpRows(
      h,
      `UPDATE DOCUMENTS SET QPRICE = '6000.00', VAT = '1080.00', TOTPRICE = '7080.00', ALLOCNUM = NULL WHERE IVNUM = :n`,
      { n: noAllocation },
    );
    // an amount with three fraction digits
    await erpRows(h, `UPDATE DOCUMENTS SET VAT = VAT || '5' WHERE IVNUM = :n`, { n: inexact });

    const { job } = documentsJob(h);
    const run = await runJob(job, jobContext(h.state));
    expect(run.counts['documents_created']).toBe(1);
    expect(run.counts['dead_lettered']).toBe(3);
    // The outcome rule (docs/operations.md "Run outcomes"): one delivered, and 3 of 4 held back is under the 20 tried
    // the share counts from, so the run is ok and its record carries both counts.
    expect(run).toMatchObject({ outcome: 'ok', counts: { delivered: 1, held_back: 3 } });
    const letters = new Map(h.state.deadLetters.list({ flow: 'docs' }).map((l) => [l.recordKey, l.reason]));
    expect(letters.get(`invoice:${badSum}`)).toMatch(/before_vat.*sum of lines/);
    expect(letters.get(`invoice:${noAllocation}`)).toMatch(/allocation_number.*required/);
    expect(letters.get(`invoice:${inexact}`)).toMatch(/totals\.vat.*2 fraction digits/);
    const { documents } = await sandboxDocuments(h.sandbox);
    expect(
      documents.filter((d) => [badSum, noAllocation, inexact, good].includes(d.number)).map((d) => d.number),
    ).toEqual([good]);

    // Unchanged dead letters wait; the ERP fixes the allocation number and that document goes through.
    const waiting = await job.run(jobContext(h.state));
    expect(waiting.counts['dead_letters_waiting']).toBe(3);
    await erpRows(h, `UPDATE DOCUMENTS SET ALLOCNUM = '123456789' WHERE IVNUM = :n`, { n: noAllocation });
    const fixed = await job.run(jobContext(h.state));
    expect(fixed.counts['documents_created']).toBe(1);
    expect(h.state.deadLetters.get('docs', `invoice:${noAllocation}`)?.status).toBe('resolved');
    const created = (await sandboxDocuments(h.sandbox)).documents.find((d) => d.number === noAllocation);
    expect(created?.totals.before_vat).toBe('6000.00');
  });

  it('a dry run checks the documents and sends nothing', async () => {
    h = await startSupplierHarness();
    const [, broken] = await issueDocuments(h, 2, 9);
    await erpRows(h, `UPDATE DOCUMENTS SET QPRICE = '1.00' WHERE IVNUM = :n`, { n: broken ?? '' });
    const { job } = documentsJob(h);
    const before = (await sandboxDocuments(h.sandbox)).documents.length;
    const preview = await job.run(jobContext(h.state, { dryRun: true }));
    expect(preview.counts).toMatchObject({ documents_would_send: 1, documents_would_dead_letter: 1 });
    expect((await sandboxDocuments(h.sandbox)).documents).toHaveLength(before);
    expect(h.state.deadLetters.list({ flow: 'docs' })).toEqual([]);
  });

  it('writes buyer reactions back to the ERP once per status and differences', async () => {
    h = await startSupplierHarness();
    const [received, disputed, approved] = await issueDocuments(h, 3, 3);
    const { job, sink } = documentsJob(h);
    await job.run(jobContext(h.state));
    expect(sink.written).toHaveLength(0);
    const idOf = async (number: string | undefined) =>
      (await sandboxDocuments(h!.sandbox)).documents.find((d) => d.number === number)?.id ?? '';
    const control = h.sandbox.control;
    await control.action('buyer_receive_document', {
      document_id: await idOf(received),
      with_differences: true,
    });
    await control.action('buyer_receive_document', { document_id: await idOf(disputed) });
    await control.action('buyer_dispute_document', { document_id: await idOf(disputed) });
    await control.action('buyer_receive_document', { document_id: await idOf(approved) });
    await control.action('buyer_approve_document', { document_id: await idOf(approved) });

    const run = await job.run(jobContext(h.state, { trigger: 'webhook' }));
    expect(run.outcome).toBe('ok');
    const statuses = new Map(sink.written.map((r) => [r.documentNumber, r.buyerStatus]));
    expect(statuses).toEqual(
      new Map([
        [received, 'received_with_differences'],
        [disputed, 'disputed'],
        [approved, 'approved_for_export'],
      ]),
    );
    expect(sink.written).toHaveLength(3);
    const withDifferences = sink.written.find((r) => r.documentNumber === received);
    expect(withDifferences?.differences.length).toBeGreaterThan(0);
    const rows = await erpRows(h, 'SELECT IVNUM, BUYERSTATUS FROM DOCUMENTS WHERE BUYERSTATUS IS NOT NULL');
    expect(new Map(rows.map((r) => [r['IVNUM'], r['BUYERSTATUS']]))).toEqual(statuses);
    const differences = await erpRows(
      h,
      'SELECT COUNT(*) AS n FROM DOCDIFFERENCES WHERE API_DOCUMENT_ID = :id',
      {
        id: await idOf(received),
      },
    );
    expect(Number(differences[0]?.['n'])).toBe(withDifferences?.differences.length);

    // A pass that re-reads the same documents (look-back overlap, a replayed webhook) writes nothing again.
    await job.run(jobContext(h.state, { trigger: 'webhook' }));
    expect(sink.written).toHaveLength(3);
    // Seeded documents the job never sent are left alone with the default scope.
    expect(sink.written.every((r) => [received, disputed, approved].includes(r.documentNumber))).toBe(true);
  });

  it('keeps a document the API sent in an unexpected shape as a dead letter with its reason', async () => {
    h = await startSupplierHarness();
    const [number] = await issueDocuments(h, 1, 5);
    const { job } = documentsJob(h);
    await job.run(jobContext(h.state));
    const id = (await sandboxDocuments(h.sandbox)).documents.find((d) => d.number === number)?.id ?? '';
    await h.sandbox.control.action('buyer_receive_document', { document_id: id });
    await h.sandbox.control.action('corrupt_next_list_item', { count: 1 });

    const run = await job.run(jobContext(h.state, { trigger: 'webhook' }));
    expect(run.outcome).not.toBe('failed');
    expect(run.counts['documents_quarantined']).toBe(1);
    const letters = h.state.deadLetters.list({ flow: 'docs:reactions' });
    expect(letters).toHaveLength(1);
    expect(letters[0]?.reason).toMatch(/^unexpected API payload: /);
  });
});
