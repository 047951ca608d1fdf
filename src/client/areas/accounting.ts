/** Buyer accounting: journal lines and exports (marking lines exported, at most 5000 per call). */
import type { AccountingExportBatch, JournalLine } from '../../contract/index.js';
import { BATCH_LIMITS, assertWithinLimit, chunk } from '../batch.js';
import { ClientConfigError } from '../errors.js';
import { requestResource, type ClientContext } from '../context.js';
import { paginate, type Paginated } from '../pagination.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import { callOf, listSpec, type ListOptions, type UpdatedSince } from './common.js';
import type { CreateAccountingExportBody } from '../request-types.js';

export interface JournalLineFilters extends UpdatedSince {
  period?: string;
  status?: string;
  branch_id?: string;
  source?: string;
}

type KeyedCall = CallOptions & { idempotencyKey: string };

function requireKey(options: CallOptions, method: string): void {
  if (!options.idempotencyKey) {
    throw new ClientConfigError('idempotency_key_required', `${method} needs an idempotencyKey`);
  }
}

export function createAccountingApi(ctx: ClientContext) {
  const createExport = (
    body: CreateAccountingExportBody,
    options: KeyedCall,
  ): Promise<AccountingExportBatch> => {
    requireKey(options, 'accounting.createExport');
    assertWithinLimit(
      body.journal_line_ids.length,
      BATCH_LIMITS.journalLinesPerExport,
      'accounting.createExport',
    );
    return requestResource(
      ctx,
      { method: 'POST', route: '/accounting/exports', json: body, ...callOf(options) },
      parsers.accountingExportBatch,
    );
  };
  return {
    journalLines(options: ListOptions<JournalLineFilters> = {}): Paginated<JournalLine> {
      return paginate(ctx, listSpec('/accounting/journal-lines', options), parsers.journalLine);
    },
    createExport,
    /**
     * Marks any number of lines exported in calls of at most 5000 ids. Chunk i uses `${idempotencyKey}:${i}`,
     * so repeating the whole call with the same ids and key replays the same requests.
     */
    async exportJournalLines(
      body: CreateAccountingExportBody,
      options: KeyedCall,
    ): Promise<AccountingExportBatch[]> {
      requireKey(options, 'accounting.exportJournalLines');
      const batches: AccountingExportBatch[] = [];
      const chunks = chunk(body.journal_line_ids, BATCH_LIMITS.journalLinesPerExport);
      for (const [index, ids] of chunks.entries()) {
        const key = chunks.length === 1 ? options.idempotencyKey : `${options.idempotencyKey}:${index}`;
        batches.push(
          await createExport({ ...body, journal_line_ids: ids }, { ...options, idempotencyKey: key }),
        );
      }
      return batches;
    },
    getExport(exportBatchId: string, options?: CallOptions): Promise<AccountingExportBatch> {
      return requestResource(
        ctx,
        {
          method: 'GET',
          route: '/accounting/exports/{export_batch_id}',
          params: { export_batch_id: exportBatchId },
          ...callOf(options),
        },
        parsers.accountingExportBatch,
      );
    },
  };
}

export type AccountingApi = ReturnType<typeof createAccountingApi>;
