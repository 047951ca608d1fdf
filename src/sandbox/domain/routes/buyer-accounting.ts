/** Buyer accounting (4.9, G10-G12): journal lines, exports of them and the export batches. */
import type { Reply, RequestContext, RouteDef } from '../../http/types.js';
import { exportJournalLines, getExportBatch } from '../accounting.js';
import type { DomainEnv } from '../env.js';
import { clone } from '../env.js';
import { invalidField } from '../errors.js';
import { AccountingExportBody } from '../requests.js';
import { parseBody } from '../validate.js';
import { BUYER_GROUP, NOTHING, indexedPageReply, isDemoBuyer, ok, requireOwner } from './common.js';

const JOURNAL_STATUSES = new Set(['not_ready', 'approved_for_export', 'exported']);

/** A page of journal lines; a status filter scans only the lines of that status. */
function journalLinesPage(env: DomainEnv, ctx: RequestContext): Reply {
  const period = ctx.query.get('period');
  const status = ctx.query.get('status');
  const branchId = ctx.query.get('branch_id');
  const source = ctx.query.get('source');
  if (period !== null && !/^\d{4}-(0[1-9]|1[0-2])$/.test(period))
    throw invalidField('period', 'invalid_format', 'period must be YYYY-MM.');
  if (status !== null && !JOURNAL_STATUSES.has(status))
    throw invalidField(
      'status',
      'invalid_enum',
      'status must be not_ready, approved_for_export or exported.',
    );
  return indexedPageReply(
    env,
    isDemoBuyer(ctx) ? env.state.journalLines : NOTHING,
    ctx.query,
    (line) =>
      (period === null || line.accounting_period === period) &&
      (status === null || line.status === status) &&
      (branchId === null || line.branch_id === branchId) &&
      (source === null || line.source === source),
    undefined,
    status === null ? null : { field: 'status', value: status },
  );
}

export function buyerAccountingRoutes(env: DomainEnv): RouteDef[] {
  const base = { accountType: 'buyer', group: BUYER_GROUP, minPlan: 'Pro' } as const;
  return [
    {
      ...base,
      method: 'GET',
      path: '/accounting/journal-lines',
      scope: 'buyer.accounting:read',
      handle: (ctx) => journalLinesPage(env, ctx),
    },
    {
      ...base,
      method: 'POST',
      path: '/accounting/exports',
      scope: 'buyer.accounting:write',
      idempotency: 'required',
      handle: (ctx) => {
        const input = parseBody(AccountingExportBody, ctx.body);
        requireOwner(isDemoBuyer(ctx), 'Journal line', input.journal_line_ids[0] ?? '');
        const batch = exportJournalLines(env, input, {
          clientId: ctx.caller.clientId,
          clientName: ctx.caller.clientName,
        });
        return { status: 201, body: clone(batch) };
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/accounting/exports/:export_batch_id',
      scope: 'buyer.accounting:read',
      handle: (ctx) => {
        const id = ctx.params['export_batch_id'] ?? '';
        requireOwner(isDemoBuyer(ctx), 'Export batch', id);
        return ok(clone(getExportBatch(env, id)));
      },
    },
  ];
}
