import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too_large' | 'aborted' };

/** How much of an oversized body is still read (and discarded) so the sender sees the 413 cleanly. */
const DRAIN_FACTOR = 8;

/**
 * Reads the raw request body up to `maxBytes`. An oversized body (by Content-Length or by counting) resolves
 * as too_large at once; the rest is drained up to a bound, past which the connection is dropped.
 */
export function readRawBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      discard(req, maxBytes * DRAIN_FACTOR);
      resolve({ ok: false, reason: 'too_large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        discard(req, maxBytes * DRAIN_FACTOR - size);
        settle({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => settle({ ok: true, body: Buffer.concat(chunks, size) }));
    req.once('error', () => settle({ ok: false, reason: 'aborted' }));
    req.once('close', () => {
      if (!req.complete) settle({ ok: false, reason: 'aborted' });
    });
  });
}

function discard(req: IncomingMessage, budget: number): void {
  let left = budget;
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) req.destroy();
  });
  req.on('error', () => undefined);
  req.resume();
}
