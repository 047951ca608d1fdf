/** Request audit log (plan Enterprise). */
import type { AuditRequestEntry } from '../../contract/index.js';
import type { ClientContext } from '../context.js';
import { paginate, type Paginated } from '../pagination.js';
import { parsers } from '../parsers.js';
import { listSpec, type DateRange, type ListOptions } from './common.js';

export interface AuditFilters extends DateRange {
  client_id?: string;
  /** HTTP status of the audited request. */
  status?: number;
}

export function createAuditApi(ctx: ClientContext) {
  return {
    requests(options: ListOptions<AuditFilters> = {}): Paginated<AuditRequestEntry> {
      return paginate(ctx, listSpec('/audit/requests', options), parsers.auditRequest);
    },
  };
}

export type AuditApi = ReturnType<typeof createAuditApi>;
