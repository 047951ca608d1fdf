/** Writes replies: JSON or problem+json bodies with the headers every response carries. */
import type { ServerResponse } from 'node:http';
import { ProblemError } from './types.js';
import type { Reply } from './types.js';
import { problemBody } from './problem.js';

export interface SerializedReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function serializeReply(reply: Reply): SerializedReply {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.body === undefined || reply.status === 204) return { status: reply.status, headers, body: '' };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/json; charset=utf-8';
  }
  return { status: reply.status, headers, body: JSON.stringify(reply.body) };
}

export function serializeProblem(
  problem: ProblemError,
  requestId: string,
  instance: string,
): SerializedReply {
  return {
    status: problem.status,
    headers: { ...problem.extra.headers, 'Content-Type': 'application/problem+json; charset=utf-8' },
    body: JSON.stringify(problemBody(problem, requestId, instance)),
  };
}

export function internalError(): ProblemError {
  return new ProblemError(
    500,
    'internal_error',
    'The sandbox failed to handle the request; retry with backoff.',
  );
}

export function writeReply(
  res: ServerResponse,
  reply: SerializedReply,
  extraHeaders: Record<string, string>,
): number {
  const body = Buffer.from(reply.body, 'utf8');
  const headers: Record<string, string> = { ...extraHeaders, ...reply.headers };
  if (reply.status !== 204 && reply.status !== 304) headers['Content-Length'] = String(body.length);
  res.writeHead(reply.status, headers);
  res.end(reply.status === 204 ? undefined : body);
  return body.length;
}
