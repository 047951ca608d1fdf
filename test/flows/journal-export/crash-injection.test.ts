/** A failure injected at each step of a run, then a clean re-run: every line written once and exported once. */
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../../src/client/index.js';
import type { AccountingWriter } from '../../../src/connector-contract/index.js';
import {
  createJournalExportJob,
  journalExportOptionsSchema,
  LEDGER_FLOW,
  type JournalExportApi,
} from '../../../src/flows/journal-export/index.js';
import {
  jobContext,
  sandboxExportBatches,
  sandboxLines,
  startHarness,
  type Harness,
  type ReadoutLine,
} from './harness.js';
import { startLossyProxy, type LossyProxy } from './lossy-proxy.js';
import { expectBooksMatchLines, hashavshevetTotals } from './targets.js';

let h: Harness | undefined;
let proxy: LossyProxy | undefined;
let proxiedApi: ApiClient | undefined;
afterEach(async () => {
  await proxiedApi?.close();
  await proxy?.close();
  await h?.close();
  h = undefined;
  proxy = undefined;
  proxiedApi = undefined;
});

class InjectedCrash extends Error {}

function faultyWriter(
  real: AccountingWriter,
  mode: 'before' | 'during' | 'after',
  importDir: string,
): AccountingWriter {
  return {
    hasBatch: (key) => real.hasBatch(key),
    async writeJournalBatch(batch) {
      if (mode === 'before') throw new InjectedCrash('crash before the write');
      if (mode === 'during') {
        await mkdir(importDir, { recursive: true });
        await writeFile(join(importDir, `.tmp-MOVEIN-${batch.batchKey}.DOC-deadbeef`), 'half a file');
        throw new InjectedCrash('crash during the write');
      }
      await real.writeJournalBatch(batch);
      throw new InjectedCrash('crash after the write');
    },
  };
}

function lostExportResponse(api: ApiClient): JournalExportApi {
  return {
    accounting: {
      ...api.accounting,
      exportJournalLines: async (body, options) => {
        await api.accounting.exportJournalLines(body, options);
        throw new InjectedCrash('crash after the export call, before the ledger');
      },
    },
  };
}

async function expectExactlyOnce(harness: Harness, approved: readonly ReadoutLine[]) {
  const lines = new Map((await sandboxLines(harness.sandbox)).map((line) => [line.id, line]));
  const ours = (await sandboxExportBatches(harness.sandbox)).filter((b) => b.external_ref?.startsWith('je-'));
  const exportedInOurs = ours.reduce((n, b) => n + b.line_count, 0);
  for (const line of approved) expect(lines.get(line.id)?.status).toBe('exported');
  expect(exportedInOurs).toBe(approved.length);
  const totals = hashavshevetTotals(harness.importDir);
  expectBooksMatchLines(totals, approved);
  expect(harness.state.kv.keys('journal-export:journal:plans')).toEqual([]);
  return { ours, totals };
}

async function approve(harness: Harness, count: number) {
  await harness.sandbox.control.action('approve_journal_lines', { count });
  return (await sandboxLines(harness.sandbox)).filter((line) => line.status === 'approved_for_export');
}

describe('journal-export crash injection', () => {
  it.each(['before', 'during', 'after'] as const)('recovers from a crash %s the write', async (mode) => {
    h = await startHarness();
    const approved = await approve(h, 21);
    const crashing = createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: faultyWriter(h.writer, mode, h.importDir),
      options: journalExportOptionsSchema.parse({}),
    });
    const first = await crashing.run(jobContext(h.state));
    expect(first.outcome).toBe('failed');
    expect(first.error).toMatch(/crash/);
    expect(h.state.kv.keys('journal-export:journal:plans')).toHaveLength(1);

    const clean = createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: h.writer,
      options: journalExportOptionsSchema.parse({}),
    });
    const second = await clean.run(jobContext(h.state));
    expect(second.outcome).toBe('ok');
    expect(second.counts['batches_resumed']).toBe(1);
    expect(second.counts[mode === 'after' ? 'batches_already_written' : 'batches_written']).toBe(1);
    const { totals, ours } = await expectExactlyOnce(h, approved);
    expect(totals.files).toHaveLength(1);
    expect(ours).toHaveLength(1);
  });

  it('recovers from a crash after the export call and before the ledger: the same key replays', async () => {
    h = await startHarness();
    const approved = await approve(h, 15);
    const first = await createJournalExportJob({
      name: 'journal',
      api: lostExportResponse(h.api),
      writer: h.writer,
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(first.outcome).toBe('failed');
    const second = await createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: h.writer,
      connectorName: 'books',
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(second.outcome).toBe('ok');
    expect(second.counts['reconciled']).toBeUndefined();
    const { ours, totals } = await expectExactlyOnce(h, approved);
    expect(ours).toHaveLength(1);
    const key = totals.files[0]?.replace(/^MOVEIN-|\.DOC$/g, '') ?? '';
    expect(
      h.state.ledger.get({ flow: LEDGER_FLOW, connector: 'books', recordKey: key, version: 'exported' })
        ?.externalRef,
    ).toBe(ours[0]?.id);
  });

  it('finishes a batch whose export was split and only partly answered (5000 ids a call)', async () => {
    h = await startHarness();
    const approved = await approve(h, 5004);
    // Every answer to the second chunk's call is lost, although the sandbox processes it.
    proxy = await startLossyProxy(
      h.sandbox.baseUrl,
      (req) => req.method === 'POST' && String(req.headers['idempotency-key'] ?? '').endsWith(':1'),
    );
    proxiedApi = createApiClient({
      baseUrl: proxy.baseUrl,
      apiKey: h.sandbox.keys.buyer,
      retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20, deadlineMs: 20_000 },
    });
    const options = { max_lines_per_batch: 10_000 };
    const first = await createJournalExportJob({
      name: 'journal',
      api: proxiedApi,
      writer: h.writer,
      options: journalExportOptionsSchema.parse(options),
    }).run(jobContext(h.state));
    expect(first.outcome).toBe('failed');
    expect(proxy.lost()).toBeGreaterThanOrEqual(1);
    const second = await createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: h.writer,
      options: journalExportOptionsSchema.parse(options),
    }).run(jobContext(h.state));
    expect(second.outcome).toBe('ok');
    const { ours, totals } = await expectExactlyOnce(h, approved);
    expect(ours).toHaveLength(2);
    expect(totals.files).toHaveLength(1);
  });

  it('reconciles a 409 after the replay window passed by re-reading the lines, never writing again', async () => {
    h = await startHarness({ manualClock: true });
    const approved = await approve(h, 12);
    proxy = await startLossyProxy(h.sandbox.baseUrl, (req) => req.method === 'POST');
    proxiedApi = createApiClient({
      baseUrl: proxy.baseUrl,
      apiKey: h.sandbox.keys.buyer,
      retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20, deadlineMs: 20_000 },
    });
    const first = await createJournalExportJob({
      name: 'journal',
      api: proxiedApi,
      writer: h.writer,
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(first.outcome).toBe('failed');
    await h.sandbox.control.advanceClock(25 * 3_600_000);
    const second = await createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: h.writer,
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(second.outcome).toBe('ok');
    expect(second.counts['reconciled']).toBe(1);
    // The first run noted the write, so the re-run goes straight to the export call.
    expect(second.counts['batches_written']).toBeUndefined();
    expect(second.counts['batches_already_written']).toBeUndefined();
    const { ours, totals } = await expectExactlyOnce(h, approved);
    expect(ours).toHaveLength(1);
    expect(totals.files).toHaveLength(1);
    expect(second.counts['lines_exported_elsewhere']).toBeUndefined();
  });

  it('reconciles a 409 when another client exported some lines meanwhile, and exports the rest', async () => {
    h = await startHarness();
    const approved = await approve(h, 12);
    const harness = h;
    const stolen: string[] = [];
    const racing: AccountingWriter = {
      hasBatch: (key) => harness.writer.hasBatch(key),
      async writeJournalBatch(batch) {
        stolen.push(...batch.entries.slice(0, 3).flatMap((e) => e.sourceIds));
        await harness.api.accounting.createExport(
          { journal_line_ids: stolen, target: 'manual' },
          { idempotencyKey: 'other-client-1' },
        );
        return harness.writer.writeJournalBatch(batch);
      },
    };
    const run = await createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: racing,
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(run.outcome).toBe('ok');
    expect(run.counts['reconciled']).toBe(1);
    expect(run.counts['lines_exported_elsewhere']).toBe(3);
    const lines = new Map((await sandboxLines(h.sandbox)).map((line) => [line.id, line]));
    for (const line of approved) expect(lines.get(line.id)?.status).toBe('exported');
    const ours = (await sandboxExportBatches(h.sandbox)).filter((b) => b.external_ref?.startsWith('je-'));
    expect(ours.reduce((n, b) => n + b.line_count, 0)).toBe(approved.length - 3);
    expect(hashavshevetTotals(h.importDir).files).toHaveLength(1);
  });

  it('leaves lines approved during the run for the next run, without touching the saved batch', async () => {
    h = await startHarness();
    const approved = await approve(h, 9);
    const harness = h;
    const approving: AccountingWriter = {
      hasBatch: (key) => harness.writer.hasBatch(key),
      async writeJournalBatch(batch) {
        await harness.sandbox.control.action('approve_journal_lines', { count: 6 });
        return harness.writer.writeJournalBatch(batch);
      },
    };
    const first = await createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: approving,
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(first.counts['lines_exported']).toBe(approved.length);
    const late = (await sandboxLines(h.sandbox)).filter((line) => line.status === 'approved_for_export');
    expect(late).toHaveLength(6);
    const second = await createJournalExportJob({
      name: 'journal',
      api: h.api,
      writer: h.writer,
      options: journalExportOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(second.counts['lines_exported']).toBe(6);
    const { totals } = await expectExactlyOnce(h, [...approved, ...late]);
    expect(totals.files).toHaveLength(2);
  });
});
