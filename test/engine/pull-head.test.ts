import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  RunBudget,
  pullIncremental,
  type PageRequest,
  type PullOptions,
  type RecordFailure,
} from '../../src/engine/index.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from '../state/support.js';
import { MemorySource, type SourceRecord } from './support/source.js';

const BASE = Date.parse('2026-03-01T06:00:00.000Z');
const OVERLAP_MS = 60_000;
let tmp: TempDir;
let clock: FakeClock;
let state: StateStore;
let source: MemorySource;
/** Every delivery in order, as record ids. */
let delivered: string[];
/** Every page request the pull made. */
let requests: PageRequest[];
/** Ids the destination refuses. */
let refused: Set<string>;

beforeEach(() => {
  tmp = tempDir();
  clock = new FakeClock();
  state = openStateStore({ file: tmp.file('s.db'), clock });
  source = new MemorySource();
  delivered = [];
  requests = [];
  refused = new Set();
});
afterEach(() => {
  state.close();
  tmp.remove();
});

/** Records seq from..to, one second apart after BASE. */
function put(from: number, to: number): void {
  for (let seq = from; seq <= to; seq += 1) {
    source.put({
      id: `r${String(seq).padStart(4, '0')}`,
      seq,
      updated_at: new Date(BASE + seq * 1000).toISOString(),
    });
  }
}

function options(over: Partial<PullOptions<SourceRecord>> = {}): PullOptions<SourceRecord> {
  return {
    state,
    stream: 'items',
    fetchPage: async (request) => {
      requests.push(request);
      const page = source.list({ ...request, limit: 10 });
      return { items: page.data, nextCursor: page.next_cursor, hasMore: page.has_more };
    },
    identify: (item) => ({ id: item.id, updatedAt: item.updated_at }),
    deliver: async (items) => {
      const failures: RecordFailure<SourceRecord>[] = [];
      for (const item of items) {
        if (refused.has(item.id)) failures.push({ item, reason: `refused ${item.id}` });
        else delivered.push(item.id);
      }
      return failures;
    },
    overlapMs: OVERLAP_MS,
    budget: new RunBudget(clock, 60_000, new AbortController().signal),
    ...over,
  };
}

describe('pullIncremental with headFirst', () => {
  it('delivers the records after the watermark first, then re-reads the window without delivering them again', async () => {
    put(1, 40);
    await pullIncremental(options());
    const watermark = state.cursors.get('items')?.watermarkMs;
    expect(watermark).toBe(BASE + 40_000);
    delivered = [];
    requests = [];
    put(41, 42);

    const run = await pullIncremental(options({ headFirst: true }));

    expect(delivered).toEqual(['r0041', 'r0042']);
    // The head is one request from the watermark; the pass then starts at watermark - overlap as always.
    expect(requests[0]).toEqual({ cursor: null, updatedSince: new Date(BASE + 40_000).toISOString() });
    expect(requests[1]).toEqual({
      cursor: null,
      updatedSince: new Date(BASE + 40_000 - OVERLAP_MS).toISOString(),
    });
    expect(run.counts).toMatchObject({ delivered: 2, duplicates: 42, deadLettered: 0 });
    expect(run.passComplete).toBe(true);
    expect(state.cursors.get('items')?.watermarkMs).toBe(BASE + 42_000);
  });

  it('leaves a record the destination refuses to the pass, which retries it once and files it', async () => {
    put(1, 5);
    await pullIncremental(options());
    delivered = [];
    put(6, 7);
    refused.add('r0006');
    let attempts = 0;
    const counting = options({ headFirst: true });
    const deliver = counting.deliver;
    counting.deliver = async (items, signal) => {
      attempts += items.filter((item) => item.id === 'r0006').length;
      return deliver?.(items, signal);
    };

    const run = await pullIncremental(counting);

    expect(delivered).toEqual(['r0007']);
    expect(attempts).toBe(2);
    expect(run.counts).toMatchObject({ delivered: 1, deadLettered: 1 });
    expect(state.deadLetters.list({ flow: 'items' }).map((letter) => letter.recordKey)).toEqual(['r0006']);
  });

  it('resolves an open dead letter when the head delivers the record', async () => {
    put(1, 3);
    refused.add('r0003');
    await pullIncremental(options());
    expect(state.deadLetters.countOpen('items')).toBe(1);
    refused.clear();
    // A new version of the refused record, after the watermark.
    source.put({ id: 'r0003', seq: 4, updated_at: new Date(BASE + 10_000).toISOString() });
    delivered = [];

    await pullIncremental(options({ headFirst: true }));

    expect(delivered).toEqual(['r0003']);
    expect(state.deadLetters.countOpen('items')).toBe(0);
  });

  it('does nothing extra on a first run (no watermark) or for a pull that stages records', async () => {
    put(1, 3);
    await pullIncremental(options({ headFirst: true }));
    expect(requests).toHaveLength(1);
    expect(delivered).toEqual(['r0001', 'r0002', 'r0003']);

    put(4, 4);
    requests = [];
    const stagedIds: string[] = [];
    const { deliver: _deliver, ...staging } = options({
      headFirst: true,
      stageRecord: (item) => {
        stagedIds.push(item.id);
      },
    });
    await pullIncremental(staging);
    expect(requests).toHaveLength(1);
    expect(stagedIds).toEqual(['r0004']);
  });

  it('adds no delivery when nothing changed after the watermark', async () => {
    put(1, 12);
    await pullIncremental(options());
    delivered = [];
    requests = [];

    const run = await pullIncremental(options({ headFirst: true }));

    expect(delivered).toEqual([]);
    expect(requests[0]?.updatedSince).toBe(new Date(BASE + 12_000).toISOString());
    expect(run.counts.delivered).toBe(0);
  });
});
