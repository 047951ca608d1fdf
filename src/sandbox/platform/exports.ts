/** Bulk exports (part 4.14, gap G26): queued -> running -> completed/failed -> expired, files at signed URLs. */
import { EXPORT_RESOURCES } from '../../contract/index.js';
import type { RouteDef, SandboxDomain } from '../http/types.js';
import { notFound, validationError } from '../http/problem.js';
import type { PlatformContext } from './context.js';
import { isoNow } from './context.js';
import { newId } from './ids.js';
import { DOWNLOAD_URL_TTL_MS, signUrl } from './signed-url.js';
import type { ExportJob } from './state.js';

const EXPORT_TTL_MS = 24 * 3_600_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function exportDownloadPath(jobId: string, resource: string): string {
  return `/downloads/exports/${jobId}/${resource}`;
}

function present(ctx: PlatformContext, job: ExportJob): Record<string, unknown> {
  const expires = ctx.clock.now() + DOWNLOAD_URL_TTL_MS;
  return {
    id: job.id,
    status: job.status,
    request: job.request,
    files:
      job.status === 'completed'
        ? job.files.map((file) => ({
            resource: file.resource,
            download_url: signUrl(
              ctx.origin(),
              exportDownloadPath(job.id, file.resource),
              ctx.state.urlSecret,
              expires,
            ),
            size_bytes: file.size_bytes,
            row_count: file.row_count,
            expires_at: new Date(expires).toISOString(),
          }))
        : [],
    error: job.error,
    created_at: job.created_at,
    completed_at: job.completed_at,
  };
}

function parseRequest(body: unknown): ExportJob['request'] {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const items: { field: string; code: string; message?: string }[] = [];
  const resources = record['resources'];
  if (!Array.isArray(resources) || resources.length === 0)
    items.push({ field: 'resources', code: 'required' });
  else
    resources.forEach((r, i) => {
      if (typeof r !== 'string' || !(EXPORT_RESOURCES as readonly string[]).includes(r))
        items.push({ field: `resources[${i}]`, code: 'invalid_enum' });
    });
  const format = record['format'] ?? 'ndjson';
  if (format === 'parquet')
    items.push({ field: 'format', code: 'unsupported_value', message: 'The sandbox writes ndjson or csv.' });
  else if (format !== 'ndjson' && format !== 'csv') items.push({ field: 'format', code: 'invalid_enum' });
  for (const name of ['from', 'to'] as const) {
    const value = record[name];
    if (value !== undefined && (typeof value !== 'string' || !DATE.test(value)))
      items.push({ field: name, code: 'invalid_format' });
  }
  const branchIds = record['branch_ids'];
  if (
    branchIds !== undefined &&
    (!Array.isArray(branchIds) || !branchIds.every((b) => typeof b === 'string'))
  ) {
    items.push({ field: 'branch_ids', code: 'invalid_format' });
  }
  if (items.length > 0) throw validationError(items);
  const request: ExportJob['request'] = {
    resources: resources as string[],
    format: format as 'ndjson' | 'csv',
  };
  if (typeof record['from'] === 'string') request.from = record['from'];
  if (typeof record['to'] === 'string') request.to = record['to'];
  if (Array.isArray(branchIds)) request.branch_ids = branchIds as string[];
  return request;
}

export function exportRoutes(ctx: PlatformContext): RouteDef[] {
  const base = { scope: 'exports:manage', minPlan: 'Enterprise', group: 'exports' } as const;
  return [
    {
      ...base,
      method: 'POST',
      path: '/exports',
      idempotency: 'optional',
      handle(req) {
        const job: ExportJob = {
          id: newId('exp'),
          accountId: req.caller.accountId,
          status: 'queued',
          request: parseRequest(req.body),
          files: [],
          error: null,
          created_at: isoNow(ctx),
          completed_at: null,
        };
        ctx.state.exports.set(job.id, job);
        ctx.markDirty();
        ctx.kick();
        return { status: 202, body: present(ctx, job) };
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/exports/:export_id',
      handle(req) {
        const job = ctx.state.exports.get(req.params['export_id'] ?? '');
        if (!job || job.accountId !== req.caller.accountId) throw notFound('No such export job.');
        return { status: 200, body: present(ctx, job) };
      },
    },
  ];
}

function csvCell(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function render(rows: Record<string, unknown>[], format: 'ndjson' | 'csv'): Buffer {
  if (format === 'ndjson') return Buffer.from(rows.map((row) => `${JSON.stringify(row)}\n`).join(''), 'utf8');
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const lines = [columns.join(','), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(','))];
  return Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');
}

/** The rows of the account's own world: a created account's, else the demo world's. */
function accountRows(
  ctx: PlatformContext,
  accountId: string,
  resource: string,
  filter: Parameters<SandboxDomain['exportRows']>[2],
): Record<string, unknown>[] {
  const world = ctx.worldOf(accountId);
  if (world === null) return [...ctx.domain().exportRows(accountId, resource, filter)];
  return [...world.domain.exportRows(world.insideId, resource, filter)];
}

/** One step per job per tick: queued -> running; running -> completed or failed; completed -> expired after 24 h. */
export function advanceExports(ctx: PlatformContext): void {
  const now = ctx.clock.now();
  for (const job of ctx.state.exports.values()) {
    if (job.status === 'queued') {
      job.status = 'running';
    } else if (job.status === 'running') {
      try {
        job.files = job.request.resources.map((resource) => {
          const filter = {
            ...(job.request.from !== undefined ? { from: job.request.from } : {}),
            ...(job.request.to !== undefined ? { to: job.request.to } : {}),
            ...(job.request.branch_ids !== undefined ? { branchIds: job.request.branch_ids } : {}),
          };
          const rows = accountRows(ctx, job.accountId, resource, filter);
          const data = render(rows, job.request.format);
          const blobId = `${job.id}/${resource}`;
          ctx.putBlob(blobId, data);
          return { resource, blobId, size_bytes: data.length, row_count: rows.length };
        });
        job.status = 'completed';
      } catch (error) {
        job.status = 'failed';
        job.error = error instanceof Error ? error.message : 'export failed';
      }
      job.completed_at = isoNow(ctx);
    } else if (
      job.status === 'completed' &&
      job.completed_at !== null &&
      Date.parse(job.completed_at) + EXPORT_TTL_MS <= now
    ) {
      job.status = 'expired';
      for (const file of job.files) ctx.deleteBlob(file.blobId);
    } else {
      continue;
    }
    ctx.markDirty();
  }
}
