/** The notification queue on both backends: queued once per key and channel, its states survive a reopen. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StateStore } from '../../src/state/index.js';
import { postgresHarness, sqliteHarness, type StateBackendHarness } from './backends.js';
import { FakeClock } from './support.js';

function queueSuite(backend: StateBackendHarness): void {
  const title = `notification queue on ${backend.name}`;
  describe.skipIf(backend.skipReason !== null)(
    backend.skipReason === null ? title : `${title} (skipped: ${backend.skipReason})`,
    () => {
      let clock: FakeClock;
      let state: StateStore;
      beforeEach(async () => {
        clock = new FakeClock();
        await backend.create();
        state = backend.open(clock);
      });
      afterEach(async () => {
        state.close();
        await backend.dispose();
      });

      const item = (dedupKey: string, channel = 'mail') => ({
        dedupKey,
        channel,
        event: 'job_failed',
        message: JSON.stringify({ subject: dedupKey }),
      });

      it('queues a key once per channel, also when the same event is derived again', () => {
        expect(state.notifications.enqueue(item('job_failed:orders:1'))).toBe(true);
        expect(state.notifications.enqueue(item('job_failed:orders:1'))).toBe(false);
        expect(state.notifications.enqueue(item('job_failed:orders:1', 'teams'))).toBe(true);
        expect(state.notifications.due(10).map((n) => [n.dedupKey, n.channel])).toEqual([
          ['job_failed:orders:1', 'mail'],
          ['job_failed:orders:1', 'teams'],
        ]);
      });

      it('rolls a queued message back with the transaction that derived it', () => {
        expect(() =>
          state.transaction(() => {
            state.notifications.enqueue(item('k1'));
            throw new Error('derivation failed');
          }),
        ).toThrow('derivation failed');
        expect(state.notifications.due(10)).toEqual([]);
      });

      it('hands a message cut off while sending out again after a reopen; sent and failed ones never', () => {
        state.notifications.enqueue(item('a'));
        state.notifications.enqueue(item('b'));
        state.notifications.enqueue(item('c'));
        const [a, b, c] = state.notifications.due(10);
        state.notifications.markSending(a!.id);
        state.notifications.markSending(b!.id);
        state.notifications.markSent(b!.id, '250 OK queued');
        state.notifications.markSending(c!.id);
        state.notifications.markFailed(c!.id, '550 no such user');
        state.close();
        state = backend.open(clock);
        const due = state.notifications.due(10);
        expect(due.map((n) => [n.dedupKey, n.status, n.attempts])).toEqual([['a', 'sending', 1]]);
        expect(state.notifications.summary()).toEqual([
          { channel: 'mail', pending: 1, sent: 1, failed: 1, lastSentAt: clock.now(), lastError: '550 no such user' },
        ]);
      });

      it('waits for a retry until its time, and prunes only finished messages', () => {
        state.notifications.enqueue(item('a'));
        state.notifications.enqueue(item('b'));
        const [a, b] = state.notifications.due(10);
        state.notifications.markRetry(a!.id, 'connection refused', clock.now() + 60_000);
        state.notifications.markSent(b!.id, '202');
        expect(state.notifications.due(10)).toEqual([]);
        clock.advance(60_000);
        expect(state.notifications.due(10).map((n) => n.lastError)).toEqual(['connection refused']);
        expect(state.notifications.prune(clock.now() + 1)).toBe(1);
        expect(state.notifications.list().map((n) => n.dedupKey)).toEqual(['a']);
      });
    },
  );
}

queueSuite(sqliteHarness());
queueSuite(await postgresHarness());
