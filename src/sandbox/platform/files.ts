/** POST /files and GET /files/{id}, the signed download link, the 24-hour cleanup, and DomainServices.files. */
import { createHash } from 'node:crypto';
import type { DomainServices, RouteDef } from '../http/types.js';
import { ProblemError } from '../http/types.js';
import { notFound, validationError } from '../http/problem.js';
import { MAX_FILE_BYTES } from '../http/body.js';
import type { PlatformContext } from './context.js';
import { isoNow } from './context.js';
import { newId } from './ids.js';
import { DOWNLOAD_URL_TTL_MS, signUrl } from './signed-url.js';
import type { FileRecord } from './state.js';

export const FILE_PURPOSES = ['document_attachment', 'expense_attachment', 'product_image'] as const;
export const UNREFERENCED_FILE_TTL_MS = 24 * 3_600_000;

export function fileDownloadPath(fileId: string): string {
  return `/downloads/files/${fileId}`;
}

function present(ctx: PlatformContext, file: FileRecord): Record<string, unknown> {
  const expires = ctx.clock.now() + DOWNLOAD_URL_TTL_MS;
  return {
    id: file.id,
    name: file.name,
    content_type: file.content_type,
    size_bytes: file.size_bytes,
    purpose: file.purpose,
    sha256: file.sha256,
    download_url: signUrl(ctx.origin(), fileDownloadPath(file.id), ctx.state.urlSecret, expires),
    created_at: file.created_at,
    expires_at: file.expires_at,
  };
}

function liveFile(ctx: PlatformContext, accountId: string, fileId: string): FileRecord | undefined {
  const file = ctx.state.files.get(fileId);
  return file && file.accountId === accountId ? file : undefined;
}

export function fileRoutes(ctx: PlatformContext): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/files',
      group: 'files',
      idempotency: 'optional',
      async handle(req) {
        const form = req.form;
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
        if (
          errors.length > 0 ||
          upload === null ||
          typeof upload === 'string' ||
          typeof purpose !== 'string'
        ) {
          throw validationError(errors);
        }
        const data = Buffer.from(await upload.arrayBuffer());
        const created = ctx.clock.now();
        const file: FileRecord = {
          id: newId('file'),
          accountId: req.caller.accountId,
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
        return { status: 201, body: present(ctx, file) };
      },
    },
    {
      method: 'GET',
      path: '/files/:file_id',
      group: 'files',
      handle(req) {
        const file = liveFile(ctx, req.caller.accountId, req.params['file_id'] ?? '');
        if (!file) throw notFound('No such file (unreferenced files are deleted 24 hours after upload).');
        return { status: 200, body: present(ctx, file) };
      },
    },
  ];
}

export function fileServices(ctx: PlatformContext): DomainServices['files'] {
  return {
    exists: (accountId, fileId) => liveFile(ctx, accountId, fileId) !== undefined,
    markReferenced(fileId) {
      const file = ctx.state.files.get(fileId);
      if (file && file.expires_at !== null) {
        file.expires_at = null;
        ctx.markDirty();
      }
    },
  };
}

/** Deletes unreferenced files whose 24 hours have passed (by the sandbox clock). */
export function cleanupFiles(ctx: PlatformContext): void {
  const now = ctx.clock.now();
  for (const file of [...ctx.state.files.values()]) {
    if (file.expires_at !== null && Date.parse(file.expires_at) <= now) {
      ctx.state.files.delete(file.id);
      ctx.deleteBlob(file.id);
      ctx.markDirty();
    }
  }
}
