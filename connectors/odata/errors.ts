import { ConnectorError } from '../../src/connector-contract/errors.js';

/** The message of an OData error body: v4 (`error.message` text or `{ value }`) and v3 (`odata.error`). */
export function odataErrorMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const error = (record['error'] ?? record['odata.error']) as Record<string, unknown> | undefined;
  const message = error?.['message'];
  if (typeof message === 'string') return message;
  if (typeof message === 'object' && message !== null) {
    const value = (message as Record<string, unknown>)['value'];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/** Removes every secret from a text that came from the ERP or the network, whatever the ERP chose to echo. */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  return secrets
    .filter((value) => value.length > 0)
    .reduce((out, value) => out.replaceAll(value, '[redacted]'), text);
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export function httpError(
  connector: string,
  what: string,
  status: number,
  message: string | undefined,
): ConnectorError {
  const retryable = isRetryableStatus(status);
  return new ConnectorError(
    retryable ? 'connector_unreachable' : 'connector_statement_failed',
    `${what}: HTTP ${status}${message === undefined ? '' : `: ${message}`}`,
    { connector, retryable },
  );
}
