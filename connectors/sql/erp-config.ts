import { z } from 'zod';

/** One named-parameter statement (`:name` or `@name`). */
const statement = z.string().trim().min(1);

/**
 * Every statement the ERP flows need, written by the ERP administrator against their own schema. SELECTs alias
 * their columns to the names documented per statement; writes receive the documented parameters and may use any
 * subset. A section left out means the connector does not offer that capability.
 */
export const erpStatementsSchema = z.strictObject({
  catalog: z
    .strictObject({
      /** -> sku, name, unit, package_quantity, category, barcode, vat_exempt, external_ref */
      products: statement,
      /** -> price_list, sku, price, min_quantity, valid_from */
      prices: statement.optional(),
      /** -> sku, available, available_until */
      availability: statement.optional(),
    })
    .optional(),
  orders: z
    .strictObject({
      /** :api_order_id -> erp_order_number, status */
      find: statement,
      /** header parameters; may return erp_order_number (else `find` is run in the same transaction) */
      insert_header: statement,
      /** header parameters + :erp_order_number and the line parameters */
      insert_line: statement,
      /** header parameters + :erp_order_number */
      update_header: statement.optional(),
      /** :api_order_id, :erp_order_number; run before re-inserting lines on update */
      delete_lines: statement.optional(),
      /** :api_order_id, :erp_order_number, :reason */
      cancel: statement.optional(),
    })
    .optional(),
  documents: z
    .strictObject({
      /** -> ref, type, number, date, due_date, customer_number, ship_to, purchase_type, allocation_number,
       * currency, total_before_vat, vat, total_with_vat, discount, attachment_path, api_order_id */
      pending: statement,
      /** :ref -> line_number, item_code, description, quantity, unit, unit_price, discount_pct, total, vat_exempt,
       * api_order_id, api_order_line_id */
      lines: statement,
      /** :ref, :api_document_id */
      mark_sent: statement,
    })
    .optional(),
  reactions: z
    .strictObject({
      /** :api_document_id, :document_type, :document_number, :buyer_status, :occurred_at */
      update_status: statement,
      /** same parameters; clears earlier differences so a reaction can be re-applied */
      clear_differences: statement.optional(),
      /** reaction parameters + :line_ref, :item_code, :field, :issued, :received, :note */
      insert_difference: statement.optional(),
    })
    .optional(),
  confirmations: z
    .strictObject({
      /** -> ref, api_order_id, erp_order_number, kind (full | partial | reject), reason */
      pending: statement,
      /** :ref -> api_line_id, item_code, quantity_confirmed, substitute_item_code, notes */
      lines: statement,
      /** :ref */
      mark_sent: statement,
    })
    .optional(),
  customers: z
    .strictObject({
      /** -> customer_number, name, tax_id, erp_ref, email, price_list */
      list: statement,
    })
    .optional(),
  sales: z
    .strictObject({
      /** -> ref (one row per unprocessed batch, for example a closed business day per branch) */
      pending: statement,
      /** :ref -> branch_code, z_number, closed_at, total_before_vat, and any further Z-report columns */
      z_reports: statement,
      /** :ref -> branch_code, z_number, line_number, value_date, item_code, item_name, quantity, unit_price,
       * total, and any further item-sale columns */
      item_sales: statement,
      /** :ref, :outcome (done | failed) */
      mark: statement,
    })
    .optional(),
});

export type ErpStatements = z.output<typeof erpStatementsSchema>;
