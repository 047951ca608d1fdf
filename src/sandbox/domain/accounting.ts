/**
 * POST /accounting/exports (G12): marks approved journal lines exported, all or nothing. Costs about the lines it
 * names: it reports the rows it changes to the list indexes itself (see list-index.ts).
 */
import type { DomainEnv } from './env.js';
import { newId, nowIso, raiseToBuyer, stampAfter } from './env.js';
import { documentEventData } from './documents.js';
import { conflict, invalid, notFound, type ValidationItem } from './errors.js';
import { linesOfSource } from './journal.js';
import { noteRowsWritten } from './list-index.js';
import type { Expense, ExportBatch, JournalLine, PurchaseDocument } from './types.js';

export interface ExportInput {
  journal_line_ids: readonly string[];
  target?: string | null | undefined;
  external_ref?: string | null | undefined;
}

function check(env: DomainEnv, ids: readonly string[]): void {
  const invalidItems: ValidationItem[] = [];
  const exported: ValidationItem[] = [];
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    const line = env.state.journalLines[id];
    if (line?.status === 'approved_for_export' && !seen.has(id)) {
      seen.add(id);
      return;
    }
    const field = `journal_line_ids[${index}]`;
    if (seen.has(id))
      invalidItems.push({ field, code: 'duplicate', message: `Journal line ${id} is listed twice.` });
    seen.add(id);
    if (!line) invalidItems.push({ field, code: 'not_found', message: `Journal line ${id} was not found.` });
    else if (line.status === 'not_ready')
      invalidItems.push({
        field,
        code: 'not_ready',
        message: `Journal line ${id} is not approved for export.`,
      });
    else if (line.status === 'exported')
      exported.push({
        field,
        code: 'already_exported',
        message: `Journal line ${id} was exported in batch ${line.export_batch_id ?? '?'}.`,
      });
  });
  if (invalidItems.length > 0) throw invalid(invalidItems);
  if (exported.length > 0)
    throw conflict(
      `${exported.length} of the journal lines are already exported; nothing was exported.`,
      exported,
    );
}

export function exportJournalLines(
  env: DomainEnv,
  input: ExportInput,
  client: { clientId: string; clientName: string },
): ExportBatch {
  check(env, input.journal_line_ids);
  const now = nowIso(env);
  const batch: ExportBatch = {
    id: newId(env, 'exb'),
    line_count: input.journal_line_ids.length,
    target: input.target ?? null,
    external_ref: input.external_ref ?? null,
    exported_at: now,
    exported_by: { client_id: client.clientId, client_name: client.clientName },
  };
  const touchedSources = new Set<string>();
  const lines: JournalLine[] = [];
  for (const id of input.journal_line_ids) {
    const line = env.state.journalLines[id];
    if (!line) continue;
    line.status = 'exported';
    line.export_batch_id = batch.id;
    line.exported_at = now;
    line.updated_at = stampAfter(env, line.updated_at);
    touchedSources.add(line.document_id);
    lines.push(line);
  }
  env.state.exportBatches[batch.id] = batch;
  noteRowsWritten(env, env.state.journalLines, lines);
  completeSources(env, touchedSources, now);
  return batch;
}

/** A document or expense whose journal lines are all exported becomes exported itself. */
function completeSources(env: DomainEnv, sourceIds: ReadonlySet<string>, now: string): void {
  const documents: PurchaseDocument[] = [];
  const expenses: Expense[] = [];
  for (const sourceId of sourceIds) {
    if (linesOfSource(env, sourceId).some((line) => line.status !== 'exported')) continue;
    const doc = env.state.documents[sourceId];
    if (doc && doc.export_status !== 'exported') {
      doc.buyer_status = 'exported';
      doc.export_status = 'exported';
      doc.exported_at = now;
      doc.updated_at = stampAfter(env, doc.updated_at);
      documents.push(doc);
      raiseToBuyer(env, 'document.updated', () => documentEventData(doc));
    }
    const expense = env.state.expenses[sourceId];
    if (expense && expense.status !== 'exported') {
      expense.status = 'exported';
      expense.exported_at = now;
      expense.updated_at = stampAfter(env, expense.updated_at);
      expenses.push(expense);
    }
  }
  noteRowsWritten(env, env.state.documents, documents);
  noteRowsWritten(env, env.state.expenses, expenses);
}

export function getExportBatch(env: DomainEnv, batchId: string): ExportBatch {
  const batch = env.state.exportBatches[batchId];
  if (!batch) throw notFound('Export batch', batchId);
  return batch;
}
