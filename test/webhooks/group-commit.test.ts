import { describe, expect, it } from 'vitest';
import type { InboxStore, WebhookEvent } from '../../src/webhooks/index.js';
import { InboxGroupCommitter, stateInbox } from '../../src/webhooks/index.js';
import { fixedClock, openTempState } from './support.js';

const event = (id: string): WebhookEvent => ({
  id,
  type: 'order.created',
  occurredAt: '2026-11-22T08:00:00Z',
  payload: Buffer.from(`{"id":"${id}"}`),
});

describe('InboxGroupCommitter', () => {
  it('commits the events of one tick in one transaction and answers each', async () => {
    const state = openTempState(fixedClock(1_795_000_000_000));
    try {
      const inner = stateInbox(state.inbox);
      const batches: number[] = [];
      const inbox: InboxStore = {
        ...inner,
        insertMany: (events) => {
          batches.push(events.length);
          return inner.insertMany(events);
        },
      };
      const committed: string[] = [];
      const committer = new InboxGroupCommitter(inbox, {
        onCommitted: (events) => committed.push(...events.map((e) => e.id)),
      });
      const outcomes = await Promise.all(['a', 'b', 'c', 'b', 'd'].map((id) => committer.submit(event(id))));
      expect(batches).toEqual([4]);
      expect(outcomes.map((o) => o.duplicate)).toEqual([false, false, false, true, false]);
      expect(committed).toEqual(['a', 'b', 'c', 'd']);
      expect(state.rowCount()).toBe(4);

      const later = await Promise.all([committer.submit(event('a')), committer.submit(event('e'))]);
      expect(later.map((o) => o.duplicate)).toEqual([true, false]);
      expect(batches).toEqual([4, 2]);
    } finally {
      state.close();
    }
  });

  it('batches events that arrive while a commit is in flight into the next commit', async () => {
    const batches: string[][] = [];
    let release: () => void = () => undefined;
    const inbox: InboxStore = {
      insertMany: async (events) => {
        batches.push(events.map((e) => e.id));
        if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return new Set(events.map((e) => e.id));
      },
      listUndispatched: () => [],
      markDispatched: () => undefined,
    };
    const committer = new InboxGroupCommitter(inbox);
    const first = committer.submit(event('1'));
    await new Promise((resolve) => setImmediate(resolve));
    const rest = ['2', '3', '4'].map((id) => committer.submit(event(id)));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all([first, ...rest]);
    expect(batches).toEqual([['1'], ['2', '3', '4']]);
  });

  it('rejects every waiter of a failed commit and keeps working', async () => {
    let fail = true;
    const inbox: InboxStore = {
      insertMany: (events) => {
        if (fail) throw new Error('disk I/O error');
        return new Set(events.map((e) => e.id));
      },
      listUndispatched: () => [],
      markDispatched: () => undefined,
    };
    const committer = new InboxGroupCommitter(inbox);
    const results = await Promise.allSettled([committer.submit(event('x')), committer.submit(event('y'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(committer.submit(event('x'))).resolves.toEqual({ duplicate: false });
  });
});
