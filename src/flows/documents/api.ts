/** The part of the API client the documents flow uses (a narrow seam for tests and crash harnesses). */
import type { ApiClient } from '../../client/index.js';

export interface DocumentsApi {
  documents: Pick<ApiClient['documents'], 'create' | 'list' | 'get'>;
  files: Pick<ApiClient['files'], 'upload'>;
  supplierBuyers: Pick<ApiClient['supplierBuyers'], 'list'>;
}
