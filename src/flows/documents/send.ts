/**
 * Sends one ERP document: attachment first, then the document with a stable Idempotency-Key, then the API id back
 * to the ERP. Each step is recorded in the state file, so a crash anywhere resumes at the next step:
 * - uploaded, not created: the recorded file id is reused while the API keeps it (see attachments.ts);
 * - created, not recorded: the same key and body replay the original response within the API's 24 h window;
 *   beyond it (or under a later key generation) the API answers 409 for the existing type + number, and the
 *   document is found by listing, never created twice (reconcile.ts);
 * - recorded, not marked in the ERP: the next run only marks it.
 */
import type { CreateDocumentBody } from '../../client/index.js';
import { ApiError, ValidationApiError } from '../../client/index.js';
import type { DocumentSource, ErpDocument } from '../../connector-contract/index.js';
import { contentHash, idempotencyKey } from '../../engine/index.js';
import type { Clock } from '../../shared/clock.js';
import type { DocumentsApi } from './api.js';
import { AttachmentMissingError, ensureAttachment } from './attachments.js';
import { buildDocumentBody, type BodyContext } from './body.js';
import { findExistingDocument } from './reconcile.js';
import { documentKey, type ProgressStore } from './progress.js';

export type SendResult =
  | { kind: 'sent'; apiId: string; how: 'created' | 'reconciled' | 'known' }
  | { kind: 'rejected'; reason: string }
  | { kind: 'failed'; reason: string };

export interface SendContext {
  api: DocumentsApi;
  source: DocumentSource;
  progress: ProgressStore;
  body: BodyContext;
  clock: Clock;
  markSent: boolean;
  missingAttachment: 'send_without' | 'dead_letter';
  reuseWindowMs: number;
  signal: AbortSignal;
  /** Called after each upload (also when a later step fails). */
  onUpload(): void;
}

/**
 * The contract recommends the document number; type is part of the key because numbers repeat across types.
 * Later generations (a changed body, see progress.ts) get a suffix.
 */
export function documentIdempotencyKey(type: string, number: string, generation = 1): string {
  return generation === 1
    ? idempotencyKey('document', type, number)
    : idempotencyKey('document', type, number, `r${generation}`);
}

export async function sendDocument(ctx: SendContext, doc: ErpDocument): Promise<SendResult> {
  const key = documentKey(doc.type, doc.number);
  const known = ctx.progress.get(key).apiId;
  const created =
    known === undefined
      ? await create(ctx, doc, key)
      : { kind: 'sent' as const, apiId: known, how: 'known' as const };
  if (created.kind !== 'sent') return created;
  if (ctx.markSent && ctx.progress.get(key).markedSent !== true) {
    await ctx.source.markDocumentSent(doc.ref, created.apiId);
    ctx.progress.recordMarkedSent(key);
  }
  return created;
}

async function create(ctx: SendContext, doc: ErpDocument, key: string): Promise<SendResult> {
  const built = buildDocumentBody(doc, ctx.body);
  if (!built.ok) return { kind: 'rejected', reason: built.reason };
  for (let attempt = 1; ; attempt += 1) {
    let fileIds: string[] = [];
    if (doc.attachmentPath === null) {
      if (ctx.missingAttachment === 'dead_letter')
        return { kind: 'rejected', reason: 'the document has no PDF attachment' };
    } else {
      try {
        const attachment = await ensureAttachment(
          {
            api: ctx.api,
            progress: ctx.progress,
            clock: ctx.clock,
            reuseWindowMs: ctx.reuseWindowMs,
            signal: ctx.signal,
          },
          key,
          doc.attachmentPath,
        );
        if (attachment.uploaded) ctx.onUpload();
        fileIds = [attachment.fileId];
      } catch (error) {
        if (error instanceof AttachmentMissingError) return { kind: 'rejected', reason: error.message };
        throw error;
      }
    }
    const body: CreateDocumentBody = fileIds.length === 0 ? built.body : { ...built.body, file_ids: fileIds };
    const generation = ctx.progress.keyGenerationFor(key, contentHash(body));
    try {
      const document = await ctx.api.documents.create(body, {
        idempotencyKey: documentIdempotencyKey(doc.type, doc.number, generation),
        signal: ctx.signal,
      });
      ctx.progress.recordCreated(key, document.id);
      return { kind: 'sent', apiId: document.id, how: 'created' };
    } catch (error) {
      if (attempt === 1 && fileIds.length > 0 && isUnknownFile(error)) {
        // The API deleted the file before it was referenced (it keeps unreferenced files for 24 hours).
        ctx.progress.forgetAttachment(key);
        continue;
      }
      if (error instanceof ApiError && error.status === 409) return reconcile(ctx, body, key, error);
      return rejectedOrFailed(error);
    }
  }
}

async function reconcile(
  ctx: SendContext,
  body: CreateDocumentBody,
  key: string,
  conflict: ApiError,
): Promise<SendResult> {
  const existing = await findExistingDocument(ctx.api, body, ctx.signal);
  if (existing.kind === 'same') {
    ctx.progress.recordCreated(key, existing.id);
    return { kind: 'sent', apiId: existing.id, how: 'reconciled' };
  }
  if (existing.kind === 'different') {
    return {
      kind: 'rejected',
      reason: `the API already holds ${body.type} ${body.number} for buyer ${body.buyer_id} (${existing.id}) with different totals`,
    };
  }
  return {
    kind: 'failed',
    reason: `409 ${conflict.code} for ${body.type} ${body.number}, but no such document is listed yet; retried next run`,
  };
}

function isUnknownFile(error: unknown): boolean {
  return (
    error instanceof ValidationApiError &&
    error.items.some((item) => item.field.startsWith('file_ids') && item.code === 'not_found')
  );
}

function rejectedOrFailed(error: unknown): SendResult {
  if (error instanceof ValidationApiError) {
    const items = error.items.map(
      (item) => `${item.field}: ${item.code}${item.message ? ` (${item.message})` : ''}`,
    );
    return { kind: 'rejected', reason: `the API refused the document: ${items.join('; ')}` };
  }
  // 401/403/404 and the like are not the document's fault: they fail the run instead of filing a dead letter.
  if (error instanceof ApiError && !error.retryable && (error.status === 400 || error.status === 413)) {
    return { kind: 'rejected', reason: `the API refused the document: ${error.status} ${error.code}` };
  }
  throw error;
}
