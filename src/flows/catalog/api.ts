/** The part of the API client the catalog flow uses (a narrow seam for tests, benchmarks and crash harnesses). */
import type { ApiClient } from '../../client/index.js';

export interface CatalogApi {
  catalog: Pick<ApiClient['catalog'], 'upsertProducts' | 'deleteProduct' | 'setAvailability'>;
  priceLists: Pick<ApiClient['priceLists'], 'putPrices' | 'assignBuyer'>;
  supplierBuyers: Pick<ApiClient['supplierBuyers'], 'list'>;
}
