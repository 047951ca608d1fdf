import type { ErpStatements } from '../erp-config.js';
import { journalTableSchema, type JournalTableConfig } from '../journal-config.js';

/**
 * The demo ERP's statements: exactly what an administrator writes in the `sql` connector's config for a real ERP,
 * and a worked example of every statement's parameters and result columns.
 */
export const demoErpStatements: ErpStatements = {
  catalog: {
    products: `SELECT PARTNAME AS sku, PARTDES AS name, UNIT AS unit, PACKQTY AS package_quantity,
        FAMILY AS category, BARCODE AS barcode, VATFREE AS vat_exempt, 'ERP-' || PARTNAME AS external_ref
      FROM PARTS WHERE INACTIVE = 'N' ORDER BY PARTNAME`,
    products_count: `SELECT COUNT(*) AS product_count FROM PARTS WHERE INACTIVE = 'N'`,
    prices: `SELECT PLNAME AS price_list, PRICELIST.PARTNAME AS sku, PRICE AS price, MINQTY AS min_quantity,
        VALIDFROM AS valid_from
      FROM PRICELIST JOIN PARTS ON PARTS.PARTNAME = PRICELIST.PARTNAME
      WHERE PARTS.INACTIVE = 'N' ORDER BY PLNAME, PRICELIST.PARTNAME`,
    availability: `SELECT PARTS.PARTNAME AS sku,
        CASE WHEN CAST(COALESCE(BALANCE, '0') AS REAL) > 0 THEN 1 ELSE 0 END AS available,
        AVAILUNTIL AS available_until
      FROM PARTS LEFT JOIN WAREHOUSEBAL ON WAREHOUSEBAL.PARTNAME = PARTS.PARTNAME
      WHERE PARTS.INACTIVE = 'N' ORDER BY PARTS.PARTNAME`,
  },
  orders: {
    find: `SELECT ORDNAME AS erp_order_number, ORDSTATUS AS status FROM ORDERS WHERE API_ORDER_ID = :api_order_id`,
    insert_header: `INSERT INTO ORDERS (ORDNAME, CUSTNAME, SHIPTO, REFERENCE, PURCHTYPE, CURDATE, DUEDATE, WINDOWFROM,
        WINDOWTO, CURRENCY, QPRICE, VAT, TOTPRICE, DETAILS, API_ORDER_ID)
      SELECT 'SO' || printf('%06d', COALESCE(MAX(ORDID), 0) + 1), :customer_number, :ship_to, :order_number,
        :purchase_type, :order_date, :delivery_date, :window_from, :window_to, :currency, :total_before_vat, :vat,
        :total_with_vat, :notes, :api_order_id
      FROM ORDERS
      RETURNING ORDNAME AS erp_order_number`,
    insert_line: `INSERT INTO ORDERITEMS (ORDNAME, LINE, PARTNAME, PDES, TQUANT, UNIT, PRICE, PERCENT, QPRICE, VATFREE,
        REMARK, API_LINE_ID)
      VALUES (:erp_order_number, :line_number, :item_code, :description, :quantity, :unit, :unit_price,
        :discount_pct, :line_total, CASE WHEN :vat_exempt THEN 'Y' ELSE 'N' END, :line_notes, :api_line_id)`,
    update_header: `UPDATE ORDERS SET SHIPTO = :ship_to, DUEDATE = :delivery_date, WINDOWFROM = :window_from,
        WINDOWTO = :window_to, QPRICE = :total_before_vat, VAT = :vat, TOTPRICE = :total_with_vat, DETAILS = :notes
      WHERE ORDNAME = :erp_order_number`,
    delete_lines: `DELETE FROM ORDERITEMS WHERE ORDNAME = :erp_order_number`,
    cancel: `UPDATE ORDERS SET ORDSTATUS = 'Cancelled', CANCELREASON = :reason WHERE ORDNAME = :erp_order_number`,
  },
  documents: {
    pending: `SELECT IVNUM AS ref,
        CASE DOCTYPE WHEN 'DN' THEN 'delivery_note' WHEN 'IV' THEN 'invoice' WHEN 'CN' THEN 'credit_note'
          WHEN 'CI' THEN 'consolidated_invoice' ELSE DOCTYPE END AS type,
        IVNUM AS number, IVDATE AS date, PAYDATE AS due_date, DOCUMENTS.CUSTNAME AS customer_number,
        DOCUMENTS.SHIPTO AS ship_to, DOCUMENTS.PURCHTYPE AS purchase_type, ALLOCNUM AS allocation_number,
        'ILS' AS currency, DOCUMENTS.QPRICE AS total_before_vat, DOCUMENTS.VAT AS vat,
        DOCUMENTS.TOTPRICE AS total_with_vat, DISCOUNT AS discount, PDFPATH AS attachment_path,
        ORDERS.API_ORDER_ID AS api_order_id
      FROM DOCUMENTS LEFT JOIN ORDERS ON ORDERS.ORDNAME = DOCUMENTS.ORDNAME
      WHERE API_DOCUMENT_ID IS NULL ORDER BY IVDATE, IVNUM`,
    lines: `SELECT DOCUMENTITEMS.LINE AS line_number, DOCUMENTITEMS.PARTNAME AS item_code, DOCUMENTITEMS.PDES AS description,
        DOCUMENTITEMS.TQUANT AS quantity, DOCUMENTITEMS.UNIT AS unit, DOCUMENTITEMS.PRICE AS unit_price,
        DOCUMENTITEMS.PERCENT AS discount_pct, DOCUMENTITEMS.QPRICE AS total, DOCUMENTITEMS.VATFREE AS vat_exempt,
        ORDERS.API_ORDER_ID AS api_order_id, ORDERITEMS.API_LINE_ID AS api_order_line_id
      FROM DOCUMENTITEMS
        LEFT JOIN ORDERS ON ORDERS.ORDNAME = DOCUMENTITEMS.ORDNAME
        LEFT JOIN ORDERITEMS ON ORDERITEMS.ORDNAME = DOCUMENTITEMS.ORDNAME AND ORDERITEMS.LINE = DOCUMENTITEMS.ORDLINE
      WHERE DOCUMENTITEMS.IVNUM = :ref ORDER BY DOCUMENTITEMS.LINE`,
    mark_sent: `UPDATE DOCUMENTS SET API_DOCUMENT_ID = :api_document_id, API_SENT_AT = datetime('now')
      WHERE IVNUM = :ref`,
  },
  reactions: {
    update_status: `UPDATE DOCUMENTS SET BUYERSTATUS = :buyer_status, BUYERSTATUSAT = :occurred_at
      WHERE API_DOCUMENT_ID = :api_document_id OR (API_DOCUMENT_ID IS NULL AND IVNUM = :document_number)`,
    clear_differences: `DELETE FROM DOCDIFFERENCES WHERE API_DOCUMENT_ID = :api_document_id`,
    insert_difference: `INSERT INTO DOCDIFFERENCES (API_DOCUMENT_ID, LINEREF, PARTNAME, FIELD, ISSUED, RECEIVED, NOTE)
      VALUES (:api_document_id, :line_ref, :item_code, :field, :issued, :received, :note)`,
  },
  confirmations: {
    pending: `SELECT CONFNUM AS ref, ORDERS.API_ORDER_ID AS api_order_id, ORDCONFIRM.ORDNAME AS erp_order_number,
        KIND AS kind, REASON AS reason
      FROM ORDCONFIRM JOIN ORDERS ON ORDERS.ORDNAME = ORDCONFIRM.ORDNAME
      WHERE ORDCONFIRM.API_SENT_AT IS NULL AND ORDERS.API_ORDER_ID IS NOT NULL ORDER BY CONFNUM`,
    lines: `SELECT ORDERITEMS.API_LINE_ID AS api_line_id, ORDERITEMS.PARTNAME AS item_code,
        ORDCONFIRMITEMS.CQUANT AS quantity_confirmed, SUBSTITUTE AS substitute_item_code, ORDCONFIRMITEMS.REMARK AS notes
      FROM ORDCONFIRMITEMS
        JOIN ORDCONFIRM ON ORDCONFIRM.CONFNUM = ORDCONFIRMITEMS.CONFNUM
        LEFT JOIN ORDERITEMS ON ORDERITEMS.ORDNAME = ORDCONFIRM.ORDNAME AND ORDERITEMS.LINE = ORDCONFIRMITEMS.LINE
      WHERE ORDCONFIRMITEMS.CONFNUM = :ref ORDER BY ORDCONFIRMITEMS.LINE`,
    mark_sent: `UPDATE ORDCONFIRM SET API_SENT_AT = datetime('now') WHERE CONFNUM = :ref`,
  },
  customers: {
    list: `SELECT CUSTNAME AS customer_number, CUSTDES AS name, VATNUM AS tax_id, CUSTNAME AS erp_ref, EMAIL AS email,
        PLNAME AS price_list
      FROM CUSTOMERS WHERE INACTIVE = 'N' ORDER BY CUSTNAME`,
  },
};

/** The demo ERP's general-ledger import table, fed by the accounting flow through the `sql` journal writer. */
export const demoErpJournal: JournalTableConfig = journalTableSchema.parse({
  table: 'GLJOURNAL',
  columns: {
    batch_key: 'BATCHKEY',
    line_number: 'LINE',
    account: 'ACCNAME',
    counter_account: 'COUNTERACC',
    debit: 'DEBIT',
    credit: 'CREDIT',
    date: 'CURDATE',
    value_date: 'VALUEDATE',
    period: 'PERIOD',
    reference: 'REF1',
    reference2: 'REF2',
    branch_code: 'BRANCH',
    movement_type: 'MOVETYPE',
    description: 'DETAILS',
    source_ids: 'SOURCEIDS',
  },
  batch_key_store: 'column',
});
