import * as z from 'zod';

/** One named-parameter statement (`:name` or `@name`), described for editors with what it receives and returns. */
const statement = (description: string, example: string) =>
  z
    .string()
    .trim()
    .min(1)
    .meta({ description, examples: [example] });

const section = (description: string) => ({ description });

/**
 * Every statement the ERP flows need, written by the ERP administrator against their own schema. SELECTs alias
 * their columns to the names documented per statement; writes receive the documented parameters and may use any
 * subset. A section left out means the connector does not offer that capability.
 */
export const erpStatementsSchema = z.strictObject({
  catalog: z
    .strictObject({
      products: statement(
        'Returns sku, name, unit, package_quantity, category, barcode, vat_exempt, external_ref',
        'SELECT code AS sku, name, unit, 1 AS package_quantity, family AS category, barcode, 0 AS vat_exempt, code AS external_ref FROM items',
      ),
      products_count: statement(
        'Returns product_count: how many products the products statement should return. Read in the same ' +
          'transaction; a products read returning fewer rows (a TOP/LIMIT, a capped view) removes nothing downstream',
        'SELECT COUNT(*) AS product_count FROM items',
      ).optional(),
      prices: statement(
        'Returns price_list, sku, price, min_quantity, valid_from',
        'SELECT list AS price_list, item AS sku, price, min_qty AS min_quantity, valid_from FROM price_lists',
      ).optional(),
      availability: statement(
        'Returns sku, available, available_until',
        'SELECT item AS sku, CASE WHEN balance > 0 THEN 1 ELSE 0 END AS available, NULL AS available_until FROM stock',
      ).optional(),
    })
    .meta(section('Catalog flow: products, price lists and availability read from the ERP'))
    .optional(),
  orders: z
    .strictObject({
      find: statement(
        'Receives :api_order_id; returns erp_order_number, status',
        'SELECT number AS erp_order_number, status FROM orders WHERE api_id = :api_order_id',
      ),
      insert_header: statement(
        'Receives the header parameters; may return erp_order_number (else `find` is run in the same transaction)',
        'INSERT INTO orders (customer, api_id, order_date) VALUES (:customer_number, :api_order_id, :order_date)',
      ),
      insert_line: statement(
        'Receives the header parameters, :erp_order_number and the line parameters',
        'INSERT INTO order_lines (order_number, line, item, quantity) VALUES (:erp_order_number, :line_number, :item_code, :quantity)',
      ),
      update_header: statement(
        'Receives the header parameters and :erp_order_number',
        'UPDATE orders SET delivery_date = :delivery_date WHERE number = :erp_order_number',
      ).optional(),
      delete_lines: statement(
        'Receives :api_order_id, :erp_order_number; run before re-inserting the lines of an updated order',
        'DELETE FROM order_lines WHERE order_number = :erp_order_number',
      ).optional(),
      cancel: statement(
        'Receives :api_order_id, :erp_order_number, :reason',
        "UPDATE orders SET status = 'cancelled', cancel_reason = :reason WHERE number = :erp_order_number",
      ).optional(),
    })
    .meta(section('Orders flow: how orders from the API are written into the ERP'))
    .optional(),
  documents: z
    .strictObject({
      pending: statement(
        'Returns ref, type, number, date, due_date, customer_number, ship_to, purchase_type, allocation_number, ' +
          'currency, total_before_vat, vat, total_with_vat, discount, attachment_path, api_order_id',
        "SELECT id AS ref, 'invoice' AS type, number, date, customer AS customer_number, total AS total_with_vat FROM invoices WHERE api_id IS NULL",
      ),
      lines: statement(
        'Receives :ref; returns line_number, item_code, description, quantity, unit, unit_price, discount_pct, ' +
          'total, vat_exempt, api_order_id, api_order_line_id',
        'SELECT line AS line_number, item AS item_code, quantity, price AS unit_price FROM invoice_lines WHERE invoice_id = :ref',
      ),
      mark_sent: statement(
        'Receives :ref, :api_document_id',
        'UPDATE invoices SET api_id = :api_document_id WHERE id = :ref',
      ),
    })
    .meta(section('Documents flow: invoices, delivery notes and credit notes read from the ERP'))
    .optional(),
  expenses: z
    .strictObject({
      pending: statement(
        'Returns ref, vendor, doc_type, doc_date, branch, and optionally merchant_name, doc_number, ' +
          'allocation_number, due_date, accounting_period, purchase_type, vat_mode, total_before_vat, vat, ' +
          'total_with_vat, payment_method, notes, attachment_path',
        "SELECT id AS ref, vendor_code AS vendor, 'tax_invoice' AS doc_type, invoice_date AS doc_date, branch_code AS branch FROM expenses WHERE api_id IS NULL",
      ),
      lines: statement(
        'Receives :ref; returns line_number, category, amount_before_vat, and optionally vat_amount, ' +
          'purchase_type, branch, description',
        'SELECT line AS line_number, category_code AS category, net AS amount_before_vat, vat AS vat_amount FROM expense_lines WHERE expense_id = :ref',
      ),
      mark_sent: statement(
        'Receives :ref, :api_expense_id',
        'UPDATE expenses SET api_id = :api_expense_id WHERE id = :ref',
      ),
    })
    .meta(
      section('Expenses flow: expenses read from a back-office database, the API expense id written back'),
    )
    .optional(),
  reactions: z
    .strictObject({
      update_status: statement(
        'Receives :api_document_id, :document_type, :document_number, :buyer_status, :occurred_at',
        'UPDATE invoices SET buyer_status = :buyer_status WHERE api_id = :api_document_id',
      ),
      clear_differences: statement(
        'Receives the same parameters; clears earlier differences so a reaction can be applied again',
        'DELETE FROM invoice_differences WHERE api_id = :api_document_id',
      ).optional(),
      insert_difference: statement(
        'Receives the reaction parameters and :line_ref, :item_code, :field, :issued, :received, :note',
        'INSERT INTO invoice_differences (api_id, item, field, issued, received) VALUES (:api_document_id, :item_code, :field, :issued, :received)',
      ).optional(),
    })
    .meta(section("Documents flow: the buyer's reactions to documents, written back into the ERP"))
    .optional(),
  confirmations: z
    .strictObject({
      pending: statement(
        'Returns ref, api_order_id, erp_order_number, kind (full | partial | reject), reason',
        'SELECT id AS ref, api_order_id, order_number AS erp_order_number, kind, reason FROM confirmations WHERE sent_at IS NULL',
      ),
      lines: statement(
        'Receives :ref; returns api_line_id, item_code, quantity_confirmed, substitute_item_code, notes',
        'SELECT api_line_id, item AS item_code, quantity AS quantity_confirmed FROM confirmation_lines WHERE confirmation_id = :ref',
      ),
      mark_sent: statement(
        'Receives :ref',
        'UPDATE confirmations SET sent_at = CURRENT_TIMESTAMP WHERE id = :ref',
      ),
    })
    .meta(section('Order-confirm flow: order confirmations read from the ERP'))
    .optional(),
  customers: z
    .strictObject({
      list: statement(
        'Returns customer_number, name, tax_id, erp_ref, email, price_list',
        'SELECT number AS customer_number, name, tax_id, number AS erp_ref, email, price_list FROM customers',
      ),
    })
    .meta(section('Buyers flow: the customer list read from the ERP'))
    .optional(),
  sales: z
    .strictObject({
      pending: statement(
        'Returns ref: one row per unprocessed batch, for example a closed business day per branch',
        'SELECT DISTINCT day_id AS ref FROM pos_days WHERE pushed IS NULL',
      ),
      z_reports: statement(
        'Receives :ref; returns branch_code, z_number, closed_at, total_before_vat, and any further Z-report columns',
        'SELECT branch AS branch_code, z AS z_number, closed_at, net AS total_before_vat FROM pos_days WHERE day_id = :ref',
      ),
      item_sales: statement(
        'Receives :ref; returns branch_code, z_number, line_number, value_date, item_code, item_name, quantity, ' +
          'unit_price, total, and any further item-sale columns',
        'SELECT branch AS branch_code, z AS z_number, line AS line_number, item AS item_code, quantity, total FROM pos_lines WHERE day_id = :ref',
      ),
      mark: statement(
        'Receives :ref, :outcome (done | failed)',
        'UPDATE pos_days SET pushed = :outcome WHERE day_id = :ref',
      ),
    })
    .meta(section('Sales-push flow: Z-reports and item sales read from a POS database'))
    .optional(),
});

export type ErpStatements = z.output<typeof erpStatementsSchema>;
