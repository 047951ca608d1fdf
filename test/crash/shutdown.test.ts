/**
 * Clean shutdowns of the real daemon: SIGTERM while a webhook-triggered run is in progress ends the process within
 * the shutdown bound with exit code 0, and the next start finishes the work without doing any of it twice. Each stop
 * waits for a run of the daemon to have started (webhook work is made until one has), and the stops go on until one
 * has landed while a run was still open: counted from the daemon's run history, not assumed from a delay.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAndWait, spawnCli, type CliChild } from './harness/child.js';
import { RunWatcher } from './harness/open-runs.js';
import { seededPrng } from './harness/prng.js';
import { missingFlows } from './harness/run-scenario.js';
import type { ScenarioSession } from './harness/scenario.js';
import { supplierScenario } from './harness/supplier.js';
import { openCrashWorld, type CrashWorld } from './harness/world.js';

const SHUTDOWN_BOUND_MS = 35_000; // the CLI gives running jobs 30 s to reach a checkpoint
/** Clean stops to make; they go on past this until one has landed inside a run still open. */
const STOPS = 3;
/** A guard on the stops, not a size: past it the test fails saying how many stops it made and where. */
const STOP_PHASE_GUARD_MS = 150_000;

describe.skipIf(missingFlows(supplierScenario).length > 0)('daemon SIGTERM', () => {
  let world: CrashWorld | undefined;
  let session: ScenarioSession | undefined;
  let child: CliChild | undefined;

  afterAll(async () => {
    await killAndWait(child);
    await session?.close();
    await world?.close();
  });

  it('stops within the bound mid-run and resumes cleanly', { timeout: 300_000 }, async () => {
    const startFrom = new Date(Date.now() - 1_000).toISOString();
    world = await openCrashWorld({
      side: 'supplier',
      events: supplierScenario.events,
      configBody: (dir) => supplierScenario.configBody(dir, startFrom),
    });
    session = await supplierScenario.open(world);
    const runs = new RunWatcher(path.join(world.dir, 'state', 'supply-sync.db'));
    const prng = seededPrng(5);
    const stops: number[] = [];
    let stopsInsideRuns = 0;
    const guardEnds = Date.now() + STOP_PHASE_GUARD_MS;
    const reached = (): string =>
      `${stops.length} stops (${stopsInsideRuns} with a run open), stop times ${stops.join(', ')} ms`;
    while (stops.length < STOPS || stopsInsideRuns === 0) {
      if (Date.now() > guardEnds) {
        throw new Error(`no stop with a run open after ${STOP_PHASE_GUARD_MS} ms (guard): ${reached()}`);
      }
      await session.activity(prng, 'before-start');
      const daemon = spawnCli(['run', '--config', world.configFile, '--port', '0']);
      child = daemon;
      const opsUrl = await daemon.ready;
      expect(opsUrl, daemon.output()).not.toBeNull();
      await world.followDaemon(opsUrl ?? '');
      expect((await fetch(`${opsUrl}/healthz`)).status).toBe(200);
      // Work that reaches the daemon as webhooks, until one of its runs has started (counted in its run history).
      let rounds = 0;
      do {
        if (!daemon.isRunning()) throw new Error(`the daemon exited by itself:\n${daemon.output()}`);
        if (Date.now() > guardEnds) {
          throw new Error(
            `no run started after ${rounds} rounds of work for the daemon (guard ${STOP_PHASE_GUARD_MS} ms): ` +
              reached(),
          );
        }
        await session.activity(prng, 'daemon-ready');
        rounds += 1;
      } while (!(await runs.waitForRun(() => daemon.isRunning(), 3_000)));
      const inside = runs.openRuns().length > 0;
      const sent = Date.now();
      daemon.kill('SIGTERM');
      const exit = await Promise.race([
        daemon.exited,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), SHUTDOWN_BOUND_MS).unref()),
      ]);
      expect(exit, daemon.output()).not.toBeNull();
      expect(exit?.code, daemon.output()).toBe(0);
      stops.push(Date.now() - sent);
      if (inside) stopsInsideRuns += 1;
      runs.cutOffRuns();
    }
    // Whatever the stops left unfinished, the next runs of each job finish, without doing anything twice.
    for (let attempt = 0; attempt < 5 && !(await session.settled()); attempt += 1) {
      for (const job of supplierScenario.convergeOrder ?? supplierScenario.jobs) {
        const sync = spawnCli(['sync', job, '--config', world.configFile]);
        child = sync;
        expect((await sync.exited).code, sync.output()).toBe(0);
      }
    }
    expect(await session.pending()).toBe('');
    const check = await session.check();
    expect(check.violations).toEqual([]);
    process.stdout.write(`SIGTERM: ${reached()}\n`);
  });
});
