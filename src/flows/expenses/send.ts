/**
 * Sends one source expense: attachments first, then the expense with a stable Idempotency-Key (scoped to the job,
 * so two jobs whose sources share a reference never share a key), then the API id
 * back to the source. Each step is recorded in the state store, so a crash anywhere resumes at the next step:
 * - uploaded, not created: the recorded file ids are reused while the API keeps them (attachments.ts);
 * - sent, not answered (a crash, a 5xx, a timeout): the saved body is sent again under the same key, and the API
 *   replays its first answer, so the expense is never created twice; past the API's 24-hour window the expense
 *   is looked up by its external_ref instead (existing.ts);
 * - created, not marked in the source: the next run only marks it.
 */
import { ApiError, ValidationApiError } from '../../client/index.js';
import type { ExpenseSource, SourceExpense } from '../../connector-contract/index.js';
import { contentHash, idempotencyKey } from '../../engine/index.js';
import type { Clock } from '../../shared/clock.js';
import type { ExpensesApi } from './api.js';
import { AttachmentProblem, ensureAttachments } from './attachments.js';
import { buildExpenseBody, type ExpenseBody } from './body.js';
import { findExpenseByRef, IDEMPOTENCY_WINDOW_MS } from './existing.js';
import type { ExpenseValueMaps } from './mapping.js';
import type { ExpenseProgressStore, SentRequest } from './progress.js';
import { describeRefusals, refusalsOf, type Refusal } from './refusal.js';

export type SendResult =
  | { kind: 'sent'; apiId: string; how: 'created' | 'found' | 'known' }
  | { kind: 'rejected'; reason: string; refusals: Refusal[] }
  | { kind: 'failed'; reason: string };

type Answer = SendResult | { kind: 'not_created' };

export interface SendContext {
  /** The job's name: part of every Idempotency-Key, as two sources of one buyer may use the same reference. */
  job: string;
  api: ExpensesApi;
  source: ExpenseSource;
  progress: ExpenseProgressStore;
  maps: ExpenseValueMaps;
  clock: Clock;
  markSent: boolean;
  reuseWindowMs: number;
  signal: AbortSignal;
  onUpload(): void;
}

/**
 * `expense:<job>:<reference>`; later generations (a body changed after a refusal) get a suffix (`:r2`). A request
 * saved before keys named the job (`job` null) is sent again under the key it was first sent with.
 */
export function expenseIdempotencyKey(job: string | null, ref: string, generation = 1): string {
  const parts = job === null ? [ref] : [job, ref];
  return generation === 1
    ? idempotencyKey('expense', ...parts)
    : idempotencyKey('expense', ...parts, `r${generation}`);
}

export async function sendExpense(ctx: SendContext, expense: SourceExpense): Promise<SendResult> {
  const known = ctx.progress.get(expense.ref).apiId;
  const created: SendResult =
    known === undefined ? await create(ctx, expense) : { kind: 'sent', apiId: known, how: 'known' };
  if (created.kind !== 'sent') return created;
  if (ctx.markSent && ctx.progress.get(expense.ref).markedSent !== true) {
    await ctx.source.markExpenseSent(expense.ref, created.apiId);
    ctx.progress.recordMarkedSent(expense.ref);
  }
  return created;
}

async function create(ctx: SendContext, expense: SourceExpense): Promise<SendResult> {
  const pending = ctx.progress.get(expense.ref).request;
  if (pending !== undefined && !pending.answered) {
    const answer = await settlePending(ctx, expense.ref, pending);
    // A refusal of the saved body is final for that body; the source's current content is tried next.
    if (answer.kind === 'sent' || answer.kind === 'failed') return answer;
  }
  return createFresh(ctx, expense, true);
}

/** The request saved before a crash or an unanswered call: its answer, or its effect, is found first. */
async function settlePending(ctx: SendContext, ref: string, pending: SentRequest): Promise<Answer> {
  if (ctx.clock.now() - pending.sentAt < IDEMPOTENCY_WINDOW_MS) return post(ctx, ref, pending);
  const found = await findExpenseByRef(ctx.api, ref, pending.body, pending.sentAt, ctx.signal);
  if (found !== null) {
    ctx.progress.recordCreated(ref, found);
    return { kind: 'sent', apiId: found, how: 'found' };
  }
  ctx.progress.recordRefused(ref);
  return { kind: 'not_created' };
}

async function createFresh(ctx: SendContext, expense: SourceExpense, firstTry: boolean): Promise<SendResult> {
  const built = buildExpenseBody(expense, ctx.maps);
  if (!built.ok) {
    const refusal: Refusal = { rule: 'validation', field: built.field, code: 'invalid', message: null };
    return { kind: 'rejected', reason: built.reason, refusals: [refusal] };
  }
  let fileIds: string[];
  try {
    fileIds = await ensureAttachments(attachmentContext(ctx), expense.ref, expense.attachmentPaths);
  } catch (error) {
    if (!(error instanceof AttachmentProblem)) throw error;
    const refusal: Refusal = { rule: 'validation', field: 'file_ids', code: 'attachment', message: null };
    return { kind: 'rejected', reason: error.message, refusals: [refusal] };
  }
  const body: ExpenseBody = fileIds.length === 0 ? built.body : { ...built.body, file_ids: fileIds };
  const request = ctx.progress.recordSending(expense.ref, body, contentHash(body), ctx.clock.now());
  const answer = await post(ctx, expense.ref, request);
  if (answer.kind === 'rejected' && firstTry && answer.refusals.some(isUnknownFile)) {
    // The API deleted a file before it was referenced (it keeps unreferenced files for 24 hours): upload again.
    ctx.progress.forgetAttachments(expense.ref);
    return createFresh(ctx, expense, false);
  }
  return answer;
}

async function post(ctx: SendContext, ref: string, request: SentRequest): Promise<SendResult> {
  try {
    const created = await ctx.api.expenses.create(request.body, {
      idempotencyKey: expenseIdempotencyKey(
        request.keyScope === 'job' ? ctx.job : null,
        ref,
        request.generation,
      ),
      signal: ctx.signal,
    });
    ctx.progress.recordCreated(ref, created.id);
    return { kind: 'sent', apiId: created.id, how: 'created' };
  } catch (error) {
    if (error instanceof ValidationApiError) {
      ctx.progress.recordRefused(ref);
      const refusals = refusalsOf(error.items);
      return { kind: 'rejected', reason: describeRefusals(refusals), refusals };
    }
    if (error instanceof ApiError && error.status === 409) {
      return { kind: 'failed', reason: `409 ${error.code} for expense ${ref}; retried next run` };
    }
    // 5xx, timeouts and dropped connections: the request stays unanswered and is sent again as it is.
    throw error;
  }
}

function isUnknownFile(refusal: Refusal): boolean {
  return refusal.field.startsWith('file_ids') && refusal.code === 'not_found';
}

function attachmentContext(ctx: SendContext) {
  return {
    api: ctx.api,
    progress: ctx.progress,
    clock: ctx.clock,
    reuseWindowMs: ctx.reuseWindowMs,
    signal: ctx.signal,
    onUpload: ctx.onUpload,
  };
}
