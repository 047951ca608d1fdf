/**
 * The documents job: send the ERP's new documents (send.ts), file what cannot be sent as dead letters, then pull
 * buyer reactions back into the ERP (reactions.ts).
 */
import type { DocumentReactionSink, DocumentSource, ErpDocument } from '../../connector-contract/index.js';
import type { Mappings } from '../../plugin/index.js';
import {
  contentHash,
  errorMessage,
  RunBudget,
  type Job,
  type JobContext,
  type RunResult,
} from '../../engine/index.js';
import type { DocumentsApi } from './api.js';
import { buildDocumentBody, type BodyContext } from './body.js';
import { loadBuyerDirectory } from './directory.js';
import type { DocumentsOptions } from './options.js';
import { documentKey, ProgressStore } from './progress.js';
import { pullReactions } from './reactions.js';
import { sendDocument, type SendContext } from './send.js';

export interface DocumentsJobInput {
  readonly name: string;
  readonly api: DocumentsApi;
  /** Looked up at run time, so a connector that is down fails the run, not the daemon's start. */
  readonly source: () => DocumentSource;
  readonly reactionSink: () => DocumentReactionSink | undefined;
  readonly connectorName: string;
  /** jobs.<name>.options as documentsOptionsSchema parsed them. */
  readonly options: DocumentsOptions;
  readonly mappings?: Mappings;
}

interface DeadLetterRecord {
  ref: string;
  type: string;
  number: string;
  customerNumber: string;
  contentHash: string;
}

const add = (counts: Record<string, number>, name: string, n = 1): void => {
  counts[name] = (counts[name] ?? 0) + n;
};

export function createDocumentsJob(input: DocumentsJobInput): Job {
  const { options } = input;
  const mappings = input.mappings ?? {};

  async function run(ctx: JobContext): Promise<RunResult> {
    const counts: Record<string, number> = {};
    const budget = new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal);
    const progress = new ProgressStore(ctx.state, input.name);
    const unsettled = new Set<string>();
    try {
      const source = input.source();
      const pending = await source.listPendingDocuments();
      counts['documents_pending'] = pending.length;
      const todo = pending.filter((doc) => !waitingDeadLetter(ctx, doc, counts));
      if (todo.length > 0) {
        const directory = await loadBuyerDirectory(
          input.api,
          mappings,
          { customers: options.customer_mapping, shipTo: options.ship_to_mapping },
          ctx.signal,
        );
        if (ctx.dryRun) return preview(todo, { directory, unmappedShipTo: options.unmapped_ship_to }, counts);
        const send: SendContext = {
          api: input.api,
          source,
          progress,
          body: { directory, unmappedShipTo: options.unmapped_ship_to },
          clock: ctx.clock,
          markSent: options.mark_sent,
          missingAttachment: options.missing_attachment,
          reuseWindowMs: options.file_reuse_window_ms,
          signal: ctx.signal,
          onUpload: () => add(counts, 'files_uploaded'),
        };
        for (const doc of todo) {
          if (budget.stopReason() !== null) return { outcome: 'partial', counts };
          if (!(await sendOne(ctx, send, doc, counts))) unsettled.add(documentKey(doc.type, doc.number));
        }
      }
      if (ctx.dryRun) return { outcome: 'ok', counts };
      const sink = options.reactions ? input.reactionSink() : undefined;
      // Pulled also after a failed send: reactions of documents that may be ours are deferred (see reactions.ts).
      if (sink !== undefined) {
        const pulled = await pullReactions({
          api: input.api,
          sink,
          state: ctx.state,
          progress,
          job: input.name,
          connector: input.connectorName,
          scope: options.reactions_scope,
          pageSize: options.page_size,
          overlapMs: options.overlap_ms,
          budget,
          counts,
          unsettled,
        });
        add(counts, 'reaction_pages', pulled.counts.pages);
        if (pulled.outcome !== 'ok') return { outcome: pulled.outcome, counts, ...errorOf(pulled.error) };
      }
      return { outcome: unsettled.size === 0 ? 'ok' : 'partial', counts };
    } catch (error) {
      if (ctx.signal.aborted) return { outcome: 'partial', counts };
      ctx.logger.error({ err: errorMessage(error) }, 'documents run failed');
      return { outcome: 'failed', counts, error: errorMessage(error) };
    }
  }

  /** An open dead letter for the same content waits for a fix in the ERP or a replay; a changed document is retried. */
  function waitingDeadLetter(ctx: JobContext, doc: ErpDocument, counts: Record<string, number>): boolean {
    const letter = ctx.state.deadLetters.get(input.name, documentKey(doc.type, doc.number));
    if (letter === null || letter.status !== 'open') return false;
    const record = letter.record as Partial<DeadLetterRecord> | null;
    if (record?.contentHash !== contentHash(doc)) return false;
    add(counts, 'dead_letters_waiting');
    return true;
  }

  async function sendOne(
    ctx: JobContext,
    send: SendContext,
    doc: ErpDocument,
    counts: Record<string, number>,
  ): Promise<boolean> {
    const key = documentKey(doc.type, doc.number);
    try {
      const result = await sendDocument(send, doc);
      if (result.kind === 'sent') {
        add(counts, `documents_${result.how}`);
        ctx.state.deadLetters.resolve(input.name, key);
        return true;
      }
      if (result.kind === 'rejected') {
        const record: DeadLetterRecord = {
          ref: doc.ref,
          type: doc.type,
          number: doc.number,
          customerNumber: doc.customerNumber,
          contentHash: contentHash(doc),
        };
        ctx.state.deadLetters.add(input.name, key, record, result.reason);
        add(counts, 'dead_lettered');
        ctx.logger.warn({ document: key, reason: result.reason }, 'document filed as a dead letter');
        return true;
      }
      ctx.logger.warn({ document: key, reason: result.reason }, 'document not sent; retried next run');
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      ctx.logger.warn({ document: key, err: errorMessage(error) }, 'document not sent; retried next run');
    }
    add(counts, 'documents_failed');
    return false;
  }

  return { name: input.name, run };
}

function preview(
  docs: readonly ErpDocument[],
  context: BodyContext,
  counts: Record<string, number>,
): RunResult {
  for (const doc of docs) {
    const built = buildDocumentBody(doc, context);
    add(counts, built.ok ? 'documents_would_send' : 'documents_would_dead_letter');
  }
  return { outcome: 'ok', counts };
}

function errorOf(error: string | undefined): { error?: string } {
  return error === undefined ? {} : { error };
}
