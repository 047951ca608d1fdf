/** First-run backfill through POST /exports (Enterprise key), then incremental pulls from the export's snapshot. */
import { afterEach, describe, expect, it } from 'vitest';
import type { MirrorSink } from '../../../src/connector-contract/index.js';
import { createMirrorJob, mirrorOptionsSchema } from '../../../src/flows/mirror/index.js';
import { apiIds, jobContext, startMirrorHarness, type MirrorHarness } from './harness.js';

let harness: MirrorHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const EXPORTED = [
  'orders',
  'expenses',
  'journal_lines',
  'suppliers',
  'products',
  'z_reports',
  'item_sales',
] as const;

function backfillState(h: MirrorHarness): Record<string, unknown> {
  return h.state.kv.get('mirror-backfill', 'bi-mirror') as Record<string, unknown>;
}

describe('mirror backfill through a bulk export', () => {
  it('loads the export files, starts the cursors at the snapshot minus the overlap, then pulls only changes', async () => {
    const h = (harness = await startMirrorHarness({ key: 'enterprise' }));
    const options = { resources: [...EXPORTED], overlap: '2m' };
    const first = await h.run(options);
    expect(first.outcome).toBe('ok');
    expect(first.counts['backfill_rows']).toBeGreaterThan(0);

    const done = backfillState(h);
    expect(done['phase']).toBe('done');
    const exportId = /export (\S+)/.exec(String(done['reason']))?.[1] ?? '';
    const job = await h.api.exports.get(exportId);
    expect(job.status).toBe('completed');
    const expectedWatermark = Date.parse(job.created_at) - 120_000;
    // The first incremental pass ran in the same run and may have moved the watermark forward, never back.
    expect(h.state.cursors.get('bi-mirror:/orders')?.watermarkMs).toBeGreaterThanOrEqual(expectedWatermark);
    const rowsInFiles = (job.files ?? []).reduce((sum, file) => sum + (file.row_count ?? 0), 0);
    expect(first.counts['backfill_rows']).toBe(rowsInFiles);

    expect(await ids(h, 'orders')).toEqual(await apiIds(h.api.purchases.orders().items()));
    expect(await ids(h, 'journal_lines')).toEqual(await apiIds(h.api.accounting.journalLines().items()));
    expect(await ids(h, 'item_sales')).toEqual(await apiIds(h.api.sales.itemSales().items()));
    expect(await ids(h, 'products')).toEqual(await apiIds(h.api.reference.products().items()));

    await h.sandbox.control.action('create_expense', {});
    const second = await h.run(options);
    expect(second.outcome).toBe('ok');
    expect(second.counts['backfill_rows']).toBeUndefined();
    expect(second.counts['expenses.written']).toBe(1);
    expect(second.counts['rows_written']).toBe(1);
    expect(await ids(h, 'expenses')).toEqual(await apiIds(h.api.expenses.list().items()));
  }, 60_000);

  it('resumes polling the same export job when a run ends before the job completes', async () => {
    const h = (harness = await startMirrorHarness({ key: 'enterprise' }));
    const waiting = await h.run({ resources: ['orders', 'branches'], export_timeout: 0 });
    expect(waiting.outcome).toBe('partial');
    // Branches are not exported: they are pulled while the export runs; orders wait for it.
    expect(await ids(h, 'branches')).toEqual(await apiIds(h.api.reference.branches().items()));
    expect(await ids(h, 'orders')).toEqual([]);
    const pending = backfillState(h);
    expect(pending['phase']).toBe('exporting');
    const exportId = String(pending['exportId']);
    expect(exportId).toMatch(/\S/);
    expect(h.state.cursors.get('bi-mirror:/orders')).toBeNull();

    const resumed = await h.run({ resources: ['orders', 'branches'] });
    expect(resumed.outcome).toBe('ok');
    expect(String(backfillState(h)['reason'])).toBe(`loaded from export ${exportId}`);
    expect(await ids(h, 'orders')).toEqual(await apiIds(h.api.purchases.orders().items()));
  }, 60_000);

  it('resumes the same export after dying part-way through loading a file, and ends with every row', async () => {
    const h = (harness = await startMirrorHarness({ key: 'enterprise' }));
    const options = { resources: ['orders' as const, 'item_sales' as const], export_chunk_rows: 10 };
    let upserts = 0;
    const dying: MirrorSink = {
      ensureTable: (spec) => h.sink.ensureTable(spec),
      async upsertRows(spec, rows) {
        upserts += 1;
        if (upserts === 3) throw new Error('simulated crash while loading the export');
        return h.sink.upsertRows(spec, rows);
      },
    };
    const crashed = await createMirrorJob({
      name: 'bi-mirror',
      api: h.api,
      sink: dying,
      options: mirrorOptionsSchema.parse(options),
    }).run(jobContext(h.state));
    expect(crashed.outcome).toBe('failed');
    const pending = backfillState(h);
    expect(pending['phase']).toBe('exporting');
    expect(h.state.cursors.get('bi-mirror:/orders')).toBeNull();

    const resumed = await h.run(options);
    expect(resumed.outcome).toBe('ok');
    expect(String(backfillState(h)['reason'])).toBe(`loaded from export ${String(pending['exportId'])}`);
    expect(await ids(h, 'orders')).toEqual(await apiIds(h.api.purchases.orders().items()));
    expect(await ids(h, 'item_sales')).toEqual(await apiIds(h.api.sales.itemSales().items()));
  }, 60_000);

  it('pages from the start when the plan has no bulk_export feature', async () => {
    const h = (harness = await startMirrorHarness({ key: 'buyer' }));
    const result = await h.run({ resources: ['orders'] });
    expect(result.counts['backfill_rows']).toBeUndefined();
    expect(backfillState(h)['reason']).toBe('the plan has no bulk_export feature');
    expect(await ids(h, 'orders')).toEqual(await apiIds(h.api.purchases.orders().items()));
  }, 60_000);
});

async function ids(h: MirrorHarness, table: string): Promise<string[]> {
  return (await h.rows(table)).map((row) => String(row['id'])).sort();
}
