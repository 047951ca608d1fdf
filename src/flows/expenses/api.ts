/** The part of the API client the expenses flow uses (a narrow seam for tests and crash harnesses). */
import type { ApiClient } from '../../client/index.js';

export interface ExpensesApi {
  expenses: Pick<ApiClient['expenses'], 'create' | 'list'>;
  files: Pick<ApiClient['files'], 'upload'>;
}
