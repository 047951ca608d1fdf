/**
 * A line that goes back (422 not_ready) after its batch was written: the run settles instead of wedging, and the
 * line, already in the books, is never written again even though the API lists it as approved once more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationApiError, type ApiClient } from '../../../src/client/index.js';
import {
  createJournalExportJob,
  journalExportOptionsSchema,
  type JournalExportApi,
} from '../../../src/flows/journal-export/index.js';
import { jobContext, sandboxLines, startHarness, type Harness } from './harness.js';
import { expectBooksMatchLines, hashavshevetTotals } from './targets.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The API as it looks when `lineIds` returned to not_ready after being written: hidden and refused. */
function linesWentBack(api: ApiClient, lineIds: ReadonlySet<string>): JournalExportApi {
  const accounting = api.accounting;
  return {
    accounting: {
      ...accounting,
      journalLines: (query) => {
        const listing = accounting.journalLines(query);
        return new Proxy(listing, {
          get(target, key) {
            if (key === 'items') {
              return async function* () {
                for await (const line of target.items()) if (!lineIds.has(line.id)) yield line;
              };
            }
            const value: unknown = Reflect.get(target, key);
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        });
      },
      exportJournalLines: async (body, options) => {
        const index = body.journal_line_ids.findIndex((id) => lineIds.has(id));
        if (index >= 0) {
          throw new ValidationApiError({
            status: 422,
            code: 'validation_error',
            message: 'journal line is not approved for export',
            method: 'POST',
            path: '/accounting/exports',
            items: [{ field: `journal_line_ids[${index}]`, code: 'not_ready' }],
          });
        }
        return accounting.exportJournalLines(body, options);
      },
    },
  };
}

describe('journal-export when a written line can no longer be marked exported', () => {
  it('settles the batch, files the line, and never writes it again', async () => {
    h = await startHarness();
    await h.sandbox.control.action('approve_journal_lines', { count: 12 });
    const approved = (await sandboxLines(h.sandbox)).filter((l) => l.status === 'approved_for_export');
    const documentId = approved[0]?.document_id;
    if (documentId === undefined) throw new Error('the sandbox approved no lines');
    // Every line of one document goes back: the document is balanced on its own and would be written again.
    const wentBack = new Set(approved.filter((l) => l.document_id === documentId).map((l) => l.id));

    const first = await createJournalExportJob({
      name: 'journal',
      api: linesWentBack(h.api, wentBack),
      writer: h.writer,
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(first.outcome, first.error).not.toBe('failed');
    for (const id of wentBack) expect(h.state.deadLetters.get('journal', `line:${id}`)?.status).toBe('open');
    expect(h.state.kv.keys('journal-export:journal:plans')).toEqual([]);

    // The line is approved again in the API (it never left it in the sandbox): the next run must skip it.
    const second = await createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: h.writer,
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(second.outcome, second.error).toBe('ok');

    const totals = hashavshevetTotals(h.importDir);
    expect(totals.files).toHaveLength(1);
    expectBooksMatchLines(totals, approved);
    const after = new Map((await sandboxLines(h.sandbox)).map((line) => [line.id, line.status]));
    for (const id of wentBack) expect(after.get(id)).toBe('approved_for_export');
    const others = approved.filter((line) => line.document_id !== documentId);
    for (const line of others) expect(after.get(line.id)).toBe('exported');
  });
});
