/** POST /files: the multipart upload checked (purpose, file part, size) and stored as an unreferenced file. */
import { createHash } from 'node:crypto';
import { ProblemError } from '../http/types.js';
import { validationError } from '../http/problem.js';
import { MAX_FILE_BYTES } from '../http/body.js';
import type { PlatformContext } from './context.js';
import { isoNow } from './context.js';
import { newId } from './ids.js';
import type { FileRecord } from './state.js';

export const FILE_PURPOSES = ['document_attachment', 'expense_attachment', 'product_image'] as const;
export const UNREFERENCED_FILE_TTL_MS = 24 * 3_600_000;

/** The purpose and the file part; 413 for a file over the limit comes before the 422 of the other problems. */
function uploadParts(form: FormData | undefined): { purpose: string; upload: File } {
  if (!form) {
    throw validationError([
      { field: 'file', code: 'required', message: 'Send multipart/form-data with a file.' },
    ]);
  }
  const purpose = form.get('purpose');
  const upload = form.get('file');
  const errors: { field: string; code: string; message: string }[] = [];
  if (typeof purpose !== 'string' || purpose === '') {
    errors.push({ field: 'purpose', code: 'required', message: 'purpose is required.' });
  } else if (!(FILE_PURPOSES as readonly string[]).includes(purpose)) {
    errors.push({
      field: 'purpose',
      code: 'invalid_enum',
      message: `One of ${FILE_PURPOSES.join(', ')}.`,
    });
  }
  if (upload === null || typeof upload === 'string') {
    errors.push({ field: 'file', code: 'required', message: 'A file part named "file" is required.' });
  }
  if (upload !== null && typeof upload !== 'string' && upload.size > MAX_FILE_BYTES) {
    throw new ProblemError(413, 'file_too_large', `Files may be at most ${MAX_FILE_BYTES} bytes.`);
  }
  if (errors.length > 0 || upload === null || typeof upload === 'string' || typeof purpose !== 'string') {
    throw validationError(errors);
  }
  return { purpose, upload };
}

/** Stores the upload; it is deleted after 24 hours unless a document or expense references it first. */
export async function storeUpload(
  ctx: PlatformContext,
  accountId: string,
  form: FormData | undefined,
): Promise<FileRecord> {
  const { purpose, upload } = uploadParts(form);
  const data = Buffer.from(await upload.arrayBuffer());
  const created = ctx.clock.now();
  const file: FileRecord = {
    id: newId('file'),
    accountId,
    name: upload.name || 'upload',
    content_type: upload.type || 'application/octet-stream',
    size_bytes: data.length,
    purpose,
    sha256: createHash('sha256').update(data).digest('hex'),
    created_at: isoNow(ctx),
    expires_at: new Date(created + UNREFERENCED_FILE_TTL_MS).toISOString(),
  };
  ctx.state.files.set(file.id, file);
  ctx.putBlob(file.id, data);
  return file;
}
