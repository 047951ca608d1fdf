/**
 * Uploads an expense's files before the expense is created (purpose expense_attachment), checking the contract's
 * 25 MB limit before a byte is sent, and remembers each file id by path and sha256: after a crash between upload
 * and create, the same bytes reuse the same file id (while the API keeps the unreferenced file) instead of
 * uploading again.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import type { ExpensesApi } from './api.js';
import type { ExpenseProgressStore } from './progress.js';

/** 25 MB as the contract counts it (part 8: 26,214,400 bytes). */
export const MAX_ATTACHMENT_BYTES = 26_214_400;

/** The file cannot be attached as it is: the expense becomes a dead letter until the source fixes it. */
export class AttachmentProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AttachmentProblem';
  }
}

export interface AttachmentContext {
  api: ExpensesApi;
  progress: ExpenseProgressStore;
  clock: Clock;
  reuseWindowMs: number;
  signal: AbortSignal;
  onUpload(): void;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.heic': 'image/heic',
};

async function checkSize(path: string): Promise<void> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
    throw new AttachmentProblem(`file_ids: attachment ${path} cannot be read (${code})`);
  }
  if (size > MAX_ATTACHMENT_BYTES) {
    throw new AttachmentProblem(
      `file_ids: attachment ${basename(path)} is ${size} bytes, above the API's 25 MB limit (${MAX_ATTACHMENT_BYTES} bytes)`,
    );
  }
}

async function readChecked(path: string): Promise<Uint8Array> {
  await checkSize(path);
  return readFile(path);
}

async function ensureOne(ctx: AttachmentContext, ref: string, path: string): Promise<string> {
  const content = await readChecked(path);
  const sha256 = createHash('sha256').update(content).digest('hex');
  const known = ctx.progress.get(ref).attachments?.[path];
  if (
    known !== undefined &&
    known.sha256 === sha256 &&
    ctx.clock.now() - known.uploadedAt < ctx.reuseWindowMs
  ) {
    return known.fileId;
  }
  const uploadedAt = ctx.clock.now();
  const { file } = await ctx.api.files.upload(
    {
      content,
      name: basename(path),
      contentType: CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
      purpose: 'expense_attachment',
    },
    { signal: ctx.signal },
  );
  ctx.progress.recordAttachment(ref, path, { fileId: file.id, sha256, uploadedAt });
  ctx.onUpload();
  return file.id;
}

/** The file ids of the expense's attachments, in order; throws AttachmentProblem for a file that cannot go. */
export async function ensureAttachments(
  ctx: AttachmentContext,
  ref: string,
  paths: readonly string[],
): Promise<string[]> {
  for (const path of paths) await checkSize(path); // every file checked before the first upload
  const ids: string[] = [];
  for (const path of paths) ids.push(await ensureOne(ctx, ref, path));
  return ids;
}
