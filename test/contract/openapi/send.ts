/**
 * Sends a generated request and classifies the answer. Prism (with --errors) answers a violation of the
 * document itself with a problem whose `type` is https://stoplight.io/prism/errors#..., and lists what it found
 * in `validation` and the `sl-violations` header; every other answer came from the sandbox.
 */
import type { RequestBody, RequestCase } from './generator.js';

export interface Answer {
  status: number;
  contentType: string;
  body: unknown;
  /** Prism's own error type (UNPROCESSABLE_ENTITY, VIOLATIONS, UNAUTHORIZED...) or null for a forwarded answer. */
  prismError: string | null;
  /** The violations Prism reported, as text. */
  violations: string[];
}

const PRISM_ERROR_PREFIX = 'https://stoplight.io/prism/errors#';

function encode(
  body: RequestBody | undefined,
  headers: Record<string, string>,
): string | FormData | undefined {
  if (body === undefined) return undefined;
  if (body.kind === 'json') {
    headers['content-type'] = 'application/json';
    return JSON.stringify(body.value);
  }
  if (body.kind === 'form') {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return new URLSearchParams(body.value).toString();
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(body.fields)) form.append(name, value);
  if (body.file !== undefined)
    form.append('file', new Blob([body.file.content], { type: 'text/plain' }), body.file.name);
  return form;
}

export async function send(base: string, call: RequestCase, key: string | null): Promise<Answer> {
  const headers: Record<string, string> = { ...call.headers };
  if (key !== null) headers['authorization'] = `Bearer ${key}`;
  const payload = encode(call.body, headers);
  const response = await fetch(`${base}${call.target}`, {
    method: call.method,
    headers,
    redirect: 'manual',
    signal: AbortSignal.timeout(20_000),
    ...(payload === undefined ? {} : { body: payload }),
  });
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  const type =
    typeof body === 'object' && body !== null && typeof (body as { type?: unknown }).type === 'string'
      ? (body as { type: string }).type
      : '';
  const violationHeader = response.headers.get('sl-violations');
  const violations: string[] = [];
  if (typeof violationHeader === 'string') violations.push(violationHeader);
  if (type.startsWith(PRISM_ERROR_PREFIX)) {
    const listed = (body as { validation?: unknown }).validation;
    violations.push(
      Array.isArray(listed) ? JSON.stringify(listed) : String((body as { detail?: unknown }).detail),
    );
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body,
    prismError: type.startsWith(PRISM_ERROR_PREFIX) ? type.slice(PRISM_ERROR_PREFIX.length) : null,
    violations,
  };
}

export function describeCall(call: RequestCase, answer: Answer): string {
  return redacted(
    `${call.method} ${call.target} as ${call.caller} (${call.intent}: ${call.variant}) -> ${answer.status} ${
      answer.prismError ?? ''
    } ${answer.violations.join(' ')}`.trim(),
  );
}

/** Failure text without credentials: API keys, tokens and webhook secrets are masked. */
export function redacted(text: string): string {
  return text
    .replace(/svc_(?:test|live)_[A-Za-z0-9]+/g, 'svc_***')
    .replace(/"(access_token|secret|client_secret)":"[^"]*"/g, '"$1":"***"');
}
