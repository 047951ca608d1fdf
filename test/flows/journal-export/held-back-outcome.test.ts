/**
 * The outcome rule on the journal export (docs/operations.md, "Run outcomes"): a run that exported nothing while it
 * held documents back is failed, its record carries what was held and why, and it is never the last success.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runJob } from '../../../src/engine/index.js';
import {
  createJournalExportJob,
  journalExportOptionsSchema,
} from '../../../src/flows/journal-export/index.js';
import { jobContext, sandboxLines, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await (h as Harness | undefined)?.close();
});

/** A job whose account table maps one account only: every document uses another one too. */
async function oneAccountMapped() {
  await h.sandbox.control.action('approve_journal_lines', { count: 6 });
  const approved = (await sandboxLines(h.sandbox)).filter((line) => line.status === 'approved_for_export');
  const accounts = [...new Set(approved.flatMap((l) => [l.account, l.counter_account ?? l.account]))].sort();
  const documents = new Set(approved.map((l) => l.document_id));
  const [kept] = accounts;
  const job = createJournalExportJob({
    name: 'journal',
    api: h.api,
    writer: h.writer,
    options: journalExportOptionsSchema.parse({
      mappings: { accounts: 'gl' },
      preview_path: join(h.dir, 'preview.json'),
    }),
    mappings: { gl: { [kept ?? '']: 'G1' } },
  });
  return { job, documents, missing: accounts.slice(1) };
}

describe('journal export: every document held back', () => {
  it('ends failed, records the held-back count and the missing accounts, and is no success', async () => {
    const { job, documents, missing } = await oneAccountMapped();
    const result = await runJob(job, jobContext(h.state));
    expect(result.outcome).toBe('failed');
    const [record] = h.state.runs.recent('journal', 1);
    expect(record?.outcome).toBe('failed');
    expect(record?.counts).toMatchObject({ delivered: 0, held_back: documents.size });
    expect(record?.error).toMatch(
      new RegExp(`^delivered nothing: all ${documents.size} documents held back: `),
    );
    // Each missing account is named with the table to add it to (as many as the error keeps: the first five).
    const named = missing.filter((account) =>
      record?.error?.includes(`"${account}" has no entry in mappings.gl`),
    );
    expect(named.length).toBe(Math.min(5, missing.length));
    expect(h.state.runs.last('journal', ['ok', 'partial'])).toBeNull();
  });

  it('a dry run of the same says failed too', async () => {
    const { job, documents } = await oneAccountMapped();
    const result = await runJob(job, jobContext(h.state, { dryRun: true }));
    expect(result).toMatchObject({
      outcome: 'failed',
      counts: { delivered: 0, held_back: documents.size, dead_letters_previewed: documents.size },
    });
  });
});
