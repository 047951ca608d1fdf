/**
 * Without HA, a one-shot command holds the state file's lock for its length: a daemon starting then waits for it to
 * let go (and says so in its log) instead of exiting `state_locked`. Another daemon's hold is still refused at once
 * (test/cli/health-cli.test.ts).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { eventually, openHealthWorld, type HealthWorld } from './health-support.js';

describe('a daemon starting while a one-shot command holds the state file', () => {
  let world: HealthWorld;
  beforeAll(async () => {
    world = await openHealthWorld();
  });
  afterAll(async () => world?.close());

  it('waits for the command to let go, then starts', { timeout: 60_000 }, async () => {
    // As `sync --no-wait` or `cursor reset` holds it: a plain (one-shot) holder of the lock.
    const oneShot = openStateStore({ file: join(world.dir, 'state-0', 'daemon.db'), clock: systemClock });
    let started: Daemon | undefined;
    let failed: unknown;
    const starting = world
      .start({
        connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
        jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
      })
      .then(
        (daemon) => (started = daemon),
        (error: unknown) => (failed = error),
      );
    const waiting = await eventually(
      () => world.logs.find((line) => line.msg.includes('held by a one-shot supply-sync command')),
      30_000,
    );
    expect(waiting).toMatchObject({ holder: { pid: process.pid, kind: 'command' } });
    expect(started).toBeUndefined();
    expect(failed).toBeUndefined();
    oneShot.close();
    await starting;
    expect(failed).toBeUndefined();
    expect(started?.env.state.commands.unfinished()).toEqual([]);
  });
});
