import { afterEach, describe, expect, it } from 'vitest';
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
