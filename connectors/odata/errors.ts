import { XMLParser } from 'fast-xml-parser';
import { ConnectorError } from '../../src/connector-contract/errors.js';

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (Array.isArray(value)) {
    const texts = value.map(textOf).filter((text): text is string => text !== undefined);
    return texts.length === 0 ? undefined : texts.join('; ');
  }
  if (typeof value === 'object' && value !== null) return textOf((value as Record<string, unknown>)['#text']);
  return undefined;
}

/** Priority's form errors: `FORM.InterfaceErrors.text`, one text or several. */
function interfaceErrors(form: unknown): string | undefined {
  if (typeof form !== 'object' || form === null) return undefined;
  const errors = (form as Record<string, unknown>)['InterfaceErrors'];
  if (typeof errors !== 'object' || errors === null) return undefined;
  const list = Array.isArray(errors) ? errors : [errors];
  return textOf(list.map((entry) => (entry as Record<string, unknown>)['text'] ?? entry));
}

const xml = new XMLParser({ ignoreAttributes: true, parseTagValue: false });

/** Priority before 19.1 answered errors as XML (`<FORM><InterfaceErrors><text>`). */
function xmlInterfaceErrors(text: string): string | undefined {
  if (!text.trimStart().startsWith('<')) return undefined;
  try {
    const parsed = xml.parse(text) as Record<string, unknown>;
    return interfaceErrors(parsed['FORM']);
  } catch {
    return undefined;
  }
}

/**
 * The message of an error answer: OData v4 (`error.message` text or `{ value }`), v3 (`odata.error`), and Priority's
 * form errors (_restapi/6.restModify.md "Error Handling"): JSON `{"FORM":{"InterfaceErrors":{"text":…}}}` since
 * 19.1, the same elements as XML before (_restapi/1.introduction.md "Error Message Format").
 */
export function odataErrorMessage(body: unknown, text = ''): string | undefined {
  if (typeof body !== 'object' || body === null) return xmlInterfaceErrors(text);
  const record = body as Record<string, unknown>;
  const form = interfaceErrors(record['FORM']);
  if (form !== undefined) return form;
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
