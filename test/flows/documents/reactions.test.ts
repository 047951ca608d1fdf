/**
 * Buyer reactions written back to the ERP: once per change of status or differences (also when a status comes
 * back to an earlier value), not held back by a document that fails to send, and not lost when the API created a
 * document whose answer never reached the daemon.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type {
  DocumentReaction,
  DocumentReactionSink,
  DocumentSource,
} from '../../../src/connector-contract/index.js';
import type { Document } from '../../../src/contract/index.js';
import {
  createDocumentsJob,
  documentsOptionsSchema,
  type DocumentsApi,
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

function recordingSink(): DocumentReactionSink & { written: DocumentReaction[] } {
  const written: DocumentReaction[] = [];
  return {
    written,
    writeDocumentReaction(reaction) {
      written.push(reaction);
      return Promise.resolve();
    },
  };
}

function jobWith(
  harness: SupplierHarness,
  api: DocumentsApi,
  sink: DocumentReactionSink,
  options: DocumentsOptionsInput = {},
  source: DocumentSource = documentSourceOf(harness),
) {
  return createDocumentsJob({
    name: 'docs',
    api,
    source: () => source,
    reactionSink: () => sink,
    connectorName: 'erp',
    options: documentsOptionsSchema.parse(options),
  });
}

async function idOf(harness: SupplierHarness, number: string | undefined): Promise<string> {
  const found = (await sandboxDocuments(harness.sandbox)).documents.find((doc) => doc.number === number);
  if (found === undefined) throw new Error(`document ${String(number)} is not in the sandbox`);
  return found.id;
}

/** The API's documents list answering one scripted page: the documents as they are "now". */
function scriptedList(current: () => Document[]): DocumentsApi['documents']['list'] {
  return () =>
    ({
      firstPage: () =>
        Promise.resolve({
          items: current(),
          nextCursor: null,
          hasMore: false,
          quarantined: [],
          requestId: null,
        }),
    }) as unknown as ReturnType<DocumentsApi['documents']['list']>;
}

describe('documents flow: buyer reactions', () => {
  it('writes a status that returns to an earlier value again, and a re-read of the same state not at all', async () => {
    h = await startSupplierHarness();
    const [number] = await issueDocuments(h, 1, 21);
    const sink = recordingSink();
    await jobWith(h, h.api, sink).run(jobContext(h.state));
    const sent = (await h.api.documents.list({ limit: 200 }).firstPage()).items.find(
      (doc) => doc.number === number,
    );
    if (sent === undefined) throw new Error('the document was not sent');

    let now: Document = sent;
    const api: DocumentsApi = {
      ...h.api,
      documents: { ...h.api.documents, list: scriptedList(() => [now]) },
    };
    const job = jobWith(h, api, sink, { overlap_ms: 0 });
    const at = (second: number) => `2030-01-01T00:00:${String(second).padStart(2, '0')}Z`;
    const statuses = ['received', 'disputed', 'received'] as const;
    for (const [i, status] of statuses.entries()) {
      now = { ...sent, buyer_status: status, updated_at: at(i + 1) };
      expect((await job.run(jobContext(h.state))).outcome).toBe('ok');
    }
    // An unrelated change (a newer updated_at, same status and differences) is no new reaction.
    now = { ...now, updated_at: at(9) };
    await job.run(jobContext(h.state));

    expect(sink.written.map((reaction) => reaction.buyerStatus)).toEqual([...statuses]);
    expect(sink.written.every((reaction) => reaction.documentNumber === number)).toBe(true);
  });

  it('a document that keeps failing to send does not hold back the reactions of the others', async () => {
    h = await startSupplierHarness();
    const [reacted] = await issueDocuments(h, 1, 22);
    const sink = recordingSink();
    await jobWith(h, h.api, sink).run(jobContext(h.state));
    const [stuck] = await issueDocuments(h, 1, 23);
    const failing: DocumentsApi = {
      ...h.api,
      documents: {
        ...h.api.documents,
        create: (body, options) =>
          body.number === stuck
            ? Promise.reject(new Error('connection reset'))
            : h!.api.documents.create(body, options),
      },
    };
    await h.sandbox.control.action('buyer_receive_document', { document_id: await idOf(h, reacted) });

    const run = await jobWith(h, failing, sink).run(jobContext(h.state));
    expect(run.outcome).toBe('partial');
    expect(run.counts['documents_failed']).toBe(1);
    expect(sink.written.map((reaction) => [reaction.documentNumber, reaction.buyerStatus])).toEqual([
      [reacted, 'received'],
    ]);
  });

  it('a reaction to a document created with its answer lost is written once, after the retry settles it', async () => {
    h = await startSupplierHarness();
    const [number] = await issueDocuments(h, 1, 24);
    const sink = recordingSink();
    let lose = 1;
    const losing: DocumentsApi = {
      ...h.api,
      documents: {
        ...h.api.documents,
        async create(body, options) {
          const created = await h!.api.documents.create(body, options);
          if (lose-- > 0) {
            // The buyer reacts before the daemon learns that its document exists.
            await h!.sandbox.control.action('buyer_receive_document', { document_id: created.id });
            throw new Error('connection lost after the document was created');
          }
          return created;
        },
      },
    };
    // No look-back overlap: the second run's pull alone would never read the document again.
    const job = jobWith(h, losing, sink, { overlap_ms: 0 });
    const first = await job.run(jobContext(h.state));
    expect(first.outcome).toBe('partial');
    expect(first.counts['reactions_deferred']).toBe(1);
    expect(sink.written).toEqual([]);

    const second = await job.run(jobContext(h.state));
    expect(second.outcome).toBe('ok');
    await job.run(jobContext(h.state));
    expect(sink.written.map((reaction) => [reaction.documentNumber, reaction.buyerStatus])).toEqual([
      [number, 'received'],
    ]);
    expect(h.state.kv.keys('docs:reactions-deferred')).toEqual([]);
  });
});
