export const PRIORITY_REST = `
# Priority REST API (OData v4 at .../odata/Priority/tabula.ini/<company>/). Sources for each name:
# connectors/odata/README.md, "priority-rest". Two columns are added in Priority's form generator, with the
# installation's own prefix in place of ZSSY: ZSSY_APIORDERID on ORDERS and ZSSY_APIDOCID on AINVOICES and
# DOCUMENTS_D (override the names under entities when the prefix differs).
# Results are capped (MAXAPILINES, 2,000 by default; MAXFORMLINES before 25.1) with no paging link: read in
# $top/$skip pages ordered by the key.
paging:
  mode: top_skip
  page_size: 500
  max_result_lines: 2000
# "batch operations do not support rollback": orders are written as one deep insert, never as a $batch.
batch_rollback: false
orders:
  entity_set: ORDERS
  key: [ORDNAME]
  erp_number: ORDNAME
  status: ORDSTATUSDES
  find_filter: ZSSY_APIORDERID eq :api_order_id
  lines_property: ORDERITEMS_SUBFORM
  expand_lines: true
  write: deep_insert
  header:
    CUSTNAME: ':customer_number'
    CURDATE: { value: ':order_date', as: datetime }
    BOOKNUM: ':order_number'
    DETAILS: ':notes'
    ZSSY_APIORDERID: ':api_order_id'
  line:
    PARTNAME: ':item_code'
    TQUANT: ':quantity'
    PRICE: ':unit_price'
    DUEDATE: { value: ':delivery_date', as: datetime }
  cancelled: { property: ORDSTATUSDES, value: Canceled }
  cancel:
    patch:
      ORDSTATUSDES: Canceled
documents:
  sources:
    # Final invoices only: a draft (FINAL not 'Y') carries a temporary number. DEBIT 'C' is a credit invoice.
    - type: invoice
      entity_set: AINVOICES
      key: [IVNUM, IVTYPE, DEBIT]
      filter: ZSSY_APIDOCID eq null and FINAL eq 'Y' and DEBIT eq 'D'
      lines_property: AINVOICEITEMS_SUBFORM
      expand_lines: true
      # Priority dates are DateTimeOffset: the date floor is midnight in company_timezone, with its offset.
      date_floor_as: datetime
      fields:
        number: IVNUM
        date: IVDATE
        customer_number: CUSTNAME
        currency: CODE
        total_before_vat: QPRICE
        vat: VAT
        total_with_vat: TOTPRICE
      line_fields: &invoice_line_fields
        line_number: KLINE
        item_code: PARTNAME
        description: PDES
        quantity: TQUANT
        unit_price: PRICE
        total: QPRICE
      mark_sent:
        ZSSY_APIDOCID: ':api_document_id'
    - type: credit_note
      entity_set: AINVOICES
      key: [IVNUM, IVTYPE, DEBIT]
      filter: ZSSY_APIDOCID eq null and FINAL eq 'Y' and DEBIT eq 'C'
      lines_property: AINVOICEITEMS_SUBFORM
      expand_lines: true
      # Priority dates are DateTimeOffset: the date floor is midnight in company_timezone, with its offset.
      date_floor_as: datetime
      fields:
        number: IVNUM
        date: IVDATE
        customer_number: CUSTNAME
        currency: CODE
        total_before_vat: QPRICE
        vat: VAT
        total_with_vat: TOTPRICE
      line_fields: *invoice_line_fields
      mark_sent:
        ZSSY_APIDOCID: ':api_document_id'
    - type: delivery_note
      entity_set: DOCUMENTS_D
      key: [DOCNO, TYPE]
      filter: ZSSY_APIDOCID eq null
      lines_property: TRANSORDER_D_SUBFORM
      expand_lines: true
      # Priority dates are DateTimeOffset: the date floor is midnight in company_timezone, with its offset.
      date_floor_as: datetime
      fields:
        number: DOCNO
        date: CURDATE
        customer_number: CUSTNAME
        total_with_vat: TOTPRICE
      line_fields:
        line_number: KLINE
        item_code: PARTNAME
        description: PDES
        quantity: TQUANT
        unit_price: PRICE
        total: QPRICE
      mark_sent:
        ZSSY_APIDOCID: ':api_document_id'
catalog:
  products:
    entity_set: LOGPART
    order_by: [PARTNAME]
    fields:
      sku: PARTNAME
      name: PARTDES
      unit: UNITNAME
      barcode: BARCODE
      category: FAMILYNAME
      external_ref: PARTNAME
customers:
  entity_set: CUSTOMERS
  order_by: [CUSTNAME]
  fields:
    customer_number: CUSTNAME
    name: CUSTDES
    tax_id: VATNUM
    erp_ref: CUSTNAME
    email: EMAIL
`;
