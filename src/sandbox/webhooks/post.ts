/** One signed HTTP POST of an event body (sent twice when a duplicate is injected), bounded by a timeout. */
import { signatureHeader } from './signing.js';
import { DELIVERY_TIMEOUT_MS, SNIPPET_LENGTH } from './schedule.js';

export interface PostOutcome {
  status: number | null;
  snippet: string | null;
  /** null when the endpoint answered 2xx. */
  error: string | null;
}

export async function postSigned(
  url: string,
  secret: string,
  body: string,
  timestampSeconds: number,
  copies: number,
): Promise<PostOutcome> {
  try {
    let status = 0;
    let snippet = '';
    for (let copy = 0; copy < copies; copy++) {
      const response = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'supply-sync-sandbox-webhooks/2',
          'service-signature': signatureHeader(secret, body, timestampSeconds),
        },
        body,
      });
      status = response.status;
      snippet = (await response.text()).slice(0, SNIPPET_LENGTH);
    }
    const ok = status >= 200 && status <= 299;
    return { status, snippet, error: ok ? null : `endpoint answered ${status}` };
  } catch (error) {
    return { status: null, snippet: null, error: failureOf(url, error).slice(0, SNIPPET_LENGTH) };
  }
}

/**
 * Why no answer came, for the attempt's `error` (contract part 2.8 gives it no format; see docs/contract-gaps.md):
 * fetch's own message is only "fetch failed", the socket's reason (connection refused, name not found, reset) is in
 * its cause. The URL is shown without user info or query, which may carry a credential.
 */
function failureOf(endpointUrl: string, error: unknown): string {
  const url = shownUrl(endpointUrl);
  if (error instanceof Error && error.name === 'TimeoutError')
    return `no answer from ${url} within ${DELIVERY_TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? error.cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (cause instanceof Error)
    return `could not reach ${url}: ${typeof code === 'string' ? `${code} ` : ''}(${cause.message})`;
  const message = error instanceof Error ? error.message : String(error);
  return `could not reach ${url}: ${message.split(endpointUrl).join(url)}`;
}

/** The endpoint's URL without what may carry a credential (user info, the query), as it is shown in an error. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'the endpoint URL';
  }
}
