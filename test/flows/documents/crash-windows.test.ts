/**
 * Each crash window of the documents flow, reproduced in one process by failing the step right after it: the
 * document still lands exactly once, an uploaded file is reused, an expired idempotency key ends in a lookup,
 * never a second document.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { simulateErpActivity } from '../../../connectors/sql/demo-erp/index.js';
import type { DocumentSource } from '../../../src/connector-contract/index.js';
import {
  createDocumentsJob,
  documentsOptionsSchema,
  documentIdempotencyKey,
  type DocumentsApi,
} from '../../../src/flows/documents/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import {
  documentSourceOf,
  jobContext,
  mulberry32,
  sandboxDocuments,
  startSupplierHarness,
  type SupplierHarness,
} from './supplier-harness.js';

let h: SupplierHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function jobWith(
  harness: SupplierHarness,
  api: DocumentsApi,
  source: DocumentSource = documentSourceOf(harness),
) {
  return createDocumentsJob({
    name: 'docs',
    api,
    source: () => source,
    reactionSink: () => undefined,
    connectorName: 'erp',
    options: documentsOptionsSchema.parse({}),
  });
}

async function oneDocument(harness: SupplierHarness): Promise<string> {
  const { documents } = await simulateErpActivity(harness.erp, {
    clock: systemClock,
    random: mulberry32(11),
    documents: 1,
    confirmations: 0,
    catalogChanges: 0,
  });
  const [number] = documents;
  if (number === undefined) throw new Error('no document issued');
  return number;
}

async function ours(harness: SupplierHarness, number: string) {
  const { documents, tallies } = await sandboxDocuments(harness.sandbox);
  const found = documents.filter((doc) => doc.number === number);
  return { found, tallies: found.map((doc) => tallies[doc.id]) };
}

describe('documents flow crash windows', () => {
  it('file uploaded, document not created: the next run reuses the uploaded file', async () => {
    h = await startSupplierHarness();
    const number = await oneDocument(h);
    const api = h.api;
    let crashes = 1;
    const crashing: DocumentsApi = {
      ...api,
      documents: {
        ...api.documents,
        async create(body, options) {
          if (crashes-- > 0) throw new Error('process died before POST /supplier/documents');
          return api.documents.create(body, options);
        },
      },
    };
    const job = jobWith(h, crashing);
    const first = await job.run(jobContext(h.state));
    expect(first.counts['files_uploaded']).toBe(1);
    expect(first.counts['documents_failed']).toBe(1);
    const second = await job.run(jobContext(h.state));
    expect(second.counts['documents_created']).toBe(1);
    expect(second.counts['files_uploaded'] ?? 0).toBe(0);
    const { found, tallies } = await ours(h, number);
    expect(found).toHaveLength(1);
    expect(tallies).toEqual([{ creations: 1, duplicateAttempts: 0 }]);
  });

  it('document created, answer lost: the same key replays the original response', async () => {
    h = await startSupplierHarness();
    const number = await oneDocument(h);
    const api = h.api;
    let lose = 1;
    const losing: DocumentsApi = {
      ...api,
      documents: {
        ...api.documents,
        async create(body, options) {
          const created = await api.documents.create(body, options);
          if (lose-- > 0) throw new Error('connection lost after the document was created');
          return created;
        },
      },
    };
    const job = jobWith(h, losing);
    await job.run(jobContext(h.state));
    const second = await job.run(jobContext(h.state));
    expect(second.counts['documents_created']).toBe(1);
    const { found, tallies } = await ours(h, number);
    expect(found).toHaveLength(1);
    expect(tallies).toEqual([{ creations: 1, duplicateAttempts: 0 }]);
    const marked = await h.erp.driver.query('SELECT API_DOCUMENT_ID AS id FROM DOCUMENTS WHERE IVNUM = :n', {
      n: number,
    });
    expect(marked.rows[0]?.['id']).toBe(found[0]?.id);
  });

  it('document created long ago (idempotency key expired): the 409 is reconciled by listing, not a second document', async () => {
    h = await startSupplierHarness();
    const number = await oneDocument(h);
    const api = h.api;
    let captured: Parameters<DocumentsApi['documents']['create']>[0] | undefined;
    const capturing: DocumentsApi = {
      ...api,
      documents: {
        ...api.documents,
        async create(body) {
          captured = body;
          throw new Error('process died before POST /supplier/documents');
        },
      },
    };
    await jobWith(h, capturing).run(jobContext(h.state));
    if (captured === undefined) throw new Error('the job built no body');
    // The earlier attempt's key is gone from the API's 24 h window: it was created under another key.
    const earlier = await api.documents.create(captured, {
      idempotencyKey: 'expired-key-of-an-earlier-attempt',
    });
    expect(documentIdempotencyKey('invoice', number)).toBe(`document:invoice:${number}`);

    const run = await jobWith(h, api).run(jobContext(h.state));
    expect(run.counts['documents_reconciled']).toBe(1);
    const { found, tallies } = await ours(h, number);
    expect(found.map((doc) => doc.id)).toEqual([earlier.id]);
    expect(tallies).toEqual([{ creations: 1, duplicateAttempts: 1 }]);
    const marked = await h.erp.driver.query('SELECT API_DOCUMENT_ID AS id FROM DOCUMENTS WHERE IVNUM = :n', {
      n: number,
    });
    expect(marked.rows[0]?.['id']).toBe(earlier.id);
  });

  it('another document with the same number but other totals is a dead letter, not overwritten or duplicated', async () => {
    h = await startSupplierHarness();
    const number = await oneDocument(h);
    await h.api.documents.create(
      {
        type: 'invoice',
        number,
        date: new Date().toISOString().slice(0, 10),
        buyer_id: 'byr_demo',
        currency: 'ILS',
        totals: { before_vat: '10.00', vat: '1.80', with_vat: '11.80' },
        lines: [{ sku: 'VEG-0001', name: 'x', quantity: '1', unit_price: '10.00', total: '10.00' }],
      },
      { idempotencyKey: 'someone-else' },
    );
    const run = await jobWith(h, h.api).run(jobContext(h.state));
    expect(run.counts['dead_lettered']).toBe(1);
    expect(h.state.deadLetters.get('docs', `invoice:${number}`)?.reason).toMatch(
      /already holds invoice .* different totals/,
    );
    const { found } = await ours(h, number);
    expect(found).toHaveLength(1);
    expect(found[0]?.totals.before_vat).toBe('10.00');
  });

  it('a recorded file the API already deleted is uploaded again', async () => {
    h = await startSupplierHarness();
    const number = await oneDocument(h);
    const rows = await h.erp.driver.query('SELECT PDFPATH AS p FROM DOCUMENTS WHERE IVNUM = :n', {
      n: number,
    });
    const pdf = await readFile(String(rows.rows[0]?.['p']));
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    h.state.kv.set('docs:documents', `invoice:${number}`, {
      attachment: { fileId: 'file_deleted_after_24h', sha256, uploadedAt: Date.now() },
    });
    const run = await jobWith(h, h.api).run(jobContext(h.state));
    expect(run.counts['documents_created']).toBe(1);
    expect(run.counts['files_uploaded']).toBe(1);
    const { found } = await ours(h, number);
    expect(found[0]?.files).toHaveLength(1);
    expect(found[0]?.files[0]?.id).not.toBe('file_deleted_after_24h');
  });

  it('document created, ERP not told: the next run only marks it', async () => {
    h = await startSupplierHarness();
    const number = await oneDocument(h);
    const real = documentSourceOf(h);
    let fail = 1;
    const source: DocumentSource = {
      listPendingDocuments: () => real.listPendingDocuments(),
      async markDocumentSent(ref, id) {
        if (fail-- > 0) throw new Error('ERP connection dropped');
        await real.markDocumentSent(ref, id);
      },
    };
    const job = jobWith(h, h.api, source);
    await job.run(jobContext(h.state));
    const second = await job.run(jobContext(h.state));
    expect(second.counts['documents_known']).toBe(1);
    expect(second.counts['files_uploaded'] ?? 0).toBe(0);
    const { found, tallies } = await ours(h, number);
    expect(tallies).toEqual([{ creations: 1, duplicateAttempts: 0 }]);
    const marked = await h.erp.driver.query('SELECT API_DOCUMENT_ID AS id FROM DOCUMENTS WHERE IVNUM = :n', {
      n: number,
    });
    expect(marked.rows[0]?.['id']).toBe(found[0]?.id);
  });
});
