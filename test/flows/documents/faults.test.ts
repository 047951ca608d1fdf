/**
 * The documents flow while the sandbox injects 5xx answers, connection resets and a 429 burst: repeated runs
 * converge to the fault-free end state, each document created once with its file, each reaction in the ERP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { simulateErpActivity } from '../../../connectors/sql/demo-erp/index.js';
import { createDocumentsJob, documentsOptionsSchema } from '../../../src/flows/documents/index.js';
import type { RunResult } from '../../../src/engine/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import {
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

const MAX_RUNS = 25;

async function runUntilOk(run: () => Promise<RunResult>): Promise<number> {
  for (let attempt = 1; attempt <= MAX_RUNS; attempt += 1) {
    const result = await run();
    if (result.outcome === 'ok' && (result.counts['documents_pending'] ?? 0) === 0) return attempt;
  }
  throw new Error(`no convergence within ${MAX_RUNS} runs`);
}

describe('documents flow under injected faults', () => {
  it('converges: every document once with its PDF, every reaction in the ERP', async () => {
    h = await startSupplierHarness();
    const harness = h;
    const { documents: numbers } = await simulateErpActivity(harness.erp, {
      clock: systemClock,
      random: mulberry32(5),
      documents: 12,
      confirmations: 0,
      catalogChanges: 0,
    });
    const source = harness.connector.capabilities.documentSource;
    const sink = harness.connector.capabilities.documentReactionSink;
    if (source === undefined || sink === undefined) throw new Error('demo ERP capabilities missing');
    const job = createDocumentsJob({
      name: 'docs',
      api: harness.api,
      source: () => source,
      reactionSink: () => sink,
      connectorName: 'erp',
      options: documentsOptionsSchema.parse({}),
    });
    await harness.sandbox.control.setFaults({
      error_rate: 0.1,
      reset_rate: 0.05,
      rate_limit_burst: 3,
      seed: 17,
    });
    const runs = await runUntilOk(() => job.run(jobContext(harness.state)));
    expect(runs).toBeGreaterThanOrEqual(1);

    await harness.sandbox.control.clearFaults();
    const sent = (await sandboxDocuments(harness.sandbox)).documents.filter((d) =>
      numbers.includes(d.number),
    );
    for (const [index, doc] of sent.entries()) {
      if (index % 3 === 0)
        await harness.sandbox.control.action('buyer_receive_document', {
          document_id: doc.id,
          with_differences: true,
        });
      if (index % 3 === 1)
        await harness.sandbox.control.action('buyer_receive_document', { document_id: doc.id });
    }
    await harness.sandbox.control.setFaults({
      error_rate: 0.1,
      reset_rate: 0.05,
      rate_limit_burst: 3,
      seed: 18,
    });
    await runUntilOk(() => job.run(jobContext(harness.state)));
    await harness.sandbox.control.clearFaults();

    const { documents, tallies } = await sandboxDocuments(harness.sandbox);
    const ours = documents.filter((d) => numbers.includes(d.number));
    expect(ours.map((d) => d.number).sort()).toEqual([...numbers].sort());
    for (const doc of ours) {
      expect(tallies[doc.id]).toEqual({ creations: 1, duplicateAttempts: 0 });
      expect(doc.files).toHaveLength(1);
    }
    const rows = (
      await harness.erp.driver.query('SELECT IVNUM, API_DOCUMENT_ID, BUYERSTATUS FROM DOCUMENTS', {})
    ).rows;
    const erp = new Map(rows.map((row) => [String(row['IVNUM']), row]));
    for (const doc of ours) {
      expect(erp.get(doc.number)?.['API_DOCUMENT_ID']).toBe(doc.id);
      expect(erp.get(doc.number)?.['BUYERSTATUS'] ?? 'pending').toBe(doc.buyer_status);
    }
  }, 120_000);
});
