/** Buyer expenses: creation with the demo buyer's blocking rules (G13), approval into journal lines (G10, G11). */
import type * as z from 'zod';
import type { DomainEnv } from './env.js';
import { clone, newId, nowIso, raiseToBuyer, stampAfter } from './env.js';
import { conflict, invalid, notFound, type ValidationItem } from './errors.js';
import { announceApproved, buildJournalLines, groupDebits } from './journal.js';
import { resolveExpenseAccount } from './lookup.js';
import { cents, divRound, money, sum } from './money.js';
import type { ExpenseBody } from './requests.js';
import type { Expense, ExpenseTotals, JournalLine } from './types.js';

/** The G13 gap fields are spread into the contract schema from a plain shape, so their types are restated here. */
export type ExpenseInput = z.output<typeof ExpenseBody> & {
  notes?: string | null | undefined;
  external_ref?: string | null | undefined;
  file_ids?: readonly string[] | undefined;
};

/** Document types that need an attached file before the demo buyer accepts them. */
const ATTACHMENT_REQUIRED = new Set([
  'tax_invoice',
  'invoice_receipt',
  'receipt',
  'credit_note',
  'payment_request',
  'charge_notice',
]);
const ALLOCATION_DOC_TYPES = new Set(['tax_invoice', 'invoice_receipt', 'credit_note']);
const ALLOCATION_THRESHOLD_CENTS = 500_000n;

export interface ExpenseOptions {
  accountId: string;
  source: string;
  /** The control plane creates expenses without real files. */
  enforceAttachments: boolean;
}

/** Every rule the expense breaks, in the order the buyer reports them. */
function checkExpense(env: DomainEnv, input: ExpenseInput, options: ExpenseOptions): ValidationItem[] {
  return [
    ...partyProblems(env, input),
    ...totalProblems(input),
    ...attachmentProblems(env, input, options),
    ...lineProblems(env, input),
  ];
}

/** The vendor (a card vendor needs the merchant's name) and the branch. */
function partyProblems(env: DomainEnv, input: ExpenseInput): ValidationItem[] {
  const errors: ValidationItem[] = [];
  const vendor = env.state.vendors[input.vendor_id];
  if (!vendor)
    errors.push({
      field: 'vendor_id',
      code: 'not_found',
      message: `Supplier ${input.vendor_id} was not found.`,
    });
  if (vendor?.vendor_type === 'card' && !input.merchant_name)
    errors.push({
      field: 'merchant_name',
      code: 'required',
      message: 'merchant_name is required for card vendors.',
    });
  if (!env.state.branches[input.branch_id])
    errors.push({
      field: 'branch_id',
      code: 'not_found',
      message: `Branch ${input.branch_id} was not found.`,
    });
  return errors;
}

/** Totals that add up, and an allocation number above the threshold. */
function totalProblems(input: ExpenseInput): ValidationItem[] {
  const errors: ValidationItem[] = [];
  const beforeVat = cents(input.totals.before_vat);
  if (sum(input.lines.map((line) => cents(line.amount_before_vat))) !== beforeVat) {
    errors.push({
      field: 'totals.before_vat',
      code: 'invalid_format',
      message: 'totals.before_vat must equal the sum of amount_before_vat.',
    });
  }
  if (cents(input.totals.with_vat) !== beforeVat + cents(input.totals.vat)) {
    errors.push({
      field: 'totals.with_vat',
      code: 'invalid_format',
      message: 'totals.with_vat must equal before_vat + vat.',
    });
  }
  if (
    ALLOCATION_DOC_TYPES.has(input.doc_type) &&
    beforeVat > ALLOCATION_THRESHOLD_CENTS &&
    !input.allocation_number
  ) {
    errors.push({
      field: 'allocation_number',
      code: 'required',
      message: 'An allocation number is required above 5,000.00 ILS.',
    });
  }
  return errors;
}

/** The mandatory attachment, and files that exist. */
function attachmentProblems(env: DomainEnv, input: ExpenseInput, options: ExpenseOptions): ValidationItem[] {
  const errors: ValidationItem[] = [];
  const files = input.file_ids ?? [];
  if (options.enforceAttachments && ATTACHMENT_REQUIRED.has(input.doc_type) && files.length === 0) {
    errors.push({
      field: 'file_ids',
      code: 'attachment_required',
      message: `The buyer requires an attachment for ${input.doc_type} documents.`,
    });
  }
  files.forEach((fileId, index) => {
    if (!env.services.files.exists(options.accountId, fileId))
      errors.push({
        field: `file_ids[${index}]`,
        code: 'not_found',
        message: `File ${fileId} was not found.`,
      });
  });
  return errors;
}

/** Each line's category exists and maps to an expense account. */
function lineProblems(env: DomainEnv, input: ExpenseInput): ValidationItem[] {
  const errors: ValidationItem[] = [];
  input.lines.forEach((line, index) => {
    if (!env.state.expenseCategories.some((category) => category.id === line.category_id)) {
      errors.push({
        field: `lines[${index}].category_id`,
        code: 'not_found',
        message: `Expense category ${line.category_id} was not found.`,
      });
    } else if (
      resolveExpenseAccount(env, line.category_id, line.purchase_type ?? input.purchase_type ?? null) === null
    ) {
      errors.push({
        field: `lines[${index}].category_id`,
        code: 'no_account_mapping',
        message: `No expense account is mapped for category ${line.category_id}.`,
      });
    }
  });
  return errors;
}

/** Deductible VAT from each line's category treatment (two_thirds keeps 2/3 of the VAT). */
function deductibleVat(env: DomainEnv, input: ExpenseInput): bigint {
  return sum(
    input.lines.map((line) => {
      const vat = cents(line.vat_amount ?? '0.00');
      const treatment = env.state.expenseCategories.find(
        (category) => category.id === line.category_id,
      )?.default_vat_treatment;
      return treatment === 'two_thirds' ? divRound(vat * 2n, 3n) : vat;
    }),
  );
}

function expenseTotals(env: DomainEnv, input: ExpenseInput): ExpenseTotals {
  const { before_vat, vat, with_vat, discount, deductible_vat } = input.totals;
  const totals: ExpenseTotals = {
    before_vat,
    vat,
    with_vat,
    deductible_vat: deductible_vat ?? money(deductibleVat(env, input)),
  };
  if (discount !== undefined) totals.discount = discount;
  return totals;
}

export function createExpense(env: DomainEnv, input: ExpenseInput, options: ExpenseOptions): Expense {
  const errors = checkExpense(env, input, options);
  if (errors.length > 0) throw invalid(errors, 'The expense is blocked by the buyer rules.');
  const vendor = env.state.vendors[input.vendor_id];
  if (!vendor) throw notFound('Supplier', input.vendor_id);
  const now = nowIso(env);
  const purchaseType = input.purchase_type ?? null;
  for (const fileId of input.file_ids ?? []) env.services.files.markReferenced(fileId);
  const expense: Expense = {
    id: newId(env, 'exp'),
    vendor_id: vendor.id,
    vendor: { id: vendor.id, name: vendor.name },
    merchant_name: input.merchant_name ?? null,
    doc_type: input.doc_type,
    doc_number: input.doc_number ?? null,
    allocation_number: input.allocation_number ?? null,
    doc_date: input.doc_date,
    due_date: input.due_date ?? null,
    accounting_period: input.accounting_period ?? input.doc_date.slice(0, 7),
    branch_id: input.branch_id,
    purchase_type: purchaseType,
    vat_mode: input.vat_mode,
    currency: 'ILS',
    totals: expenseTotals(env, input),
    payment_method: input.payment_method ?? null,
    payment_status: 'unpaid',
    paid_at: null,
    status: 'pending_approval',
    source: options.source,
    lines: input.lines.map((line) => ({
      id: newId(env, 'eln'),
      category_id: line.category_id,
      amount_before_vat: line.amount_before_vat,
      vat_amount: line.vat_amount ?? '0.00',
      purchase_type: line.purchase_type ?? null,
      branch_id: line.branch_id ?? null,
      description: line.description ?? null,
      expense_account: resolveExpenseAccount(env, line.category_id, line.purchase_type ?? purchaseType),
    })),
    files: (input.file_ids ?? []).map((fileId) => ({ id: fileId, name: fileId })),
    notes: input.notes ?? null,
    approved_by: null,
    approved_at: null,
    exported_at: null,
    external_ref: input.external_ref ?? null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  env.state.expenses[expense.id] = expense;
  raiseToBuyer(env, 'expense.created', expenseEventData(expense));
  return expense;
}

export const expenseEventData = (
  expense: Expense,
): { object: string; id: string } & Record<string, unknown> => ({
  ...clone(expense),
  object: 'expense',
  id: expense.id,
});

/** Journal lines of an expense: non-deductible VAT is booked with the first debit line. */
export function journalForExpense(env: DomainEnv, expense: Expense): JournalLine[] {
  const vat = cents(expense.totals.vat);
  const deductible = expense.totals.deductible_vat === undefined ? vat : cents(expense.totals.deductible_vat);
  const grouped = groupDebits(
    expense.lines.map((line) => ({
      account: line.expense_account ?? '',
      categoryId: line.category_id,
      amount: cents(line.amount_before_vat),
    })),
  );
  const debits = grouped.map((debit, index) =>
    index === 0 ? { ...debit, amount: debit.amount + vat - deductible } : debit,
  );
  return buildJournalLines(
    env,
    {
      documentId: expense.id,
      documentType: expense.doc_type,
      documentNumber: expense.doc_number ?? expense.id,
      source:
        expense.source === 'card_import' ? 'card' : expense.source === 'migration' ? 'migration' : 'expense',
      vendorId: expense.vendor_id,
      branchId: expense.branch_id,
      purchaseType: expense.purchase_type,
      allocationNumber: expense.allocation_number,
      docDate: expense.doc_date,
      accountingPeriod: expense.accounting_period,
      debits,
      vat: deductible,
      credit: cents(expense.totals.with_vat),
    },
    'approved_for_export',
  );
}

/** pending_approval -> approved; blocked while a line has no expense account. */
export function approveExpense(
  env: DomainEnv,
  expenseId: string,
  announce = true,
): { expense: Expense; lines: JournalLine[] } {
  const expense = env.state.expenses[expenseId];
  if (!expense) throw notFound('Expense', expenseId);
  if (expense.status === 'approved' || expense.status === 'exported') return { expense, lines: [] };
  if (expense.status !== 'pending_approval')
    throw conflict(`Expense ${expenseId} cannot be approved from status ${expense.status}.`);
  const unmapped = expense.lines.findIndex((line) => line.expense_account === null);
  if (unmapped >= 0)
    throw invalid([
      {
        field: `lines[${unmapped}].expense_account`,
        code: 'no_account_mapping',
        message: 'A line has no expense account.',
      },
    ]);
  const now = stampAfter(env, expense.updated_at);
  expense.status = 'approved';
  expense.approved_by = 'usr_demo_buyer';
  expense.approved_at = now;
  expense.updated_at = now;
  const lines = journalForExpense(env, expense);
  if (announce) {
    raiseToBuyer(env, 'expense.approved', expenseEventData(expense));
    announceApproved(
      env,
      lines.map((line) => line.id),
    );
  }
  return { expense, lines };
}
