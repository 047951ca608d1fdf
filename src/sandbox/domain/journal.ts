/**
 * Journal lines (G10): per document or expense, one debit line per expense account, one vat line when VAT is
 * positive, one credit line for the total with VAT. Credit notes reverse debit and credit, and their vat line
 * counts with the credit side. Balanced by construction.
 */
import type { DomainEnv } from './env.js';
import { newId, nowIso, raiseToBuyer, valuesOf } from './env.js';
import { cents, money, sum } from './money.js';
import { INPUT_VAT_ACCOUNT } from './seed/reference.js';
import type { JournalLine } from './types.js';

export interface JournalSource {
  documentId: string;
  documentType: string;
  documentNumber: string;
  source: string;
  vendorId: string;
  branchId: string;
  purchaseType: string | null;
  allocationNumber: string | null;
  docDate: string;
  accountingPeriod: string;
  /** Amounts before VAT per expense account (and category when known), in agorot. */
  debits: readonly { account: string; categoryId: string | null; amount: bigint }[];
  vat: bigint;
  /** Total owed to the vendor (before VAT + VAT). */
  credit: bigint;
}

const REVERSED_TYPES = new Set(['credit_note']);
export const isReversed = (documentType: string): boolean => REVERSED_TYPES.has(documentType);

/** Groups amounts by account, keeping the first category seen for the account. */
export function groupDebits(
  items: readonly { account: string; categoryId: string | null; amount: bigint }[],
): JournalSource['debits'] {
  const grouped = new Map<string, { account: string; categoryId: string | null; amount: bigint }>();
  for (const item of items) {
    const existing = grouped.get(item.account);
    if (existing) existing.amount += item.amount;
    else grouped.set(item.account, { ...item });
  }
  return [...grouped.values()];
}

/** What sets one line of a source apart from the others. */
interface LineParts {
  side: JournalLine['side'];
  account: string;
  counter: string | null;
  amount: bigint;
  description: string;
  categoryId: string | null;
}

/** One debit line per account, the VAT line when there is VAT, the credit for the total; reversed sides swap. */
function lineParts(env: DomainEnv, from: JournalSource): LineParts[] {
  const vendor = env.state.vendors[from.vendorId];
  const reversed = isReversed(from.documentType);
  const creditAccount = vendor?.credit_account ?? '40000';
  const vendorName = vendor?.name ?? from.vendorId;
  const parts: LineParts[] = from.debits
    .filter((debit) => debit.amount !== 0n)
    .map((debit) => ({
      side: reversed ? 'credit' : 'debit',
      account: debit.account,
      counter: creditAccount,
      amount: debit.amount,
      description: `${from.documentType} ${from.documentNumber} ${vendorName}`,
      categoryId: debit.categoryId,
    }));
  if (from.vat > 0n)
    parts.push({
      side: 'vat',
      account: INPUT_VAT_ACCOUNT,
      counter: creditAccount,
      amount: from.vat,
      description: `VAT ${from.documentType} ${from.documentNumber}`,
      categoryId: null,
    });
  parts.push({
    side: reversed ? 'debit' : 'credit',
    account: creditAccount,
    counter: null,
    amount: from.credit,
    description: `${vendorName} ${from.documentNumber}`,
    categoryId: null,
  });
  return parts;
}

export function buildJournalLines(
  env: DomainEnv,
  from: JournalSource,
  status: JournalLine['status'],
): JournalLine[] {
  const vendor = env.state.vendors[from.vendorId];
  const branch = env.state.branches[from.branchId];
  const reversed = isReversed(from.documentType);
  const now = nowIso(env);
  // Credit notes may arrive with negative amounts; the reversed sides already carry the sign.
  const magnitude = (amount: bigint): bigint => (reversed && amount < 0n ? -amount : amount);
  const lines = lineParts(env, from).map((line): JournalLine => ({
    id: newId(env, 'jl'),
    document_id: from.documentId,
    document_type: from.documentType,
    document_number: from.documentNumber,
    source: from.source,
    side: line.side,
    account: line.account,
    counter_account: line.counter,
    amount: money(magnitude(line.amount)),
    currency: 'ILS',
    description: line.description,
    vendor_id: from.vendorId,
    vendor_tax_id: vendor?.tax_id ?? null,
    branch_id: from.branchId,
    branch_tax_id: branch?.tax_id ?? null,
    purchase_type: from.purchaseType,
    category_id: line.categoryId,
    reference: from.documentNumber,
    allocation_number: from.allocationNumber,
    doc_date: from.docDate,
    accounting_period: from.accountingPeriod,
    movement_type_code: null,
    batch_number: null,
    status,
    export_batch_id: null,
    exported_at: null,
    updated_at: now,
  }));
  const bySource = sourceIndex(env.state.journalLines);
  for (const line of lines) {
    env.state.journalLines[line.id] = line;
    addToSource(bySource, line);
  }
  return lines;
}

/**
 * Line ids by document or expense, per journal-line collection: built on first use (usually while the collection
 * is still small), then kept by `buildJournalLines`, the only place lines are added. Finding one source's lines
 * then costs those lines, not a scan of them all.
 */
const lineIdsBySource = new WeakMap<Record<string, JournalLine>, Map<string, string[]>>();

function addToSource(bySource: Map<string, string[]>, line: JournalLine): void {
  const ids = bySource.get(line.document_id);
  if (ids) ids.push(line.id);
  else bySource.set(line.document_id, [line.id]);
}

/** The journal lines of one document or expense. */
function sourceIndex(collection: Record<string, JournalLine>): Map<string, string[]> {
  let bySource = lineIdsBySource.get(collection);
  if (bySource === undefined) {
    bySource = new Map();
    for (const line of valuesOf(collection)) addToSource(bySource, line);
    lineIdsBySource.set(collection, bySource);
  }
  return bySource;
}

export function linesOfSource(env: DomainEnv, sourceId: string): JournalLine[] {
  const collection = env.state.journalLines;
  const lines: JournalLine[] = [];
  for (const id of sourceIndex(collection).get(sourceId) ?? []) {
    const line = collection[id];
    if (line !== undefined && line.document_id === sourceId) lines.push(line);
  }
  return lines;
}

/** Signed balance of one document's lines: zero when balanced (vat counts with debit, or credit when reversed). */
export function journalImbalance(lines: readonly JournalLine[]): bigint {
  const total = (side: JournalLine['side']) =>
    sum(lines.filter((line) => line.side === side).map((line) => cents(line.amount)));
  const reversed = lines.some((line) => isReversed(line.document_type));
  return reversed
    ? total('debit') - total('credit') - total('vat')
    : total('debit') + total('vat') - total('credit');
}

/** Announces freshly approved lines to the buyer (one event per approval). */
export function announceApproved(env: DomainEnv, lineIds: readonly string[]): void {
  if (lineIds.length === 0) return;
  const approvalId = newId(env, 'apr');
  raiseToBuyer(env, 'journal_lines.approved_for_export', {
    object: 'journal_lines',
    id: approvalId,
    journal_line_ids: [...lineIds],
    count: lineIds.length,
  });
}
