export const SAP_B1_SERVICE_LAYER = `
# SAP Business One Service Layer (OData v4 at /b1s/v2/, v3-era at /b1s/v1/). Sources for each name:
# connectors/odata/README.md, "sap-b1-service-layer". Two user-defined fields are expected on marketing
# documents: U_ApiOrderId (the API order id, so an order can be found before it is created) and
# U_ApiDocumentId (set once a document is sent to the API, to "<api document id>@<entity set>(<DocEntry>)": a
# document created from a sent one copies its user fields, and a mark naming another document is not its own).
orders:
  entity_set: Orders
  key: [DocEntry]
  erp_number: DocNum
  status: DocumentStatus
  find_filter: U_ApiOrderId eq :api_order_id
  lines_property: DocumentLines
  write: deep_insert
  header:
    CardCode: ':customer_number'
    DocDate: ':order_date'
    DocDueDate: ':delivery_date'
    NumAtCard: { value: ':order_number', max_length: 100 }
    DocCurrency: ':currency'
    Comments: { value: ':notes', max_length: 254 }
    U_ApiOrderId: ':api_order_id'
  line:
    ItemCode: ':item_code'
    ItemDescription: ':description'
    Quantity: ':quantity'
    UnitPrice: ':unit_price'
  cancelled: { property: Cancelled, value: tYES }
  cancel:
    action: Cancel
documents:
  sources:
    - type: invoice
      entity_set: Invoices
      key: [DocEntry]
      filter: Cancelled eq 'tNO'
      lines_property: DocumentLines
      fields: &document_fields
        number: DocNum
        date: DocDate
        due_date: DocDueDate
        customer_number: CardCode
        currency: DocCurrency
        total_with_vat: DocTotal
        vat: VatSum
        api_order_id: U_ApiOrderId
      line_fields: &document_line_fields
        line_number: LineNum
        item_code: ItemCode
        description: ItemDescription
        quantity: Quantity
        unit_price: UnitPrice
        discount_pct: DiscountPercent
        total: LineTotal
      own_mark: U_ApiDocumentId
      updated: { date: UpdateDate, time: UpdateTime }
      mark_sent: &mark_sent
        U_ApiDocumentId: ':sent_mark'
    - type: delivery_note
      entity_set: DeliveryNotes
      key: [DocEntry]
      filter: Cancelled eq 'tNO'
      lines_property: DocumentLines
      fields: *document_fields
      line_fields: *document_line_fields
      own_mark: U_ApiDocumentId
      updated: { date: UpdateDate, time: UpdateTime }
      mark_sent: *mark_sent
    - type: credit_note
      entity_set: CreditNotes
      key: [DocEntry]
      filter: Cancelled eq 'tNO'
      lines_property: DocumentLines
      fields: *document_fields
      line_fields: *document_line_fields
      own_mark: U_ApiDocumentId
      updated: { date: UpdateDate, time: UpdateTime }
      mark_sent: *mark_sent
catalog:
  products:
    entity_set: Items
    filter: SalesItem eq 'tYES'
    fields:
      sku: ItemCode
      name: ItemName
      unit: SalesUnit
      barcode: BarCode
      category: ItemsGroupCode
      external_ref: ItemCode
  prices:
    entity_set: Items
    filter: SalesItem eq 'tYES'
    flatten: ItemPrices
    fields:
      sku: ItemCode
      price_list: ItemPrices/PriceList
      price: ItemPrices/Price
  availability:
    entity_set: Items
    filter: SalesItem eq 'tYES'
    fields:
      sku: ItemCode
      available: { path: QuantityOnStock, above_zero: true }
company_currencies:
  entity_set: Currencies
  code: Code
customers:
  entity_set: BusinessPartners
  filter: CardType eq 'cCustomer'
  fields:
    customer_number: CardCode
    name: CardName
    tax_id: FederalTaxID
    erp_ref: CardCode
    email: EmailAddress
    price_list: PriceListNum
`;
