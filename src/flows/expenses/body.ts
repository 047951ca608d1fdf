/**
 * A source expense -> the body of POST /expenses (without file ids), its codes mapped and checked against the
 * contract before anything is uploaded or sent: exact money, and every field rule of the request schema. Totals
 * the source does not keep are the sums of its lines.
 */
import type { CreateExpenseBody } from '../../client/index.js';
import type { SourceExpense, SourceExpenseLine } from '../../connector-contract/index.js';
import { describeIssues, formatPath, strict } from '../../contract/index.js';
import { exactMoney, sumMoney } from '../../shared/decimal.js';
import { UnmappedValueError, type ExpenseValueMaps } from './mapping.js';

/** The contract's body plus the fields the sandbox's gap G13 adds (docs/contract-gaps.md row 20). */
export type ExpenseBody = CreateExpenseBody & {
  notes?: string;
  external_ref?: string;
  file_ids?: string[];
};

export type BodyResult = { ok: true; body: ExpenseBody } | { ok: false; field: string; reason: string };

class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function money(value: string, field: string): string {
  const exact = exactMoney(value);
  if (exact === undefined)
    throw new FieldError(field, `${field}: "${value}" is not an exact amount with at most 2 fraction digits`);
  return exact;
}

function mapped(field: string, map: () => string): string {
  try {
    return map();
  } catch (error) {
    if (error instanceof UnmappedValueError) throw new FieldError(field, `${field}: ${error.message}`);
    throw error;
  }
}

const optional = <K extends string, V>(key: K, value: V | null): { [P in K]?: V } =>
  (value === null || value === '' ? {} : { [key]: value }) as { [P in K]?: V };

function lineBody(
  line: SourceExpenseLine,
  index: number,
  maps: ExpenseValueMaps,
): CreateExpenseBody['lines'][number] {
  const at = `lines[${index}]`;
  return {
    category_id: mapped(`${at}.category_id`, () => maps.category.apiValue(line.category)),
    amount_before_vat: money(line.amountBeforeVat, `${at}.amount_before_vat`),
    ...optional('vat_amount', line.vatAmount === null ? null : money(line.vatAmount, `${at}.vat_amount`)),
    ...optional(
      'purchase_type',
      line.purchaseType === null
        ? null
        : mapped(`${at}.purchase_type`, () => maps.purchaseType.apiValue(line.purchaseType ?? '')),
    ),
    ...optional(
      'branch_id',
      line.branch === null ? null : mapped(`${at}.branch_id`, () => maps.branch.apiValue(line.branch ?? '')),
    ),
    ...optional('description', line.description),
  };
}

function totalsOf(expense: SourceExpense, lines: CreateExpenseBody['lines']): CreateExpenseBody['totals'] {
  if (expense.totals !== null) {
    return {
      before_vat: money(expense.totals.beforeVat, 'totals.before_vat'),
      vat: money(expense.totals.vat, 'totals.vat'),
      with_vat: money(expense.totals.withVat, 'totals.with_vat'),
    };
  }
  const beforeVat = sumMoney(lines.map((line) => line.amount_before_vat));
  const vat = sumMoney(lines.map((line) => line.vat_amount ?? '0.00'));
  return { before_vat: beforeVat, vat, with_vat: sumMoney([beforeVat, vat]) };
}

/** Builds the body and checks every field rule of the request schema. */
export function buildExpenseBody(expense: SourceExpense, maps: ExpenseValueMaps): BodyResult {
  let body: ExpenseBody;
  try {
    const lines = expense.lines.map((line, index) => lineBody(line, index, maps));
    body = {
      vendor_id: mapped('vendor_id', () => maps.vendor.apiValue(expense.vendor)),
      doc_type: expense.docType as CreateExpenseBody['doc_type'],
      doc_date: expense.docDate,
      branch_id: mapped('branch_id', () => maps.branch.apiValue(expense.branch)),
      vat_mode: expense.vatMode as CreateExpenseBody['vat_mode'],
      totals: totalsOf(expense, lines),
      lines,
      ...optional('merchant_name', expense.merchantName),
      ...optional('doc_number', expense.docNumber),
      ...optional('allocation_number', expense.allocationNumber),
      ...optional('due_date', expense.dueDate),
      ...optional('accounting_period', expense.accountingPeriod),
      ...optional(
        'purchase_type',
        expense.purchaseType === null
          ? null
          : mapped('purchase_type', () => maps.purchaseType.apiValue(expense.purchaseType ?? '')),
      ),
      ...optional('payment_method', expense.paymentMethod),
      ...optional('notes', expense.notes),
      external_ref: expense.ref,
    };
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, field: error.field, reason: error.message };
    throw error;
  }
  if (body.lines.length === 0)
    return { ok: false, field: 'lines', reason: 'lines: the expense has no lines' };
  const parsed = strict.CreateExpenseRequest.safeParse(body);
  if (parsed.success) return { ok: true, body };
  const issues = parsed.error.issues.map((issue) => ({
    path: formatPath(issue.path),
    message: issue.message,
  }));
  return { ok: false, field: issues[0]?.path ?? '', reason: describeIssues(issues) };
}
