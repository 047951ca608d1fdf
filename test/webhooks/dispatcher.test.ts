import { describe, expect, it } from 'vitest';
import { stateInbox, WebhookDispatcher } from '../../src/webhooks/index.js';
import { fixedClock, openTempState } from './support.js';

const row = (eventId: string, type: string) => ({
  eventId,
  type,
  payload: Buffer.from(`{"id":"${eventId}"}`),
});

describe('WebhookDispatcher', () => {
  it('turns pending inbox events into one trigger per job, ignores unknown types, and marks all dispatched', async () => {
    const clock = fixedClock(1_795_000_000_000);
    const state = openTempState(clock);
    try {
      state.inbox.insertMany([
        row('e1', 'order.created'),
        row('e2', 'order.updated'),
        row('e3', 'document.received'),
        row('e4', 'something.new'),
        row('e5', 'journal_lines.approved_for_export'),
      ]);
      const triggers: Array<[string, readonly string[]]> = [];
      const dispatcher = new WebhookDispatcher({
        inbox: stateInbox(state.inbox),
        mapping: {
          'order.created': ['orders'],
          'order.updated': ['orders'],
          'document.received': ['documents', 'orders'],
          'journal_lines.approved_for_export': ['journal-export'],
        },
        trigger: (job, cause) => {
          triggers.push([job, cause.eventIds]);
        },
        batchSize: 2,
      });
      const summary = await dispatcher.dispatchPending();
      // Batches of two: [e1, e2], [e3, e4], [e5]; one trigger per job and batch.
      expect(summary).toEqual({ events: 5, ignored: 1, triggers: 4 });
      expect(triggers).toEqual([
        ['orders', ['e1', 'e2']],
        ['documents', ['e3']],
        ['orders', ['e3']],
        ['journal-export', ['e5']],
      ]);
      expect(state.inbox.counts()).toEqual({ pending: 0, dispatched: 5 });
      expect(await dispatcher.dispatchPending()).toEqual({ events: 0, ignored: 0, triggers: 0 });
    } finally {
      state.close();
    }
  });

  it('marks events dispatched even when a trigger fails, since polling remains the source of truth', async () => {
    const state = openTempState(fixedClock(1_795_000_000_000));
    try {
      state.inbox.insertMany([row('e1', 'order.created')]);
      const dispatcher = new WebhookDispatcher({
        inbox: stateInbox(state.inbox),
        mapping: { 'order.created': ['orders'] },
        trigger: () => {
          throw new Error('unknown job orders');
        },
      });
      expect(await dispatcher.dispatchPending()).toEqual({ events: 1, ignored: 0, triggers: 1 });
      expect(state.inbox.get('e1')?.status).toBe('dispatched');
    } finally {
      state.close();
    }
  });

  it('does not treat inherited object keys as event types', async () => {
    const state = openTempState(fixedClock(1_795_000_000_000));
    try {
      state.inbox.insertMany([row('e1', 'constructor'), row('e2', 'toString')]);
      const triggers: string[] = [];
      const dispatcher = new WebhookDispatcher({
        inbox: stateInbox(state.inbox),
        mapping: {},
        trigger: (job) => {
          triggers.push(job);
        },
      });
      expect(await dispatcher.dispatchPending()).toEqual({ events: 2, ignored: 2, triggers: 0 });
      expect(triggers).toEqual([]);
    } finally {
      state.close();
    }
  });
});
