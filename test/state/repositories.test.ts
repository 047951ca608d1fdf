import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  INBOX_RETENTION_MS,
  OutboxConflictError,
  openStateStore,
  type StateStore,
} from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from './support.js';

let tmp: TempDir;
let clock: FakeClock;
let state: StateStore;

beforeEach(() => {
  tmp = tempDir();
  clock = new FakeClock();
  state = openStateStore({ file: tmp.file('s.db'), clock });
});
afterEach(() => {
  state.close();
  tmp.remove();
});

const bytes = (text: string) => new TextEncoder().encode(text);

describe('inbox', () => {
  it('stores a group in one call, dedupes by event id and keeps the raw bytes', () => {
    const fresh = state.inbox.insertMany([
      { eventId: 'evt_1', type: 'order.created', payload: bytes('{"a":1}') },
      { eventId: 'evt_2', type: 'order.updated', payload: bytes('{"b":2}') },
      { eventId: 'evt_1', type: 'order.created', payload: bytes('{"a":1}') },
    ]);
    expect(fresh).toEqual([true, true, false]);
    expect(state.inbox.insertMany([{ eventId: 'evt_2', type: 'x', payload: bytes('{}') }])).toEqual([false]);
    expect(new TextDecoder().decode(state.inbox.get('evt_2')?.payload)).toBe('{"b":2}');
    expect(state.inbox.pending().map((e) => e.eventId)).toEqual(['evt_1', 'evt_2']);
  });

  it('keeps dispatched events 30 days for dedupe, then prunes them; pending ones stay', () => {
    state.inbox.insertMany([
      { eventId: 'old', type: 't', payload: bytes('1') },
      { eventId: 'undispatched', type: 't', payload: bytes('2') },
    ]);
    state.inbox.markDispatched(['old']);
    clock.advance(INBOX_RETENTION_MS - 1);
    expect(state.inbox.prune(60_000)).toBe(0);
    expect(state.inbox.insertMany([{ eventId: 'old', type: 't', payload: bytes('1') }])).toEqual([false]);
    clock.advance(2);
    expect(state.inbox.prune()).toBe(1);
    expect(state.inbox.get('old')).toBeNull();
    expect(state.inbox.get('undispatched')?.status).toBe('pending');
  });
});

describe('outbox store', () => {
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
    expect(state.deadLetters.replay({ flow: 'catalog' })).toBe(2);
    expect(state.deadLetters.list({ flow: 'catalog', statuses: ['retrying'] })).toHaveLength(2);
    const orders = state.deadLetters.get('orders', 'ord_1');
    expect(orders).not.toBeNull();
    expect(state.deadLetters.discard({ id: orders?.id ?? -1 })).toBe(1);
    expect(state.deadLetters.countOpen('orders')).toBe(0);
    expect(state.deadLetters.list({ statuses: ['discarded'] }).map((d) => d.recordKey)).toEqual(['ord_1']);
    expect(state.deadLetters.resolve('catalog', 'SKU-1')).toBe(true);
    expect(state.deadLetters.countOpen()).toBe(1);
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
  });

  it('stores JSON values per namespace', () => {
    state.kv.set('webhooks', 'endpoint', { id: 'we_1', secrets: ['a'] });
    expect(state.kv.get('webhooks', 'endpoint')).toEqual({ id: 'we_1', secrets: ['a'] });
    expect(state.kv.get('webhooks', 'missing')).toBeUndefined();
    expect(state.kv.delete('webhooks', 'endpoint')).toBe(true);
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
  });
});

describe('run start without its own sync', () => {
  it('restores the connection to FULL after the start row, also inside a transaction', () => {
    const FULL = 2;
    expect(state.db.pragma('synchronous', { simple: true })).toBe(FULL);
    const id = state.runs.start('orders', 'webhook');
    expect(state.db.pragma('synchronous', { simple: true })).toBe(FULL);
    const inside = state.transaction(() => state.runs.start('orders', 'cli'));
    expect(state.db.pragma('synchronous', { simple: true })).toBe(FULL);
    expect(state.runs.recent('orders').map((run) => run.id)).toEqual([inside, id]);
  });
});

describe('dead letter retention', () => {
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
});
