import type { WebhookEvent } from './envelope.js';

/** One stored inbox row, as the dispatcher reads it. */
export interface InboxRow {
  id: string;
  type: string;
  /** When it was stored (ms), which with the id keys it among the pending events. */
  receivedAt: number;
}

/**
 * What the receiver and dispatcher need from the state store's webhook inbox. Implementations must make
 * `insertMany` durable (committed) before it returns or resolves.
 */
export interface InboxStore {
  /** Inserts the events in one transaction; returns the ids that were new (not seen before). */
  insertMany(events: readonly WebhookEvent[]): ReadonlySet<string> | Promise<ReadonlySet<string>>;
  /** Stored events not yet dispatched, oldest first. */
  listUndispatched(limit: number): readonly InboxRow[] | Promise<readonly InboxRow[]>;
  /** Marks events dispatched (whether they triggered jobs or were ignored). */
  markDispatched(rows: readonly InboxRow[]): void | Promise<void>;
}
