import type { InboxStore as StateInboxStore } from '../state/inbox.js';
import type { WebhookEvent } from './envelope.js';
import type { InboxRow, InboxStore } from './inbox.js';

/** Adapts the state store's inbox (src/state/inbox.ts) to what the receiver and dispatcher use. */
export function stateInbox(
  store: Pick<StateInboxStore, 'insertMany' | 'pendingRefs' | 'markDispatched'>,
): InboxStore {
  return {
    insertMany(events: readonly WebhookEvent[]): ReadonlySet<string> {
      const inserted = store.insertMany(
        events.map((event) => ({ eventId: event.id, type: event.type, payload: event.payload })),
      );
      const newIds = new Set<string>();
      events.forEach((event, index) => {
        if (inserted[index] === true) newIds.add(event.id);
      });
      return newIds;
    },
    listUndispatched(limit: number): InboxRow[] {
      return store
        .pendingRefs(limit)
        .map((event) => ({ id: event.eventId, type: event.type, receivedAt: event.receivedAt }));
    },
    markDispatched(rows: readonly InboxRow[]): void {
      store.markDispatched(rows.map((row) => ({ eventId: row.id, receivedAt: row.receivedAt })));
    },
  };
}
