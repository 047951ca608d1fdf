/**
 * docs/sales.md's example files, as a POS would drop them, go through the csv-sales connector and the sales-push flow
 * to the sandbox (which follows the contract, section 4.10): both are accepted; the same item with a date alone as
 * its `value_date` is refused, item by item, as the document says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runJob } from '../../src/engine/index.js';
import { createSalesPushJob, salesPushOptionsSchema } from '../../src/flows/sales-push/index.js';
import { capabilityOf } from '../support/capability.js';
import { jobContext, startSalesHarness, type SalesHarness } from '../flows/sales-push/harness.js';
import { fencedBlocks } from './markdown.js';

const DOC = join(import.meta.dirname, '../../docs/sales.md');
const csvBlocks = fencedBlocks(readFileSync(DOC, 'utf8')).filter((block) => block.lang === 'csv');

let harness: SalesHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function run(h: SalesHarness) {
  const connector = await h.csvConnector();
  try {
    const job = createSalesPushJob({
      name: 'sales',
      api: h.api,
      source: capabilityOf(connector, 'salesSource', 'pos'),
      connectorName: 'pos',
      options: salesPushOptionsSchema.parse({ branch_mapping: 'pos_branches' }),
      mappings: { pos_branches: { '001': 'br_tlv' } },
    });
    return await runJob(job, jobContext(h.state));
  } finally {
    await connector.close();
  }
}

describe('the example files of docs/sales.md', () => {
  it('are a Z-report file and an item-sales file, both accepted', async () => {
    expect(csvBlocks.map((block) => block.code.split('\n')[0])).toEqual([
      expect.stringContaining('total_before_vat'),
      expect.stringContaining('item_code'),
    ]);
    const h = (harness = await startSalesHarness());
    for (const [index, block] of csvBlocks.entries())
      await h.drop(`doc-${index}.csv`, block.code.split('\n'));
    const result = await run(h);
    expect(result).toMatchObject({
      outcome: 'ok',
      counts: { z_reports_accepted: 1, item_sales_accepted: 1, held_back: 0 },
    });
  }, 60_000);

  it('with a date alone as value_date: the item is refused, naming the field', async () => {
    const items = csvBlocks[1]?.code.split('\n') ?? [];
    const h = (harness = await startSalesHarness());
    await h.drop(
      'date-only.csv',
      items.map((line) => line.replace('2026-11-20T12:00:00+02:00', '2026-11-20')),
    );
    const result = await run(h);
    expect(result.outcome).toBe('failed');
    expect(result.error).toMatch(/refused by the API: items\[\]\.value_date: invalid_format/);
  }, 60_000);
});
