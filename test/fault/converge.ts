/**
 * One convergence run of a crash scenario, with or without sandbox faults: the same seeded work is made before the
 * daemon starts (so a faulted and a fault-free run start from identical inputs), then the real daemon receives the
 * webhooks for it (duplicated, reordered, signed with skewed clocks when faulted), then `sync <job>` runs repeat
 * under request faults (5xx, connection resets, 429 bursts, latency spikes) until everything has arrived. With the
 * faults off, the end state is read back and one more run of each job must write nothing.
 *
 * A daemon phase ends on counts, read from the daemon's own /metrics: every event redelivered in the phase has
 * reached it (stored, recognised as a duplicate or refused) and the phase's goals hold (an API call that met a fault,
 * a refused skewed signature...). Its time guard only bounds a phase that cannot get there, and then fails with the
 * counts it reached.
 */
import { killAndWait, spawnCli, type CliChild } from '../crash/harness/child.js';
import { seededPrng } from '../crash/harness/prng.js';
import { idleWrites, syncToEnd } from '../crash/harness/run-scenario.js';
import type { CrashScenario, ScenarioCheck, ScenarioSession } from '../crash/harness/scenario.js';
import { openCrashWorld, type CrashWorld } from '../crash/harness/world.js';
import type { FaultSettings } from '../../src/sandbox/index.js';
import { readDaemonCounters, webhookArrivals, type DaemonCounters } from './daemon-metrics.js';

/** A count the daemon's own counters (over the whole run so far) must reach before a phase ends. */
export interface DaemonGoal {
  readonly what: string;
  reached(counters: DaemonCounters): boolean;
}

export interface ConvergeOptions {
  scenario: CrashScenario;
  seed: number;
  activityRounds: number;
  /** Request and webhook faults; each entry is one daemon phase (e.g. skew within, then beyond tolerance). */
  faultPhases?: Partial<FaultSettings>[];
  /** Per phase, what the daemon must have counted before the phase ends, besides the arrival of its events. */
  phaseGoals?: (readonly DaemonGoal[])[];
  /** Guard of one daemon phase (default 90 s). */
  phaseGuardMs?: number;
  maxConvergeMs?: number;
}

export interface ConvergeReport {
  check: ScenarioCheck;
  syncRuns: number;
  failedSyncRuns: number;
  durationMs: number;
  /** Webhook deliveries the sandbox recorded, by answer status of the daemon. */
  deliveries: Record<string, number>;
  /** Redeliveries asked for once the daemon was listening. */
  redelivered: number;
  /** What the daemon counted over all phases (read before it stopped). */
  daemon: DaemonCounters;
  /** Counts printed by one more `sync <job>` after convergence, faults off. */
  idleRun: Record<string, Record<string, number>>;
  /** Writes that idle run made (must be empty: nothing is sent twice). */
  idleWrites: string[];
}

export async function runConvergence(options: ConvergeOptions): Promise<ConvergeReport> {
  const started = Date.now();
  const startFrom = new Date(Date.now() - 1_000).toISOString();
  const world = await openCrashWorld({
    side: options.scenario.side,
    events: options.scenario.events,
    configBody: (dir) => options.scenario.configBody(dir, startFrom),
  });
  let session: ScenarioSession | undefined;
  let child: CliChild | undefined;
  try {
    session = await options.scenario.open(world);
    const prng = seededPrng(options.seed);
    for (let round = 0; round < options.activityRounds; round += 1)
      await session.activity(prng, 'before-start');

    const phases = options.faultPhases ?? [{}];
    child = spawnCli(['run', '--config', world.configFile, '--port', '0']);
    const opsUrl = await child.ready;
    if (opsUrl === null) throw new Error(`the daemon did not start:\n${child.output()}`);
    let redelivered = 0;
    for (const [index, phase] of phases.entries()) {
      // The 429 burst is held back until the harness's own calls are done, so it lands on the daemon's requests.
      const { rate_limit_burst: burst = 0, ...rest } = phase;
      if (Object.keys(rest).length > 0) await world.sandbox.control.setFaults(rest);
      await world.followDaemon(opsUrl);
      const before = webhookArrivals(await readDaemonCounters(opsUrl));
      // Every event once more, now that the daemon listens (as `supply-sync webhooks recover` would ask for).
      const sent = await redeliverAll(world);
      redelivered += sent;
      if (burst > 0) await world.sandbox.control.setFaults(phase);
      const goals: DaemonGoal[] = [
        {
          what: `the ${sent} events redelivered in the phase reached the daemon`,
          reached: (counters) => webhookArrivals(counters) - before >= sent,
        },
        ...(options.phaseGoals?.[index] ?? []),
      ];
      await daemonReaches(
        opsUrl,
        goals,
        options.phaseGuardMs ?? 90_000,
        `phase ${index + 1} of ${phases.length}`,
      );
    }
    const daemon = await readDaemonCounters(opsUrl);
    child.kill('SIGTERM');
    const exit = await child.exited;
    if (exit.code !== 0) throw new Error(`the daemon exited with ${String(exit.code)}:\n${child.output()}`);
    child = undefined;

    let syncRuns = 0;
    let failedSyncRuns = 0;
    const until = Date.now() + (options.maxConvergeMs ?? 180_000);
    while (!(await session.settled())) {
      if (Date.now() > until) {
        throw new Error(
          `no convergence after ${syncRuns} sync runs (${failedSyncRuns} failed; guard ` +
            `${options.maxConvergeMs ?? 180_000} ms): ${await session.pending()}`,
        );
      }
      for (const job of options.scenario.jobs) {
        child = spawnCli(['sync', job, '--config', world.configFile]);
        const done = await child.exited;
        syncRuns += 1;
        // Under faults a run may fail outright (its retries exhausted); the next one resumes from its checkpoint.
        if (done.code !== 0) failedSyncRuns += 1;
        child = undefined;
      }
    }
    await world.sandbox.control.clearFaults();
    const check = await session.check();
    const live = session;
    const idleRun: Record<string, Record<string, number>> = {};
    for (const job of options.scenario.jobs) {
      idleRun[job] = await syncToEnd(world, job, () => live.progress());
    }
    return {
      check,
      syncRuns,
      failedSyncRuns,
      durationMs: Date.now() - started,
      deliveries: await deliveryStatuses(world),
      redelivered,
      daemon,
      idleRun,
      idleWrites: idleWrites(options.scenario, { idleRun }),
    };
  } finally {
    await killAndWait(child);
    await session?.close();
    await world.close();
  }
}

async function redeliverAll(world: CrashWorld): Promise<number> {
  const endpoints = await world.api.webhooks.list();
  let count = 0;
  for (const endpoint of endpoints.items) {
    const latest = new Map<string, string>();
    for await (const delivery of world.api.webhooks.deliveries(endpoint.id).items()) {
      if (!latest.has(delivery.event_id)) latest.set(delivery.event_id, delivery.id);
    }
    for (const deliveryId of latest.values()) {
      await world.api.webhooks.redeliver(endpoint.id, deliveryId);
      count += 1;
    }
  }
  return count;
}

async function deliveryStatuses(world: CrashWorld): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const endpoints = await world.api.webhooks.list();
  for (const endpoint of endpoints.items) {
    for await (const delivery of world.api.webhooks.deliveries(endpoint.id).items()) {
      const key = String(delivery.response_status ?? 'none');
      out[key] = (out[key] ?? 0) + 1;
    }
  }
  return out;
}

/** Polls the daemon's counters until every goal is reached; past the guard, fails naming what was not. */
async function daemonReaches(
  opsUrl: string,
  goals: readonly DaemonGoal[],
  guardMs: number,
  phase: string,
): Promise<void> {
  const started = Date.now();
  for (;;) {
    const counters = await readDaemonCounters(opsUrl);
    const missing = goals.filter((goal) => !goal.reached(counters)).map((goal) => goal.what);
    if (missing.length === 0) return;
    if (Date.now() - started > guardMs) {
      throw new Error(
        `${phase}: not reached after ${Date.now() - started} ms (guard): ${missing.join('; ')}. ` +
          `The daemon counted ${JSON.stringify(counters)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export type { CrashWorld };
