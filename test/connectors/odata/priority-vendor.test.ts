import { afterEach, describe, expect, it } from 'vitest';
import { FilterError, parseFilter } from '../../support/odata-emulator/filter.js';
import { openOdata, order, type OdataFixture } from './fixture.js';

/**
 * Priority as its REST guide describes it (PrioritySoftware.github.io, _restapi/): invoices read only when final,
 * credit invoices (DEBIT 'C') read as credit notes, and the text of a form error (JSON since 19.1, XML before)
 * carried into the error the dead letter keeps.
 */
describe('odata connector, priority-rest preset, as the vendor documents it', () => {
  let fixture: OdataFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  const invoice = (debit: 'D' | 'C', final: 'Y' | null) => ({
    IVTYPE: 'A',
    DEBIT: debit,
    FINAL: final,
    IVDATE: '2026-11-24T00:00:00+02:00',
    CUSTNAME: 'C1002',
    CODE: 'ILS',
    AINVOICEITEMS_SUBFORM: [{ PARTNAME: 'A200', TQUANT: 1, PRICE: 18 }],
  });

  it('never reads a draft invoice, and reads a final credit invoice as a credit note', async () => {
    fixture = await openOdata('priority-rest');
    const draft = fixture.emulator.store.create('AINVOICES', invoice('D', null));
    const credit = fixture.emulator.store.create('AINVOICES', invoice('C', 'Y'));
    const documents = (await fixture.connector.capabilities.documentSource?.listPendingDocuments()) ?? [];
    const numbers = documents.map((document) => [document.type, document.number]);
    expect(numbers).not.toContainEqual(expect.arrayContaining([draft['IVNUM']]));
    expect(numbers).toContainEqual(['credit_note', credit['IVNUM']]);
    expect(numbers.filter(([type]) => type === 'invoice')).toHaveLength(1);
    expect(fixture.oracle.failures).toEqual([]);
  });

  it('compares the date floor as a date-time with the company offset, as Priority filters dates', async () => {
    fixture = await openOdata('priority-rest', {
      block: { documents_from: '2026-11-21', company_timezone: 'Asia/Jerusalem' },
    });
    const at = (date: string) => ({ ...invoice('D', 'Y'), IVDATE: date });
    const lateOnTheDayBefore = fixture.emulator.store.create('AINVOICES', at('2026-11-20T23:30:00+02:00'));
    const midnight = fixture.emulator.store.create('AINVOICES', at('2026-11-21T00:00:00+02:00'));
    const documents = (await fixture.connector.capabilities.documentSource?.listPendingDocuments()) ?? [];
    const numbers = documents.map((document) => document.number);
    expect(numbers).toContain(midnight['IVNUM']);
    expect(numbers).not.toContain(lateOnTheDayBefore['IVNUM']);
    // The seeded invoice (2026-11-20) and delivery note (2026-11-21) fall on each side of the floor.
    expect(documents.map((document) => [document.type, document.date])).toEqual([
      ['invoice', '2026-11-21'],
      ['delivery_note', '2026-11-21'],
    ]);
    const reads = fixture.oracle.seen.filter((request) => /^(AINVOICES|DOCUMENTS_D)\?/.test(request.target));
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const read of reads) {
      expect(read.target).toContain('ge%202026-11-21T00%3A00%3A00%2B02%3A00');
      expect(decodeURIComponent(read.target)).toMatch(/(IVDATE|CURDATE) ge 2026-11-21T00:00:00\+02:00/);
    }
    expect(fixture.oracle.failures).toEqual([]);
  });

  it('the emulated Priority refuses a bare date against a date-time column, and reads the floor at UTC midnight without a zone', async () => {
    const types = (property: string) => (property === 'IVDATE' ? 'Edm.DateTimeOffset' : undefined);
    expect(() => parseFilter('IVDATE ge 2026-11-21', () => true, types)).toThrow(FilterError);
    const predicate = parseFilter('IVDATE ge 2026-11-21T00:00:00Z', () => true, types);
    expect(predicate({ IVDATE: '2026-11-21T01:00:00+02:00' })).toBe(false);
    expect(predicate({ IVDATE: '2026-11-21T02:00:00+02:00' })).toBe(true);
    fixture = await openOdata('priority-rest', { block: { documents_from: '2026-11-21' } });
    await fixture.connector.capabilities.documentSource?.listPendingDocuments();
    const read = fixture.oracle.seen.find((request) => request.target.startsWith('AINVOICES?'));
    expect(decodeURIComponent(read?.target ?? '')).toContain('IVDATE ge 2026-11-21T00:00:00Z');
  });

  for (const form of ['JSON (19.1 on)', 'XML (before 19.1)'] as const) {
    it(`puts the text of a form error in the error, ${form}`, async () => {
      fixture = await openOdata('priority-rest', { emulator: { xmlErrors: form.startsWith('XML') } });
      const refused = { ...order('ord_unknown_customer'), customerNumber: 'C9999' };
      const error = await fixture.connector.capabilities.orderSink
        ?.writeOrder(refused)
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'connector_statement_failed', retryable: false });
      expect((error as Error).message).toMatch(
        /orders\.create: HTTP 400: ORDERS: CUSTNAME 'C9999' is not in CUSTOMERS/,
      );
    });
  }
});

describe('odata connector, priority-rest preset: company time zone and application license', () => {
  let fixture: OdataFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('writes dates at midnight in the company zone, and sends X-App-Id and X-App-Key on every request', async () => {
    const appKey = 'app-key-5f1e9d';
    fixture = await openOdata('priority-rest', {
      block: { company_timezone: 'Asia/Jerusalem', app_license: { app_id: 'APP001', app_key: appKey } },
    });
    // 2026-11-24 is winter time in Israel (+02:00), 2026-07-01 summer time (+03:00).
    const winter = { ...order('ord_tz_winter'), orderDate: '2026-11-24' };
    const summer = { ...order('ord_tz_summer'), orderDate: '2026-07-01' };
    const sink = fixture.connector.capabilities.orderSink;
    await sink?.writeOrder(winter);
    await sink?.writeOrder(summer);
    const dates = fixture.emulator.store
      .all('ORDERS')
      .filter((row) => String(row['ZSSY_APIORDERID']).startsWith('ord_tz_'))
      .map((row) => row['CURDATE']);
    expect(dates).toEqual(['2026-11-24T00:00:00+02:00', '2026-07-01T00:00:00+03:00']);
    const direct = fixture.oracle.seen.filter((request) => !request.inBatch);
    expect(direct.length).toBeGreaterThan(2);
    for (const request of direct) {
      expect(request.headers?.['x-app-id'], request.target).toBe('APP001');
      expect(request.headers?.['x-app-key'], request.target).toBe(appKey);
    }
  });

  it('refuses a time zone that does not exist, naming the key', async () => {
    await expect(openOdata('priority-rest', { block: { company_timezone: 'Mars/Olympus' } })).rejects.toThrow(
      /IANA time zone name/,
    );
  });
});
