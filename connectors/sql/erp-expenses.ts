import type { ExpenseSource } from '../../src/connector-contract/capabilities.js';
import type { SourceExpense, SourceExpenseLine } from '../../src/connector-contract/expenses.js';
import type { SqlDriver } from '../../src/kit/sql/driver.js';
import type { ErpStatements } from './erp-config.js';
import { readRows, type ReaderOf } from '../../src/kit/row-reader.js';
import { bound, statementContract, type StatementContract } from './statement-contract.js';

type ExpenseStatements = NonNullable<ErpStatements['expenses']>;

export const expenseContracts = {
  pending: statementContract('expenses.pending', {
    columns: ['ref', 'vendor', 'doc_type', 'doc_date', 'branch'],
    optionalColumns: [
      'merchant_name',
      'doc_number',
      'allocation_number',
      'due_date',
      'accounting_period',
      'purchase_type',
      'vat_mode',
      'total_before_vat',
      'vat',
      'total_with_vat',
      'payment_method',
      'notes',
      'attachment_path',
    ],
  }),
  lines: statementContract('expenses.lines', {
    params: ['ref'],
    columns: ['line_number', 'category', 'amount_before_vat'],
    optionalColumns: ['vat_amount', 'purchase_type', 'branch', 'description'],
  }),
  mark_sent: statementContract('expenses.mark_sent', { params: ['ref', 'api_expense_id'] }),
} satisfies Record<keyof ExpenseStatements, StatementContract>;

type HeaderReader = ReaderOf<typeof expenseContracts.pending>;
type LineReader = ReaderOf<typeof expenseContracts.lines>;

/** Expenses a back-office database holds and has not sent yet, with their lines and receipt path. */
export class SqlExpenseSource implements ExpenseSource {
  constructor(
    private readonly driver: SqlDriver,
    private readonly statements: ExpenseStatements,
    private readonly connectorName: string,
  ) {}

  async listPendingExpenses(): Promise<SourceExpense[]> {
    const { rows } = await this.driver.query(this.statements.pending);
    const headers = readRows(this.connectorName, expenseContracts.pending, rows, readHeader);
    const expenses: SourceExpense[] = [];
    for (const header of headers) {
      const result = await this.driver.query(
        this.statements.lines,
        bound(expenseContracts.lines, { ref: header.ref }),
      );
      const lines = readRows(this.connectorName, expenseContracts.lines, result.rows, readLine);
      expenses.push({ ...header, lines: lines.sort((a, b) => a.lineNumber - b.lineNumber) });
    }
    return expenses;
  }

  async markExpenseSent(ref: string, apiExpenseId: string): Promise<void> {
    await this.driver.transaction((tx) =>
      tx.query(
        this.statements.mark_sent,
        bound(expenseContracts.mark_sent, { ref, api_expense_id: apiExpenseId }),
      ),
    );
  }
}

function readTotals(row: HeaderReader): SourceExpense['totals'] {
  const beforeVat = row.optionalDecimal('total_before_vat');
  const vat = row.optionalDecimal('vat');
  const withVat = row.optionalDecimal('total_with_vat');
  if (beforeVat === null || vat === null || withVat === null) return null;
  return { beforeVat, vat, withVat };
}

function readHeader(row: HeaderReader): Omit<SourceExpense, 'lines'> {
  const attachment = row.optionalText('attachment_path');
  return {
    ref: row.text('ref'),
    vendor: row.text('vendor'),
    merchantName: row.optionalText('merchant_name'),
    docType: row.text('doc_type'),
    docNumber: row.optionalText('doc_number'),
    allocationNumber: row.optionalText('allocation_number'),
    docDate: row.date('doc_date'),
    dueDate: row.optionalDate('due_date'),
    accountingPeriod: row.optionalText('accounting_period'),
    branch: row.text('branch'),
    purchaseType: row.optionalText('purchase_type'),
    vatMode: row.optionalText('vat_mode') ?? 'with_vat',
    totals: readTotals(row),
    paymentMethod: row.optionalText('payment_method'),
    notes: row.optionalText('notes'),
    attachmentPaths: attachment === null || attachment === '' ? [] : [attachment],
  };
}

function readLine(row: LineReader): SourceExpenseLine {
  return {
    lineNumber: row.integer('line_number'),
    category: row.text('category'),
    amountBeforeVat: row.decimal('amount_before_vat'),
    vatAmount: row.optionalDecimal('vat_amount'),
    purchaseType: row.optionalText('purchase_type'),
    branch: row.optionalText('branch'),
    description: row.optionalText('description'),
  };
}
