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
import { tallyOf } from '../shared/held-back.js';
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

/** What the steps of one run share. */
interface DocumentsRun {
  readonly input: DocumentsJobInput;
  readonly ctx: JobContext;
  readonly counts: Record<string, number>;
  readonly budget: RunBudget;
  readonly progress: ProgressStore;
  /** documentKey of each document whose send failed in this run. */
  readonly unsettled: Set<string>;
}

const add = (counts: Record<string, number>, name: string, n = 1): void => {
  counts[name] = (counts[name] ?? 0) + n;
};

export function createDocumentsJob(input: DocumentsJobInput): Job {
  return { name: input.name, run: (ctx) => runDocuments(input, ctx) };
}

/** The run, with the documents it sent and held back as its tally (the engine's judgeRun decides the outcome). */
async function runDocuments(input: DocumentsJobInput, ctx: JobContext): Promise<RunResult> {
  const counts: Record<string, number> = {};
  const result = await documentsRun(input, ctx, counts);
  const tally = tallyOf(counts, 'documents', {
    delivered: ['documents_delivered', 'documents_would_send'],
    heldBack: ['dead_lettered', 'documents_would_dead_letter'],
  });
  return { ...result, tally };
}

async function documentsRun(
  input: DocumentsJobInput,
  ctx: JobContext,
  counts: Record<string, number>,
): Promise<RunResult> {
  const run: DocumentsRun = {
    input,
    ctx,
    counts,
    budget: new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal),
    progress: new ProgressStore(ctx.state, input.name),
    unsettled: new Set<string>(),
  };
  try {
    const source = input.source();
    const stream = erpDocumentsStream(input.name);
    source.readPosition?.resume(ctx.state.cursors.get(stream)?.watermarkMs ?? null);
    const pending = await source.listPendingDocuments();
    counts['documents_pending'] = pending.length;
    const todo = pending.filter((doc) => !waitingDeadLetter(run, doc));
    if (todo.length > 0) {
      const body = await bodyContext(run);
      if (ctx.dryRun) return preview(todo, body, counts);
      const finished = await sendDocuments(run, source, body, todo);
      savePosition(run, source, stream);
      if (!finished) return { outcome: 'partial', counts };
    }
    if (ctx.dryRun) return { outcome: 'ok', counts };
    savePosition(run, source, stream);
    return await pullBuyerReactions(run);
  } catch (error) {
    if (ctx.signal.aborted) return { outcome: 'partial', counts };
    ctx.logger.error({ err: errorMessage(error) }, 'documents run failed');
    return { outcome: 'failed', counts, error: errorMessage(error) };
  }
}

/** The cursor of the job's read of the ERP's documents, for a source that reads only what changed (readPosition). */
export function erpDocumentsStream(jobName: string): string {
  return `${jobName}:erp/documents`;
}

/** Keeps where the source's read stands, once the run's sends and marks are done. */
function savePosition(run: DocumentsRun, source: DocumentSource, stream: string): void {
  if (source.readPosition === undefined) return;
  const { cursors } = run.ctx.state;
  const watermarkMs = source.readPosition.current();
  const saved = cursors.get(stream);
  if (saved !== null && saved.watermarkMs === watermarkMs) cursors.touch(stream);
  else cursors.save({ stream, watermarkMs, passCursor: null, passSince: null, passMaxMs: null });
}

/** An open dead letter for the same content waits for a fix in the ERP or a replay; a changed document is retried. */
function waitingDeadLetter(run: DocumentsRun, doc: ErpDocument): boolean {
  const letter = run.ctx.state.deadLetters.get(run.input.name, documentKey(doc.type, doc.number));
  if (letter === null || letter.status !== 'open') return false;
  const record = letter.record as Partial<DeadLetterRecord> | null;
  if (record?.contentHash !== contentHash(doc)) return false;
  add(run.counts, 'dead_letters_waiting');
  return true;
}

async function bodyContext(run: DocumentsRun): Promise<BodyContext> {
  const { input, ctx } = run;
  const directory = await loadBuyerDirectory(
    input.api,
    input.mappings ?? {},
    { customers: input.options.customer_mapping, shipTo: input.options.ship_to_mapping },
    ctx.signal,
  );
  return { directory, unmappedShipTo: input.options.unmapped_ship_to };
}

/** Sends each document in turn; false when the budget ran out first. */
async function sendDocuments(
  run: DocumentsRun,
  source: DocumentSource,
  body: BodyContext,
  todo: readonly ErpDocument[],
): Promise<boolean> {
  const { input, ctx, counts } = run;
  const { options } = input;
  const send: SendContext = {
    api: input.api,
    source,
    progress: run.progress,
    body,
    clock: ctx.clock,
    markSent: options.mark_sent,
    missingAttachment: options.missing_attachment,
    reuseWindowMs: options.file_reuse_window_ms,
    signal: ctx.signal,
    onUpload: () => add(counts, 'files_uploaded'),
  };
  for (const doc of todo) {
    if (run.budget.stopReason() !== null) return false;
    if (!(await sendOne(run, send, doc))) run.unsettled.add(documentKey(doc.type, doc.number));
  }
  return true;
}

/** Whether the document's send is settled: sent, or filed as a dead letter. */
async function sendOne(run: DocumentsRun, send: SendContext, doc: ErpDocument): Promise<boolean> {
  const { input, ctx, counts } = run;
  const key = documentKey(doc.type, doc.number);
  try {
    const result = await sendDocument(send, doc);
    if (result.kind === 'sent') {
      add(counts, `documents_${result.how}`);
      add(counts, 'documents_delivered');
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

/** Pulled also after a failed send: reactions of documents that may be ours are deferred (see reactions.ts). */
async function pullBuyerReactions(run: DocumentsRun): Promise<RunResult> {
  const { input, ctx, counts } = run;
  const { options } = input;
  const sink = options.reactions ? input.reactionSink() : undefined;
  if (sink !== undefined) {
    const pulled = await pullReactions({
      api: input.api,
      sink,
      state: ctx.state,
      progress: run.progress,
      job: input.name,
      connector: input.connectorName,
      scope: options.reactions_scope,
      pageSize: options.page_size,
      overlapMs: options.overlap_ms,
      budget: run.budget,
      counts,
      unsettled: run.unsettled,
    });
    add(counts, 'reaction_pages', pulled.counts.pages);
    if (pulled.outcome !== 'ok') return { outcome: pulled.outcome, counts, ...errorOf(pulled.error) };
  }
  return { outcome: run.unsettled.size === 0 ? 'ok' : 'partial', counts };
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
