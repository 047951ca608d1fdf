/**
 * approve_journal_lines: fresh balanced invoices, received and approved for export at once, producing exactly the
 * requested number of journal lines and a single journal_lines.approved_for_export event (accounting at scale).
 * It reports the rows it adds to the list indexes itself (see list-index.ts).
 */
import { DEMO_SUPPLIER_ACCOUNT_ID } from '../http/types.js';
import { approveDocument, receiveDocument } from './document-review.js';
import { createDocument, type DocumentLineInput } from './documents.js';
import type { DomainEnv } from './env.js';
import { announceApproved } from './journal.js';
import { noteRowsWritten } from './list-index.js';
import type { JournalLine, PurchaseDocument } from './types.js';
import { invalidField } from './errors.js';
import { cents, money, sum, vatOf } from './money.js';
import { DEMO_BUYER_ID } from '../../demo-data/index.js';
import { today } from './env.js';

/** Families booked to four distinct purchase accounts, so a document's debit lines can be counted exactly. */
const FAMILIES_BY_ACCOUNT = ['MEA-', 'DAI-', 'DRY-', 'BEV-'];

/** One product per family: looked up once per call, not per document (the catalog is scanned each time). */
function familySkus(env: DomainEnv): string[] {
  const skus = Object.keys(env.state.products);
  return FAMILIES_BY_ACCOUNT.map((prefix) => skus.find((sku) => sku.startsWith(prefix)) ?? `${prefix}0001`);
}

function linesFor(
  env: DomainEnv,
  skus: readonly string[],
  debitAccounts: number,
  serial: number,
): DocumentLineInput[] {
  return skus.slice(0, debitAccounts).map((sku, index) => {
    const product = env.state.products[sku];
    const unitPrice = money(BigInt(1000 + ((serial * 37 + index * 101) % 9000)));
    return {
      sku,
      name: product?.name ?? sku,
      quantity: '2',
      unit: product?.unit ?? 'unit',
      unit_price: unitPrice,
      vat_exempt: false,
      total: money(cents(unitPrice) * 2n),
    };
  });
}

/** Splits `count` lines into documents of 3 lines (1 debit + vat + credit), the last one taking 4 or 5. */
export function documentShapes(count: number): number[] {
  if (!Number.isInteger(count) || count < 3)
    throw invalidField(
      'count',
      'out_of_range',
      'count must be an integer of at least 3 (one debit, one vat and one credit line).',
    );
  const shapes = Array.from({ length: Math.floor(count / 3) }, () => 1);
  const remainder = count % 3;
  if (remainder > 0) shapes[shapes.length - 1] = 1 + remainder;
  return shapes;
}

export function approveJournalLinesInBulk(
  env: DomainEnv,
  count: number,
): { journal_line_ids: string[]; document_ids: string[] } {
  const quiet: DomainEnv = { ...env, muted: true };
  const lineIds: string[] = [];
  const documents: PurchaseDocument[] = [];
  const journalLines: JournalLine[] = [];
  const date = today(env);
  const skus = familySkus(env);
  for (const debitAccounts of documentShapes(count)) {
    const serial = env.state.nextId;
    const lines = linesFor(env, skus, debitAccounts, serial);
    const beforeVat = sum(lines.map((line) => cents(line.total)));
    const vat = vatOf(beforeVat);
    const doc = createDocument(quiet, DEMO_SUPPLIER_ACCOUNT_ID, {
      type: 'invoice',
      number: `BULK-${serial}`,
      date,
      buyer_id: DEMO_BUYER_ID,
      branch_id: 'br_tlv',
      purchase_type: 'FC',
      currency: 'ILS',
      totals: { before_vat: money(beforeVat), vat: money(vat), with_vat: money(beforeVat + vat) },
      lines,
    });
    receiveDocument(quiet, doc.id);
    const approved = approveDocument(quiet, doc.id, false);
    documents.push(doc);
    for (const line of approved.lines) {
      lineIds.push(line.id);
      journalLines.push(line);
    }
  }
  noteRowsWritten(env, env.state.documents, documents);
  noteRowsWritten(env, env.state.journalLines, journalLines);
  announceApproved(env, lineIds);
  return { journal_line_ids: lineIds, document_ids: documents.map((doc) => doc.id) };
}
