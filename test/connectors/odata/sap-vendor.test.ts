import { afterEach, describe, expect, it } from 'vitest';
import { parseFilter } from '../../support/odata-emulator/filter.js';
import { openOdata, order, SAP_PASSWORD, type OdataFixture } from './fixture.js';

/**
 * SAP Business One as its references describe it: a text longer than a field's published length (DI API, Documents:
 * Comments 254, NumAtCard 100) is shortened by the documented rule instead of the order being refused, and a price
 * kept with more than two decimals is rounded to cents without failing the price read.
 */
describe('odata connector, sap-b1-service-layer preset, as the vendor documents it', () => {
  let fixture: OdataFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('shortens a note over 254 characters and an order number over 100, and writes the order', async () => {
    fixture = await openOdata('sap-b1-service-layer');
    const notes = `${'Deliver to the back door. '.repeat(12)}שלום`; // 316 characters
    const orderNumber = `PO-${'9'.repeat(120)}`;
    const long = { ...order('ord_long'), notes, orderNumber };
    expect((await fixture.connector.capabilities.orderSink?.writeOrder(long))?.status).toBe('written');
    const [written] = fixture.emulator.store
      .all('Orders')
      .filter((row) => row['U_ApiOrderId'] === 'ord_long');
    expect([...String(written?.['Comments'])]).toHaveLength(254);
    expect(written?.['Comments']).toBe(`${notes.slice(0, 253)}…`);
    expect(written?.['NumAtCard']).toBe(`${orderNumber.slice(0, 99)}…`);
    expect(fixture.oracle.failures).toEqual([]);
  });

  it('rounds a price with more than two decimals to cents, half away from zero, and reads every other price', async () => {
    fixture = await openOdata('sap-b1-service-layer');
    fixture.emulator.store.seed('Items', [
      {
        ItemCode: 'P1',
        ItemName: 'Saffron 1g',
        SalesItem: 'tYES',
        ItemPrices: [{ PriceList: 1, Price: 12.345 }],
      },
      {
        ItemCode: 'P2',
        ItemName: 'Vanilla pod',
        SalesItem: 'tYES',
        ItemPrices: [{ PriceList: 1, Price: 7.1 }],
      },
      {
        ItemCode: 'P3',
        ItemName: 'Clove 5g',
        SalesItem: 'tYES',
        ItemPrices: [{ PriceList: 1, Price: 0.004 }],
      },
    ]);
    const prices = (await fixture.connector.capabilities.catalogSource?.readPrices()) ?? [];
    const bySku = new Map(prices.filter((p) => p.priceList === '1').map((price) => [price.sku, price.price]));
    expect(bySku.get('P1')).toBe('12.35');
    expect(bySku.get('P2')).toBe('7.10');
    // Rounded to nothing: the API refuses a price of 0.00 for this item alone (a dead letter), not the read.
    expect(bySku.get('P3')).toBe('0.00');
    expect(bySku.get('A100')).toBe('32.50');
  });

  it('reads no document dated before documents_from, and no cancelled document', async () => {
    fixture = await openOdata('sap-b1-service-layer', { block: { documents_from: '2026-01-01' } });
    const invoice = (date: string) => ({
      CardCode: 'C1001',
      DocDate: date,
      DocDueDate: date,
      DocCurrency: 'ILS',
      DocumentLines: [{ ItemCode: 'A100', Quantity: 1, UnitPrice: 32.5 }],
    });
    const old = fixture.emulator.store.create('Invoices', invoice('2019-06-30'));
    const cancelled = fixture.emulator.store.create('Invoices', invoice('2026-11-22'));
    cancelled['Cancelled'] = 'tYES';
    const current = fixture.emulator.store.create('Invoices', invoice('2026-11-23'));
    const documents = (await fixture.connector.capabilities.documentSource?.listPendingDocuments()) ?? [];
    const numbers = documents.map((document) => document.number);
    expect(numbers).toContain(String(current['DocNum']));
    expect(numbers).not.toContain(String(old['DocNum']));
    expect(numbers).not.toContain(String(cancelled['DocNum']));
    expect(documents.every((document) => document.date >= '2026-01-01')).toBe(true);
    const reads = fixture.oracle.seen.filter((request) => request.target.startsWith('Invoices'));
    expect(decodeURIComponent(reads[0]?.target ?? '')).toContain(
      "(Cancelled eq 'tNO') and DocDate ge 2026-01-01",
    );
    expect(fixture.oracle.failures).toEqual([]);
  });

  it('reads and sends an invoice created from a sent delivery note, whose copied mark names the delivery note', async () => {
    fixture = await openOdata('sap-b1-service-layer');
    const source = fixture.connector.capabilities.documentSource;
    const pending = (await source?.listPendingDocuments()) ?? [];
    const delivery = pending.find((document) => document.type === 'delivery_note');
    expect(delivery).toBeDefined();
    await source?.markDocumentSent(delivery?.ref ?? '', 'doc_dn_1');
    const [note] = fixture.emulator.store.all('DeliveryNotes');
    expect(note?.['U_ApiDocumentId']).toBe(`doc_dn_1@${delivery?.ref ?? ''}`);
    const invoice = fixture.emulator.store.create('Invoices', {
      CardCode: 'C1002',
      DocDate: '2026-11-25',
      DocDueDate: '2026-12-25',
      DocCurrency: 'ILS',
      DocumentLines: [
        {
          ItemCode: 'A200',
          Quantity: 1,
          UnitPrice: 18,
          BaseType: 15,
          BaseEntry: note?.['DocEntry'],
          BaseLine: 0,
        },
      ],
    });
    expect(invoice['U_ApiDocumentId']).toBe(note?.['U_ApiDocumentId']); // copied, as Business One does
    const ref = `Invoices(${String(invoice['DocEntry'])})`;
    const second = (await source?.listPendingDocuments()) ?? [];
    expect(second.map((document) => document.ref)).toContain(ref);
    expect(second.map((document) => document.ref)).not.toContain(delivery?.ref);
    await source?.markDocumentSent(ref, 'doc_inv_9');
    const third = (await source?.listPendingDocuments()) ?? [];
    expect(third.map((document) => document.ref)).not.toContain(ref);
    expect(fixture.oracle.failures).toEqual([]);
  });

  it('asks an idle run only for documents changed since the last read (UpdateDate/UpdateTime), keeping the date floor', async () => {
    fixture = await openOdata('sap-b1-service-layer', { block: { documents_from: '2026-01-01' } });
    const { emulator, oracle } = fixture;
    const source = fixture.connector.capabilities.documentSource;
    const hourAgo = new Date(Date.now() - 3_600_000);
    emulator.store.clock = () => hourAgo; // the marks are SAP's last change, an hour before the next read
    const first = (await source?.listPendingDocuments()) ?? [];
    expect(first.length).toBeGreaterThanOrEqual(2);
    const unsentRef = first[0]?.ref ?? '';
    for (const document of first.slice(1))
      await source?.markDocumentSent(document.ref, `doc_${document.number}`);
    // One document's send failed: the next read is not narrowed, and reads it again.
    expect(((await source?.listPendingDocuments()) ?? []).map((document) => document.ref)).toEqual([
      unsentRef,
    ]);
    await source?.markDocumentSent(unsentRef, 'doc_late');
    const servedBy = (set: string) => {
      const target =
        oracle.seen.filter((request) => request.target.startsWith(`${set}?`)).at(-1)?.target ?? '';
      const filter = new URL(target, 'http://service/').searchParams.get('$filter') ?? '';
      return { filter, served: emulator.store.all(set).filter(parseFilter(filter, () => true)).length };
    };
    for (const run of [1, 2]) {
      expect((await source?.listPendingDocuments()) ?? [], `idle run ${run}`).toEqual([]);
      for (const set of ['Invoices', 'DeliveryNotes', 'CreditNotes']) {
        const { filter, served } = servedBy(set);
        expect(filter).toContain('DocDate ge 2026-01-01 and (UpdateDate gt ');
        expect(served, `${set} on idle run ${run}`).toBe(0);
      }
    }
    emulator.store.clock = () => new Date(Date.now() + 60_000);
    const fresh = emulator.store.create('Invoices', {
      CardCode: 'C1001',
      DocDate: '2026-11-26',
      DocDueDate: '2026-12-26',
      DocCurrency: 'ILS',
      DocumentLines: [{ ItemCode: 'A100', Quantity: 1, UnitPrice: 32.5 }],
    });
    const next = (await source?.listPendingDocuments()) ?? [];
    expect(next.map((document) => document.ref)).toEqual([`Invoices(${String(fresh['DocEntry'])})`]);
    expect(oracle.failures).toEqual([]);
  });

  it('writes orders in the company currency code and reads documents back in the API code (currencies)', async () => {
    fixture = await openOdata('sap-b1-service-layer', { block: { currencies: { ILS: 'NIS' } } });
    fixture.emulator.store.seed('Currencies', [{ Code: 'NIS', Name: 'New Israeli Shekel' }]);
    await fixture.connector.capabilities.orderSink?.writeOrder(order('ord_nis'));
    const [written] = fixture.emulator.store.all('Orders').filter((row) => row['U_ApiOrderId'] === 'ord_nis');
    expect(written?.['DocCurrency']).toBe('NIS');
    const invoice = fixture.emulator.store.create('Invoices', {
      CardCode: 'C1001',
      DocDate: '2026-11-24',
      DocDueDate: '2026-12-24',
      DocCurrency: 'NIS',
      DocumentLines: [{ ItemCode: 'A100', Quantity: 1, UnitPrice: 32.5 }],
    });
    const documents = (await fixture.connector.capabilities.documentSource?.listPendingDocuments()) ?? [];
    const read = documents.find((document) => document.number === String(invoice['DocNum']));
    expect(read?.currency).toBe('ILS');
  });

  it('an order in a currency the company does not define is refused by SAP, and the error names the key to set', async () => {
    for (const [block, currency, companyCode] of [
      [{}, 'GBP', 'GBP'],
      [{ currencies: { ILS: 'NIS' } }, 'ILS', 'NIS'],
    ] as const) {
      fixture = await openOdata('sap-b1-service-layer', { block });
      const id = `ord_${currency.toLowerCase()}`;
      const error = await fixture.connector.capabilities.orderSink
        ?.writeOrder({ ...order(id), currency })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'connector_statement_failed', retryable: false });
      const message = (error as Error).message;
      expect(message).toContain(`DocCurrency '${companyCode}' is not in Currencies`);
      expect(message).toContain(`the company defines no currency ${companyCode} (Currencies: EUR, ILS, USD)`);
      expect(message).toContain(`set connectors.erp.currencies.${currency} to the code the company defines`);
      expect(fixture.emulator.store.all('Orders').filter((row) => row['U_ApiOrderId'] === id)).toEqual([]);
      await fixture.close();
      fixture = undefined;
    }
  });

  it('a refusal for another reason is not blamed on the currency', async () => {
    fixture = await openOdata('sap-b1-service-layer');
    const error = await fixture.connector.capabilities.orderSink
      ?.writeOrder({ ...order('ord_no_customer'), customerNumber: 'C9999' })
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toContain("CardCode 'C9999' is not in BusinessPartners");
    expect((error as Error).message).not.toContain('currencies');
  });

  /** The Invoices collection as the emulated Service Layer answers it, read without the connector. */
  async function rawInvoices(serviceUrl: string): Promise<Array<Record<string, unknown>>> {
    const login = await fetch(new URL('Login', serviceUrl), {
      method: 'POST',
      body: JSON.stringify({ CompanyDB: 'SBODEMOUS', UserName: 'manager', Password: SAP_PASSWORD }),
    });
    const cookie = login.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ');
    const answer = await fetch(new URL('Invoices', serviceUrl), { headers: { cookie } });
    return ((await answer.json()) as { value: Array<Record<string, unknown>> }).value;
  }

  for (const zone of ['Asia/Jerusalem', 'America/Los_Angeles']) {
    it(`reads DocDate and DocDueDate sent as midnight UTC as the same plain dates, with TZ=${zone}`, async () => {
      const before = process.env['TZ'];
      process.env['TZ'] = zone;
      try {
        // The zone is in force: midnight UTC is the 19th in Los Angeles, the 20th in Jerusalem.
        const local = new Date('2026-11-20T00:00:00Z').getDate();
        expect(local).toBe(zone === 'America/Los_Angeles' ? 19 : 20);
        fixture = await openOdata('sap-b1-service-layer');
        const [raw] = await rawInvoices(fixture.emulator.serviceUrl);
        expect(raw).toMatchObject({ DocDate: '2026-11-20T00:00:00Z', DocDueDate: '2026-12-20T00:00:00Z' });
        const documents = (await fixture.connector.capabilities.documentSource?.listPendingDocuments()) ?? [];
        const invoice = documents.find((document) => document.type === 'invoice');
        expect(invoice).toMatchObject({ date: '2026-11-20', dueDate: '2026-12-20' });
        const note = documents.find((document) => document.type === 'delivery_note');
        expect(note).toMatchObject({ date: '2026-11-21', dueDate: '2026-11-21' });
      } finally {
        if (before === undefined) delete process.env['TZ'];
        else process.env['TZ'] = before;
      }
    });
  }
});
