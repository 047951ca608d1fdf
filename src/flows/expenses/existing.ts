/**
 * Finding an expense whose creation outlived the API's idempotency window (24 hours): an unanswered request older
 * than that cannot be replayed, so the expenses changed since it was sent are read for its external_ref. The
 * external_ref is the source's reference, which another job's source may share (a SQL back office and a CSV drop
 * folder of one buyer), so an expense counts only when the document it records is the one sent too: vendor,
 * document type, number, date and branch.
 */
import type { ExpensesApi } from './api.js';
import type { ExpenseBody } from './body.js';

/** An hour short of the API's 24 hours, so a replay is never asked of a key the API may just have forgotten. */
export const IDEMPOTENCY_WINDOW_MS = 23 * 3_600_000;
/** Clock skew between this host and the API. */
const SKEW_MS = 10 * 60_000;

export async function findExpenseByRef(
  api: ExpensesApi,
  ref: string,
  sent: ExpenseBody,
  sentAt: number,
  signal: AbortSignal,
): Promise<string | null> {
  const since = new Date(sentAt - SKEW_MS).toISOString();
  for await (const expense of api.expenses.list({ updated_since: since, limit: 200, signal }).items()) {
    if (expense.external_ref !== ref) continue;
    if (
      expense.vendor_id === sent.vendor_id &&
      expense.doc_type === sent.doc_type &&
      (expense.doc_number ?? null) === (sent.doc_number ?? null) &&
      expense.doc_date === sent.doc_date &&
      expense.branch_id === sent.branch_id
    )
      return expense.id;
  }
  return null;
}
