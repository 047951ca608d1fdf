/**
 * Uploads a document's PDF before the document is created, and remembers the file id by document and sha256:
 * after a crash between upload and create, the same bytes reuse the same file id (while the API still keeps the
 * unreferenced file) instead of uploading again.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import type { DocumentsApi } from './api.js';
import type { ProgressStore } from './progress.js';

export class AttachmentMissingError extends Error {}

export interface AttachmentResult {
  fileId: string;
  uploaded: boolean;
}

export interface AttachmentContext {
  api: DocumentsApi;
  progress: ProgressStore;
  clock: Clock;
  reuseWindowMs: number;
  signal: AbortSignal;
}

async function readAttachment(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
    throw new AttachmentMissingError(`attachment ${path} cannot be read (${code})`);
  }
}

export async function ensureAttachment(
  ctx: AttachmentContext,
  key: string,
  path: string,
): Promise<AttachmentResult> {
  const content = await readAttachment(path);
  const sha256 = createHash('sha256').update(content).digest('hex');
  const known = ctx.progress.get(key).attachment;
  if (
    known !== undefined &&
    known.sha256 === sha256 &&
    ctx.clock.now() - known.uploadedAt < ctx.reuseWindowMs
  ) {
    return { fileId: known.fileId, uploaded: false };
  }
  const uploadedAt = ctx.clock.now();
  const { file } = await ctx.api.files.upload(
    { content, name: basename(path), contentType: 'application/pdf', purpose: 'document_attachment' },
    { signal: ctx.signal },
  );
  ctx.progress.recordAttachment(key, { fileId: file.id, sha256, uploadedAt });
  return { fileId: file.id, uploaded: true };
}
