import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RunBudget, pullIncremental, type PullOptions } from '../../src/engine/index.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from '../state/support.js';
import { MemorySource, tiedTimestamp, type SourceRecord } from './support/source.js';

const BASE = Date.parse('2026-03-01T06:00:00.000Z');
let tmp: TempDir;
let clock: FakeClock;
let state: StateStore;
let source: MemorySource;

beforeEach(() => {
  tmp = tempDir();
  clock = new FakeClock();
  state = openStateStore({ file: tmp.file('s.db'), clock });
  state.db.exec('CREATE TABLE staged (seq INTEGER NOT NULL, id TEXT NOT NULL)');
  source = new MemorySource();
});
afterEach(() => {
  state.close();
  tmp.remove();
});

function seed(count: number, groupSize: number, firstSeq = 1): void {
  for (let i = 0; i < count; i += 1) {
    const seq = firstSeq + i;
    source.put({
      id: `r${String(seq).padStart(6, '0')}`,
      seq,
      updated_at: tiedTimestamp(BASE, i, groupSize),
    });
  }
}

function staged(): number[] {
  return (state.db.prepare('SELECT seq FROM staged ORDER BY seq').all() as Array<{ seq: number }>).map(
    (r) => r.seq,
  );
}

function options(over: Partial<PullOptions<SourceRecord>> = {}): PullOptions<SourceRecord> {
  return {
    state,
    stream: 'items',
    fetchPage: async (req) => {
      const page = source.list({ ...req, limit: 3 });
      return { items: page.data, nextCursor: page.next_cursor, hasMore: page.has_more };
    },
    identify: (item) => ({ id: item.id, updatedAt: item.updated_at }),
    stageRecord: (item, s) => {
      s.db.prepare('INSERT INTO staged (seq, id) VALUES (?, ?)').run(item.seq, item.id);
    },
    overlapMs: 5000,
    budget: new RunBudget(clock, 60_000, new AbortController().signal),
    ...over,
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('pullIncremental', () => {
  it('delivers every record once across equal timestamps that straddle page boundaries', async () => {
    seed(20, 7);
    const first = await pullIncremental(options());
    expect(first).toMatchObject({ outcome: 'ok', passComplete: true });
    expect(first.counts).toMatchObject({ pages: 7, fetched: 20, delivered: 20, duplicates: 0 });
    expect(staged()).toEqual(range(1, 20));
    expect(state.cursors.get('items')?.watermarkMs).toBe(Date.parse(tiedTimestamp(BASE, 19, 7)));

    const second = await pullIncremental(options());
    expect(second.outcome).toBe('ok');
    expect(second.counts.delivered).toBe(0);
    // The overlap re-reads the last tie group; the seen-set drops it.
    expect(second.counts.duplicates).toBeGreaterThan(0);
    expect(staged()).toEqual(range(1, 20));
  });

  it('commits no page for a pass that brings nothing new, and still moves the stream time the lag shows', async () => {
    seed(2, 1);
    await pullIncremental(options());
    const before = state.cursors.get('items');
    clock.advance(60_000);
    const transaction = vi.spyOn(state, 'transaction');
    const again = await pullIncremental(options());
    expect(again).toMatchObject({ outcome: 'ok', passComplete: true });
    expect(again.counts).toMatchObject({ pages: 1, delivered: 0 });
    expect(again.counts.duplicates).toBeGreaterThan(0);
    // No page transaction (nothing staged, the cursor where it was); only the stream's time moved.
    expect(transaction).not.toHaveBeenCalled();
    expect(state.cursors.get('items')).toEqual({ ...before, updatedAt: (before?.updatedAt ?? 0) + 60_000 });
    // A change afterwards is still taken, in a page transaction.
    seed(1, 1, 3);
    const changed = await pullIncremental(options());
    expect(changed.counts.delivered).toBe(1);
    expect(transaction).toHaveBeenCalled();
    expect(staged()).toEqual([1, 2, 3]);
  });

  it('resumes a pass cut inside a tie group from the stored API cursor, without loss or repeats', async () => {
    seed(12, 12);
    let calls = 0;
    const failing = options({
      fetchPage: async (req) => {
        calls += 1;
        if (calls === 3) throw Object.assign(new Error('socket hang up'), { retryable: true });
        const page = source.list({ ...req, limit: 5 });
        return { items: page.data, nextCursor: page.next_cursor, hasMore: page.has_more };
      },
    });
    const cut = await pullIncremental(failing);
    expect(cut).toMatchObject({ outcome: 'partial', passComplete: false, error: 'socket hang up' });
    expect(staged()).toEqual(range(1, 10));
    const cursor = state.cursors.get('items');
    expect(cursor?.passCursor).not.toBeNull();
    expect(cursor?.watermarkMs).toBeNull();

    const resumed = await pullIncremental(failing);
    expect(resumed).toMatchObject({ outcome: 'ok', passComplete: true });
    expect(resumed.counts.fetched).toBe(2);
    expect(staged()).toEqual(range(1, 12));
  });

  it('picks up a late commit with an earlier or equal timestamp thanks to the overlap', async () => {
    seed(9, 3);
    await pullIncremental(options());
    const watermark = state.cursors.get('items')?.watermarkMs ?? 0;
    source.put({ id: 'late-equal', seq: 100, updated_at: new Date(watermark).toISOString() });
    source.put({ id: 'late-earlier', seq: 101, updated_at: new Date(watermark - 1500).toISOString() });
    const run = await pullIncremental(options());
    expect(run.counts.delivered).toBe(2);
    expect(staged()).toEqual([...range(1, 9), 100, 101]);
  });

  it('misses the same late commit without an overlap (why the overlap exists)', async () => {
    seed(9, 3);
    await pullIncremental(options({ overlapMs: 0 }));
    const watermark = state.cursors.get('items')?.watermarkMs ?? 0;
    source.put({ id: 'late-equal', seq: 100, updated_at: new Date(watermark).toISOString() });
    const run = await pullIncremental(options({ overlapMs: 0 }));
    expect(run.counts.delivered).toBe(0);
    expect(staged()).toEqual(range(1, 9));
  });

  it('delivers a new version of a record again, once', async () => {
    seed(4, 1);
    await pullIncremental(options());
    source.put({ id: 'r000002', seq: 50, updated_at: new Date(BASE + 60_000).toISOString() });
    await pullIncremental(options());
    await pullIncremental(options());
    expect(staged()).toEqual([1, 2, 3, 4, 50]);
  });

  it('prunes the seen-set behind the overlap', async () => {
    seed(30, 1);
    await pullIncremental(options({ overlapMs: 2500 }));
    // Records 1 s apart; versions at or after (newest - 2.5 s) are kept: the newest three.
    expect(state.seen.count('items')).toBe(3);
  });

  it('dead-letters a record that fails to stage, commits the rest of the page, and replays it later', async () => {
    seed(6, 2);
    let broken = true;
    const stage = options({
      stageRecord: (item, s) => {
        s.db.prepare('INSERT INTO staged (seq, id) VALUES (?, ?)').run(item.seq, item.id);
        if (broken && item.seq === 4) throw new Error('no mapping for unit "crate"');
      },
    });
    const run = await pullIncremental(stage);
    expect(run).toMatchObject({ outcome: 'ok' });
    expect(run.counts).toMatchObject({ delivered: 5, deadLettered: 1 });
    // The failed record's partial writes were rolled back with its savepoint.
    expect(staged()).toEqual([1, 2, 3, 5, 6]);
    const letter = state.deadLetters.get('items', 'r000004');
    expect(letter).toMatchObject({
      reason: 'no mapping for unit "crate"',
      status: 'open',
      record: { seq: 4 },
    });

    broken = false;
    expect(state.deadLetters.replay({ flow: 'items' })).toBe(1);
    const replay = await pullIncremental(stage);
    expect(replay.counts.replayed).toBe(1);
    expect(staged()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(state.deadLetters.get('items', 'r000004')?.status).toBe('resolved');
  });

  it('dead-letters unreadable items and keeps going', async () => {
    seed(3, 1);
    const run = await pullIncremental(
      options({
        identify: (item) => {
          if (item.seq === 2) throw new Error('updated_at missing');
          return { id: item.id, updatedAt: item.updated_at };
        },
      }),
    );
    expect(run.outcome).toBe('ok');
    expect(staged()).toEqual([1, 3]);
    expect(state.deadLetters.list({ flow: 'items' })[0]?.reason).toBe('updated_at missing');
  });

  it('fails the run once failures pass the threshold', async () => {
    seed(30, 1);
    const run = await pullIncremental(
      options({
        errorThreshold: { maxFailures: 4 },
        stageRecord: (item) => {
          if (item.seq % 2 === 0) throw new Error('rejected');
        },
      }),
    );
    expect(run.outcome).toBe('failed');
    // Checked per page: the fourth page (seq 10-12) takes the count from 4 to 6.
    expect(run.error).toMatch(/6 records failed \(threshold 4\)/);
    expect(run.counts).toMatchObject({ pages: 4, deadLettered: 6 });
    expect(run.passComplete).toBe(false);
  });

  it('ends failed when the first page errors, and moves nothing', async () => {
    seed(3, 1);
    const run = await pullIncremental(
      options({
        fetchPage: () =>
          Promise.reject(Object.assign(new Error('rate limited for 3600 s'), { code: 'rate_limited' })),
      }),
    );
    expect(run).toMatchObject({ outcome: 'failed', error: 'rate limited for 3600 s' });
    expect(state.cursors.get('items')).toBeNull();
  });

  it('never moves the cursor past a malformed page', async () => {
    seed(3, 1);
    const run = await pullIncremental(
      options({ fetchPage: async () => ({ items: [], nextCursor: null, hasMore: true }) }),
    );
    expect(run.outcome).toBe('failed');
    expect(run.error).toMatch(/has_more but gives no next_cursor/);
    expect(state.cursors.get('items')).toBeNull();
  });

  it('ends partial when the time budget runs out after progress, skipped when none was made', async () => {
    seed(12, 1);
    const spend = (over: Partial<PullOptions<SourceRecord>>) =>
      options({
        budget: new RunBudget(clock, 2500, new AbortController().signal),
        onPage: () => clock.advance(1000),
        ...over,
      });
    const run = await pullIncremental(spend({}));
    expect(run).toMatchObject({ outcome: 'partial', stopped: 'budget' });
    expect(run.counts.pages).toBe(3);
    const none = await pullIncremental(
      spend({ budget: new RunBudget(clock, 0, new AbortController().signal) }),
    );
    expect(none).toMatchObject({ outcome: 'skipped', stopped: 'budget' });
  });

  it('ends partial on shutdown after progress, keeping what was committed', async () => {
    seed(9, 1);
    const controller = new AbortController();
    let pages = 0;
    const run = await pullIncremental(
      options({
        budget: new RunBudget(clock, 60_000, controller.signal),
        fetchPage: async (req, signal) => {
          pages += 1;
          if (pages === 2) {
            controller.abort(new Error('shutting down'));
            signal.throwIfAborted();
          }
          const page = source.list({ ...req, limit: 3 });
          return { items: page.data, nextCursor: page.next_cursor, hasMore: page.has_more };
        },
      }),
    );
    expect(run).toMatchObject({ outcome: 'partial', stopped: 'aborted' });
    expect(run.error).toBeUndefined();
    expect(staged()).toEqual([1, 2, 3]);
  });

  it('restarts the pass when the stored cursor has expired', async () => {
    seed(9, 1);
    await pullIncremental(options({ budget: new RunBudget(clock, 0, new AbortController().signal) }));
    let first = true;
    const cut = await pullIncremental(
      options({
        fetchPage: async (req) => {
          if (!first) throw new Error('stop here');
          first = false;
          const page = source.list({ ...req, limit: 3 });
          return { items: page.data, nextCursor: page.next_cursor, hasMore: page.has_more };
        },
      }),
    );
    expect(cut.outcome).toBe('partial');
    const run = await pullIncremental(
      options({
        isStaleCursorError: (error) => error instanceof Error && error.message === 'cursor expired',
        fetchPage: async (req) => {
          if (req.cursor !== null) throw new Error('cursor expired');
          const page = source.list({ ...req, limit: 20 });
          return { items: page.data, nextCursor: page.next_cursor, hasMore: page.has_more };
        },
      }),
    );
    expect(run).toMatchObject({ outcome: 'ok', passComplete: true });
    expect(run.counts).toMatchObject({ duplicates: 3, delivered: 6 });
    expect(staged()).toEqual(range(1, 9));
  });
  it('caps the watermark at the ceiling and re-reads above it without re-delivering', async () => {
    seed(10, 1);
    const ceiling = BASE + 4000;
    const run = await pullIncremental(options({ overlapMs: 0, watermarkCeiling: () => ceiling }));
    expect(run.counts.delivered).toBe(10);
    expect(state.cursors.get('items')?.watermarkMs).toBe(ceiling);
    // A row committed late just above the ceiling: behind the pass's newest row, yet still read.
    source.put({ id: 'late', seq: 99, updated_at: new Date(ceiling + 500).toISOString() });
    const next = await pullIncremental(options({ overlapMs: 0, watermarkCeiling: () => ceiling }));
    expect(next.counts).toMatchObject({ delivered: 1, duplicates: 5 });
    expect(staged()).toEqual([...range(1, 10), 99]);
  });

  it('delivers to an external target idempotently through the ledger when a page is replayed', async () => {
    seed(6, 2);
    const external: number[] = [];
    let crashAfter = 4;
    const { stageRecord: _unused, ...withoutStaging } = options();
    const deliverOptions: PullOptions<SourceRecord> = {
      ...withoutStaging,
      deliver: async (items) => {
        const failures = [];
        for (const item of items) {
          const key = { flow: 'items', connector: 'erp', recordKey: item.id, version: item.updated_at };
          if (state.ledger.has(key)) continue;
          if (item.seq === 5) {
            failures.push({ item, reason: 'ERP rejected the unit' });
            continue;
          }
          external.push(item.seq);
          state.ledger.record(key);
          if (external.length === crashAfter) throw new Error('connection to the ERP lost');
        }
        return failures;
      },
    };
    const first = await pullIncremental(deliverOptions);
    expect(first.outcome).toBe('partial');
    crashAfter = -1;
    const second = await pullIncremental(deliverOptions);
    expect(second.outcome).toBe('ok');
    expect(external).toEqual([1, 2, 3, 4, 6]);
    expect(state.deadLetters.get('items', 'r000005')?.reason).toBe('ERP rejected the unit');
  });
});
