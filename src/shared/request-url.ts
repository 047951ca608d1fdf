import type { IncomingMessage } from 'node:http';

/**
 * The request's target as a URL, or null when it cannot be read as one. node:http passes any absolute-form target
 * through as sent (`GET http://[::1/status`), and `new URL` throws on those: such a request is the client's
 * mistake, to be answered 400, never an error of the server.
 */
export function requestUrl(req: IncomingMessage, base = 'http://localhost'): URL | null {
  const target = req.url ?? '/';
  return URL.canParse(target, base) ? new URL(target, base) : null;
}

/** The plain-JSON 400 for a target that is not a URL. */
export const BAD_TARGET_BODY = '{"error":"bad_request_target"}';
