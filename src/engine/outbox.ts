import { Buffer } from 'node:buffer';
import type { OutboxEntry, OutboxInput } from '../state/outbox.js';
import { LeadershipLostError } from '../state/sql-port.js';
import type { StateStore } from '../state/store.js';
import { toBatches, type BatchKind } from './batching.js';
import { contentHash, idempotencyKey } from './keys.js';
import { errorMessage, type RunBudget } from './outcome.js';

export interface OutboxRequest {
  method: string;
  path: string;
  idempotencyKey: string;
  /** The exact bytes stored at enqueue time; send them as they are. */
  body: Uint8Array | null;
}

/** Sends one stored write (the daemon adapts the API client); resolves with the parsed response. */
export type OutboxSender = (request: OutboxRequest, signal: AbortSignal) => Promise<unknown>;

export interface DrainOptions {
  state: StateStore;
  send: OutboxSender;
  budget: RunBudget;
  stream?: string;
  /** Attempts before an entry is dead. */
  maxAttempts?: number;
  /** Whether an error is worth another attempt; reads a boolean `retryable` on the error by default. */
  isRetryable?(error: unknown): boolean;
  /** The delay before the next attempt; the error's `retryAfterMs` when present, else capped exponential. */
  retryDelayMs?(attempt: number, error: unknown): number;
  /** Called with each entry that ends done, in the order sent. */
  onDone?(entry: OutboxEntry, response: unknown): void;
}

export interface DrainResult {
  sent: number;
  retried: number;
  dead: number;
}

export function defaultIsRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
}

export function defaultRetryDelayMs(attempt: number, error: unknown): number {
  const hinted =
    typeof error === 'object' && error !== null ? (error as { retryAfterMs?: unknown }).retryAfterMs : null;
  if (typeof hinted === 'number' && Number.isFinite(hinted) && hinted >= 0) return hinted;
  return Math.min(15 * 60_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

/** Serializes a JSON body once; the bytes are what the outbox stores and every attempt sends. */
export function jsonBody(body: unknown): Uint8Array {
  return new Uint8Array(Buffer.from(JSON.stringify(body), 'utf8'));
}

/** Stores a write before its first attempt (idempotent for the same key and body). */
export function enqueueWrite(state: StateStore, input: OutboxInput): OutboxEntry {
  return state.outbox.enqueue(input);
}

export interface BatchWrite<T> {
  stream: string;
  method: string;
  path: string;
  items: readonly T[];
  /** A contract batch kind (products, priceEntries, ...) or a size. */
  size: number | BatchKind;
  /** Prefix of every batch's idempotency key, e.g. `catalog-products`. */
  keyNamespace: string;
  /** Builds the request body of one batch. */
  body(items: T[]): unknown;
}

/**
 * Splits a write into contract-sized batches and stores them all in one transaction, each keyed by a hash of
 * its body: the same batch built again after a restart finds its stored entry instead of a second write.
 */
export function enqueueBatches<T>(state: StateStore, write: BatchWrite<T>): OutboxEntry[] {
  const batches = toBatches(write.items, write.size);
  return state.transaction(() =>
    batches.map((batch) => {
      const body = write.body(batch.items);
      return state.outbox.enqueue({
        stream: write.stream,
        idempotencyKey: idempotencyKey(write.keyNamespace, contentHash(body)),
        method: write.method,
        path: write.path,
        body: jsonBody(body),
      });
    }),
  );
}

/**
 * Sends the due entries one by one, oldest first. An entry's key and body never change between attempts.
 * Stops at the budget; entries left pending wait for their next attempt time.
 */
export async function drainOutbox(options: DrainOptions): Promise<DrainResult> {
  const { state, budget } = options;
  const maxAttempts = options.maxAttempts ?? 8;
  const isRetryable = options.isRetryable ?? defaultIsRetryable;
  const retryDelayMs = options.retryDelayMs ?? defaultRetryDelayMs;
  const result: DrainResult = { sent: 0, retried: 0, dead: 0 };
  const tried = new Set<number>();
  for (;;) {
    const batch = state.outbox
      .due({ ...(options.stream === undefined ? {} : { stream: options.stream }), limit: 50 })
      .filter((entry) => !tried.has(entry.id));
    if (batch.length === 0) return result;
    for (const entry of batch) {
      if (budget.stopReason()) return result;
      tried.add(entry.id);
      // A leader that lost its term sends nothing more (throws LeadershipLostError). A send already under way when
      // the term ends is sent again by the next leader with the same idempotency key.
      state.checkFence();
      try {
        const response = await options.send(
          { method: entry.method, path: entry.path, idempotencyKey: entry.idempotencyKey, body: entry.body },
          budget.signal,
        );
        state.outbox.markDone(entry.id, JSON.stringify(response ?? null));
        result.sent += 1;
        options.onDone?.(entry, response);
      } catch (error) {
        // The API client's check before the write refused it (this instance no longer leads): nothing was sent,
        // the entry stays as it is for the next leader, and the run stops.
        if (error instanceof LeadershipLostError) throw error;
        const attempt = entry.attempts + 1;
        if (isRetryable(error) && attempt < maxAttempts) {
          state.outbox.markFailed(entry.id, errorMessage(error), {
            retryAt: state.clock.now() + retryDelayMs(attempt, error),
          });
          result.retried += 1;
        } else {
          state.outbox.markFailed(entry.id, errorMessage(error), { dead: true });
          result.dead += 1;
        }
        if (budget.signal.aborted) return result;
      }
    }
  }
}
