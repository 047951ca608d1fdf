/**
 * Which availability changes ride in the product batch and which need their own call. The product body has
 * `available` but no return date, and the rate limit (600 calls a minute for suppliers) makes one call per SKU
 * costly when the ERP flips stock on hundreds of items at once. So:
 * - back in stock: the product upsert carries available = true (the API clears the return date itself);
 * - out of stock without a return date, when the API holds none from us: the upsert carries available = false;
 * - out of stock with a return date, or clearing a return date we sent: POST .../availability.
 * A send whose answer was never recorded (a pending intent, possibly over an earlier one) may have left a return
 * date in the API too, so an out-of-stock change with any intent pending takes the call that sets it explicitly.
 */
import type { ErpAvailability } from '../../connector-contract/index.js';
import type { Change } from './diff.js';

export function ridesWithProduct(change: Change<ErpAvailability>): boolean {
  if (change.hash === 'in') return true;
  return (
    change.hash === 'out' && change.previous?.startsWith('out:') !== true && change.pending === undefined
  );
}
