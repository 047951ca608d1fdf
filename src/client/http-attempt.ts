/** One HTTP exchange over undici: send the prepared bytes, read the whole body, report what happened. */
import type { Dispatcher } from 'undici';
import { loadUndici } from '../shared/lazy-packages.js';
import type { HeaderLookup } from './retry-policy.js';

export interface PreparedRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  /** Serialized once per logical call and reused by every attempt. */
  body: Uint8Array | undefined;
}

export type AttemptOutcome =
  | { kind: 'response'; status: number; header: HeaderLookup; text: string }
  | { kind: 'network'; error: unknown }
  | { kind: 'aborted'; reason: unknown };

function headerLookup(headers: Record<string, string | string[] | undefined>): HeaderLookup {
  return (name) => {
    const value = headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };
}

export async function sendAttempt(
  dispatcherOf: () => Promise<Dispatcher>,
  prepared: PreparedRequest,
  signal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  // Outside the try: a package or agent that cannot be made is no network failure to retry.
  const [{ request }, dispatcher] = await Promise.all([loadUndici(), dispatcherOf()]);
  try {
    const response = await request(prepared.url, {
      dispatcher,
      method: prepared.method,
      headers: prepared.headers,
      body: prepared.body === undefined ? null : Buffer.from(prepared.body),
      ...(signal ? { signal } : {}),
    });
    // Reading the whole body inside the try: a connection reset mid-body is a network failure, not a response.
    const text = await response.body.text();
    return { kind: 'response', status: response.statusCode, header: headerLookup(response.headers), text };
  } catch (error) {
    if (signal?.aborted) return { kind: 'aborted', reason: signal.reason };
    return { kind: 'network', error };
  }
}

/** A short, secret-free description of a low-level failure (error code and message, no URL credentials). */
export function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
