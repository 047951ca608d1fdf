import { describe, expect, it } from 'vitest';
import { DEFAULT_DISPATCH_INTERVAL_MS, stateInbox, WebhookDispatcher } from '../../src/webhooks/index.js';
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

  describe('kicks', () => {
    /** Records when each pass triggered the job, in ms since the test began. */
    const pacedDispatcher = (state: ReturnType<typeof openTempState>, minIntervalMs?: number) => {
      const began = performance.now();
      const passes: Array<{ atMs: number; eventIds: readonly string[] }> = [];
      const dispatcher = new WebhookDispatcher({
        inbox: stateInbox(state.inbox),
        mapping: { 'order.created': ['orders'] },
        trigger: (_job, cause) => {
          passes.push({ atMs: performance.now() - began, eventIds: cause.eventIds });
        },
        ...(minIntervalMs === undefined ? {} : { minIntervalMs }),
      });
      return { dispatcher, passes };
    };

    it('dispatches a lone event at once and a stream at most once per interval, with nothing left behind', async () => {
      const state = openTempState(fixedClock(1_795_000_000_000));
      try {
        const { dispatcher, passes } = pacedDispatcher(state, 150);
        state.inbox.insertMany([row('e1', 'order.created')]);
        dispatcher.kick();
        await dispatcher.idle();
        expect(passes).toHaveLength(1);
        expect(passes[0]?.atMs).toBeLessThan(100);
        // Events stored one by one, each kicking, right after that pass: one more pass, once the interval is up.
        for (const id of ['e2', 'e3', 'e4']) {
          state.inbox.insertMany([row(id, 'order.created')]);
          dispatcher.kick();
        }
        await dispatcher.idle();
        expect(passes.map((pass) => pass.eventIds)).toEqual([['e1'], ['e2', 'e3', 'e4']]);
        const [first, second] = passes;
        expect((second?.atMs ?? 0) - (first?.atMs ?? 0)).toBeGreaterThanOrEqual(140);
        expect(state.inbox.counts()).toEqual({ pending: 0, dispatched: 4 });
      } finally {
        state.close();
      }
    });

    it('starts a pass on every kick with an interval of 0', async () => {
      const state = openTempState(fixedClock(1_795_000_000_000));
      try {
        const { dispatcher, passes } = pacedDispatcher(state, 0);
        for (const id of ['e1', 'e2']) {
          state.inbox.insertMany([row(id, 'order.created')]);
          dispatcher.kick();
          await dispatcher.idle();
        }
        expect(passes.map((pass) => pass.eventIds)).toEqual([['e1'], ['e2']]);
        expect((passes[1]?.atMs ?? 0) - (passes[0]?.atMs ?? 0)).toBeLessThan(100);
      } finally {
        state.close();
      }
    });

    it('paces passes by DEFAULT_DISPATCH_INTERVAL_MS when given no interval', async () => {
      const state = openTempState(fixedClock(1_795_000_000_000));
      try {
        const { dispatcher, passes } = pacedDispatcher(state);
        for (const id of ['e1', 'e2']) {
          state.inbox.insertMany([row(id, 'order.created')]);
          dispatcher.kick();
          await dispatcher.idle();
        }
        expect(passes.map((pass) => pass.eventIds)).toEqual([['e1'], ['e2']]);
        expect((passes[1]?.atMs ?? 0) - (passes[0]?.atMs ?? 0)).toBeGreaterThanOrEqual(
          DEFAULT_DISPATCH_INTERVAL_MS - 10,
        );
      } finally {
        state.close();
      }
    });
  });
});
