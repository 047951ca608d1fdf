import type { ErpModel, PropertyModel } from './model.js';

/**
 * SAP Business One Service Layer, as far as the sap-b1-service-layer preset uses it: the marketing documents share
 * one type (Document, lines in the DocumentLines collection), business partners and items. Names and behaviour
 * from "Working with SAP Business One Service Layer" (SAP, see README.md); U_ApiOrderId and U_ApiDocumentId are
 * the user-defined fields an installation adds for supply-sync.
 */
const s = (name: string, extra: Partial<PropertyModel> = {}): PropertyModel => ({
  name,
  type: 'Edm.String',
  ...extra,
});
/**
 * Amounts, prices and quantities: Edm.Decimal, as the Service Layer's $metadata declares them (not confirmed in the
 * text we could read: the DI API keeps them as doubles; choice E11 in connectors/odata/README.md). Keys and codes
 * (DocEntry, DocNum, LineNum, PriceList) are Edm.Int32.
 */
const n = (name: string, extra: Partial<PropertyModel> = {}): PropertyModel => ({
  name,
  type: 'Edm.Decimal',
  ...extra,
});

/** SAP copies the item's name into a document line sent without a description. */
const ITEM_DESCRIPTION = [
  { lines: 'DocumentLines', property: 'ItemDescription', from: 'Items', key: 'ItemCode', source: 'ItemName' },
];

/**
 * A marketing document names a business partner, items, and a currency the company defines: the Service Layer
 * refuses a DocCurrency that is not in the company's Currencies (DI API reference, Documents.DocCurrency: "the
 * currency code as defined in the Currencies table"; the refusal's wording is not confirmed, choice E8 in
 * connectors/odata/README.md).
 */
const DOCUMENT_REFERENCES = {
  CardCode: 'BusinessPartners',
  DocCurrency: 'Currencies',
  'DocumentLines/ItemCode': 'Items',
};

export const SAP_B1_MODEL: ErpModel = {
  namespace: 'SAPB1',
  types: [
    {
      name: 'Document',
      key: ['DocEntry'],
      properties: [
        { name: 'DocEntry', type: 'Edm.Int32', assigned: true },
        { name: 'DocNum', type: 'Edm.Int32', assigned: true },
        { name: 'DocDate', type: 'Edm.Date' },
        { name: 'DocDueDate', type: 'Edm.Date', required: true },
        s('CardCode', { required: true }),
        // Field lengths of the DI API reference (help.sap.com, Documents object: NumAtCard 100, Comments 254); the
        // Service Layer refuses a longer value (not confirmed on a real installation: choice E5 in connectors/odata/README.md).
        s('NumAtCard', { maxLength: 100 }),
        s('DocCurrency'),
        s('Comments', { maxLength: 254 }),
        s('DocumentStatus', { assigned: true }),
        s('Cancelled', { assigned: true }),
        n('DocTotal', { assigned: true }),
        n('VatSum', { assigned: true }),
        s('U_ApiOrderId'),
        s('U_ApiDocumentId'),
        // The last change, in the company's local time (DI API reference, Documents: UpdateDate, UpdateTime); the
        // emulator's clock is UTC and every create or PATCH sets both. UpdateTime as Edm.TimeOfDay compared with
        // an unquoted HH:MM:SS literal is choice E6 in connectors/odata/README.md.
        { name: 'UpdateDate', type: 'Edm.Date', assigned: true },
        { name: 'UpdateTime', type: 'Edm.TimeOfDay', assigned: true },
      ],
      collections: [{ name: 'DocumentLines', itemType: 'DocumentLine', kind: 'complex', required: true }],
    },
    {
      name: 'DocumentLine',
      key: [],
      complex: true,
      properties: [
        { name: 'LineNum', type: 'Edm.Int32', assigned: true },
        s('ItemCode', { required: true }),
        s('ItemDescription'),
        n('Quantity', { required: true }),
        n('UnitPrice'),
        n('DiscountPercent'),
        n('LineTotal', { assigned: true }),
        // A line copied from another document names it: BaseType (its object type code), BaseEntry (its DocEntry),
        // BaseLine (DI API reference, Document_Lines object).
        { name: 'BaseType', type: 'Edm.Int32' },
        { name: 'BaseEntry', type: 'Edm.Int32' },
        { name: 'BaseLine', type: 'Edm.Int32' },
      ],
      collections: [],
    },
    {
      name: 'BusinessPartner',
      key: ['CardCode'],
      properties: [
        s('CardCode', { required: true }),
        s('CardName'),
        s('CardType'),
        s('FederalTaxID'),
        s('EmailAddress'),
        { name: 'PriceListNum', type: 'Edm.Int32' },
      ],
      collections: [],
    },
    {
      name: 'Item',
      key: ['ItemCode'],
      properties: [
        s('ItemCode', { required: true }),
        s('ItemName'),
        s('SalesUnit'),
        s('BarCode'),
        { name: 'ItemsGroupCode', type: 'Edm.Int32' },
        s('SalesItem'),
        n('QuantityOnStock'),
      ],
      collections: [{ name: 'ItemPrices', itemType: 'ItemPrice', kind: 'complex' }],
    },
    {
      // The currencies a company defines, each by its own code (DI API reference, Currencies object: Code, Name;
      // Service Layer entity set Currencies). The codes are the company's, not ISO: a company may call the shekel NIS.
      name: 'Currency',
      key: ['Code'],
      properties: [s('Code', { required: true }), s('Name')],
      collections: [],
    },
    {
      name: 'ItemPrice',
      key: [],
      complex: true,
      properties: [{ name: 'PriceList', type: 'Edm.Int32' }, n('Price')],
      collections: [],
    },
  ],
  entitySets: [
    {
      name: 'Orders',
      type: 'Document',
      references: DOCUMENT_REFERENCES,
      lineDefaults: ITEM_DESCRIPTION,
    },
    {
      name: 'DeliveryNotes',
      type: 'Document',
      references: DOCUMENT_REFERENCES,
      lineDefaults: ITEM_DESCRIPTION,
    },
    {
      name: 'Invoices',
      type: 'Document',
      references: DOCUMENT_REFERENCES,
      lineDefaults: ITEM_DESCRIPTION,
    },
    {
      name: 'CreditNotes',
      type: 'Document',
      references: DOCUMENT_REFERENCES,
      lineDefaults: ITEM_DESCRIPTION,
    },
    { name: 'BusinessPartners', type: 'BusinessPartner' },
    { name: 'Currencies', type: 'Currency' },
    { name: 'Items', type: 'Item' },
  ],
  // Documents created from another copy its user fields (engineering notes, "SAP Business One's Service Layer":
  // "documents created from another document copy its user fields"); object type codes from the DI API reference
  // (BoObjectTypes: 13 oInvoices, 14 oCreditNotes, 15 oDeliveryNotes, 17 oOrders).
  baseDocuments: {
    lines: 'DocumentLines',
    typeProperty: 'BaseType',
    entryProperty: 'BaseEntry',
    entryKey: 'DocEntry',
    sets: { 13: 'Invoices', 14: 'CreditNotes', 15: 'DeliveryNotes', 17: 'Orders' },
  },
  actions: { Cancel: ['Document'], Close: ['Document'] },
  // Dates come back as midnight UTC, `2026-11-20T00:00:00Z`, on the OData v4 root /b1s/v2/ ([SL], as the issue's
  // reading of it states; the exact form not confirmed in the text we could read, choice E10 in
  // connectors/odata/README.md). Sent dates are taken as plain `2026-11-20`.
  dateSuffix: 'T00:00:00Z',
};

/** Sample master data and issued documents. */
export const SAP_B1_SEED: Readonly<Record<string, ReadonlyArray<Record<string, unknown>>>> = {
  Currencies: [
    { Code: 'ILS', Name: 'Israeli new shekel' },
    { Code: 'USD', Name: 'US dollar' },
    { Code: 'EUR', Name: 'Euro' },
  ],
  BusinessPartners: [
    {
      CardCode: 'C1001',
      CardName: "Levi's Grocery",
      CardType: 'cCustomer',
      FederalTaxID: '514000001',
      EmailAddress: 'buy@levi.example',
      PriceListNum: 1,
    },
    {
      CardCode: 'C1002',
      CardName: 'Cohen Market',
      CardType: 'cCustomer',
      FederalTaxID: '514000002',
      EmailAddress: null,
      PriceListNum: 2,
    },
    {
      CardCode: 'V2001',
      CardName: 'A supplier',
      CardType: 'cSupplier',
      FederalTaxID: null,
      EmailAddress: null,
      PriceListNum: 1,
    },
  ],
  Items: [
    {
      ItemCode: 'A100',
      ItemName: 'Olive oil 1L',
      SalesUnit: 'bottle',
      BarCode: '7290000000011',
      ItemsGroupCode: 100,
      SalesItem: 'tYES',
      QuantityOnStock: 40,
      ItemPrices: [
        { PriceList: 1, Price: 32.5 },
        { PriceList: 2, Price: 30 },
      ],
    },
    {
      ItemCode: 'A200',
      ItemName: 'Tahini 500g',
      SalesUnit: 'jar',
      BarCode: null,
      ItemsGroupCode: 100,
      SalesItem: 'tYES',
      QuantityOnStock: 0,
      ItemPrices: [{ PriceList: 1, Price: 18 }],
    },
    {
      ItemCode: 'Z900',
      ItemName: 'Shelf (not sold)',
      SalesUnit: 'unit',
      BarCode: null,
      ItemsGroupCode: 900,
      SalesItem: 'tNO',
      QuantityOnStock: 3,
      ItemPrices: [],
    },
  ],
};

/** Documents the seed issues through the store (so they are numbered and totalled like any other). */
export const SAP_B1_SEED_DOCUMENTS: ReadonlyArray<{ set: string; entity: Record<string, unknown> }> = [
  {
    set: 'Invoices',
    entity: {
      CardCode: 'C1001',
      DocDate: '2026-11-20',
      DocDueDate: '2026-12-20',
      DocCurrency: 'ILS',
      U_ApiOrderId: 'ord_seed_1',
      DocumentLines: [{ ItemCode: 'A100', Quantity: 2, UnitPrice: 32.5 }],
    },
  },
  {
    set: 'DeliveryNotes',
    entity: {
      CardCode: 'C1002',
      DocDate: '2026-11-21',
      DocDueDate: '2026-11-21',
      DocCurrency: 'ILS',
      DocumentLines: [{ ItemCode: 'A200', Quantity: 1, UnitPrice: 18 }],
    },
  },
];
