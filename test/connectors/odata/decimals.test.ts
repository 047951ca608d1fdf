import { afterEach, describe, expect, it } from 'vitest';
import { plainDecimal } from '../../../connectors/odata/reads.js';
import { metadataXml, PRIORITY_MODEL, SAP_B1_MODEL } from '../../support/odata-emulator/index.js';
import { openOdata, PRIORITY_PASSWORD, type OdataFixture } from './fixture.js';

/**
 * Amounts as the services type them: Edm.Decimal (and Priority's integer columns Edm.Int64), which OData JSON writes as
 * numbers, or as strings for a client that asks IEEE754Compatible=true (OData JSON Format 4.0, section 3.2). The
 * connector reads either form as the same decimal text, without a float in between.
 */
describe('odata connector: Edm.Decimal and Edm.Int64 values as numbers or strings', () => {
  let fixture: OdataFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('the emulators declare amounts Edm.Decimal and integer keys Edm.Int32 (SAP) or Edm.Int64 (Priority)', () => {
    const sap = metadataXml(SAP_B1_MODEL);
    for (const name of ['DocTotal', 'VatSum', 'Quantity', 'UnitPrice', 'LineTotal', 'Price'])
      expect(sap).toMatch(new RegExp(`<Property Name="${name}" Type="Edm.Decimal"`));
    for (const name of ['DocEntry', 'DocNum', 'LineNum', 'PriceList'])
      expect(sap).toMatch(new RegExp(`<Property Name="${name}" Type="Edm.Int32"`));
    const priority = metadataXml(PRIORITY_MODEL);
    for (const name of ['TQUANT', 'PRICE', 'QPRICE', 'TOTPRICE', 'VAT'])
      expect(priority).toMatch(new RegExp(`<Property Name="${name}" Type="Edm.Decimal"`));
    expect(priority).toMatch(/<Property Name="KLINE" Type="Edm.Int64"/);
    expect(sap).not.toContain('Edm.Double');
    expect(priority).not.toContain('Edm.Double');
  });

  it('writes a decimal the way it came, shifting an exponent as text', () => {
    expect(plainDecimal('32.5')).toBe('32.5');
    expect(plainDecimal('1e-7')).toBe('0.0000001');
    expect(plainDecimal('2.5E+2')).toBe('250');
    expect(plainDecimal('1e21')).toBe('1000000000000000000000');
    expect(plainDecimal('-0.5e1')).toBe('-5');
    expect(plainDecimal('12345678901234567890.12')).toBe('12345678901234567890.12');
    expect(plainDecimal('not a number')).toBe('not a number');
  });

  for (const erp of ['sap-b1-service-layer', 'priority-rest'] as const) {
    it(`${erp}: reads the same documents whether decimals come as numbers or as strings`, async () => {
      const read = async (ieee754Compatible: boolean) => {
        fixture = await openOdata(erp, { emulator: { ieee754Compatible } });
        const documents = (await fixture.connector.capabilities.documentSource?.listPendingDocuments()) ?? [];
        await fixture.close();
        fixture = undefined;
        return documents;
      };
      const asNumbers = await read(false);
      const asStrings = await read(true);
      expect(asStrings).toEqual(asNumbers);
      const invoice = asNumbers.find((document) => document.type === 'invoice');
      // The seeded invoice: 2 x 32.5, VAT 18%.
      expect(invoice).toMatchObject({ totalWithVat: '76.7', vat: '11.7' });
      expect(invoice?.lines[0]).toMatchObject({ lineNumber: erp === 'priority-rest' ? 1 : 0, quantity: '2' });
      expect(invoice?.lines[0]).toMatchObject({ unitPrice: '32.5', total: '65' });
    });
  }

  it('priority-rest: the emulator answers Edm.Decimal and Edm.Int64 as strings when asked IEEE754Compatible=true', async () => {
    fixture = await openOdata('priority-rest');
    const answer = await fetch(
      new URL('AINVOICES?$expand=AINVOICEITEMS_SUBFORM', fixture.emulator.serviceUrl),
      {
        headers: {
          accept: 'application/json;IEEE754Compatible=true',
          authorization: `Basic ${Buffer.from(`apiuser:${PRIORITY_PASSWORD}`).toString('base64')}`,
        },
      },
    );
    const [invoice] = ((await answer.json()) as { value: Array<Record<string, unknown>> }).value;
    expect(invoice?.['TOTPRICE']).toBe('76.7');
    expect((invoice?.['AINVOICEITEMS_SUBFORM'] as Array<Record<string, unknown>>)[0]).toMatchObject({
      KLINE: '1',
      TQUANT: '2',
      PRICE: '32.5',
    });
  });

  for (const ieee754Compatible of [false, true]) {
    it(`sap-b1-service-layer: reads prices written with an exponent (${ieee754Compatible ? 'strings' : 'numbers'})`, async () => {
      fixture = await openOdata('sap-b1-service-layer', { emulator: { ieee754Compatible } });
      fixture.emulator.store.seed('Items', [
        {
          ItemCode: 'T100',
          ItemName: 'Tiny',
          SalesItem: 'tYES',
          ItemPrices: [
            { PriceList: 1, Price: 0.0000001 },
            { PriceList: 2, Price: 1.5e21 },
          ],
        },
      ]);
      const prices = (await fixture.connector.capabilities.catalogSource?.readPrices()) ?? [];
      const tiny = prices
        .filter((price) => price.sku === 'T100')
        .map((price) => [price.priceList, price.price]);
      expect(tiny).toEqual([
        ['1', '0.00'],
        ['2', '1500000000000000000000.00'],
      ]);
    });
  }
});
