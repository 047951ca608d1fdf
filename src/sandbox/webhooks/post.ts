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
    const message = error instanceof Error ? `${error.name}: ${error.message}` : 'delivery failed';
    return { status: null, snippet: null, error: message.slice(0, SNIPPET_LENGTH) };
  }
}
