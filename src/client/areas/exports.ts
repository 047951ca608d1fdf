/** Bulk exports (plan Enterprise): create a job, poll it. */
import type { ExportJob } from '../../contract/index.js';
import { requestResource, type ClientContext } from '../context.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import { callOf } from './common.js';
import type { CreateExportJobBody } from '../request-types.js';

export function createExportsApi(ctx: ClientContext) {
  return {
    /** 202: the job starts queued; poll get() until completed. */
    create(body: CreateExportJobBody, options?: CallOptions): Promise<ExportJob> {
      return requestResource(
        ctx,
        { method: 'POST', route: '/exports', json: body, ...callOf(options) },
        parsers.exportJob,
      );
    },
    get(exportId: string, options?: CallOptions): Promise<ExportJob> {
      return requestResource(
        ctx,
        { method: 'GET', route: '/exports/{export_id}', params: { export_id: exportId }, ...callOf(options) },
        parsers.exportJob,
      );
    },
  };
}

export type ExportsApi = ReturnType<typeof createExportsApi>;
