import { createTableIfMissing, type ColumnSpec } from '../../src/kit/sql/dialect.js';
import type { SqlDriver } from '../../src/kit/sql/driver.js';
import type { ErpStatements } from '../../connectors/sql/erp-config.js';

/** A small ERP-like schema built with portable types, so the same statements run on every dialect. */
const tables: [string, ColumnSpec[], string[]][] = [
  [
    't_items',
    [
      { name: 'sku', type: 'text' },
      { name: 'name', type: 'text' },
      { name: 'unit', type: 'text' },
      { name: 'pack_qty', type: 'decimal' },
      { name: 'vat_exempt', type: 'integer' },
      { name: 'in_stock', type: 'integer' },
    ],
    ['sku'],
  ],
  [
    't_prices',
    [
      { name: 'price_list', type: 'text' },
      { name: 'sku', type: 'text' },
      { name: 'price', type: 'decimal' },
    ],
    ['price_list', 'sku'],
  ],
  [
    't_order_header',
    [
      { name: 'seq', type: 'integer' },
      { name: 'erp_order_number', type: 'text', nullable: false },
      { name: 'api_order_id', type: 'text', nullable: false },
      { name: 'customer_number', type: 'text', nullable: false },
      { name: 'delivery_date', type: 'date' },
      { name: 'total_with_vat', type: 'decimal' },
      { name: 'status', type: 'text' },
      { name: 'notes', type: 'text' },
    ],
    ['seq'],
  ],
  [
    't_order_line',
    [
      { name: 'erp_order_number', type: 'text' },
      { name: 'line_no', type: 'integer' },
      { name: 'item_code', type: 'text', nullable: false },
      { name: 'quantity', type: 'decimal', nullable: false },
      { name: 'unit_price', type: 'decimal' },
      { name: 'api_line_id', type: 'text' },
    ],
    ['erp_order_number', 'line_no'],
  ],
  [
    't_docs',
    [
      { name: 'ref', type: 'text' },
      { name: 'doc_type', type: 'text' },
      { name: 'doc_number', type: 'text' },
      { name: 'doc_date', type: 'date' },
      { name: 'customer_number', type: 'text' },
      { name: 'before_vat', type: 'decimal' },
      { name: 'vat', type: 'decimal' },
      { name: 'with_vat', type: 'decimal' },
      { name: 'pdf_path', type: 'text' },
      { name: 'api_order_id', type: 'text' },
      { name: 'api_document_id', type: 'text' },
    ],
    ['ref'],
  ],
  [
    't_doc_lines',
    [
      { name: 'ref', type: 'text' },
      { name: 'line_no', type: 'integer' },
      { name: 'item_code', type: 'text' },
      { name: 'description', type: 'text' },
      { name: 'quantity', type: 'decimal' },
      { name: 'unit_price', type: 'decimal' },
      { name: 'total', type: 'decimal' },
    ],
    ['ref', 'line_no'],
  ],
  [
    't_confirmations',
    [
      { name: 'ref', type: 'text' },
      { name: 'api_order_id', type: 'text' },
      { name: 'kind', type: 'text' },
      { name: 'reason', type: 'text' },
      { name: 'sent', type: 'integer' },
    ],
    ['ref'],
  ],
  [
    't_confirmation_lines',
    [
      { name: 'ref', type: 'text' },
      { name: 'line_no', type: 'integer' },
      { name: 'item_code', type: 'text' },
      { name: 'qty', type: 'decimal' },
      { name: 'substitute', type: 'text' },
    ],
    ['ref', 'line_no'],
  ],
  [
    't_pos_days',
    [
      { name: 'day_ref', type: 'text' },
      { name: 'state', type: 'text' },
    ],
    ['day_ref'],
  ],
  [
    't_pos_z',
    [
      { name: 'day_ref', type: 'text' },
      { name: 'branch', type: 'text' },
      { name: 'z_no', type: 'text' },
      { name: 'closed_at', type: 'text' },
      { name: 'net_total', type: 'decimal' },
      { name: 'tips', type: 'decimal' },
    ],
    ['day_ref', 'branch', 'z_no'],
  ],
  [
    't_pos_items',
    [
      { name: 'day_ref', type: 'text' },
      { name: 'branch', type: 'text' },
      { name: 'z_no', type: 'text' },
      { name: 'line_no', type: 'integer' },
      { name: 'item', type: 'text' },
      { name: 'qty', type: 'decimal' },
      { name: 'price', type: 'decimal' },
      { name: 'total', type: 'decimal' },
    ],
    ['day_ref', 'branch', 'z_no', 'line_no'],
  ],
];

export async function createFixtureSchema(driver: SqlDriver): Promise<void> {
  for (const [name, columns, key] of tables) {
    await driver.query(createTableIfMissing(driver.dialect, name, columns, key));
  }
}

/** The statements an administrator would write for the schema above (portable SQL, no dialect features). */
export const fixtureStatements: ErpStatements = {
  catalog: {
    products: `SELECT sku, name, unit, pack_qty AS package_quantity, vat_exempt FROM t_items ORDER BY sku`,
    prices: `SELECT price_list, sku, price FROM t_prices ORDER BY price_list, sku`,
    availability: `SELECT sku, in_stock AS available FROM t_items ORDER BY sku`,
  },
  orders: {
    find: `SELECT erp_order_number, status FROM t_order_header WHERE api_order_id = :api_order_id`,
    insert_header: `INSERT INTO t_order_header (seq, erp_order_number, api_order_id, customer_number, delivery_date,
        total_with_vat, status, notes)
      SELECT COALESCE(MAX(seq), 1000) + 1, CAST(COALESCE(MAX(seq), 1000) + 1 AS VARCHAR(20)), :api_order_id,
        :customer_number, :delivery_date, :total_with_vat, 'open', :notes
      FROM t_order_header`,
    insert_line: `INSERT INTO t_order_line (erp_order_number, line_no, item_code, quantity, unit_price, api_line_id)
      VALUES (:erp_order_number, :line_number, :item_code, :quantity, :unit_price, :api_line_id)`,
    update_header: `UPDATE t_order_header SET delivery_date = :delivery_date, notes = :notes
      WHERE erp_order_number = :erp_order_number`,
    delete_lines: `DELETE FROM t_order_line WHERE erp_order_number = :erp_order_number`,
    cancel: `UPDATE t_order_header SET status = 'cancelled', notes = :reason WHERE erp_order_number = :erp_order_number`,
  },
  documents: {
    pending: `SELECT ref, doc_type AS type, doc_number AS number, doc_date AS date, customer_number,
        before_vat AS total_before_vat, vat, with_vat AS total_with_vat, pdf_path AS attachment_path, api_order_id
      FROM t_docs WHERE api_document_id IS NULL ORDER BY ref`,
    lines: `SELECT line_no AS line_number, item_code, description, quantity, unit_price, total
      FROM t_doc_lines WHERE ref = :ref ORDER BY line_no`,
    mark_sent: `UPDATE t_docs SET api_document_id = :api_document_id WHERE ref = :ref`,
  },
  confirmations: {
    pending: `SELECT c.ref, c.api_order_id, h.erp_order_number, c.kind, c.reason
      FROM t_confirmations c LEFT JOIN t_order_header h ON h.api_order_id = c.api_order_id
      WHERE c.sent = 0 ORDER BY c.ref`,
    lines: `SELECT item_code, qty AS quantity_confirmed, substitute AS substitute_item_code
      FROM t_confirmation_lines WHERE ref = :ref ORDER BY line_no`,
    mark_sent: `UPDATE t_confirmations SET sent = 1 WHERE ref = :ref`,
  },
  sales: {
    pending: `SELECT day_ref AS ref FROM t_pos_days WHERE state = 'closed' ORDER BY day_ref`,
    z_reports: `SELECT branch AS branch_code, z_no AS z_number, closed_at, net_total AS total_before_vat, tips
      FROM t_pos_z WHERE day_ref = :ref ORDER BY branch, z_no`,
    item_sales: `SELECT i.branch AS branch_code, i.z_no AS z_number, i.line_no AS line_number,
        z.closed_at AS value_date, i.item AS item_code, i.item AS item_name, i.qty AS quantity,
        i.price AS unit_price, i.total
      FROM t_pos_items i JOIN t_pos_z z ON z.day_ref = i.day_ref AND z.branch = i.branch AND z.z_no = i.z_no
      WHERE i.day_ref = :ref ORDER BY i.line_no`,
    mark: `UPDATE t_pos_days SET state = :outcome WHERE day_ref = :ref`,
  },
};
