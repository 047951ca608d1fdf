import type { ErpModel, PropertyModel } from './model.js';

/**
 * Priority REST API, as far as the priority-rest preset uses it: forms as entity sets (ORDERS, AINVOICES,
 * DOCUMENTS_D, LOGPART, CUSTOMERS), subforms as navigation properties (ORDERITEMS_SUBFORM, ...), composite keys
 * (AINVOICES: IVNUM, IVTYPE, DEBIT). Names from the Priority REST API documentation (README.md cites each; the
 * ones it could not confirm are marked there). ZSSY_APIORDERID and ZSSY_APIDOCID are the columns an installation
 * adds for supply-sync.
 */
const s = (name: string, extra: Partial<PropertyModel> = {}): PropertyModel => ({
  name,
  type: 'Edm.String',
  ...extra,
});
/**
 * Prices, totals and quantities: Edm.Decimal, JSON numbers with a decimal point ([P-REQ]; `"LASTPRICE": 233.48` in
 * _restapi/5.restQuery.md "Filtering a Collection with Logic Operators"); integer columns such as a line's KLINE:
 * Edm.Int64 (`"KLINE": 1`, "Combining Query Options"). The declared types are choice E11 in
 * connectors/odata/README.md: the guide shows values, not its $metadata.
 */
const n = (name: string, extra: Partial<PropertyModel> = {}): PropertyModel => ({
  name,
  type: 'Edm.Decimal',
  ...extra,
});
const d = (name: string, extra: Partial<PropertyModel> = {}): PropertyModel => ({
  name,
  type: 'Edm.DateTimeOffset',
  ...extra,
});
const line = (name: string) => ({
  name,
  key: ['KLINE'],
  properties: [
    { name: 'KLINE', type: 'Edm.Int64', assigned: true } as const,
    s('PARTNAME', { required: true }),
    s('PDES'),
    n('TQUANT', { required: true }),
    n('PRICE'),
    n('QPRICE', { assigned: true }),
    d('DUEDATE'),
  ],
  collections: [],
});

/** Priority fills a line's part description from the part. */
const partDescription = (lines: string) => [
  { lines, property: 'PDES', from: 'LOGPART', key: 'PARTNAME', source: 'PARTDES' },
];

export const PRIORITY_MODEL: ErpModel = {
  namespace: 'Priority.OData',
  types: [
    {
      name: 'ORDERS',
      key: ['ORDNAME'],
      properties: [
        s('ORDNAME', { assigned: true }),
        s('CUSTNAME', { required: true }),
        d('CURDATE'),
        s('BOOKNUM'),
        s('DETAILS'),
        s('ORDSTATUSDES'),
        n('TOTPRICE', { assigned: true }),
        s('ZSSY_APIORDERID'),
      ],
      collections: [{ name: 'ORDERITEMS_SUBFORM', itemType: 'ORDERITEMS', kind: 'navigation' }],
    },
    line('ORDERITEMS'),
    {
      name: 'AINVOICES',
      key: ['IVNUM', 'IVTYPE', 'DEBIT'],
      properties: [
        s('IVNUM', { assigned: true }),
        s('IVTYPE'),
        s('DEBIT'),
        s('FINAL'),
        d('IVDATE'),
        s('CUSTNAME', { required: true }),
        s('CODE'),
        n('QPRICE', { assigned: true }),
        n('VAT', { assigned: true }),
        n('TOTPRICE', { assigned: true }),
        s('ZSSY_APIDOCID'),
      ],
      collections: [{ name: 'AINVOICEITEMS_SUBFORM', itemType: 'AINVOICEITEMS', kind: 'navigation' }],
    },
    line('AINVOICEITEMS'),
    {
      name: 'DOCUMENTS_D',
      key: ['DOCNO', 'TYPE'],
      properties: [
        s('DOCNO', { assigned: true }),
        s('TYPE'),
        d('CURDATE'),
        s('CUSTNAME', { required: true }),
        n('TOTPRICE', { assigned: true }),
        s('ZSSY_APIDOCID'),
      ],
      collections: [{ name: 'TRANSORDER_D_SUBFORM', itemType: 'TRANSORDER_D', kind: 'navigation' }],
    },
    line('TRANSORDER_D'),
    {
      name: 'LOGPART',
      key: ['PARTNAME'],
      properties: [
        s('PARTNAME', { required: true }),
        s('PARTDES'),
        s('UNITNAME'),
        s('BARCODE'),
        s('FAMILYNAME'),
      ],
      collections: [],
    },
    {
      name: 'CUSTOMERS',
      key: ['CUSTNAME'],
      properties: [s('CUSTNAME', { required: true }), s('CUSTDES'), s('VATNUM'), s('EMAIL')],
      collections: [],
    },
  ],
  entitySets: [
    {
      name: 'ORDERS',
      type: 'ORDERS',
      references: { CUSTNAME: 'CUSTOMERS', 'ORDERITEMS_SUBFORM/PARTNAME': 'LOGPART' },
    },
    {
      name: 'AINVOICES',
      type: 'AINVOICES',
      references: { CUSTNAME: 'CUSTOMERS' },
      lineDefaults: partDescription('AINVOICEITEMS_SUBFORM'),
    },
    {
      name: 'DOCUMENTS_D',
      type: 'DOCUMENTS_D',
      references: { CUSTNAME: 'CUSTOMERS' },
      lineDefaults: partDescription('TRANSORDER_D_SUBFORM'),
    },
    { name: 'LOGPART', type: 'LOGPART' },
    { name: 'CUSTOMERS', type: 'CUSTOMERS' },
  ],
  actions: {},
};

export const PRIORITY_SEED: Readonly<Record<string, ReadonlyArray<Record<string, unknown>>>> = {
  CUSTOMERS: [
    { CUSTNAME: 'C1001', CUSTDES: "Levi's Grocery", VATNUM: '514000001', EMAIL: 'buy@levi.example' },
    { CUSTNAME: 'C1002', CUSTDES: 'Cohen Market', VATNUM: '514000002', EMAIL: null },
  ],
  LOGPART: [
    {
      PARTNAME: 'A100',
      PARTDES: 'Olive oil 1L',
      UNITNAME: 'bottle',
      BARCODE: '7290000000011',
      FAMILYNAME: 'OIL',
    },
    { PARTNAME: 'A200', PARTDES: 'Tahini 500g', UNITNAME: 'jar', BARCODE: null, FAMILYNAME: 'SPREADS' },
  ],
};

export const PRIORITY_SEED_DOCUMENTS: ReadonlyArray<{ set: string; entity: Record<string, unknown> }> = [
  {
    set: 'AINVOICES',
    entity: {
      IVTYPE: 'A',
      DEBIT: 'D',
      FINAL: 'Y',
      IVDATE: '2026-11-20T00:00:00+02:00',
      CUSTNAME: 'C1001',
      CODE: 'ILS',
      AINVOICEITEMS_SUBFORM: [{ PARTNAME: 'A100', TQUANT: 2, PRICE: 32.5 }],
    },
  },
  {
    set: 'DOCUMENTS_D',
    entity: {
      TYPE: 'D',
      CURDATE: '2026-11-21T00:00:00+02:00',
      CUSTNAME: 'C1002',
      TRANSORDER_D_SUBFORM: [{ PARTNAME: 'A200', TQUANT: 1, PRICE: 18 }],
    },
  },
];
