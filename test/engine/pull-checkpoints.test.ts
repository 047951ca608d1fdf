/**
 * The incremental acceptance checks the strongest sync tools run on a stream: two sequential reads, the second
 * starting where the first ended (less the overlap), and a resume from every checkpoint the first read left
 * behind. Each resume must stage exactly the records the checkpoint had not, and none older than its position.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunBudget, pullIncremental, type PageRequest, type PullOptions } from '../../src/engine/index.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from '../state/support.js';
import { MemorySource, tiedTimestamp, type SourceRecord } from './support/source.js';

const BASE = Date.parse('2026-03-01T06:00:00.000Z');
const OVERLAP_MS = 5_000;
const FIRST_READ = 41;
const SECOND_READ = 13;

let tmp: TempDir;
let clock: FakeClock;
let source: MemorySource;

beforeEach(() => {
  tmp = tempDir();
  clock = new FakeClock();
  source = new MemorySource();
});
afterEach(() => {
  tmp.remove();
});

/** `count` records from `firstSeq`, `groupSize` to a timestamp (ties across page boundaries), from `startMs`. */
function seed(firstSeq: number, count: number, groupSize: number, startMs: number): void {
  for (let i = 0; i < count; i += 1) {
    const seq = firstSeq + i;
    source.put({
      id: `r${String(seq).padStart(6, '0')}`,
      seq,
      updated_at: tiedTimestamp(startMs, i, groupSize),
    });
  }
}

function openState(file: string): StateStore {
  const state = openStateStore({ file, clock, synchronous: 'normal' });
  state.db.exec('CREATE TABLE IF NOT EXISTS staged (seq INTEGER NOT NULL, updated_at TEXT NOT NULL)');
  return state;
}

function stagedSeqs(state: StateStore): number[] {
  return (state.db.prepare('SELECT seq FROM staged ORDER BY seq').all() as { seq: number }[]).map(
    (r) => r.seq,
  );
}

function newestStagedMs(state: StateStore): number | null {
  const row = state.db.prepare('SELECT max(updated_at) AS newest FROM staged').get() as {
    newest: string | null;
  };
  return row.newest === null ? null : Date.parse(row.newest);
}

interface Observed {
  requests: PageRequest[];
  delivered: SourceRecord[];
}

function pullOptions(
  state: StateStore,
  observed: Observed,
  over: Partial<PullOptions<SourceRecord>> = {},
): PullOptions<SourceRecord> {
  return {
    state,
    stream: 'items',
    fetchPage: (request) => {
      observed.requests.push(request);
      const page = source.list({ ...request, limit: 4 });
      return Promise.resolve({ items: page.data, nextCursor: page.next_cursor, hasMore: page.has_more });
    },
    identify: (item) => ({ id: item.id, updatedAt: item.updated_at }),
    stageRecord: (item, st) => {
      observed.delivered.push(item);
      st.db.prepare('INSERT INTO staged (seq, updated_at) VALUES (?, ?)').run(item.seq, item.updated_at);
    },
    overlapMs: OVERLAP_MS,
    budget: new RunBudget(clock, 60_000, new AbortController().signal),
    ...over,
  };
}

const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
const observe = (): Observed => ({ requests: [], delivered: [] });

describe('pullIncremental acceptance', () => {
  it('reads twice in sequence, and resumes from every checkpoint of the first read without loss, repeats or older records', async () => {
    seed(1, FIRST_READ, 3, BASE);
    const state = openState(tmp.file('state.db'));
    const checkpoints: string[] = [];
    try {
      // First read: a copy of the state file after every committed page is a checkpoint a crash could leave.
      const first = await pullIncremental(
        pullOptions(state, observe(), {
          onPage: () => {
            const copy = tmp.file(`checkpoint-${checkpoints.length}.db`);
            state.db.exec(`VACUUM INTO '${copy}'`);
            checkpoints.push(copy);
          },
        }),
      );
      expect(first.passComplete).toBe(true);
      expect(stagedSeqs(state)).toEqual(range(1, FIRST_READ));
      const firstMaxMs = source.maxMs();
      expect(state.cursors.get('items')?.watermarkMs).toBe(firstMaxMs);
      expect(checkpoints.length).toBeGreaterThanOrEqual(Math.ceil(FIRST_READ / 4));

      // Second read, after more changes: it starts at the first read's newest timestamp less the overlap, and
      // stages only what changed since.
      seed(FIRST_READ + 1, SECOND_READ, 2, firstMaxMs + 1_000);
      const second = observe();
      await pullIncremental(pullOptions(state, second));
      expect(second.requests[0]).toEqual({
        cursor: null,
        updatedSince: new Date(firstMaxMs - OVERLAP_MS).toISOString(),
      });
      expect(second.delivered.map((r) => r.seq)).toEqual(range(FIRST_READ + 1, FIRST_READ + SECOND_READ));
    } finally {
      state.close();
    }

    // Resume from every checkpoint of the first read.
    let resumedMidPass = 0;
    for (const file of checkpoints) {
      const resumed = openState(file);
      try {
        const before = stagedSeqs(resumed);
        const newestBefore = newestStagedMs(resumed);
        const cursor = resumed.cursors.get('items');
        const run = observe();
        await pullIncremental(pullOptions(resumed, run));

        // Nothing lost, nothing twice: the checkpoint's records plus the resumed run's are every record once.
        expect(run.delivered.map((r) => r.seq).filter((seq) => before.includes(seq))).toEqual([]);
        expect(stagedSeqs(resumed)).toEqual(range(1, FIRST_READ + SECOND_READ));

        // It continues from the checkpoint's position: the stored API cursor mid-pass, else the watermark less
        // the overlap; and nothing it stages is older than the newest record the checkpoint had.
        if (cursor?.passCursor != null) {
          resumedMidPass += 1;
          expect(run.requests[0]?.cursor).toBe(cursor.passCursor);
        } else {
          expect(run.requests[0]).toEqual({
            cursor: null,
            updatedSince: new Date((cursor?.watermarkMs ?? 0) - OVERLAP_MS).toISOString(),
          });
        }
        for (const record of run.delivered) {
          expect(Date.parse(record.updated_at)).toBeGreaterThanOrEqual(newestBefore ?? 0);
        }
      } finally {
        resumed.close();
      }
    }
    // Every page but the last ends inside the pass: those checkpoints exercise the mid-pass resume.
    expect(resumedMidPass).toBe(checkpoints.length - 1);
  });
});
