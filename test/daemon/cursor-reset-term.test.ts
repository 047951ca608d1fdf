/**
 * A cursor reset waiting for a run to end belongs to the term it was given in. When the daemon stops with that run
 * still going on (it outlived the stop's time) and the same process leads again, the reset is not lost (it stays
 * queued and the new term carries it out) and the old wait cannot carry it out late, over the new term's runs.
 * The command service runs here against a real scheduler and a real state file; the runs are the test's own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandService, type CommandRunner } from '../../src/daemon/control/command-service.js';
import { configFingerprint } from '../../src/daemon/control/fingerprint.js';
import type { Environment } from '../../src/daemon/services/environment.js';
import { Scheduler } from '../../src/scheduler/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { eventually } from './health-support.js';

const STREAM = 'orders:/supplier/orders';
const config = {
  jobs: { orders: { flow: 'orders', connector: 'erp' } },
  connectors: { erp: { type: 'demo-erp' } },
};

describe('a cursor reset waiting for a run when the daemon stops and leads again', () => {
  let dir: string;
  let state: StateStore;
  let service: CommandService | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'supply-sync-reset-term-'));
    state = openStateStore({ file: join(dir, 'daemon.db'), clock: systemClock });
    state.cursors.save({
      stream: STREAM,
      watermarkMs: 1_000,
      passCursor: null,
      passSince: null,
      passMaxMs: null,
    });
  });
  afterEach(async () => {
    await service?.stop({ timeoutMs: 2_000 });
    service = undefined;
    state.close();
    await rm(dir, { recursive: true, force: true });
  });

  const commandService = (runner: CommandRunner): CommandService => {
    const env = {
      state,
      clock: systemClock,
      loopClock: systemClock,
      logger: pino({ level: 'silent' }),
      loaded: { file: 'supply-sync.yaml', config },
      jobs: new Map([['orders', {}]]),
      apis: new Map(),
      secrets: () => [],
    } as unknown as Environment;
    service = new CommandService(env, runner);
    return service;
  };
  const giveReset = (): number =>
    state.commands.enqueue({
      kind: 'cursor.reset',
      args: { stream: STREAM },
      fingerprint: configFingerprint(config as never),
      requestedBy: 'cli:ann',
    });

  it('is left queued by the stopped scheduler and carried out by the next term, once', async () => {
    let endOldRun: () => void = () => undefined;
    // The old term's run ignores the abort: it outlives the stop.
    const old = new Scheduler({
      jobs: [{ name: 'orders' }],
      run: () => new Promise<void>((resolve) => (endOldRun = resolve)),
    });
    const oldRun = old.runNow('orders', 'cli');
    let scheduler = old;
    let waits = 0;
    const commands = commandService({
      runForResult: () => Promise.resolve(null),
      runHeldWebhooks: () => undefined,
      betweenRuns: (job, work) => {
        waits += 1;
        return scheduler.betweenRuns(job, work);
      },
    });
    await commands.start();
    const id = giveReset();
    await eventually(() => (waits === 1 ? true : undefined));

    // Lost the term: the commands stop first, then the scheduler, whose run is still going on when its time is up.
    await commands.stop({ timeoutMs: 2_000 });
    expect(await old.stop(10)).toEqual({ unfinished: ['orders'] });
    expect(state.commands.get(id)).toMatchObject({ status: 'pending', attempts: 0 });

    // The same process leads again, with a new scheduler: the reset is given to it and carried out.
    scheduler = new Scheduler({ jobs: [{ name: 'orders' }], run: () => Promise.resolve() });
    await commands.start();
    const done = await eventually(() => {
      const command = state.commands.get(id);
      return command?.status === 'pending' ? undefined : command;
    });
    expect(done).toMatchObject({ status: 'done', attempts: 1, result: { stream: STREAM } });
    expect(state.cursors.get(STREAM)).toBeNull();
    expect(waits).toBe(2);

    // The new term's run saves its cursor; the old run ends: nothing of the old term resets it again.
    state.cursors.save({
      stream: STREAM,
      watermarkMs: 2_000,
      passCursor: null,
      passSince: null,
      passMaxMs: null,
    });
    endOldRun();
    await oldRun;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(state.cursors.get(STREAM)?.watermarkMs).toBe(2_000);
    await scheduler.stop(1_000);
  });

  it('is not carried out by a wait of an earlier term that ends late', async () => {
    const waiting: Array<{ work: () => void; settle: () => void }> = [];
    const commands = commandService({
      runForResult: () => Promise.resolve(null),
      runHeldWebhooks: () => undefined,
      // Each wait ends only when the test says so, as a run of the stream's job would.
      betweenRuns: (_job, work) =>
        new Promise<void>((resolve) => waiting.push({ work, settle: () => resolve() })),
    });
    await commands.start();
    const id = giveReset();
    const first = await eventually(() => waiting[0]);
    await commands.stop({ timeoutMs: 2_000 });
    await commands.start();

    // The run of the first term ends now, in the second: its wait does not reset the cursor.
    first.work();
    first.settle();
    expect(state.cursors.get(STREAM)?.watermarkMs).toBe(1_000);
    expect(state.commands.get(id)).toMatchObject({ status: 'pending', attempts: 0 });

    // The second term's drain gives the reset again, and its own wait carries it out.
    const second = await eventually(() => waiting[1]);
    second.work();
    second.settle();
    expect(state.commands.get(id)).toMatchObject({ status: 'done', attempts: 1 });
    expect(state.cursors.get(STREAM)).toBeNull();
  });
});
