import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  decideOutcome,
  jobFreshness,
  pruneState,
  runJob,
  stateOverview,
  type Job,
  type JobContext,
  type RunResult,
  type RunTrigger,
} from '../../src/engine/index.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from '../state/support.js';

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

function ctx(trigger: RunTrigger = 'schedule', over: Partial<JobContext> = {}): JobContext {
  return {
    signal: new AbortController().signal,
    budgetMs: 60_000,
    dryRun: false,
    logger: pino({ level: 'silent' }),
    clock,
    state,
    trigger,
    ...over,
  };
}

describe('runJob', () => {
  it('records each run in run history with its trigger', async () => {
    let calls = 0;
    const job: Job = {
      name: 'orders',
      run: async () => {
        calls += 1;
        clock.advance(100);
        return { outcome: 'ok', counts: { written: calls } };
      },
    };
    expect(await runJob(job, ctx('schedule'))).toEqual({ outcome: 'ok', counts: { written: 1 } });
    expect(await runJob(job, ctx('webhook'))).toEqual({ outcome: 'ok', counts: { written: 2 } });
    const history = state.runs.recent('orders');
    expect(history.map((r) => r.trigger)).toEqual(['webhook', 'schedule']);
    expect(history.every((r) => r.outcome === 'ok' && r.endedAt !== null)).toBe(true);
  });

  it('records a thrown error as a failed run and frees the job', async () => {
    let calls = 0;
    const job: Job = {
      name: 'catalog',
      run: () => {
        calls += 1;
        return calls === 1
          ? Promise.reject(new Error('ERP query timed out'))
          : Promise.resolve<RunResult>({ outcome: 'ok', counts: {} });
      },
    };
    expect(await runJob(job, ctx())).toEqual({ outcome: 'failed', counts: {}, error: 'ERP query timed out' });
    expect(state.runs.last('catalog')).toMatchObject({ outcome: 'failed', error: 'ERP query timed out' });
    expect((await runJob(job, ctx())).outcome).toBe('ok');
  });
});

describe('outcome policy', () => {
  it('tells partial from failed and skipped', () => {
    const base = { stopped: null, error: undefined, thresholdBreach: null };
    expect(decideOutcome({ ...base, progress: true })).toBe('ok');
    expect(decideOutcome({ ...base, progress: true, stopped: 'budget' })).toBe('partial');
    expect(decideOutcome({ ...base, progress: false, stopped: 'aborted' })).toBe('skipped');
    expect(decideOutcome({ ...base, progress: true, error: new Error('429') })).toBe('partial');
    expect(decideOutcome({ ...base, progress: false, error: new Error('429') })).toBe('failed');
    expect(decideOutcome({ ...base, progress: true, thresholdBreach: 'too many' })).toBe('failed');
  });
});

describe('freshness', () => {
  it('reports last success, last error, dead letters and outbox depth', async () => {
    const results: RunResult[] = [
      { outcome: 'ok', counts: { pulled: 5 } },
      { outcome: 'partial', counts: { pulled: 2 }, error: 'rate limited' },
    ];
    const job: Job = {
      name: 'orders',
      run: () => Promise.resolve(results.shift() ?? { outcome: 'ok', counts: {} }),
    };
    await runJob(job, ctx());
    const okEnd = clock.now();
    clock.advance(60_000);
    await runJob(job, ctx());
    state.deadLetters.add('orders', 'ord_9', { id: 'ord_9' }, 'no customer mapping');
    state.outbox.enqueue({
      stream: 'orders',
      idempotencyKey: 'ack-1',
      method: 'POST',
      path: '/x',
      body: null,
    });

    const fresh = jobFreshness(state, 'orders');
    expect(fresh).toMatchObject({
      lastSuccessAt: okEnd,
      lastProgressAt: clock.now(),
      lastError: { at: clock.now(), message: 'rate limited' },
      running: false,
      openDeadLetters: 1,
    });
    expect(fresh.lastRun?.outcome).toBe('partial');

    await runJob(job, ctx());
    expect(jobFreshness(state, 'orders').lastError).toBeNull();
    const overview = stateOverview(state);
    expect(overview.jobs.map((j) => j.job)).toEqual(['orders']);
    expect(overview).toMatchObject({ openDeadLetters: 1, outbox: { pending: 1, dead: 0 } });
  });
});

describe('housekeeping', () => {
  it('prunes what is past retention and keeps what dedupe and operators still need', () => {
    const day = 24 * 60 * 60 * 1000;
    const bytes = new Uint8Array([123, 125]);
    state.inbox.insertMany([
      { eventId: 'old', type: 't', payload: bytes },
      { eventId: 'stuck', type: 't', payload: bytes },
    ]);
    state.inbox.markDispatched(state.inbox.pendingRefs().filter((ref) => ref.eventId === 'old'));
    const done = state.outbox.enqueue({
      stream: 's',
      idempotencyKey: 'done',
      method: 'POST',
      path: '/a',
      body: null,
    });
    state.outbox.markDone(done.id, '{}');
    state.outbox.enqueue({ stream: 's', idempotencyKey: 'waiting', method: 'POST', path: '/a', body: null });
    state.deadLetters.add('f', 'gone', {}, 'x');
    state.deadLetters.resolve('f', 'gone');
    state.deadLetters.add('f', 'left-alone', {}, 'w');
    state.deadLetters.discard({ flow: 'f' });
    state.deadLetters.add('f', 'open', {}, 'y');
    for (let i = 0; i < 4; i += 1) state.runs.finish(state.runs.start('orders', 'schedule'), 'ok', {}, null);

    clock.advance(8 * day);
    expect(pruneState(state, { runsPerJob: 2 })).toEqual({ inbox: 0, outbox: 1, runs: 2, deadLetters: 0 });
    clock.advance(91 * day);
    // Runs that ended more than 30 days ago (state.history.keep) go too.
    expect(pruneState(state)).toEqual({ inbox: 1, outbox: 0, runs: 2, deadLetters: 1 });
    expect(state.inbox.get('stuck')?.status).toBe('pending');
    expect(state.outbox.getByKey('waiting')?.status).toBe('pending');
    expect(state.deadLetters.countOpen('f')).toBe(1);
    // A discarded letter is a person's decision that flows keep reading: never pruned.
    expect(state.deadLetters.get('f', 'left-alone')?.status).toBe('discarded');
  });
});
