/** Streams an NDJSON download line by line; memory holds one line (and one chunk of rows) at a time. */
import { createInterface } from 'node:readline';
import type { Dispatcher } from 'undici';
import { loadUndici } from '../../shared/lazy-packages.js';

export class DownloadError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'DownloadError';
  }
}

export type NdjsonLine = { lineNumber: number; value: unknown } | { lineNumber: number; error: string };

/**
 * Yields each non-empty line parsed as JSON, or the parse error for that line. The URL is signed: it is never put
 * into an error message or a log.
 */
export async function* ndjsonLines(
  url: string,
  options: { signal: AbortSignal; dispatcher?: () => Promise<Dispatcher>; label: string },
): AsyncGenerator<NdjsonLine> {
  const { request } = await loadUndici();
  const dispatcher = await options.dispatcher?.();
  const response = await request(url, {
    method: 'GET',
    signal: options.signal,
    ...(dispatcher === undefined ? {} : { dispatcher }),
  });
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new DownloadError(
      `download of ${options.label} answered HTTP ${response.statusCode}`,
      response.statusCode,
    );
  }
  const lines = createInterface({ input: response.body, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber += 1;
      if (line.trim() === '') continue;
      try {
        yield { lineNumber, value: JSON.parse(line) as unknown };
      } catch (error) {
        yield { lineNumber, error: error instanceof Error ? error.message : String(error) };
      }
    }
  } finally {
    lines.close();
    response.body.destroy();
  }
}
