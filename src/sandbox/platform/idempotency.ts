/**
 * Idempotency-Key store: 24 hours by the sandbox clock. Same key and same request replays the stored status,
 * headers and body; a different request under the same key is 409 idempotency_conflict. Concurrent requests with
 * one key wait for the first and then replay it.
 */
import { createHash } from 'node:crypto';
import { ProblemError } from '../http/types.js';
import { validationError } from '../http/problem.js';
import type { IdempotencyEntry, PlatformState } from './state.js';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
export const MAX_KEY_LENGTH = 128;

export interface StoredReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function fingerprintOf(method: string, path: string, rawBody: Buffer): string {
  return createHash('sha256').update(`${method} ${path}\n`).update(rawBody).digest('hex');
}

/** Reads and checks the header; null when absent and allowed to be. */
export function readIdempotencyKey(
  headers: Readonly<Record<string, string | undefined>>,
  mode: 'required' | 'optional',
): string | null {
  const key = headers['idempotency-key'];
  if (key === undefined || key === '') {
    if (mode === 'optional') return null;
    throw validationError(
      [
        {
          field: 'Idempotency-Key',
          code: 'required',
          message: 'This endpoint requires an Idempotency-Key header.',
        },
      ],
      'Idempotency-Key header is required.',
    );
  }
  if (key.length > MAX_KEY_LENGTH) {
    throw validationError([
      { field: 'Idempotency-Key', code: 'too_long', message: `At most ${MAX_KEY_LENGTH} characters.` },
    ]);
  }
  return key;
}

export class IdempotencyStore {
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly state: PlatformState,
    private readonly now: () => number,
  ) {}

  /**
   * Runs `execute` once per (account, key): replays a stored reply, rejects a different fingerprint, and stores
   * replies below 500 (a 5xx may be retried with the same key).
   */
  async run(
    accountId: string,
    key: string,
    fingerprint: string,
    execute: () => Promise<StoredReply>,
  ): Promise<{ reply: StoredReply; replayed: boolean }> {
    const scope = `${accountId}:${key}`;
    const pending = this.inFlight.get(scope);
    if (pending) await pending.catch(() => undefined);
    const existing = this.lookup(scope);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        throw new ProblemError(
          409,
          'idempotency_conflict',
          'This Idempotency-Key was used with a different request; use a new key for a new request.',
        );
      }
      return {
        reply: { status: existing.status, headers: existing.headers, body: existing.body },
        replayed: true,
      };
    }
    let release = () => undefined as void;
    this.inFlight.set(scope, new Promise<void>((resolve) => (release = resolve)));
    try {
      const reply = await execute();
      if (reply.status < 500) {
        const entry: IdempotencyEntry = { scope, fingerprint, ...reply, createdAtMs: this.now() };
        this.state.idempotency.set(scope, entry);
      }
      return { reply, replayed: false };
    } finally {
      this.inFlight.delete(scope);
      release();
    }
  }

  /** Drops entries older than the window. */
  prune(): void {
    const cutoff = this.now() - IDEMPOTENCY_WINDOW_MS;
    for (const [scope, entry] of this.state.idempotency) {
      if (entry.createdAtMs <= cutoff) this.state.idempotency.delete(scope);
    }
  }

  private lookup(scope: string): IdempotencyEntry | undefined {
    const entry = this.state.idempotency.get(scope);
    if (entry && entry.createdAtMs <= this.now() - IDEMPOTENCY_WINDOW_MS) {
      this.state.idempotency.delete(scope);
      return undefined;
    }
    return entry;
  }
}
