/** Reads request bodies under a size limit and parses JSON, form-urlencoded and multipart bodies. */
import type { IncomingMessage } from 'node:http';
import { ProblemError } from './types.js';
import { validationError } from './problem.js';

/** Gap G22: JSON bodies up to 10 MiB. */
export const MAX_JSON_BYTES = 10 * 1024 * 1024;
/** Part 8: files up to 25 MB; the multipart envelope may add a little. */
export const MAX_FILE_BYTES = 26_214_400;
export const MAX_MULTIPART_BYTES = MAX_FILE_BYTES + 1024 * 1024;

export function isMultipart(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().startsWith('multipart/form-data');
}

function tooLarge(multipart: boolean): ProblemError {
  return multipart
    ? new ProblemError(413, 'file_too_large', `Files may be at most ${MAX_FILE_BYTES} bytes.`)
    : new ProblemError(413, 'payload_too_large', `Request bodies may be at most ${MAX_JSON_BYTES} bytes.`);
}

/** Buffers the body; stops reading and throws 413 as soon as it passes the limit for its content type. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const multipart = isMultipart(req.headers['content-type']);
  const limit = multipart ? MAX_MULTIPART_BYTES : MAX_JSON_BYTES;
  const declared = Number(req.headers['content-length'] ?? '0');
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(multipart);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > limit) throw tooLarge(multipart);
      chunks.push(buffer);
    }
  } catch (error) {
    throw req.destroyed && !(error instanceof ProblemError) ? clientClosed() : error;
  }
  return Buffer.concat(chunks);
}

/** Nginx's status for a request whose client went away: never sent, it only marks such a request. */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * The client went away before its body arrived (a killed daemon, a dropped connection): nobody is left to answer, and
 * it is no fault of the sandbox, so it is neither reported as an unexpected error nor answered.
 */
function clientClosed(): ProblemError {
  return new ProblemError(
    CLIENT_CLOSED_REQUEST,
    'client_closed_request',
    'The client closed the connection before its body arrived.',
  );
}

export interface ParsedBody {
  body: unknown;
  form?: FormData;
}

/**
 * JSON (or empty) bodies become `body`; form-urlencoded becomes a plain object; multipart becomes `form`.
 * A malformed body is 422 validation_error, or 400 where `status400` is set (the token endpoint).
 */
export async function parseBody(
  raw: Buffer,
  contentType: string | undefined,
  status400 = false,
): Promise<ParsedBody> {
  const type = (contentType ?? '').toLowerCase();
  const malformed = (message: string) =>
    validationError(
      [{ field: 'body', code: 'invalid_format', message }],
      'The request body could not be parsed.',
      status400 ? 400 : 422,
    );
  if (isMultipart(type)) {
    try {
      const form = await new Response(raw, { headers: { 'content-type': contentType ?? '' } }).formData();
      return { body: undefined, form };
    } catch {
      throw malformed('The multipart body could not be parsed.');
    }
  }
  if (raw.length === 0) return { body: undefined };
  if (type.startsWith('application/x-www-form-urlencoded')) {
    return { body: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))) };
  }
  try {
    return { body: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    throw malformed('The body is not valid JSON.');
  }
}
