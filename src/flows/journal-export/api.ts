/** The part of the API client this flow uses, and the reads it makes through it. */
import type { ApiClient } from '../../client/index.js';
import { isApiError, ValidationApiError } from '../../client/index.js';
import type { JournalExportOptions } from '../shared/journal-mapping/options.js';
import type { LineStaging } from './staging.js';

export type JournalExportApi = {
  readonly accounting: Pick<ApiClient['accounting'], 'journalLines' | 'exportJournalLines' | 'getExport'>;
};

const PAGE_SIZE = 200;

export interface PullCounts {
  /** Approved lines listed (a line listed twice counts twice; the staging keeps one copy). */
  readonly listed: number;
  readonly quarantined: number;
}

/**
 * Appends every line approved for export, within the configured period and branches, to `staging`, page by page.
 * Bad items are quarantined by the client and counted; the rest of their page is staged.
 */
export async function stageApprovedLines(
  api: JournalExportApi,
  options: JournalExportOptions,
  staging: LineStaging,
  signal: AbortSignal,
): Promise<PullCounts> {
  let listed = 0;
  let quarantined = 0;
  for (const branch of options.branch_ids ?? [undefined]) {
    const pages = api.accounting
      .journalLines({
        status: 'approved_for_export',
        limit: PAGE_SIZE,
        signal,
        ...(options.period === undefined ? {} : { period: options.period }),
        ...(branch === undefined ? {} : { branch_id: branch }),
      })
      .pages({ readAhead: true });
    for await (const page of pages) {
      signal.throwIfAborted();
      quarantined += page.quarantined.length;
      const approved = page.items.filter((line) => line.status === 'approved_for_export');
      staging.append(approved);
      listed += approved.length;
    }
  }
  return { listed, quarantined };
}

/** The lines among `ids` in each status, found by reading the given accounting periods. */
export async function lineStatuses(
  api: JournalExportApi,
  ids: ReadonlySet<string>,
  periods: readonly string[],
  signal: AbortSignal,
): Promise<{ exported: Map<string, string | null>; approved: Set<string> }> {
  const exported = new Map<string, string | null>();
  const approved = new Set<string>();
  for (const period of periods) {
    for (const status of ['exported', 'approved_for_export'] as const) {
      for await (const line of api.accounting
        .journalLines({ period, status, limit: PAGE_SIZE, signal })
        .items()) {
        if (!ids.has(line.id) || line.status !== status) continue;
        if (status === 'exported') exported.set(line.id, line.export_batch_id ?? null);
        else approved.add(line.id);
      }
    }
  }
  return { exported, approved };
}

/**
 * The export call refused the batch because of the state of some of its lines: 409 (already exported), or 422 with
 * items not_ready / not_found (a line went back or disappeared after it was written). Both are settled by re-reading
 * the lines, never by writing again.
 */
export function isExportConflict(error: unknown): boolean {
  if (!isApiError(error)) return false;
  if (error.status === 409) return true;
  if (!(error instanceof ValidationApiError)) return false;
  const { items } = error;
  return items.length > 0 && items.every((item) => item.code === 'not_ready' || item.code === 'not_found');
}
