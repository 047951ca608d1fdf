/**
 * Writes the matched ERP customer onto the linked buyer: PATCH customer_number and erp_ref with If-Match. A 412
 * (someone changed the buyer since we read it) re-reads and retries once.
 */
import type { ApiClient, PatchSupplierBuyerBody } from '../../client/index.js';
import type { ErpCustomer } from '../../connector-contract/index.js';
import type { SupplierBuyer } from '../../contract/index.js';
import { isApiError } from '../../client/index.js';
import { RecordProblem } from '../shared/failures.js';

function patchFor(buyer: SupplierBuyer, customer: ErpCustomer): PatchSupplierBuyerBody | null {
  const body: PatchSupplierBuyerBody = {};
  if (buyer.customer_number !== customer.customerNumber) body.customer_number = customer.customerNumber;
  if (customer.erpRef !== null && buyer.erp_ref !== customer.erpRef) body.erp_ref = customer.erpRef;
  return Object.keys(body).length === 0 ? null : body;
}

const isPreconditionFailed = (error: unknown) => isApiError(error) && error.status === 412;

/** Returns true when the buyer was changed, false when it already carried the customer. */
export async function linkBuyer(
  api: Pick<ApiClient, 'supplierBuyers'>,
  listed: SupplierBuyer,
  customer: ErpCustomer,
  signal: AbortSignal,
): Promise<boolean> {
  if (patchFor(listed, customer) === null) return false;
  for (let attempt = 1; ; attempt += 1) {
    const { value, etag } = await api.supplierBuyers.getWithEtag(listed.id, { signal });
    const body = patchFor(value, customer);
    if (body === null) return false;
    try {
      await api.supplierBuyers.update(listed.id, body, {
        signal,
        ...(etag === null ? {} : { ifMatch: etag }),
      });
      return true;
    } catch (error) {
      if (!isPreconditionFailed(error)) throw error;
      if (attempt >= 2) {
        throw new RecordProblem(
          `buyer ${listed.id} changed again while its ERP customer ${customer.customerNumber} was being written; the next run tries again`,
        );
      }
    }
  }
}
