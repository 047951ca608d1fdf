/**
 * The flow walks staged lines document by document: a document whose lines the API lists on different pages (and a
 * line listed twice) still goes whole into one batch, once; the dry run previews the same walk.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient, Page } from '../../../src/client/index.js';
import type { JournalLine } from '../../../src/contract/index.js';
import {
  createJournalExportJob,
  journalExportOptionsSchema,
  type JournalExportApi,
} from '../../../src/flows/journal-export/index.js';
import { journalTableSchema, SqlAccountingWriter } from '../../../connectors/sql/index.js';
import { SqliteDriver } from '../../../src/kit/sql/index.js';
import { jobContext, sandboxLines, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await (h as Harness | undefined)?.close();
});

const PAGE = 3;

/**
 * The approved lines re-paged three to a page, all debit lines first, then VAT, then credit, so every document's
 * lines are spread over pages; the first line is listed again on the last page, and the first page carries one
 * item the client quarantined. `tamper` may change lines on the way.
 */
function spreadOverPages(
  api: ApiClient,
  tamper: (line: JournalLine) => JournalLine = (l) => l,
): JournalExportApi {
  const accounting = api.accounting;
  return {
    accounting: {
      ...accounting,
      journalLines: (query) => {
        const listing = accounting.journalLines(query);
        if (query?.status !== 'approved_for_export' || query.cursor !== undefined) return listing;
        return {
          ...listing,
          async *pages() {
            const lines: JournalLine[] = [];
            for await (const line of listing.items()) lines.push(tamper(line));
            const order: Record<string, number> = { debit: 0, vat: 1, credit: 2 };
            lines.sort((a, b) => (order[a.side] ?? 3) - (order[b.side] ?? 3) || (a.id < b.id ? -1 : 1));
            const first = lines[0];
            if (first !== undefined) lines.push(first);
            for (let start = 0; start < lines.length; start += PAGE) {
              const hasMore = start + PAGE < lines.length;
              const page: Page<JournalLine> = {
                items: lines.slice(start, start + PAGE),
                quarantined:
                  start === 0
                    ? [{ resource: 'JournalLine', index: PAGE, raw: {}, reason: 'id: required' }]
                    : [],
                cursor: start === 0 ? undefined : String(start),
                nextCursor: hasMore ? String(start + PAGE) : null,
                hasMore,
                requestId: null,
              };
              yield page;
            }
          },
        };
      },
    },
  };
}

async function approvedLines() {
  return (await sandboxLines(h.sandbox)).filter((line) => line.status === 'approved_for_export');
}

describe('journal-export over staged lines', () => {
  it('puts a document listed over several pages whole into one batch, and each line in the target once', async () => {
    await h.sandbox.control.action('approve_journal_lines', { count: 40 });
    const approved = await approvedLines();
    const documents = new Set(approved.map((line) => line.document_id));
    expect(documents.size).toBeGreaterThan(3);
    const driver = new SqliteDriver(join(h.dir, 'books.db'));
    try {
      const config = journalTableSchema.parse({
        table: 'gl_journal',
        columns: { batch_key: 'batch', amount: 'amount', source_ids: 'source' },
        create_tables: true,
      });
      const job = createJournalExportJob({
        name: 'journal',
        api: spreadOverPages(h.api),
        writer: new SqlAccountingWriter(driver, config, 'books'),
        options: journalExportOptionsSchema.parse({ max_lines_per_batch: 7 }),
      });
      const run = await job.run(jobContext(h.state));
      expect(run.outcome).toBe('ok');
      expect(run.counts['lines_fetched']).toBe(approved.length);
      expect(run.counts['lines_exported']).toBe(approved.length);
      expect(run.counts['quarantined']).toBe(1);
      expect(run.counts['batches_planned']).toBeGreaterThan(1);

      const { rows } = await driver.query('SELECT source, batch FROM gl_journal', {});
      const batchOf = new Map(rows.map((row) => [String(row['source']), String(row['batch'])]));
      expect(rows).toHaveLength(approved.length);
      expect([...batchOf.keys()].sort()).toEqual(approved.map((line) => line.id).sort());
      for (const document of documents) {
        const batches = new Set(
          approved.filter((line) => line.document_id === document).map((line) => batchOf.get(line.id)),
        );
        expect(batches.size, `document ${document}`).toBe(1);
      }
      expect(await approvedLines()).toEqual([]);
      expect(h.state.kv.keys('journal-export:journal:plans')).toEqual([]);
    } finally {
      await driver.close();
    }
  });

  it('previews the same walk in a dry run: whole documents, each line once, the unbalanced one as a dead letter', async () => {
    await h.sandbox.control.action('approve_journal_lines', { count: 30 });
    const approved = await approvedLines();
    const tampered = approved.find((line) => line.side === 'credit')?.document_id ?? '';
    const preview = join(h.dir, 'preview.json');
    const job = createJournalExportJob({
      name: 'journal',
      api: spreadOverPages(h.api, (line) =>
        line.document_id === tampered && line.side === 'credit'
          ? { ...line, amount: (Number(line.amount) + 0.01).toFixed(2) }
          : line,
      ),
      writer: h.writer,
      options: journalExportOptionsSchema.parse({ preview_path: preview, max_lines_per_batch: 5 }),
    });
    const run = await job.run(jobContext(h.state, { dryRun: true }));
    expect(run.outcome).toBe('ok');

    const content = JSON.parse(readFileSync(preview, 'utf8')) as {
      pending_batches: number;
      batches: { line_ids: string[]; entries: { sourceIds: string[] }[] }[];
      dead_letters: { document_id: string; kind: string }[];
    };
    const expected = approved.filter((line) => line.document_id !== tampered);
    expect(content.pending_batches).toBe(0);
    expect(content.batches.length).toBeGreaterThan(1);
    expect(content.batches.flatMap((b) => b.line_ids).sort()).toEqual(expected.map((l) => l.id).sort());
    const documentOf = new Map(approved.map((line) => [line.id, line.document_id]));
    const batchOfDocument = new Map<string, number>();
    content.batches.forEach((batch, index) => {
      for (const id of batch.line_ids) {
        const document = documentOf.get(id) ?? '';
        expect(batchOfDocument.get(document) ?? index, `document ${document}`).toBe(index);
        batchOfDocument.set(document, index);
      }
    });
    expect(content.dead_letters).toEqual([
      expect.objectContaining({ document_id: tampered, kind: 'unbalanced' }),
    ]);
    expect(run.counts).toMatchObject({
      lines_fetched: approved.length,
      lines_previewed: expected.length,
      batches_previewed: content.batches.length,
      dead_letters_previewed: 1,
    });
    expect((await approvedLines()).length).toBe(approved.length);
    expect(h.state.deadLetters.list({ flow: 'journal' })).toEqual([]);
    expect(h.state.kv.keys('journal-export:journal:plans')).toEqual([]);
    expect(h.state.ledger.count()).toBe(0);
  });

  it('stops when an export call fails while the next batch is being written, and the next run finishes both once', async () => {
    await h.sandbox.control.action('approve_journal_lines', { count: 30 });
    const approved = await approvedLines();
    const driver = new SqliteDriver(join(h.dir, 'books.db'));
    try {
      const config = journalTableSchema.parse({
        table: 'gl_journal',
        columns: { batch_key: 'batch', amount: 'amount', source_ids: 'source' },
        create_tables: true,
      });
      const writer = new SqlAccountingWriter(driver, config, 'books');
      const accounting = h.api.accounting;
      let exportCalls = 0;
      const failingFirstExport: JournalExportApi = {
        accounting: {
          ...accounting,
          exportJournalLines: async (body, callOptions) => {
            exportCalls += 1;
            // Slow enough that the next batch is written meanwhile, then the call fails.
            await new Promise((resolve) => setTimeout(resolve, 200));
            if (exportCalls === 1) throw new Error('export service unavailable');
            return accounting.exportJournalLines(body, callOptions);
          },
        },
      };
      const options = { max_lines_per_batch: 7 };
      const first = await createJournalExportJob({
        name: 'journal',
        api: failingFirstExport,
        writer,
        options: journalExportOptionsSchema.parse(options),
      }).run(jobContext(h.state));
      expect(first.outcome).toBe('failed');
      expect(first.error).toMatch(/export service unavailable/);
      expect(first.counts['batches_planned']).toBe(2);
      expect(h.state.kv.keys('journal-export:journal:plans')).toHaveLength(2);

      const second = await createJournalExportJob({
        name: 'journal',
        api: h.api,
        writer,
        options: journalExportOptionsSchema.parse(options),
      }).run(jobContext(h.state));
      expect(second.outcome).toBe('ok');
      expect(second.counts['batches_resumed']).toBe(2);
      const { rows } = await driver.query('SELECT source FROM gl_journal', {});
      expect(rows.map((row) => String(row['source'])).sort()).toEqual(approved.map((l) => l.id).sort());
      expect(await approvedLines()).toEqual([]);
      expect(h.state.kv.keys('journal-export:journal:plans')).toEqual([]);
    } finally {
      await driver.close();
    }
  });
});
