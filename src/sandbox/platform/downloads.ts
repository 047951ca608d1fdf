/** Serves signed download links: /downloads/files/{id} and /downloads/exports/{job}/{resource}. */
import type { ServerResponse } from 'node:http';
import type { PlatformContext } from './context.js';
import { verifySignedUrl } from './signed-url.js';

function notFound(res: ServerResponse, requestId: string): void {
  const body = JSON.stringify({
    code: 'not_found',
    status: 404,
    title: 'Not found',
    detail: 'Unknown or expired link.',
    request_id: requestId,
  });
  res.writeHead(404, { 'Content-Type': 'application/problem+json', 'X-Request-Id': requestId });
  res.end(body);
}

export function serveDownload(ctx: PlatformContext, url: URL, res: ServerResponse, requestId: string): void {
  const path = url.pathname;
  if (!verifySignedUrl(path, url.searchParams, ctx.state.urlSecret, ctx.clock.now()))
    return notFound(res, requestId);
  const fileMatch = /^\/downloads\/files\/([^/]+)$/.exec(path);
  const exportMatch = /^\/downloads\/exports\/([^/]+)\/([^/]+)$/.exec(path);
  let blobId: string | undefined;
  let contentType = 'application/octet-stream';
  let name = 'download';
  if (fileMatch?.[1]) {
    const file = ctx.state.files.get(fileMatch[1]);
    if (file) {
      blobId = file.id;
      contentType = file.content_type;
      name = file.name;
    }
  } else if (exportMatch?.[1] && exportMatch[2]) {
    const job = ctx.state.exports.get(exportMatch[1]);
    const file =
      job?.status === 'completed' ? job.files.find((f) => f.resource === exportMatch[2]) : undefined;
    if (job && file) {
      blobId = file.blobId;
      contentType = job.request.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson';
      name = `${file.resource}.${job.request.format}`;
    }
  }
  const data = blobId === undefined ? undefined : ctx.state.blobs.get(blobId);
  if (!data) return notFound(res, requestId);
  res.writeHead(200, {
    'Content-Type': contentType,
    'Content-Length': String(data.length),
    'Content-Disposition': `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"`,
    'X-Request-Id': requestId,
  });
  res.end(data);
}
