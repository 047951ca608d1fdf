/** sales-push against the sandbox over HTTP: CSV drop folder and SQL sources, per-item results and dead letters. */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { runJob } from '../../../src/engine/index.js';
import { sqlConnectorDefinition } from '../../../connectors/sql/index.js';
import {
  createSalesPushJob,
  salesPushOptionsSchema,
  salesPushFlow,
} from '../../../src/flows/sales-push/index.js';
import { MappingsHolder, pinnedPerRun } from '../../../src/daemon/jobs/mappings.js';
import { capabilityOf } from '../../support/capability.js';
import { systemClock } from '../../../src/shared/clock.js';
import {
  ITEM_HEADER,
  jobContext,
  sandboxSales,
  startSalesHarness,
  Z_HEADER,
  type SalesHarness,
} from './harness.js';

/** The sales-push job over the harness's csv-sales connector, with the default options. */
function posSalesJob(h: SalesHarness, connector: Awaited<ReturnType<SalesHarness['csvConnector']>>) {
  return createSalesPushJob({
    name: 'pos-sales',
    api: h.api,
    source: capabilityOf(connector, 'salesSource', 'pos'),
    connectorName: 'pos',
    options: salesPushOptionsSchema.parse({}),
  });
}

/** A warn-level logger whose lines the test reads back. */
function warnings(): { logged: string[]; logger: pino.Logger } {
  const logged: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(chunk.toString());
      done();
    },
  });
  return { logged, logger: pino({ level: 'warn' }, sink) };
}

let harness: SalesHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe('sales-push from a CSV drop folder', () => {
  it('pushes Z-reports and item sales, keeps per-item results, dead-letters failed items, moves files', async () => {
    const h = (harness = await startSalesHarness());
    await h.drop('z-good.csv', [
      Z_HEADER,
      'TLV01,ZT-9001,2026-11-20T23:10:00+02:00,12500.5,300,120',
      'HRZ02,ZT-9002,2026-11-20T23:40:00+02:00,9800,,95',
    ]);
    await h.drop('z-bad.csv', [Z_HEADER, 'TLV01,ZT-9003,yesterday evening,100.00,,']);
    await h.drop('items.csv', [
      ITEM_HEADER,
      'TLV01,ZT-9001,1,2026-11-20T12:00:00+02:00,B-100,Burger,2,54.9,109.80,Mains',
      'TLV01,ZT-9001,,2026-11-20T12:05:00+02:00,D-7,Lemonade,1,14,14,',
      'TLV01,ZT-9001,,2026-11-20T12:06:00+02:00,D-8,Espresso,1.2345,9,9,',
      'NOPE9,ZT-9001,7,2026-11-20T12:07:00+02:00,D-9,Water,1,5,5,',
    ]);
    const connector = await h.csvConnector();
    const job = posSalesJob(h, connector);
    const result = await job.run(jobContext(h.state));
    expect(result.outcome).toBe('ok');
    expect(result.counts).toMatchObject({
      z_reports_accepted: 2,
      z_reports_failed: 1,
      item_sales_accepted: 2,
      item_sales_failed: 1,
      items_unresolved: 1,
      batches_done: 1,
      batches_failed: 2,
    });

    const stored = await sandboxSales(h.sandbox, 'ZT-');
    expect(
      stored.zReports.map((z) => [z.branch_id, z.z_number, z.total_before_vat, z.tips ?? null]).sort(),
    ).toEqual([
      ['br_hrz', 'ZT-9002', '9800.00', null],
      ['br_tlv', 'ZT-9001', '12500.50', '300.00'],
    ]);
    expect(stored.itemSales.map((s) => [s.line_number, s.item_code]).sort()).toEqual([
      [1, 'B-100'],
      [2, 'D-7'],
    ]);

    const letters = new Map(h.state.deadLetters.list({ flow: 'pos-sales' }).map((l) => [l.recordKey, l]));
    expect([...letters.keys()].sort()).toEqual(['NOPE9/ZT-9001/7', 'br_tlv/ZT-9001/3', 'br_tlv/ZT-9003']);
    expect(letters.get('br_tlv/ZT-9003')?.reason).toMatch(/closed_at/);
    expect(letters.get('br_tlv/ZT-9001/3')?.reason).toMatch(/quantity/);
    expect(letters.get('NOPE9/ZT-9001/7')?.reason).toMatch(/branch code "NOPE9"/);
    expect(h.state.ledger.count('pos-sales')).toBe(4);
    expect(h.state.ledger.latest('pos-sales', 'pos', 'z_report:br_tlv/ZT-9001')?.externalRef).toBe(
      stored.zReports.find((z) => z.z_number === 'ZT-9001')?.id,
    );

    expect(await readdir(join(h.dropDir, 'done'))).toEqual(['z-good.csv']);
    expect((await readdir(join(h.dropDir, 'failed'))).sort()).toEqual(['items.csv', 'z-bad.csv']);
    expect((await readdir(h.dropDir)).filter((n) => n.endsWith('.csv'))).toEqual([]);
    await connector.close();
  }, 60_000);

  it('ends failed when every item was held back, and the run is no success (docs/operations.md, "Run outcomes")', async () => {
    const h = (harness = await startSalesHarness());
    await h.drop('z-bad.csv', [Z_HEADER, 'TLV01,ZT-9103,yesterday evening,100.00,,']);
    await h.drop('items.csv', [
      ITEM_HEADER,
      'TLV01,ZT-9103,,2026-11-20T12:06:00+02:00,D-8,Espresso,1.2345,9,9,',
      'NOPE9,ZT-9103,7,2026-11-20T12:07:00+02:00,D-9,Water,1,5,5,',
    ]);
    const connector = await h.csvConnector();
    const job = posSalesJob(h, connector);
    const result = await runJob(job, jobContext(h.state));
    expect(result).toMatchObject({
      outcome: 'failed',
      counts: { delivered: 0, held_back: 3, z_reports_failed: 1, item_sales_failed: 1, items_unresolved: 1 },
    });
    // The error names each reason with its count, the items' positions in their batch left out.
    expect(result.error).toBe(
      'delivered nothing: all 3 items held back: branch code "NOPE9" is not a branch code or id the API lists; ' +
        'map it in a table under mappings: named by jobs.pos-sales.options.branch_mapping, then ' +
        '`supply-sync dead-letters retry --flow pos-sales` (1 item); refused by the API: items[].closed_at: ' +
        'invalid_format (expected an RFC 3339 timestamp with a UTC offset) (1 item); refused by the API: ' +
        'items[].quantity: invalid_format (expected a quantity: a decimal string with up to 3 fraction digits) ' +
        '(1 item)',
    );
    const [record] = h.state.runs.recent('pos-sales', 1);
    expect(record).toMatchObject({ outcome: 'failed', counts: { delivered: 0, held_back: 3 } });
    expect(h.state.runs.last('pos-sales', ['ok', 'partial'])).toBeNull();
    await connector.close();
  }, 60_000);

  it('a file the connector rejects whole is a dead letter with its file, line and reason, a log line and a failed run', async () => {
    const h = (harness = await startSalesHarness());
    await h.drop('z-export.csv', [Z_HEADER, 'TLV01,ZT-9201,2026-11-20T23:10:00+02:00,"1,250.00",,']);
    const connector = await h.csvConnector();
    const job = posSalesJob(h, connector);
    const { logged, logger } = warnings();
    const result = await runJob(job, jobContext(h.state, { logger }));
    expect(result).toMatchObject({
      outcome: 'failed',
      counts: { files_rejected: 1, delivered: 0, held_back: 1 },
    });
    expect(result.error).toMatch(
      /^delivered nothing: 1 item held back: file z-export\.csv rejected at line 2/,
    );
    const letter = h.state.deadLetters.get('pos-sales', 'file:z-export.csv');
    expect(letter?.status).toBe('open');
    expect(letter?.reason).toContain('sales file z-export.csv rejected whole at line 2');
    expect(letter?.reason).toContain('line 2: total_before_vat "1,250.00" is not a number');
    expect(letter?.record).toMatchObject({ file: 'z-export.csv', line: 2 });
    const line = logged
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry['msg'] === 'sales file rejected');
    expect(line).toMatchObject({ file: 'z-export.csv', line: 2 });
    expect(h.state.runs.recent('pos-sales', 1)[0]).toMatchObject({ outcome: 'failed', deadLetters: 1 });
    expect((await readdir(join(h.dropDir, 'failed'))).sort()).toEqual([
      'z-export.csv',
      'z-export.csv.error.txt',
    ]);
    expect((await sandboxSales(h.sandbox, 'ZT-92')).zReports).toEqual([]);

    // Queued for a retry, the letter holds nothing to send: the run goes on and sends the next file.
    h.state.deadLetters.replay({ flow: 'pos-sales' });
    await h.drop('z-fixed.csv', [Z_HEADER, 'TLV01,ZT-9201,2026-11-20T23:10:00+02:00,1250.00,,']);
    const fixed = await runJob(job, jobContext(h.state));
    expect(fixed).toMatchObject({
      outcome: 'ok',
      counts: { z_reports_accepted: 1, delivered: 1, held_back: 0 },
    });
    await connector.close();
  }, 60_000);

  it('sends a dead-lettered line again once its branch is mapped', async () => {
    const h = (harness = await startSalesHarness());
    await h.drop('items.csv', [ITEM_HEADER, 'POS-7,ZT-7001,,2026-11-20T12:00:00+02:00,F-1,Falafel,1,20,20,']);
    const connector = await h.csvConnector();
    const source = capabilityOf(connector, 'salesSource', 'pos');
    const first = await createSalesPushJob({
      name: 'pos-sales',
      api: h.api,
      source,
      connectorName: 'pos',
      options: salesPushOptionsSchema.parse({}),
    }).run(jobContext(h.state));
    expect(first.counts['items_unresolved']).toBe(1);
    expect(h.state.deadLetters.replay({ flow: 'pos-sales' })).toBe(1);

    const mapped = createSalesPushJob({
      name: 'pos-sales',
      api: h.api,
      source,
      connectorName: 'pos',
      options: salesPushOptionsSchema.parse({ branch_mapping: 'pos_branches' }),
      mappings: { pos_branches: { 'POS-7': 'br_jlm' } },
    });
    const second = await mapped.run(jobContext(h.state));
    expect(second.counts['item_sales_accepted']).toBe(1);
    expect(h.state.deadLetters.countOpen('pos-sales')).toBe(0);
    const stored = await sandboxSales(h.sandbox, 'ZT-7001');
    expect(stored.itemSales.map((s) => [s.branch_id, s.line_number, s.item_code])).toEqual([
      ['br_jlm', 1, 'F-1'],
    ]);
    await connector.close();
  }, 60_000);
});

describe('sales-push after a config reload', () => {
  it("files an unknown code as a missing entry of the job's branch table, and sends it once added and retried", async () => {
    const h = (harness = await startSalesHarness());
    await h.drop('items.csv', [ITEM_HEADER, 'POS-8,ZT-7101,,2026-11-20T12:00:00+02:00,F-2,Hummus,1,25,25,']);
    const connector = await h.csvConnector();
    const source = capabilityOf(connector, 'salesSource', 'pos');
    const withTable = (table: Record<string, string>) =>
      createSalesPushJob({
        name: 'pos-sales',
        api: h.api,
        source,
        connectorName: 'pos',
        options: salesPushOptionsSchema.parse({ branch_mapping: 'pos_branches' }),
        mappings: { pos_branches: table },
      });
    const first = await runJob(withTable({}), jobContext(h.state));
    expect(first.error).toBe(
      'delivered nothing: 1 item held back: branches value "POS-8" has no entry in mappings.pos_branches (1 item)',
    );
    const [letter] = h.state.deadLetters.list({ flow: 'pos-sales' });
    expect(letter?.reason).toBe(
      'branch code "POS-8" is neither in mappings.pos_branches nor a branch code or id the API lists',
    );
    expect((letter?.record as { missing?: unknown }).missing).toEqual({
      kind: 'branches',
      table: 'pos_branches',
      key: 'POS-8',
      pickup: 'retry',
    });
    // What `dead-letters retry --flow pos-sales --missing pos_branches:POS-8` asks for.
    const missing = { table: 'pos_branches', key: 'POS-8' };
    expect(h.state.deadLetters.replay({ flow: 'pos-sales', missing })).toBe(1);
    const second = await runJob(withTable({ 'POS-8': 'br_jlm' }), jobContext(h.state));
    expect(second).toMatchObject({ outcome: 'ok', counts: { item_sales_accepted: 1 } });
    expect(h.state.deadLetters.countOpen('pos-sales')).toBe(0);
    await connector.close();
  }, 60_000);

  /**
   * One item dropped, then a run stopped (Ctrl-C, a shutdown) at `where`: the source call there aborts the run's
   * signal and fails with the interruption, as a call cut short by it does.
   */
  async function stoppedRun(where: 'listing' | 'marking') {
    const h = (harness = await startSalesHarness());
    await h.drop('items.csv', [ITEM_HEADER, 'TLV01,ZT-7201,,2026-11-20T12:00:00+02:00,F-3,Tea,1,8,8,']);
    const connector = await h.csvConnector();
    const source = capabilityOf(connector, 'salesSource', 'pos');
    const stop = new AbortController();
    const interrupted = async (): Promise<never> => {
      stop.abort(new Error('interrupted'));
      throw new Error('interrupted');
    };
    const stopped: typeof source = {
      listPendingSales: where === 'listing' ? interrupted : () => source.listPendingSales(),
      markSalesBatch:
        where === 'marking' ? interrupted : (ref, outcome) => source.markSalesBatch(ref, outcome),
    };
    const job = createSalesPushJob({
      name: 'pos-sales',
      api: h.api,
      source: stopped,
      connectorName: 'pos',
      options: salesPushOptionsSchema.parse({}),
    });
    const result = await runJob(job, jobContext(h.state, { signal: stop.signal }));
    await connector.close();
    return { result, recorded: h.state.runs.recent('pos-sales', 1)[0] };
  }

  it('is partial, not failed, when stopped (Ctrl-C, a shutdown) after its items were accepted', async () => {
    const { result, recorded } = await stoppedRun('marking');
    // The item reached the API and its result is kept: the run got somewhere, and nothing failed.
    expect(result).toMatchObject({ outcome: 'partial', counts: { item_sales_accepted: 1, delivered: 1 } });
    expect(result.error).toBeUndefined();
    expect(recorded).toMatchObject({ outcome: 'partial' });
  }, 60_000);

  it('is skipped, not failed, when stopped before anything was accepted', async () => {
    const { result, recorded } = await stoppedRun('listing');
    expect(result.outcome).toBe('skipped');
    expect(result.error).toBeUndefined();
    expect(recorded).toMatchObject({ outcome: 'skipped' });
  }, 60_000);

  it('resolves branches with the mappings of each run, not those the job was built with', async () => {
    const h = (harness = await startSalesHarness());
    await h.drop('items.csv', [ITEM_HEADER, 'POS-8,ZT-8001,,2026-11-20T12:00:00+02:00,F-2,Hummus,1,25,25,']);
    const connector = await h.csvConnector();
    // The daemon's own wiring: one job, built once, reading the mappings pinned at the start of each run.
    const mappings = new MappingsHolder({ pos_branches: {} });
    const { view, pin } = mappings.jobView();
    const job = pinnedPerRun(
      createSalesPushJob({
        name: 'pos-sales',
        api: h.api,
        source: capabilityOf(connector, 'salesSource', 'pos'),
        connectorName: 'pos',
        options: salesPushOptionsSchema.parse({ branch_mapping: 'pos_branches' }),
        mappings: view,
      }),
      pin,
    );
    const first = await job.run(jobContext(h.state));
    expect(first.counts['items_unresolved']).toBe(1);
    expect(h.state.deadLetters.replay({ flow: 'pos-sales' })).toBe(1);

    mappings.replace({ pos_branches: { 'POS-8': 'br_hfa' } });
    const second = await job.run(jobContext(h.state));
    expect(second.counts['item_sales_accepted']).toBe(1);
    expect(h.state.deadLetters.countOpen('pos-sales')).toBe(0);
    const stored = await sandboxSales(h.sandbox, 'ZT-8001');
    expect(stored.itemSales.map((s) => [s.branch_id, s.item_code])).toEqual([['br_hfa', 'F-2']]);
    await connector.close();
  }, 60_000);

  it('refuses to build a job whose branch_mapping table is not under mappings:', () => {
    expect(() =>
      createSalesPushJob({
        name: 'pos-sales',
        api: {} as never,
        source: {} as never,
        connectorName: 'pos',
        options: salesPushOptionsSchema.parse({ branch_mapping: 'pos_branches' }),
        mappings: {},
      }),
    ).toThrow('jobs.pos-sales.options.branch_mapping: no table "pos_branches" under mappings:');
  });
});

describe('sales-push revisions', () => {
  it('sends a Z-report whose content went back to an earlier version (A -> B -> A)', async () => {
    const h = (harness = await startSalesHarness());
    const connector = await h.csvConnector();
    const job = posSalesJob(h, connector);
    const totals: string[] = [];
    for (const [n, total] of ['700.00', '800.00', '700.00'].entries()) {
      await h.drop(`z-${n}.csv`, [Z_HEADER, `TLV01,ZR-1,2026-11-20T23:10:00+02:00,${total},,3`]);
      const result = await job.run(jobContext(h.state));
      expect(result.counts['z_reports_accepted']).toBe(1);
      const [stored] = (await sandboxSales(h.sandbox, 'ZR-1')).zReports;
      totals.push(String(stored?.total_before_vat));
    }
    expect(totals.map(Number)).toEqual([700, 800, 700]);
    await connector.close();
  }, 60_000);
});

describe('sales-push dry run', () => {
  it('reports what it would push and sends and moves nothing', async () => {
    const h = (harness = await startSalesHarness());
    await h.drop('z.csv', [Z_HEADER, 'TLV01,ZD-1,2026-11-20T23:10:00+02:00,10,,']);
    const connector = await h.csvConnector();
    const job = posSalesJob(h, connector);
    const result = await job.run({ ...jobContext(h.state), dryRun: true });
    expect(result.counts).toMatchObject({ z_reports_would_push: 1, item_sales_would_push: 0 });
    expect((await sandboxSales(h.sandbox, 'ZD-1')).zReports).toEqual([]);
    expect(existsSync(join(h.dropDir, 'z.csv'))).toBe(true);
    expect(h.state.ledger.count('pos-sales')).toBe(0);
    await connector.close();
  }, 60_000);

  it('reports a file it cannot read and leaves it in the drop folder', async () => {
    const h = (harness = await startSalesHarness());
    await h.drop('z-bad.csv', [Z_HEADER, 'TLV01,ZD-2,2026-11-20T23:10:00+02:00,"1,250.00",,']);
    const connector = await h.csvConnector();
    const job = posSalesJob(h, connector);
    const { logged, logger } = warnings();
    const result = await job.run({
      ...jobContext(h.state, { logger }),
      dryRun: true,
    });
    expect(result.counts).toMatchObject({ files_rejected: 1 });
    expect(logged.join('')).toContain('sales file rejected');
    expect(existsSync(join(h.dropDir, 'z-bad.csv'))).toBe(true);
    expect(existsSync(join(h.dropDir, 'failed'))).toBe(false);
    expect(h.state.deadLetters.get('pos-sales', 'file:z-bad.csv')).toBeNull();
    await connector.close();
  }, 60_000);
});

describe('sales-push from SQL statements', () => {
  it('reads pending batches with the sql connector on SQLite and marks them after the push', async () => {
    const h = (harness = await startSalesHarness());
    const connector = await sqlConnectorDefinition.create(
      {
        connection: { driver: 'sqlite', file: 'pos.db' },
        statements: {
          sales: {
            pending: "SELECT ref FROM pos_days WHERE status = 'pending' ORDER BY ref",
            z_reports:
              'SELECT branch_code, z_number, closed_at, total_before_vat, cash_total FROM pos_z WHERE ref = :ref',
            item_sales:
              'SELECT branch_code, z_number, line_number, value_date, item_code, item_name, quantity, unit_price, total FROM pos_items WHERE ref = :ref',
            mark: 'UPDATE pos_days SET status = :outcome WHERE ref = :ref',
          },
        },
      },
      { name: 'pos-db', baseDir: h.dir },
    );
    const driver = (connector as unknown as { driver: { query(sql: string, p?: object): Promise<unknown> } })
      .driver;
    await driver.query('CREATE TABLE pos_days (ref TEXT PRIMARY KEY, status TEXT NOT NULL)');
    await driver.query(
      'CREATE TABLE pos_z (ref TEXT, branch_code TEXT, z_number TEXT, closed_at TEXT, total_before_vat TEXT, cash_total TEXT)',
    );
    await driver.query(
      'CREATE TABLE pos_items (ref TEXT, branch_code TEXT, z_number TEXT, line_number INTEGER, value_date TEXT, item_code TEXT, item_name TEXT, quantity TEXT, unit_price TEXT, total TEXT)',
    );
    await driver.query(
      "INSERT INTO pos_days VALUES ('2026-11-20/TLV01', 'pending'), ('2026-11-19/TLV01', 'done')",
    );
    await driver.query(
      "INSERT INTO pos_z VALUES ('2026-11-20/TLV01', 'TLV01', 'ZS-1', '2026-11-20T23:00:00+02:00', '5000.00', '1200.5')",
    );
    for (let line = 1; line <= 3; line++) {
      await driver.query(
        "INSERT INTO pos_items VALUES ('2026-11-20/TLV01', 'br_tlv', 'ZS-1', :line, '2026-11-20T20:00:00+02:00', :code, 'Item', '1', '10.00', '10.00')",
        { line, code: `I-${line}` },
      );
    }
    const job = salesPushFlow.create(
      { name: 'pos-sql', connector: 'pos-db', options: salesPushFlow.options.parse({}) },
      {
        api: h.api,
        connector: (name) => {
          if (name !== 'pos-db') throw new Error(`unknown connector ${name}`);
          return connector;
        },
        state: h.state,
        mappings: {},
        logger: pino({ level: 'silent' }),
        clock: systemClock,
        workDir: h.dir,
      },
    );
    const result = await job.run(jobContext(h.state));
    expect(result.counts).toMatchObject({ z_reports_accepted: 1, item_sales_accepted: 3, batches_done: 1 });
    const stored = await sandboxSales(h.sandbox, 'ZS-1');
    expect(stored.zReports).toHaveLength(1);
    expect(stored.itemSales.map((s) => s.item_code).sort()).toEqual(['I-1', 'I-2', 'I-3']);
    const days = (await driver.query('SELECT ref, status FROM pos_days ORDER BY ref')) as { rows: unknown[] };
    expect(days.rows).toEqual([
      { ref: '2026-11-19/TLV01', status: 'done' },
      { ref: '2026-11-20/TLV01', status: 'done' },
    ]);
    await connector.close();
    expect(existsSync(join(h.dir, 'pos.db'))).toBe(true);
  }, 60_000);
});
