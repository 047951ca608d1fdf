/**
 * Finding an expense whose creation outlived the API's idempotency window (24 hours): an unanswered request older
 * than that cannot be replayed, so the expenses changed since it was sent are read for its external_ref.
 */
import type { ExpensesApi } from './api.js';

/** An hour short of the API's 24 hours, so a replay is never asked of a key the API may just have forgotten. */
export const IDEMPOTENCY_WINDOW_MS = 23 * 3_600_000;
/** Clock skew between this host and the API. */
const SKEW_MS = 10 * 60_000;

export async function findExpenseByRef(
  api: ExpensesApi,
  ref: string,
  sentAt: number,
  signal: AbortSignal,
): Promise<string | null> {
  const since = new Date(sentAt - SKEW_MS).toISOString();
  for await (const expense of api.expenses.list({ updated_since: since, limit: 200, signal }).items()) {
    if (expense.external_ref === ref) return expense.id;
  }
  return null;
}
