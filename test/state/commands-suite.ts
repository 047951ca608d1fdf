/**
 * The operator command queue and the paused jobs on every backend: a command is finished once, a claimed command is
 * claimed again after a restart (its leader died mid-way), a pause is kept across reopening.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  askCommand,
  bindToOpenLetters,
  expireStale,
  QueueFullError,
} from '../../src/daemon/control/command-queue.js';
import { carryOutInState } from '../../src/daemon/control/state-actions.js';
import type { StateStore } from '../../src/state/index.js';
import type { StateBackendHarness } from './backends.js';
import { FakeClock } from './support.js';

export function commandQueueSuite(backend: StateBackendHarness): void {
  const title = `command queue and paused jobs on ${backend.name}`;
  describe.skipIf(backend.skipReason !== null)(
    backend.skipReason === null ? title : `${title} (skipped: ${backend.skipReason})`,
    () => {
      let clock: FakeClock;
      let state: StateStore;
      const reopen = (): StateStore => {
        state.close();
        state = backend.open(clock);
        return state;
      };
      beforeEach(async () => {
        clock = new FakeClock();
        await backend.create();
        state = backend.open(clock);
      });
      afterEach(async () => {
        state.close();
        await backend.dispose();
      });

      const command = { kind: 'cursor.reset', args: { stream: 'orders' }, fingerprint: 'f1', requestedBy: 'cli:ann' };

      it('queues commands in order and finishes each once', () => {
        const first = state.commands.enqueue(command);
        const second = state.commands.enqueue({ ...command, args: { stream: 'sales' } });
        expect(second).toBeGreaterThan(first);
        expect(state.commands.unfinished().map((c) => c.id)).toEqual([first, second]);
        expect(state.commands.claim(first)).toBe(true);
        expect(state.commands.complete(first, { removed: true })).toBe(true);
        expect(state.commands.complete(first, { removed: false })).toBe(false);
        expect(state.commands.fail(first, 'x', 'y')).toBe(false);
        expect(state.commands.claim(first)).toBe(false);
        const done = reopen().commands.get(first);
        expect(done).toMatchObject({ status: 'done', attempts: 1, result: { removed: true }, requestedBy: 'cli:ann' });
        expect(state.commands.unfinished().map((c) => c.id)).toEqual([second]);
        expect(state.commands.fail(second, 'cursor_not_found', 'no cursor named "sales"')).toBe(true);
        expect(state.commands.get(second)).toMatchObject({ status: 'failed', errorCode: 'cursor_not_found' });
      });

      it('keeps a claimed command unfinished across a restart, and counts its attempts', () => {
        const id = state.commands.enqueue({ ...command, kind: 'sync', args: { job: 'orders' } });
        expect(state.commands.claim(id)).toBe(true);
        expect(reopen().commands.unfinished()).toMatchObject([{ id, status: 'running', attempts: 1 }]);
        expect(state.commands.claim(id)).toBe(true);
        expect(state.commands.get(id)?.attempts).toBe(2);
      });

      it('rolls back a command claimed in a transaction that fails', () => {
        const id = state.commands.enqueue(command);
        expect(() =>
          state.transaction(() => {
            state.commands.claim(id);
            state.commands.complete(id, {});
            throw new Error('effect failed');
          }),
        ).toThrow('effect failed');
        expect(state.commands.get(id)).toMatchObject({ status: 'pending', attempts: 0 });
      });

      it('prunes finished commands after their retention only', () => {
        const id = state.commands.enqueue(command);
        const open = state.commands.enqueue(command);
        state.commands.complete(id, null);
        clock.advance(1000);
        expect(state.commands.pruneFinished(1000)).toBe(0);
        clock.advance(1);
        expect(state.commands.pruneFinished(1000)).toBe(1);
        expect(state.commands.get(open)?.status).toBe('pending');
      });

      it('merges an identical pending command, bounds each kind, and expires what waits too long', () => {
        const limits = { ttlMs: 60_000, maxPendingPerKind: 3 };
        const run = (job: string) => ({ kind: 'sync', args: { job }, fingerprint: 'f1', requestedBy: 'api:ops' });
        const first = askCommand(state, run('orders'), limits);
        expect(first.merged).toBe(false);
        // The same command asked again, by someone else, with its arguments in another order: the first's id.
        const again = askCommand(state, { ...run('orders'), requestedBy: 'cli:ann' }, limits);
        expect(again).toEqual({ id: first.id, merged: true });
        askCommand(state, run('sales'), limits);
        askCommand(state, run('stock'), limits);
        let refused: unknown;
        try {
          askCommand(state, run('invoices'), limits);
        } catch (error) {
          refused = error;
        }
        expect(refused).toBeInstanceOf(QueueFullError);
        expect(refused).toMatchObject({ code: 'queue_full', pending: first.id });
        expect((refused as Error).message).toContain(`command #${first.id}`);
        // Another kind is not held back by the full one: an emergency pause is queued.
        expect(askCommand(state, { ...command, kind: 'jobs.pause', args: { job: 'orders' } }, limits).merged).toBe(false);
        expect(state.commands.pendingOfKind('sync')).toHaveLength(3);

        clock.advance(60_000);
        expect(expireStale(state, limits)).toEqual([]);
        clock.advance(1);
        const expired = expireStale(state, limits);
        expect(expired).toHaveLength(4);
        expect(reopen().commands.get(first.id)).toMatchObject({ status: 'failed', errorCode: 'expired' });
        expect(state.commands.get(first.id)?.error).toContain('no daemon took it within 1m');
        // An expired command is never taken: a daemon that starts now finds nothing to do.
        expect(state.commands.claim(first.id)).toBe(false);
        expect(state.commands.unfinished()).toEqual([]);
        // And the kind has room again.
        expect(askCommand(state, run('invoices'), limits).merged).toBe(false);
      });

      it('lists the latest commands first and cancels only one still waiting', () => {
        const waiting = state.commands.enqueue(command);
        const taken = state.commands.enqueue({ ...command, kind: 'sync', args: { job: 'orders' } });
        state.commands.claim(taken);
        expect(state.commands.list({ unfinishedOnly: true }).map((c) => c.id)).toEqual([taken, waiting]);
        expect(state.commands.cancel(taken, 'cli:ann')).toBe(false);
        expect(state.commands.cancel(waiting, 'cli:ann')).toBe(true);
        expect(state.commands.cancel(waiting, 'cli:ann')).toBe(false);
        expect(reopen().commands.get(waiting)).toMatchObject({
          status: 'failed',
          errorCode: 'cancelled',
          error: expect.stringContaining('cancelled by cli:ann'),
        });
        expect(state.commands.list({ unfinishedOnly: true }).map((c) => c.id)).toEqual([taken]);
        expect(state.commands.list({ limit: 1 }).map((c) => c.id)).toEqual([taken]);
      });

      it('binds a flow-wide discard to the letters open when it was asked: letters filed after it stay open', () => {
        const before = state.deadLetters.add('orders', 'ord_1', {}, 'no ERP item for SKU X-1');
        state.deadLetters.add('sales', 'inv_1', {}, 'other flow');
        const action = bindToOpenLetters({ kind: 'dead-letters.discard', target: { flow: 'orders' } }, state);
        expect(action).toEqual({ kind: 'dead-letters.discard', target: { flow: 'orders', ids: [before.id] } });
        const later = state.deadLetters.add('orders', 'ord_2', {}, 'no ERP item for SKU X-2');
        const context = { state, file: 'c.yaml', jobs: ['orders'], by: 'cli:ann', timeZone: 'UTC' };
        expect(state.transaction(() => carryOutInState(action, context))).toEqual({ count: 1 });
        expect(state.deadLetters.byId(before.id)?.status).toBe('discarded');
        expect(state.deadLetters.byId(later.id)?.status).toBe('open');
        // A flow-wide ask that names no open letter is refused when it is asked, not queued.
        expect(() =>
          bindToOpenLetters({ kind: 'dead-letters.retry', target: { flow: 'orders', reason: 'nothing' } }, state),
        ).toThrow(expect.objectContaining({ code: 'dead_letter_not_found' }));
      });

      it('refuses to retry a file rejected whole, and leaves such letters out of a flow-wide retry', () => {
        const file = state.deadLetters.add('expenses', 'file:november.csv', {}, 'expenses file november.csv rejected whole');
        const context = { state, file: 'c.yaml', jobs: ['expenses'], by: 'cli:ann', timeZone: 'UTC' };
        const retry = (target: { id: number } | { flow: string }) => () =>
          state.transaction(() => carryOutInState({ kind: 'dead-letters.retry', target }, context));
        const refusal = expect.objectContaining({
          code: 'dead_letter_is_file',
          message:
            `dead letter #${file.id} is a file rejected whole: nothing to send again; fix the file, drop it into the ` +
            `folder again (it is read as a new one), then \`supply-sync dead-letters discard ${file.id}\``,
        });
        expect(retry({ id: file.id })).toThrow(refusal);
        expect(retry({ flow: 'expenses' })).toThrow(refusal);
        expect(() => bindToOpenLetters({ kind: 'dead-letters.retry', target: { flow: 'expenses' } }, state)).toThrow(
          refusal,
        );
        const record = state.deadLetters.add('expenses', 'E-7', {}, 'the API refused the expense');
        const bound = bindToOpenLetters({ kind: 'dead-letters.retry', target: { flow: 'expenses' } }, state);
        expect(bound).toEqual({ kind: 'dead-letters.retry', target: { flow: 'expenses', ids: [record.id] } });
        expect(retry({ flow: 'expenses' })()).toEqual({ count: 1 });
        expect(state.deadLetters.byId(file.id)?.status).toBe('open');
        expect(state.deadLetters.byId(record.id)?.status).toBe('retrying');
        // Discarding it is what ends it; retried after that, it is refused all the same.
        expect(state.transaction(() => carryOutInState({ kind: 'dead-letters.discard', target: { id: file.id } }, context))).toEqual({ count: 1 });
        expect(retry({ id: file.id })).toThrow(refusal);
      });

      it('keeps each run with the dead letters it created, lists by job, failure and time, and prunes by age and count', () => {
        state.deadLetters.add('orders', 'before', {}, 'older');
        clock.advance(10);
        const first = state.runs.start('orders', 'operator');
        state.deadLetters.add('orders', 'ord_1', {}, 'no ERP item for SKU X-1');
        state.deadLetters.add('orders', 'before', {}, 'older, seen again');
        state.deadLetters.add('sales', 'other-job', {}, 'not this job');
        clock.advance(10);
        state.runs.finish(first, 'partial', { fetched: 2 }, 'no ERP item for SKU X-1');
        const second = state.runs.start('sales', 'schedule');
        clock.advance(10);
        state.runs.finish(second, 'ok', {}, null);
        expect(state.runs.get(first)).toMatchObject({ trigger: 'operator', deadLetters: 1, error: 'no ERP item for SKU X-1' });
        expect(state.runs.list().map((run) => run.id)).toEqual([second, first]);
        expect(state.runs.list({ failed: true }).map((run) => run.id)).toEqual([first]);
        expect(state.runs.list({ job: 'sales' }).map((run) => run.id)).toEqual([second]);
        expect(state.runs.list({ since: clock.now() - 10 }).map((run) => run.id)).toEqual([second]);

        expect(state.runs.pruneHistory(60_000, 1)).toBe(1);
        expect(state.runs.list().map((run) => run.id)).toEqual([second]);
        const unfinished = state.runs.start('orders', 'schedule');
        clock.advance(60_001);
        expect(state.runs.pruneHistory(60_000, 10)).toBe(1);
        // A run without an end is never pruned: it is under way, or closed as interrupted at the next start.
        expect(state.runs.list().map((run) => run.id)).toEqual([unfinished]);
      });

      it('keeps a pause, its time, author and reason across reopening; the first pause wins; and the last resume', () => {
        expect(state.pausedJobs.pause('orders', 'cli:ann', 'ERP upgrade')).toBe(true);
        clock.advance(5000);
        expect(state.pausedJobs.pause('orders', 'api:bob', null)).toBe(false);
        const paused = reopen().pausedJobs.get('orders');
        expect(paused).toEqual({ job: 'orders', pausedAt: clock.now() - 5000, pausedBy: 'cli:ann', reason: 'ERP upgrade' });
        expect(state.pausedJobs.list().map((p) => p.job)).toEqual(['orders']);
        expect(state.pausedJobs.resumedAt('orders')).toBeNull();
        clock.advance(1000);
        expect(state.transaction(() => state.pausedJobs.resume('orders'))).toBe(true);
        const resumedAt = clock.now();
        clock.advance(1000);
        expect(state.pausedJobs.resume('orders')).toBe(false);
        expect(reopen().pausedJobs.get('orders')).toBeNull();
        // When it was resumed is kept (what is measured from its last run starts again there), until the next resume.
        expect(state.pausedJobs.resumedAt('orders')).toBe(resumedAt);
        expect(state.pausedJobs.pause('orders', 'cli:ann', null)).toBe(true);
        expect(state.pausedJobs.resumedAt('orders')).toBe(resumedAt);
        clock.advance(1000);
        expect(state.pausedJobs.resume('orders')).toBe(true);
        expect(reopen().pausedJobs.resumedAt('orders')).toBe(clock.now());
        expect(state.pausedJobs.resumedAt('other')).toBeNull();
      });
    },
  );
}
