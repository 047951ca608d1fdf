/**
 * One state-store suite for every backend: what the flows rely on (dedupe, ordering, a page's records and its
 * cursor in one transaction, savepoints, byte-exact payloads) must hold the same on SQLite and on PostgreSQL.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INBOX_RETENTION_MS, OutboxConflictError, type StateStore } from '../../src/state/index.js';
import type { StateBackendHarness } from './backends.js';
import { FakeClock } from './support.js';

const bytes = (text: string) => new TextEncoder().encode(text);

export function sharedStateSuite(backend: StateBackendHarness): void {
  const title = `state store on ${backend.name}`;
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

      describe('inbox', () => {
        it('stores a group in one call, dedupes by event id and keeps the raw bytes', () => {
          const fresh = state.inbox.insertMany([
            { eventId: 'evt_1', type: 'order.created', payload: bytes('{"a":1}') },
            { eventId: 'evt_2', type: 'order.updated', payload: Uint8Array.from([0, 255, 10, 13, 0]) },
            { eventId: 'evt_1', type: 'order.created', payload: bytes('{"a":1}') },
          ]);
          expect(fresh).toEqual([true, true, false]);
          expect(state.inbox.insertMany([{ eventId: 'evt_2', type: 'x', payload: bytes('{}') }])).toEqual([false]);
          expect([...(reopen().inbox.get('evt_2')?.payload ?? [])]).toEqual([0, 255, 10, 13, 0]);
          expect(state.inbox.pending().map((e) => e.eventId)).toEqual(['evt_1', 'evt_2']);
          expect(state.inbox.counts()).toEqual({ pending: 2, dispatched: 0 });
        });

        it('keeps dispatched events 30 days for dedupe, then prunes them; pending ones stay', () => {
          state.inbox.insertMany([
            { eventId: 'old', type: 't', payload: bytes('1') },
            { eventId: 'undispatched', type: 't', payload: bytes('2') },
          ]);
          state.inbox.markDispatched(state.inbox.pendingRefs().filter((ref) => ref.eventId === 'old'));
          clock.advance(INBOX_RETENTION_MS - 1);
          expect(state.inbox.prune(60_000)).toBe(0);
          expect(state.inbox.insertMany([{ eventId: 'old', type: 't', payload: bytes('1') }])).toEqual([false]);
          clock.advance(2);
          expect(state.inbox.prune()).toBe(1);
          expect(state.inbox.get('old')).toBeNull();
          expect(state.inbox.get('undispatched')?.status).toBe('pending');
        });

        it('ends the wait of the events a pass read, by their key, once', () => {
          state.inbox.insertMany([
            { eventId: 'a', type: 't', payload: bytes('1') },
            { eventId: 'b', type: 't', payload: bytes('2') },
          ]);
          const [first, second] = state.inbox.pendingRefs();
          expect([first?.eventId, second?.eventId]).toEqual(['a', 'b']);
          state.inbox.markDispatched(first === undefined ? [] : [first]);
          state.inbox.markDispatched(first === undefined ? [] : [first]);
          // A key that matches no pending row (a time that is not the event's) changes nothing.
          state.inbox.markDispatched([{ eventId: 'b', receivedAt: (second?.receivedAt ?? 0) + 1 }]);
          expect(state.inbox.counts()).toEqual({ pending: 1, dispatched: 1 });
          expect(state.inbox.pendingRefs().map((ref) => ref.eventId)).toEqual(['b']);
          expect(state.inbox.insertMany([{ eventId: 'a', type: 't', payload: bytes('1') }])).toEqual([false]);
          expect(state.inbox.get('a')?.status).toBe('dispatched');
        });
      });

      describe('outbox', () => {
        const input = {
          stream: 'documents',
          idempotencyKey: 'documents:invoice:INV-1',
          method: 'POST',
          path: '/supplier/documents',
          body: bytes('{"type":"invoice"}'),
        };

        it('returns the stored entry when the same write is enqueued again, refuses a different body', () => {
          const first = state.outbox.enqueue(input);
          const again = state.outbox.enqueue({ ...input, body: bytes('{"type":"invoice"}') });
          expect(again.id).toBe(first.id);
          expect(() => state.outbox.enqueue({ ...input, body: bytes('{"type":"credit_note"}') })).toThrow(
            OutboxConflictError,
          );
          expect(state.outbox.depth()).toEqual({ pending: 1, dead: 0 });
        });

        it('moves entries through retry, dead, revive and done, with numeric ids and times', () => {
          const first = state.outbox.enqueue(input);
          const second = state.outbox.enqueue({ ...input, idempotencyKey: 'k2', stream: 'other', body: null });
          expect(typeof first.id).toBe('number');
          expect(second.id).toBeGreaterThan(first.id);
          expect(state.outbox.due({ stream: 'other' }).map((e) => e.id)).toEqual([second.id]);
          state.outbox.markFailed(first.id, 'HTTP 503', { retryAt: clock.now() + 60_000 });
          expect(state.outbox.due().map((e) => e.id)).toEqual([second.id]);
          state.outbox.markFailed(second.id, 'HTTP 400', { dead: true });
          expect(state.outbox.depth()).toEqual({ pending: 1, dead: 1 });
          expect(state.outbox.revive(second.id)).toBe(true);
          state.outbox.markDone(second.id, '{"id":"doc_1"}');
          expect(state.outbox.list({ status: 'done' })).toMatchObject([{ id: second.id, body: null, attempts: 1 }]);
          expect(state.outbox.get(first.id)).toMatchObject({ attempts: 1, lastError: 'HTTP 503' });
          expect(state.outbox.get(first.id)?.nextAttemptAt).toBe(clock.now() + 60_000);
          clock.advance(25 * 3600_000);
          expect(state.outbox.pruneDone(24 * 3600_000)).toBe(1);
        });
      });

      describe('ledger', () => {
        it('records each version once and answers whether it was written', () => {
          const key = { flow: 'orders', connector: 'erp', recordKey: 'ord_1', version: 'v1' };
          expect(state.ledger.has(key)).toBe(false);
          expect(state.ledger.record(key, null)).toBe(true);
          expect(state.ledger.record(key, 'ERP-9')).toBe(false);
          state.ledger.setExternalRef(key, 'ERP-9');
          clock.advance(1000);
          state.ledger.record({ ...key, version: 'v2' });
          expect(state.ledger.get(key)?.externalRef).toBe('ERP-9');
          expect(state.ledger.latest('orders', 'erp', 'ord_1')?.version).toBe('v2');
          expect(state.ledger.count('orders')).toBe(2);
          expect(state.ledger.count()).toBe(2);
        });

        it('knows the current version by insertion order, also when a value comes back in the same millisecond', () => {
          const key = { flow: 'prices', connector: 'erp', recordKey: 'SKU-1', version: 'A' };
          state.ledger.recordCurrent(key);
          state.ledger.recordCurrent({ ...key, version: 'B' });
          state.ledger.recordCurrent(key);
          expect(reopen().ledger.latest('prices', 'erp', 'SKU-1')?.version).toBe('A');
        });
      });

      describe('dead letters', () => {
        it('counts repeated failures of one record, lists, replays and discards', () => {
          state.deadLetters.add('catalog', 'SKU-1', { sku: 'SKU-1' }, 'price missing');
          clock.advance(5000);
          const again = state.deadLetters.add('catalog', 'SKU-1', { sku: 'SKU-1', v: 2 }, 'price still missing');
          expect(again).toMatchObject({ attempts: 2, reason: 'price still missing', record: { sku: 'SKU-1', v: 2 } });
          expect(again.lastSeen - again.firstSeen).toBe(5000);
          state.deadLetters.add('catalog', 'SKU-2', { sku: 'SKU-2' }, 'bad unit');
          state.deadLetters.add('orders', 'ord_1', { id: 'ord_1' }, 'no customer mapping');

          expect(state.deadLetters.countOpen()).toBe(3);
          expect(state.deadLetters.countOpenByFlow()).toEqual({ catalog: 2, orders: 1 });
          expect(state.deadLetters.replay({ flow: 'catalog' })).toBe(2);
          expect(state.deadLetters.list({ flow: 'catalog', statuses: ['retrying'] })).toHaveLength(2);
          const orders = state.deadLetters.get('orders', 'ord_1');
          expect(orders).not.toBeNull();
          expect(state.deadLetters.discard({ id: orders?.id ?? -1 })).toBe(1);
          expect(state.deadLetters.countOpen('orders')).toBe(0);
          expect(state.deadLetters.list({ statuses: ['discarded'] }).map((d) => d.recordKey)).toEqual(['ord_1']);
          expect(state.deadLetters.resolve('catalog', 'SKU-1')).toBe(true);
          expect(state.deadLetters.countOpen()).toBe(1);
          expect(state.deadLetters.latestOpen('catalog', 5).map((d) => d.recordKey)).toEqual(['SKU-2']);
        });

        it('replays and discards the letters filed for one missing mapping, and no others', () => {
          const missing = (key: string) => ({ kind: 'SKU', table: 'skus', key, pickup: 'retry' });
          state.deadLetters.add('orders', 'ord_1', { id: 'ord_1', missing: missing('A-1') }, 'SKU A-1');
          state.deadLetters.add('orders', 'ord_2', { id: 'ord_2', missing: missing('A-1') }, 'SKU A-1, line 2');
          state.deadLetters.add('orders', 'ord_3', { id: 'ord_3', missing: missing('A-2') }, 'SKU A-2');
          state.deadLetters.add('orders', 'ord_4', { id: 'ord_4' }, 'changed after it was written');
          state.deadLetters.add('invoices', 'inv_1', { id: 'inv_1', missing: missing('A-1') }, 'SKU A-1');
          const status = () =>
            state.deadLetters
              .list({ statuses: ['open', 'retrying', 'discarded'] })
              .map((letter) => `${letter.recordKey} ${letter.status}`)
              .sort();

          expect(state.deadLetters.replay({ flow: 'orders', missing: { table: 'skus', key: 'A-1' } })).toBe(2);
          expect(state.deadLetters.replay({ flow: 'orders', missing: { table: 'skus', key: 'A-1' } })).toBe(0);
          const discarded = { flow: 'orders', reason: 'SKU A-2', missing: { table: 'skus', key: 'A-2' } };
          expect(state.deadLetters.discard(discarded)).toBe(1);
          expect(status()).toEqual([
            'inv_1 open',
            'ord_1 retrying',
            'ord_2 retrying',
            'ord_3 discarded',
            'ord_4 open',
          ]);
        });

        it('prunes resolved letters but keeps discarded ones, which flows still read', () => {
          state.deadLetters.add('journal', 'document:doc_1', { kind: 'target_refused' }, 'refused');
          state.deadLetters.add('journal', 'document:doc_2', { kind: 'unbalanced' }, 'does not balance');
          const refused = state.deadLetters.get('journal', 'document:doc_1');
          state.deadLetters.discard({ id: refused?.id ?? -1 });
          state.deadLetters.resolve('journal', 'document:doc_2');
          clock.advance(365 * 24 * 3600_000);

          expect(state.deadLetters.pruneClosed(90 * 24 * 3600_000)).toBe(1);
          expect(state.deadLetters.get('journal', 'document:doc_1')?.status).toBe('discarded');
          expect(state.deadLetters.get('journal', 'document:doc_2')).toBeNull();
        });

        it('compares keys byte by byte, as the journal export range "document:" to "document;" needs', () => {
          for (const key of ['document:a', 'document;', 'document-b', 'documentZ', 'document:Ω', 'line:1'])
            state.deadLetters.add('journal', key, {}, 'x');
          const inRange = state.db
            .prepare(
              'SELECT record_key FROM dead_letters WHERE flow = ? AND record_key >= ? AND record_key < ? ORDER BY record_key',
            )
            .all('journal', 'document:', 'document;') as { record_key: string }[];
          expect(inRange.map((row) => row.record_key)).toEqual(['document:a', 'document:Ω']);
        });
      });

      describe('hashes and kv', () => {
        it('bulk-loads and updates per-flow hashes', () => {
          const entries = Array.from({ length: 5000 }, (_, i) => [`SKU-${i}`, `h${i}`] as const);
          expect(state.hashes.setMany('catalog', entries)).toBe(5000);
          state.hashes.setMany('catalog', [['SKU-1', 'changed']]);
          state.hashes.deleteMany('catalog', ['SKU-2']);
          const all = state.hashes.all('catalog');
          expect(all.size).toBe(4999);
          expect(all.get('SKU-1')).toBe('changed');
          expect(all.has('SKU-2')).toBe(false);
          expect(state.hashes.count('other')).toBe(0);
          expect(state.hashes.flows()).toEqual(['catalog']);
          expect(state.hashes.get('catalog', 'SKU-3')).toBe('h3');
        });

        it('stores JSON values per namespace', () => {
          state.kv.set('webhooks', 'endpoint', { id: 'we_1', secrets: ['a'] });
          state.kv.set('webhooks', 'endpoint', { id: 'we_1', secrets: ['a', 'b'] });
          expect(reopen().kv.get('webhooks', 'endpoint')).toEqual({ id: 'we_1', secrets: ['a', 'b'] });
          expect(state.kv.get('webhooks', 'missing')).toBeUndefined();
          expect(state.kv.keys('webhooks')).toEqual(['endpoint']);
          expect(state.kv.delete('webhooks', 'endpoint')).toBe(true);
        });

        it('keeps a value stored as JSON text, with its fields in their order', () => {
          const text = '{"z":1,"a":"\u05e4 \\"quoted\\"","__proto__":[2],"digest":"ab"}';
          state.kv.setJson('plans', 'je-1', text);
          const read = reopen().kv.get('plans', 'je-1') as Record<string, unknown>;
          expect(JSON.stringify(read)).toBe(JSON.stringify(JSON.parse(text)));
          expect(Object.keys(read)).toEqual(['z', 'a', '__proto__', 'digest']);
        });
      });

      describe('run history', () => {
        it('records runs, closes ones cut off by a crash and prunes old ones', () => {
          const a = state.runs.start('orders', 'schedule');
          clock.advance(100);
          state.runs.finish(a, 'ok', { fetched: 3 }, null);
          state.runs.start('orders', 'webhook');
          expect(state.runs.closeInterrupted()).toBe(1);
          expect(state.runs.last('orders')?.outcome).toBe('failed');
          expect(state.runs.last('orders', ['ok'])?.counts).toEqual({ fetched: 3 });
          for (let i = 0; i < 5; i += 1) state.runs.finish(state.runs.start('orders', 'cli'), 'ok', {}, null);
          expect(state.runs.prune(3)).toBe(4);
          expect(state.runs.recent('orders')).toHaveLength(3);
          expect(state.runs.jobs()).toEqual(['orders']);
        });

        it('gives a run started inside a transaction its id', () => {
          const outside = state.runs.start('orders', 'webhook');
          const inside = state.transaction(() => state.runs.start('orders', 'cli'));
          expect(state.runs.recent('orders').map((run) => run.id)).toEqual([inside, outside]);
        });
      });

      describe('cursors and seen versions', () => {
        it('saves, lists and resets a stream with its seen set', () => {
          state.cursors.save({ stream: 'orders', watermarkMs: 1_700_000_000_123, passCursor: 'c2', passSince: 's', passMaxMs: 5 });
          state.seen.add('orders', 'ord_1', '2026-03-01T08:00:00Z', 1_000);
          state.seen.add('orders', 'ord_1', '2026-03-01T08:00:00Z', 1_000);
          expect(state.seen.has('orders', 'ord_1', '2026-03-01T08:00:00Z')).toBe(true);
          expect(state.seen.count('orders')).toBe(1);
          expect(reopen().cursors.get('orders')).toMatchObject({ watermarkMs: 1_700_000_000_123, passCursor: 'c2' });
          expect(state.seen.prune('orders', 999)).toBe(0);
          expect(state.cursors.reset('orders')).toBe(true);
          expect(state.cursors.list()).toEqual([]);
          expect(state.seen.count('orders')).toBe(0);
        });

        it('adds a page of versions in chunks, ignores repeats and tells the newest per stream', () => {
          const version = (id: string, updatedAt: string) => ({
            recordId: id,
            updatedAt,
            updatedMs: Date.parse(updatedAt),
          });
          expect(state.seen.newestMs('orders')).toBeNull();
          const versions = Array.from({ length: 123 }, (_, i) =>
            version(`o${i}`, new Date(Date.UTC(2026, 2, 1, 6, 0, i)).toISOString()),
          );
          state.transaction(() => state.seen.addMany('orders', [...versions, versions[0] ?? version('x', '')]));
          state.seen.addMany('other', [version('o1', '2027-01-01T00:00:00Z')]);
          expect(state.seen.count('orders')).toBe(123);
          expect(versions.every((v) => state.seen.has('orders', v.recordId, v.updatedAt))).toBe(true);
          expect(state.seen.has('orders', 'o1', '2026-03-01T06:00:02.000Z')).toBe(false);
          expect(state.seen.newestMs('orders')).toBe(Date.UTC(2026, 2, 1, 6, 2, 2));
          state.seen.prune('orders', Date.UTC(2026, 2, 1, 6, 2, 3));
          expect(state.seen.newestMs('orders')).toBeNull();
          expect(state.seen.newestMs('other')).toBe(Date.parse('2027-01-01T00:00:00Z'));
        });
      });

      describe('transactions', () => {
        it('commits a page of records with its cursor, or neither', () => {
          const page = (n: number, fail: boolean) =>
            state.transaction(() => {
              for (let i = 0; i < 3; i += 1) state.ledger.record({ flow: 'f', connector: 'c', recordKey: `r${n}-${i}`, version: '1' });
              state.cursors.save({ stream: 'f', watermarkMs: n, passCursor: null, passSince: null, passMaxMs: null });
              if (fail) throw new Error('killed mid-page');
            });
          page(1, false);
          expect(() => page(2, true)).toThrow('killed mid-page');
          const after = reopen();
          expect(after.cursors.get('f')?.watermarkMs).toBe(1);
          expect(after.ledger.count('f')).toBe(3);
        });

        it('rolls back a nested transaction alone, as a savepoint', () => {
          state.transaction(() => {
            state.kv.set('n', 'outer', 1);
            expect(() =>
              state.db.transaction(() => {
                state.kv.set('n', 'inner', 2);
                throw new Error('bad record');
              })(),
            ).toThrow('bad record');
            // A failed statement inside a savepoint leaves the outer transaction usable.
            expect(() =>
              state.db.transaction(() => state.db.prepare('INSERT INTO kv (namespace) VALUES (?)').run('x'))(),
            ).toThrow();
            state.kv.set('n', 'after', 3);
          });
          expect([state.kv.get('n', 'outer'), state.kv.get('n', 'inner'), state.kv.get('n', 'after')]).toEqual([1, undefined, 3]);
        });
      });

      describe('schema', () => {
        it('is at the latest version and reopens read-only', () => {
          const version = state.schemaVersion();
          expect(version).toBeGreaterThanOrEqual(1);
          state.kv.set('n', 'k', 'v');
          const reader = backend.open(clock, { readOnly: true });
          try {
            expect(reader.schemaVersion()).toBe(version);
            expect(reader.kv.get('n', 'k')).toBe('v');
            expect(reader.isWritable()).toBe(false);
            expect(state.isWritable()).toBe(true);
          } finally {
            reader.close();
          }
        });
      });
    },
  );
}
