import { describe, expect, it } from 'vitest';
import type { InboxStore, WebhookEvent } from '../../src/webhooks/index.js';
import {
  createWebhookReceiver,
  InboxGroupCommitter,
  signatureHeader,
  stateInbox,
} from '../../src/webhooks/index.js';
import { eventBody, fixedClock, openTempState, post, serveReceiver } from './support.js';

const event = (id: string): WebhookEvent => ({
  id,
  type: 'order.created',
  occurredAt: '2026-11-22T08:00:00Z',
  payload: Buffer.from(`{"id":"${id}"}`),
});

/** Waits for a condition the receiver's progress makes true; fails with what it waited for after 10 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A receiver over a real inbox whose commits are written at once but reported durable only when the test releases
 * them (held, in commit order), like syncs that are running; it counts the requests it has read.
 */
async function heldReceiver(options: { maxCommitsInFlight?: number }) {
  const nowS = 1_795_000_000;
  const state = openTempState(fixedClock(nowS * 1000));
  const inner = stateInbox(state.inbox);
  const held: Array<() => void> = [];
  const inserted: string[][] = [];
  const inbox: InboxStore = {
    ...inner,
    insertMany: async (events) => {
      inserted.push(events.map((e) => e.id));
      const newIds = inner.insertMany(events);
      await new Promise<void>((resolve) => held.push(resolve));
      return newIds;
    },
  };
  // The receiver reads the clock once per request, just before it checks the signature and queues the event.
  let requestsRead = 0;
  const fixed = fixedClock(nowS * 1000);
  const clock = { ...fixed, now: () => ((requestsRead += 1), fixed.now()) };
  const receiver = createWebhookReceiver({ inbox, secrets: ['whsec_held'], clock, ...options });
  const server = await serveReceiver(receiver);
  return {
    inserted,
    held,
    requestsRead: () => requestsRead,
    rowCount: () => state.rowCount(),
    send: (id: string): Promise<{ status: number; body: unknown }> => {
      const body = eventBody(id);
      return post(server.url, body, {
        'service-signature': signatureHeader(['whsec_held'], nowS, Buffer.from(body)),
      });
    },
    close: async () => {
      // Every commit still held is let go, so no request waits on a closed server.
      for (const release of held) release();
      await server.close();
      state.close();
    },
  };
}

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

  it('lets the receiver commit as many groups at once as it is allowed, each answered after its own wait', async () => {
    const rig = await heldReceiver({ maxCommitsInFlight: 2 });
    const { inserted, held } = rig;
    try {
      const first = rig.send('evt_1');
      await until(() => inserted.length === 1, 'the first group');
      const second = rig.send('evt_2');
      await until(() => inserted.length === 2, 'the second group');
      const third = rig.send('evt_3');
      await until(() => rig.requestsRead() === 3, 'three requests read');
      // Two groups wait already: the third event queues until one of them is durable.
      expect(inserted).toEqual([['evt_1'], ['evt_2']]);

      held[1]?.();
      expect((await second).status).toBe(200);
      await until(() => inserted.length === 3, 'the third group');
      expect(inserted[2]).toEqual(['evt_3']);
      held[0]?.();
      held[2]?.();
      expect([(await first).status, (await third).status]).toEqual([200, 200]);
      expect(rig.rowCount()).toBe(3);
    } finally {
      await rig.close();
    }
  });

  it('commits one group at a time by default: what arrives while a group waits forms the next group', async () => {
    const rig = await heldReceiver({});
    const { inserted, held } = rig;
    try {
      const first = rig.send('evt_1');
      await until(() => inserted.length === 1, 'the first group');
      const others = [rig.send('evt_2'), rig.send('evt_3')];
      await until(() => rig.requestsRead() === 3, 'three requests read');
      expect(inserted).toEqual([['evt_1']]);
      held[0]?.();
      expect((await first).status).toBe(200);
      await until(() => inserted.length === 2, 'the second group');
      expect(inserted[1]?.sort()).toEqual(['evt_2', 'evt_3']);
      held[1]?.();
      expect((await Promise.all(others)).map((answer) => answer.status)).toEqual([200, 200]);
    } finally {
      await rig.close();
    }
  });
});
