/** The facts the reports add up, drawn from the sandbox's own documents, expenses and Z-reports. */
import type { DomainEnv } from './env.js';
import { cents } from './money.js';
import { DEMO_SUPPLIER_ID } from '../../demo-data/index.js';

export interface PurchaseFact {
  date: string;
  period: string;
  supplierId: string;
  supplierName: string;
  branchId: string | null;
  purchaseType: string | null;
  vendorType: string;
  source: string;
  amount: bigint;
}
export interface ExpenseFact {
  date: string;
  period: string;
  categoryId: string;
  branchId: string | null;
  purchaseType: string | null;
  amount: bigint;
  vat: bigint;
}
export interface SalesFact {
  date: string;
  branchId: string;
  amount: bigint;
}

/** Invoices and consolidated invoices add, credit notes subtract; delivery notes are not purchases (no double count). */
const SIGN: Readonly<Record<string, bigint>> = { invoice: 1n, consolidated_invoice: 1n, credit_note: -1n };
const magnitude = (value: bigint): bigint => (value < 0n ? -value : value);

export function purchaseFacts(env: DomainEnv): PurchaseFact[] {
  const facts: PurchaseFact[] = [];
  for (const doc of Object.values(env.state.documents)) {
    const sign = SIGN[doc.type];
    if (sign === undefined || doc.deleted_at !== null) continue;
    const vendor = env.state.vendors[DEMO_SUPPLIER_ID];
    facts.push({
      date: doc.date,
      period: doc.accounting_period,
      supplierId: doc.supplier.id,
      supplierName: doc.supplier.name,
      branchId: doc.branch?.id ?? null,
      purchaseType: doc.purchase_type,
      vendorType: vendor?.vendor_type ?? 'goods',
      source: doc.source,
      amount: sign * magnitude(cents(doc.totals.before_vat)),
    });
  }
  for (const expense of Object.values(env.state.expenses)) {
    const vendor = env.state.vendors[expense.vendor_id];
    if (vendor?.vendor_type !== 'goods' || expense.status === 'cancelled' || expense.deleted_at !== null)
      continue;
    const sign = expense.doc_type === 'credit_note' ? -1n : 1n;
    facts.push({
      date: expense.doc_date,
      period: expense.accounting_period,
      supplierId: vendor.id,
      supplierName: vendor.name,
      branchId: expense.branch_id,
      purchaseType: expense.purchase_type,
      vendorType: vendor.vendor_type,
      source: 'expense',
      amount: sign * magnitude(cents(expense.totals.before_vat)),
    });
  }
  return facts;
}

/** Expense lines of non-goods vendors (goods vendors are purchases), cancelled and draft expenses left out. */
export function expenseFacts(env: DomainEnv): ExpenseFact[] {
  const facts: ExpenseFact[] = [];
  for (const expense of Object.values(env.state.expenses)) {
    if (expense.status === 'cancelled' || expense.status === 'draft' || expense.deleted_at !== null) continue;
    if (env.state.vendors[expense.vendor_id]?.vendor_type === 'goods') continue;
    const sign = expense.doc_type === 'credit_note' ? -1n : 1n;
    for (const line of expense.lines) {
      facts.push({
        date: expense.doc_date,
        period: expense.accounting_period,
        categoryId: line.category_id,
        branchId: line.branch_id ?? expense.branch_id,
        purchaseType: line.purchase_type ?? expense.purchase_type,
        amount: sign * magnitude(cents(line.amount_before_vat)),
        vat: sign * magnitude(cents(line.vat_amount)),
      });
    }
  }
  return facts;
}

export function salesFacts(env: DomainEnv): SalesFact[] {
  return Object.values(env.state.zReports).map((report) => ({
    date: new Date(report.closed_at).toISOString().slice(0, 10),
    branchId: report.branch_id,
    amount: cents(report.total_before_vat),
  }));
}
