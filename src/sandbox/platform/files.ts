/** POST /files and GET /files/{id}, the signed download link, the 24-hour cleanup, and DomainServices.files. */
import type { DomainServices, RouteDef } from '../http/types.js';
import { notFound } from '../http/problem.js';
import type { PlatformContext } from './context.js';
import { storeUpload } from './file-upload.js';
import { DOWNLOAD_URL_TTL_MS, signUrl } from './signed-url.js';
import type { FileRecord } from './state.js';

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
        const file = await storeUpload(ctx, req.caller.accountId, req.form);
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
