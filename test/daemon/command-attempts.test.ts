/**
 * A command the leader cannot finish ends: a run now whose run threw is recorded failed (run_failed, the secrets in
 * its message replaced) instead of being taken again every poll, and any command taken MAX_COMMAND_ATTEMPTS times
 * without finishing is recorded failed (too_many_attempts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CommandService,
  MAX_COMMAND_ATTEMPTS,
  type CommandRunner,
} from '../../src/daemon/control/command-service.js';
import { configFingerprint } from '../../src/daemon/control/fingerprint.js';
import type { Environment } from '../../src/daemon/services/environment.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore, type QueuedCommand, type StateStore } from '../../src/state/index.js';
import { eventually } from './health-support.js';

const SECRET = 'erp-password-4f9c2a';
const config = {
  jobs: { orders: { flow: 'orders', connector: 'erp' } },
  connectors: { erp: { type: 'demo-erp' } },
};

describe('operator commands that cannot finish', () => {
  let dir: string;
  let state: StateStore;
  let service: CommandService | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'supply-sync-attempts-'));
    state = openStateStore({ file: join(dir, 'daemon.db'), clock: systemClock });
  });
  afterEach(async () => {
    await service?.stop({ timeoutMs: 2_000 });
    service = undefined;
    state.close();
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (runner: CommandRunner): Promise<void> => {
    const env = {
      state,
      clock: systemClock,
      loopClock: systemClock,
      logger: pino({ level: 'silent' }),
      loaded: { file: 'supply-sync.yaml', config },
      jobs: new Map([['orders', {}]]),
      apis: new Map(),
      secrets: () => [SECRET],
    } as unknown as Environment;
    service = new CommandService(env, runner);
    await service.start();
  };
  const runNow = (): number =>
    state.commands.enqueue({
      kind: 'sync',
      args: { job: 'orders' },
      fingerprint: configFingerprint(config as never),
      requestedBy: 'cli:ann',
    });
  const finished = (id: number) =>
    eventually(() => {
      const command = state.commands.get(id);
      return command?.status === 'failed' || command?.status === 'done' ? command : undefined;
    });

  it('records a run now whose run threw as failed, once, with the secret replaced', async () => {
    let calls = 0;
    await start({
      runForResult: async () => {
        calls += 1;
        return { threw: new Error(`ERP login refused for password ${SECRET}`) };
      },
      runHeldWebhooks: () => undefined,
      betweenRuns: async (_job, work) => work(),
    });
    const command: QueuedCommand = await finished(runNow());
    expect(command).toMatchObject({ status: 'failed', errorCode: 'run_failed', attempts: 1 });
    expect(command.error).toContain('ERP login refused');
    expect(command.error).not.toContain(SECRET);
    // Commands are taken in the order given: once a second one is finished, the queue has been read again since
    // the first was recorded failed, and the first was not taken again.
    const second = await finished(runNow());
    expect(second).toMatchObject({ status: 'failed', attempts: 1 });
    expect(state.commands.get(command.id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(calls).toBe(2);
  });

  it(`records a command taken ${MAX_COMMAND_ATTEMPTS} times without finishing as failed`, async () => {
    let calls = 0;
    await start({
      // Never ends a run (as if each leader stopped during it): left for the next leader every time.
      runForResult: async () => {
        calls += 1;
        return null;
      },
      runHeldWebhooks: () => undefined,
      betweenRuns: async (_job, work) => work(),
    });
    const command = await finished(runNow());
    expect(command).toMatchObject({
      status: 'failed',
      errorCode: 'too_many_attempts',
      attempts: MAX_COMMAND_ATTEMPTS,
    });
    // It says where to look and how to ask again.
    expect(command.error).toContain('supply-sync runs --job orders');
    expect(command.error).toMatch(/then give it again with `supply-sync sync orders`$/);
    expect(calls).toBe(MAX_COMMAND_ATTEMPTS);
  });

  it('fails at once a command already taken that many times by earlier leaders', async () => {
    const id = runNow();
    for (let i = 0; i < MAX_COMMAND_ATTEMPTS; i += 1) state.commands.claim(id);
    let calls = 0;
    await start({
      runForResult: async () => {
        calls += 1;
        return null;
      },
      runHeldWebhooks: () => undefined,
      betweenRuns: async (_job, work) => work(),
    });
    expect(await finished(id)).toMatchObject({ errorCode: 'too_many_attempts' });
    expect(calls).toBe(0);
  });

  const ranOk = { outcome: 'ok', counts: {} } as unknown as Awaited<
    ReturnType<CommandRunner['runForResult']>
  >;

  it('gives a run now back, its attempt not counted, when its daemon stops during the run', async () => {
    let endRun: (result: null) => void = () => undefined;
    await start({
      runForResult: () => new Promise((resolve) => (endRun = resolve)),
      runHeldWebhooks: () => undefined,
      betweenRuns: async (_job, work) => work(),
    });
    const id = runNow();
    await eventually(() => (state.commands.get(id)?.status === 'running' ? true : undefined));
    // A stop for a reason of its own (an upgrade, a restart): the scheduler ends the run unfinished.
    const stopping = service?.stop({ timeoutMs: 2_000 });
    endRun(null);
    await stopping;
    service = undefined;
    const givenBack = await eventually(() => {
      const command = state.commands.get(id);
      return command?.status === 'pending' ? command : undefined;
    });
    expect(givenBack.attempts).toBe(0);
    await start({
      runForResult: async () => ranOk,
      runHeldWebhooks: () => undefined,
      betweenRuns: async (_job, work) => work(),
    });
    expect(await finished(id)).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('does not count a claim by an earlier daemon killed before its run began', async () => {
    const id = runNow();
    // Daemons killed at their start, one after another, each right after taking the command: no run began.
    for (let i = 0; i < MAX_COMMAND_ATTEMPTS - 1; i += 1) state.commands.claim(id);
    const claimedAt = state.commands.get(id)?.claimedAt ?? 0;
    await eventually(() => (Date.now() > claimedAt ? true : undefined));
    let calls = 0;
    await start({
      runForResult: async () => {
        calls += 1;
        return ranOk;
      },
      runHeldWebhooks: () => undefined,
      betweenRuns: async (_job, work) => work(),
    });
    expect(await finished(id)).toMatchObject({ status: 'done', attempts: MAX_COMMAND_ATTEMPTS - 1 });
    expect(calls).toBe(1);
  });
});
