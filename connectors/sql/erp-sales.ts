import type { SalesSource } from '../../src/connector-contract/capabilities.js';
import type { ItemSaleRecord, SalesBatch, ZReportRecord } from '../../src/connector-contract/sales.js';
import type { SqlDriver, SqlRow } from '../../src/kit/sql/driver.js';
import type { ErpStatements } from './erp-config.js';
import { readRows } from '../../src/kit/row-reader.js';
import { bound, statementContract, type StatementContract } from './statement-contract.js';

type SalesStatements = NonNullable<ErpStatements['sales']>;

export const salesContracts = {
  pending: statementContract('sales.pending', { columns: ['ref'] }),
  z_reports: statementContract('sales.z_reports', {
    params: ['ref'],
    columns: ['branch_code', 'z_number', 'closed_at', 'total_before_vat'],
    passesOtherColumns: true,
  }),
  item_sales: statementContract('sales.item_sales', {
    params: ['ref'],
    columns: [
      'branch_code',
      'z_number',
      'value_date',
      'item_code',
      'item_name',
      'quantity',
      'unit_price',
      'total',
    ],
    optionalColumns: ['line_number'],
    passesOtherColumns: true,
  }),
  mark: statementContract('sales.mark', { params: ['ref', 'outcome'] }),
} satisfies Record<keyof SalesStatements, StatementContract>;

const Z_REPORT_COLUMNS = new Set<string>(salesContracts.z_reports.columns);
const ITEM_SALE_COLUMNS = new Set<string>([
  ...salesContracts.item_sales.columns,
  ...salesContracts.item_sales.optionalColumns,
]);

/** POS sales kept in SQL: each pending ref (a closed day, a POS export) is read, pushed and then marked. */
export class SqlSalesSource implements SalesSource {
  constructor(
    private readonly driver: SqlDriver,
    private readonly statements: SalesStatements,
    private readonly connectorName: string,
  ) {}

  async listPendingSales(): Promise<SalesBatch[]> {
    const { rows } = await this.driver.query(this.statements.pending);
    const refs = readRows(this.connectorName, salesContracts.pending, rows, (row) => row.text('ref'));
    const batches: SalesBatch[] = [];
    for (const ref of refs) {
      const zRows = (
        await this.driver.query(this.statements.z_reports, bound(salesContracts.z_reports, { ref }))
      ).rows;
      const itemRows = (
        await this.driver.query(this.statements.item_sales, bound(salesContracts.item_sales, { ref }))
      ).rows;
      const zReports = readRows(
        this.connectorName,
        salesContracts.z_reports,
        zRows,
        (row): ZReportRecord => ({
          branchCode: row.text('branch_code'),
          zNumber: row.text('z_number'),
          closedAt: row.text('closed_at'),
          totalBeforeVat: row.decimal('total_before_vat'),
          fields: {},
        }),
      ).map((record, index) => ({ ...record, fields: extraFields(zRows[index], Z_REPORT_COLUMNS) }));
      const itemSales = readRows(
        this.connectorName,
        salesContracts.item_sales,
        itemRows,
        (row): ItemSaleRecord => {
          return {
            branchCode: row.text('branch_code'),
            zNumber: row.text('z_number'),
            lineNumber: row.optionalInteger('line_number'),
            valueDate: row.text('value_date'),
            itemCode: row.text('item_code'),
            itemName: row.text('item_name'),
            quantity: row.decimal('quantity'),
            unitPrice: row.decimal('unit_price'),
            total: row.decimal('total'),
            fields: {},
          };
        },
      ).map((record, index) => ({ ...record, fields: extraFields(itemRows[index], ITEM_SALE_COLUMNS) }));
      batches.push({ ref, zReports, itemSales });
    }
    return batches;
  }

  async markSalesBatch(ref: string, outcome: 'done' | 'failed'): Promise<void> {
    await this.driver.transaction((tx) =>
      tx.query(this.statements.mark, bound(salesContracts.mark, { ref, outcome })),
    );
  }
}

/** Columns beyond the required ones, passed through for the flow to map (tips, cash_total, main_category...). */
function extraFields(
  row: SqlRow | undefined,
  known: ReadonlySet<string>,
): Record<string, string | number | null> {
  const fields: Record<string, string | number | null> = {};
  for (const [name, value] of Object.entries(row ?? {})) {
    if (known.has(name)) continue;
    if (value === null || typeof value === 'string' || typeof value === 'number') fields[name] = value;
    else if (typeof value === 'bigint') fields[name] = value.toString();
  }
  return fields;
}
