/**
 * An ERP document -> the body of POST /supplier/documents, checked against the contract before it is sent:
 * well-formed exact decimals, lines that add up to before_vat, with_vat = before_vat + vat, and an allocation
 * number where G7 requires one. What fails is reported with a reason and never sent.
 */
import type { CreateDocumentBody } from '../../client/index.js';
import type { ErpDocument, ErpDocumentLine } from '../../connector-contract/index.js';
import { describeIssues, documentRuleViolations, formatPath, strict } from '../../contract/index.js';
import { exactMoney } from '../../shared/decimal.js';
import type { BuyerDirectory } from './directory.js';

export type BodyResult = { ok: true; body: CreateDocumentBody } | { ok: false; reason: string };

class AmountError extends Error {}

function money(value: string, field: string): string {
  const exact = exactMoney(value);
  if (exact === undefined) {
    throw new AmountError(`${field}: "${value}" is not an exact amount with at most 2 fraction digits`);
  }
  return exact;
}

function lineBody(line: ErpDocumentLine, index: number): CreateDocumentBody['lines'][number] {
  return {
    sku: line.itemCode,
    name: line.description,
    quantity: line.quantity,
    ...(line.unit === null ? {} : { unit: line.unit }),
    unit_price: money(line.unitPrice, `lines[${index}].unit_price`),
    ...(line.discountPct === null ? {} : { discount_pct: line.discountPct }),
    vat_exempt: line.vatExempt,
    total: money(line.total, `lines[${index}].total`),
    ...(line.apiOrderId === null ? {} : { order_id: line.apiOrderId }),
    ...(line.apiOrderLineId === null ? {} : { order_line_id: line.apiOrderLineId }),
  };
}

export interface BodyContext {
  directory: BuyerDirectory;
  unmappedShipTo: 'dead_letter' | 'omit';
}

/** Builds the body (without file ids) and checks every rule the API would check. */
export function buildDocumentBody(doc: ErpDocument, ctx: BodyContext): BodyResult {
  const buyer = ctx.directory.buyerFor(doc.customerNumber);
  if (buyer === undefined) {
    return {
      ok: false,
      reason: `no linked buyer has customer number ${doc.customerNumber} (set it on the buyer, or map it in the customer mapping table)`,
    };
  }
  const branchId = ctx.directory.branchFor(buyer, doc.shipTo);
  if (branchId === undefined && ctx.unmappedShipTo === 'dead_letter') {
    return {
      ok: false,
      reason: `ship-to ${doc.shipTo ?? ''} is not a branch of buyer ${buyer.id} (add it to the ship-to mapping table)`,
    };
  }
  let body: CreateDocumentBody;
  try {
    const discount = doc.discount === null ? undefined : money(doc.discount, 'totals.discount');
    body = {
      type: doc.type,
      number: doc.number,
      date: doc.date,
      ...(doc.dueDate === null ? {} : { due_date: doc.dueDate }),
      buyer_id: buyer.id,
      ...(branchId === undefined || branchId === null ? {} : { branch_id: branchId }),
      ...(doc.purchaseType === null ? {} : { purchase_type: doc.purchaseType }),
      ...(doc.apiOrderIds.length === 0 ? {} : { order_ids: [...doc.apiOrderIds] }),
      currency: doc.currency,
      totals: {
        before_vat: money(doc.totalBeforeVat, 'totals.before_vat'),
        vat: money(doc.vat, 'totals.vat'),
        with_vat: money(doc.totalWithVat, 'totals.with_vat'),
        ...(discount === undefined ? {} : { discount }),
      },
      ...(doc.allocationNumber === null || doc.allocationNumber === ''
        ? {}
        : { allocation_number: doc.allocationNumber }),
      lines: doc.lines.map(lineBody),
      external_ref: doc.ref,
    };
  } catch (error) {
    if (error instanceof AmountError) return { ok: false, reason: error.message };
    throw error;
  }
  const reason = ruleViolations(body);
  return reason === undefined ? { ok: true, body } : { ok: false, reason };
}

/** The G7 rules first (their messages name the amounts), then every field rule of the strict request schema. */
function ruleViolations(body: CreateDocumentBody): string | undefined {
  const rules = documentRuleViolations({
    type: body.type,
    totals: body.totals,
    allocation_number: body.allocation_number ?? null,
    lines: body.lines.map((line) => ({ total: line.total })),
  });
  if (rules.length > 0) {
    return describeIssues(rules.map((rule) => ({ path: formatPath(rule.path), message: rule.message })));
  }
  const parsed = strict.CreateDocumentRequest.safeParse(body);
  if (parsed.success) return undefined;
  return describeIssues(
    parsed.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message })),
  );
}
