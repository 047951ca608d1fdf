/**
 * Files: multipart upload (size checked and sha256 computed before sending; the multipart bytes are built once
 * and reused by every retry) and retrieval with a signed download URL.
 */
import { createHash } from 'node:crypto';
import type { File as ApiFile } from '../../contract/index.js';
import { loadUndici } from '../../shared/lazy-packages.js';
import { ApiError, ClientConfigError } from '../errors.js';
import { requestResource, type ClientContext } from '../context.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import { callOf } from './common.js';

/** 25 MB as the contract counts it (26,214,400 bytes). */
export const MAX_FILE_BYTES = 26_214_400;

export interface UploadFileInput {
  content: Uint8Array;
  /** File name as it should appear to the buyer, e.g. INV-1001.pdf. */
  name: string;
  contentType?: string;
  purpose: 'document_attachment' | 'expense_attachment' | 'product_image' | (string & {});
}

export interface UploadedFile {
  file: ApiFile;
  /** Hex sha256 of the bytes sent; the server's sha256 is checked against it when present. */
  sha256: string;
}

async function encodeMultipart(input: UploadFileInput): Promise<{ bytes: Uint8Array; contentType: string }> {
  const { FormData, Response } = await loadUndici();
  const form = new FormData();
  form.append('purpose', input.purpose);
  const blob = new Blob([input.content], { type: input.contentType ?? 'application/octet-stream' });
  form.append('file', blob, input.name);
  const encoded = new Response(form);
  const contentType = encoded.headers.get('content-type');
  if (contentType === null) throw new Error('multipart encoding produced no content type');
  return { bytes: new Uint8Array(await encoded.arrayBuffer()), contentType };
}

export function createFilesApi(ctx: ClientContext) {
  return {
    async upload(input: UploadFileInput, options?: CallOptions): Promise<UploadedFile> {
      if (input.content.byteLength > MAX_FILE_BYTES) {
        throw new ClientConfigError(
          'file_too_large',
          `${input.name} is ${input.content.byteLength} bytes; the limit is ${MAX_FILE_BYTES} bytes`,
        );
      }
      const sha256 = createHash('sha256').update(input.content).digest('hex');
      const raw = await encodeMultipart(input);
      const file = await requestResource(
        ctx,
        { method: 'POST', route: '/files', raw, ...callOf(options) },
        parsers.file,
      );
      if (typeof file.sha256 === 'string' && file.sha256.toLowerCase() !== sha256) {
        throw new ApiError({
          status: 201,
          code: 'invalid_response',
          method: 'POST',
          path: '/files',
          message: `POST /files stored ${input.name} with sha256 ${file.sha256}, but the bytes sent hash to ${sha256}`,
        });
      }
      return { file, sha256 };
    },
    get(fileId: string, options?: CallOptions): Promise<ApiFile> {
      return requestResource(
        ctx,
        { method: 'GET', route: '/files/{file_id}', params: { file_id: fileId }, ...callOf(options) },
        parsers.file,
      );
    },
  };
}

export type FilesApi = ReturnType<typeof createFilesApi>;
