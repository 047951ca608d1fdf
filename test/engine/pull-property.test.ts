import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunBudget, pullIncremental, type PullOptions } from '../../src/engine/index.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from '../state/support.js';
import { MemorySource, type SourceRecord } from './support/source.js';

const BASE = Date.parse('2026-03-01T06:00:00.000Z');
const OVERLAP_MS = 10_000;

let tmp: TempDir;
let clock: FakeClock;

beforeEach(() => {
  tmp = tempDir();
  clock = new FakeClock();
});
afterEach(() => {
  tmp.remove();
});

interface Scenario {
  /** Timestamps in whole seconds from a small range: many ties. */
  seconds: number[];
  pageSize: number;
  /** Fetch calls (1-based, across all runs) that fail like a dropped connection. */
  failures: number[];
  /** Late rows per run: seconds behind the newest row, always within the overlap. */
  late: number[][];
}

const scenario = fc.record<Scenario>({
  seconds: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 60 }),
  pageSize: fc.integer({ min: 1, max: 7 }),
  failures: fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 8 }),
  late: fc.array(fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }), { maxLength: 4 }),
});

function runScenario(s: Scenario, state: StateStore): Promise<{ staged: number[]; expected: number[] }> {
  const source = new MemorySource();
  let seq = 0;
  const put = (ms: number, prefix: string) => {
    seq += 1;
    source.put({
      id: `${prefix}${String(seq).padStart(4, '0')}`,
      seq,
      updated_at: new Date(ms).toISOString(),
    });
  };
  for (const second of s.seconds) put(BASE + second * 1000, 'r');
  state.db.exec('CREATE TABLE IF NOT EXISTS staged (seq INTEGER NOT NULL)');
  let calls = 0;
  const options: PullOptions<SourceRecord> = {
    state,
    stream: 'items',
    overlapMs: OVERLAP_MS,
    budget: new RunBudget(clock, 60_000, new AbortController().signal),
    fetchPage: (request) => {
      calls += 1;
      if (s.failures.includes(calls)) return Promise.reject(new Error('connection reset'));
      const page = source.list({ ...request, limit: s.pageSize });
      return Promise.resolve({ items: page.data, nextCursor: page.next_cursor, hasMore: page.has_more });
    },
    identify: (item) => ({ id: item.id, updatedAt: item.updated_at }),
    stageRecord: (item, st) => {
      st.db.prepare('INSERT INTO staged (seq) VALUES (?)').run(item.seq);
    },
  };
  return (async () => {
    let round = 0;
    // Run until a pass that began after the last late commit has completed.
    for (let attempts = 0; attempts < 200; attempts += 1) {
      const fresh = !state.cursors.get('items')?.passCursor;
      const result = await pullIncremental(options);
      if (fresh && result.passComplete) {
        const late = s.late[round];
        if (late === undefined) break;
        round += 1;
        for (const behind of late) put(source.maxMs() - behind * 1000, 'late');
      }
    }
    const staged = (
      state.db.prepare('SELECT seq FROM staged ORDER BY seq').all() as Array<{ seq: number }>
    ).map((r) => r.seq);
    return { staged, expected: Array.from({ length: seq }, (_, i) => i + 1) };
  })();
}

describe('pullIncremental properties', () => {
  it('stages every version exactly once for any ties, page size, failure points and late commits', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        n += 1;
        // Durability is not under test here, only the algorithm: skip the per-commit fsync.
        const state = openStateStore({ file: tmp.file(`p${n}.db`), clock, synchronous: 'normal' });
        try {
          const { staged, expected } = await runScenario(s, state);
          expect(staged).toEqual(expected);
        } finally {
          state.close();
        }
      }),
      { numRuns: 120, seed: 4242 },
    );
  });
});
