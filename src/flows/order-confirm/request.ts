/** ERP confirmation -> the API request that carries it (G1 confirm body, or G3 reject). */
import type { ConfirmOrderBody, RejectOrderBody } from '../../client/index.js';
import type { ErpConfirmation } from '../../connector-contract/index.js';
import type { Mappings } from '../../plugin/index.js';
import { RecordProblem } from '../shared/failures.js';
import type { OrderConfirmOptions } from './options.js';

export type ConfirmationRequest =
  { kind: 'confirm'; body: ConfirmOrderBody } | { kind: 'reject'; body: RejectOrderBody };

const REASON_LIMIT = 500;

/** ERP item code -> API SKU, from the SKU mapping table read backwards; identity for unmapped codes. */
export function skuOfItem(mappings: Mappings, table: string): (itemCode: string) => string {
  const reverse = new Map<string, string>();
  for (const [sku, item] of Object.entries(mappings[table] ?? {})) reverse.set(item, sku);
  return (itemCode) => reverse.get(itemCode) ?? itemCode;
}

export function buildRequest(
  confirmation: ErpConfirmation,
  options: Pick<OrderConfirmOptions, 'default_reject_reason'>,
  skuOf: (itemCode: string) => string,
): ConfirmationRequest {
  if (confirmation.kind === 'reject') {
    const reason = (confirmation.reason ?? '').trim() || options.default_reject_reason;
    return { kind: 'reject', body: { reason: reason.slice(0, REASON_LIMIT) } };
  }
  const lines = confirmation.lines.map((line) => {
    if (line.apiLineId === null) {
      throw new RecordProblem(
        `confirmation ${confirmation.ref} has a line for item ${line.itemCode} that is not linked to an order line of ${confirmation.apiOrderId}`,
      );
    }
    return {
      line_id: line.apiLineId,
      quantity_confirmed: line.quantityConfirmed,
      ...(line.substituteItemCode === null ? {} : { substitute_sku: skuOf(line.substituteItemCode) }),
      ...(line.notes === null ? {} : { notes: line.notes }),
    };
  });
  // A full confirmation without substitutes or notes is the contract's empty body.
  const plain = lines.every((line) => !('substitute_sku' in line) && !('notes' in line));
  if (confirmation.kind === 'full' && plain) return { kind: 'confirm', body: {} };
  return { kind: 'confirm', body: { lines } };
}
