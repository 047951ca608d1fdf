/** The request audit log (part 4.15): every /v2 request recorded, sensitive query values redacted, never a key. */
import type { RouteDef } from '../http/types.js';
import { validationError } from '../http/problem.js';
import { inDateRange, paginate, parseDateRange } from '../http/paging.js';
import type { PlatformContext } from './context.js';
import type { AuditEntry } from './state.js';

const MAX_ENTRIES = 20_000;
const SENSITIVE = /(key|secret|token|password|signature|authorization|code)/i;

/** The query string with values of sensitive parameters replaced; null when empty. */
export function redactQuery(query: URLSearchParams): string | null {
  const copy = new URLSearchParams();
  for (const [name, value] of query) copy.append(name, SENSITIVE.test(name) ? '[REDACTED]' : value);
  const text = copy.toString();
  return text === '' ? null : text;
}

export function recordAudit(ctx: PlatformContext, entry: AuditEntry): void {
  ctx.state.audit.push(entry);
  // Trim in chunks so a full log does not shift the whole array on every request.
  if (ctx.state.audit.length > MAX_ENTRIES * 1.1)
    ctx.state.audit.splice(0, ctx.state.audit.length - MAX_ENTRIES);
}

function present(entry: AuditEntry): Record<string, unknown> {
  const { account_id: _account, ...visible } = entry;
  return visible;
}

export function auditRoutes(ctx: PlatformContext): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/audit/requests',
      minPlan: 'Enterprise',
      group: 'audit',
      handle(req) {
        const range = parseDateRange(req.query);
        const clientId = req.query.get('client_id');
        const statusRaw = req.query.get('status');
        if (statusRaw !== null && !/^\d{3}$/.test(statusRaw)) {
          throw validationError([
            { field: 'status', code: 'invalid_format', message: 'An HTTP status code.' },
          ]);
        }
        const rows = ctx.state.audit.filter(
          (entry) =>
            entry.account_id === req.caller.accountId &&
            inDateRange(entry.timestamp, range) &&
            (clientId === null || entry.client_id === clientId) &&
            (statusRaw === null || entry.status === Number(statusRaw)),
        );
        const page = paginate(rows, req.query, (entry) => ({ at: entry.timestamp, id: entry.request_id }));
        return { status: 200, body: { ...page, data: page.data.map(present) } };
      },
    },
  ];
}
