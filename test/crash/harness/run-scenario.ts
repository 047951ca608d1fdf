/**
 * The kill loop: start the real CLI (`run` or `sync <job>`), let it work for a seeded random time, SIGKILL it (or
 * stop it with SIGTERM and hold it to the shutdown bound), add more work, repeat until every flow has its kill points
 * and the scenario's minimum activity has happened; then restart until everything made has arrived and check that
 * it arrived exactly once. The loop ends on counts, never on a clock: a busy machine makes it slower, not smaller.
 * A time guard only turns a run that cannot get there into a failure that says how far it got.
 */
import { buildPluginRegistry } from '../../../src/daemon/index.js';
import path from 'node:path';
import { killAndWait, spawnCli, type CliChild, type ExitInfo } from './child.js';
import { RunWatcher } from './open-runs.js';
import { seededPrng, type Prng } from './prng.js';
import type { CrashScenario, ScenarioCheck, ScenarioSession } from './scenario.js';
import { openCrashWorld, type CrashWorld } from './world.js';
import type { FaultSettings } from '../../../src/sandbox/index.js';

export interface CrashRunOptions {
  scenario: CrashScenario;
  /**
   * Kill points to make per flow (a SIGKILL that cut off a started run of that flow's job). The kill phase goes on
   * until every flow has them and the scenario's `minimumActivity` is reached.
   */
  points: number;
  seed: number;
  /** Sandbox faults for the kill phase and the convergence (fault-convergence runs). */
  faults?: Partial<FaultSettings>;
  /** Share of daemon stops done with SIGTERM instead of SIGKILL (default 0.1). */
  sigtermShare?: number;
  /** Upper bound on the SIGTERM exit (the daemon's own shutdown timeout is 30 s). */
  sigtermBoundMs?: number;
  /**
   * A guard, not a size: a kill phase still short of its goal after this long fails with the counts it reached
   * (default: no guard).
   */
  killPhaseGuardMs?: number;
  /** Convergence guard: a run not converged after this long fails with what is still missing. */
  maxConvergeMs?: number;
  log?: (line: string) => void;
}

export interface CrashRunReport {
  scenario: string;
  seed: number;
  /** SIGKILLs by target: `run` (the daemon) or `sync <job>`. */
  kills: Record<string, number>;
  /** Kill points per flow: SIGKILLs that cut off a started, unfinished run of that flow's job. */
  killPointsPerFlow: Record<string, number>;
  /** SIGKILLs that cut off no run: start-up (migrations, connector checks) or wind-down after a run ended. */
  killsOutsideRuns: number;
  sigterms: number;
  /** Slowest clean shutdown (SIGTERM to exit). */
  slowestSigtermMs: number;
  completedRuns: number;
  /** The scenario's progress counts when the kill phase ended (its goal: `minimumActivity`). */
  activity: Record<string, number>;
  killPhaseMs: number;
  convergeRounds: number;
  durationMs: number;
  check: ScenarioCheck;
  /** Counts printed by one more `sync <job>` after convergence, which must not have written anything. */
  idleRun: Record<string, Record<string, number>>;
}

export class HarnessError extends Error {}

export function missingFlows(scenario: CrashScenario): string[] {
  const registered = new Set(buildPluginRegistry().flowNames());
  return scenario.requiredFlows.filter((flow) => !registered.has(flow));
}

interface Target {
  kind: 'run' | 'sync';
  job?: string;
}

/** The daemon a third of the time; otherwise `sync` of the flow with the fewest kill points so far. */
function chooseTarget(prng: Prng, points: Readonly<Record<string, number>>): Target {
  if (prng.next() < 0.35) return { kind: 'run' };
  const least = Math.min(...Object.values(points));
  const behind = Object.keys(points).filter((job) => points[job] === least);
  return { kind: 'sync', job: prng.pick(behind) };
}

const DEFAULT_RUN_ESTIMATE_MS = 1_000;

/**
 * The kill phase's guard: SUPPLY_SYNC_CRASH_GUARD_MS, or 5 s per kill point of each flow plus a minute. On an idle
 * 2-core machine a kill point takes about a second; the rest is room for a busy one.
 */
export function crashGuardMs(
  points: number,
  scenario: CrashScenario,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const set = env['SUPPLY_SYNC_CRASH_GUARD_MS'];
  return set !== undefined && set !== '' ? Number(set) : points * scenario.jobs.length * 5_000 + 60_000;
}

/** The parts of the kill phase's goal not reached yet, in words; empty when it is reached. */
export function shortOfGoal(
  points: number,
  killPointsPerFlow: Readonly<Record<string, number>>,
  minimumActivity: Readonly<Record<string, number>>,
  activity: Readonly<Record<string, number>>,
): string[] {
  return [
    ...Object.entries(killPointsPerFlow)
      .filter(([, made]) => made < points)
      .map(([flow, made]) => `${flow} ${made} of ${points} kill points`),
    ...Object.entries(minimumActivity)
      .filter(([name, least]) => (activity[name] ?? 0) < least)
      .map(([name, least]) => `${name} ${activity[name] ?? 0} of ${least}`),
  ];
}

export async function runCrashScenario(options: CrashRunOptions): Promise<CrashRunReport> {
  const started = Date.now();
  const { scenario } = options;
  const log = options.log ?? (() => undefined);
  const prng = seededPrng(options.seed);
  const startFrom = new Date(Date.now() - 1_000).toISOString();
  const world = await openCrashWorld({
    side: scenario.side,
    events: scenario.events,
    configBody: (dir) => scenario.configBody(dir, startFrom),
  });
  let session: ScenarioSession | undefined;
  let child: CliChild | undefined;
  try {
    session = await scenario.open(world);
    const live = session;
    const progress = (): Promise<Record<string, number>> => live.progress();
    if (options.faults !== undefined) await world.sandbox.control.setFaults(options.faults);
    const kills: Record<string, number> = {};
    const killPointsPerFlow: Record<string, number> = Object.fromEntries(
      scenario.jobs.map((job) => [job, 0]),
    );
    let sigterms = 0;
    let slowestSigtermMs = 0;
    let completedRuns = 0;
    let made = 0;
    let killsOutsideRuns = 0;
    const countCutOff = (jobs: string[]): void => {
      if (jobs.length === 0) killsOutsideRuns += 1;
      for (const job of jobs) {
        if (job in killPointsPerFlow) killPointsPerFlow[job] = (killPointsPerFlow[job] ?? 0) + 1;
      }
    };
    const guardEnds = started + (options.killPhaseGuardMs ?? Number.POSITIVE_INFINITY);

    const runs = new RunWatcher(path.join(world.dir, 'state', 'supply-sync.db'));
    const enoughPoints = (): boolean => Object.values(killPointsPerFlow).every((n) => n >= options.points);
    let activity: Record<string, number> = {};
    for (;;) {
      // The activity is read only once the points are there (a read of the API and the ERP per cycle is not free).
      if (enoughPoints()) {
        activity = await live.progress();
        if (shortOfGoal(options.points, killPointsPerFlow, scenario.minimumActivity, activity).length === 0)
          break;
      }
      if (Date.now() >= guardEnds) {
        activity = await live.progress();
        const short = shortOfGoal(options.points, killPointsPerFlow, scenario.minimumActivity, activity);
        throw new HarnessError(
          `${scenario.name}: the kill phase is still short of its goal after ${Date.now() - started} ms ` +
            `(guard ${options.killPhaseGuardMs} ms): ${short.join(', ')}. Reached: kill points per flow ` +
            `${JSON.stringify(killPointsPerFlow)}, kills ${JSON.stringify(kills)}, kills outside runs ` +
            `${killsOutsideRuns}, completed runs ${completedRuns}, SIGTERM stops ${sigterms}, activity ` +
            `${JSON.stringify(activity)}`,
        );
      }
      await live.activity(prng, 'before-start');
      const target = chooseTarget(prng, killPointsPerFlow);
      if (target.kind === 'run') {
        child = spawnCli(['run', '--config', world.configFile, '--port', '0']);
        const earlyKill = prng.next() < 0.1;
        if (earlyKill) {
          // A kill during start-up: opening the state file, migrations, connector checks, webhook recovery.
          await raceExit(child, prng.int(0, 1_500));
        } else {
          const opsUrl = await child.ready;
          if (opsUrl === null) throw failure('the daemon exited before it was ready', child);
          await world.followDaemon(opsUrl);
          await live.activity(prng, 'daemon-ready');
          const daemon = child;
          const started = await runs.waitForRun(() => daemon.isRunning(), 3_000);
          await raceExit(child, started ? prng.int(0, DEFAULT_RUN_ESTIMATE_MS) : 0);
        }
        if (!child.isRunning()) throw failure('the daemon exited by itself', child);
        const stopWithTerm = !earlyKill && prng.next() < (options.sigtermShare ?? 0.1);
        if (stopWithTerm) {
          const sent = Date.now();
          child.kill('SIGTERM');
          const exit = await exitWithin(child, options.sigtermBoundMs ?? 35_000);
          const took = Date.now() - sent;
          if (exit === null) throw failure(`the daemon did not stop within ${took} ms of SIGTERM`, child);
          if (exit.code !== 0)
            throw failure(`the daemon exited with ${String(exit.code)} after SIGTERM`, child);
          sigterms += 1;
          slowestSigtermMs = Math.max(slowestSigtermMs, took);
          log(`sigterm: stopped in ${took} ms`);
          runs.cutOffRuns();
        } else {
          child.kill('SIGKILL');
          await child.exited;
          made += 1;
          kills['run'] = (kills['run'] ?? 0) + 1;
          countCutOff(runs.cutOffRuns());
        }
      } else {
        const job = target.job ?? '';
        child = spawnCli(['sync', job, '--config', world.configFile]);
        const syncing = child;
        // Kill inside the run: wait until it has started, then a seeded share of a typical run's length.
        const started = await runs.waitForRun(() => syncing.isRunning(), 60_000);
        const runMs = runs.typicalRunMs(job) ?? DEFAULT_RUN_ESTIMATE_MS;
        const exit = await raceExit(child, started ? prng.int(0, Math.round(runMs * 1.2)) : 0);
        if (exit !== null) {
          if (exit.code !== 0) throw failure(`sync ${job} failed`, child);
          completedRuns += 1;
          runs.cutOffRuns();
        } else {
          child.kill('SIGKILL');
          await child.exited;
          made += 1;
          kills[`sync ${job}`] = (kills[`sync ${job}`] ?? 0) + 1;
          countCutOff(runs.cutOffRuns());
        }
      }
      log(`cycle ${target.kind} ${target.job ?? ''} done at ${Date.now() - started} ms (${made} kills)`);
      child = undefined;
    }
    const killPhaseMs = Date.now() - started;
    log(`kill phase: ${made} kills in ${killPhaseMs} ms, activity ${JSON.stringify(activity)}`);

    // Convergence: restart each job without kills until all work made so far has arrived. At least one round
    // always runs: the API can already show everything done while the daemon still holds work it was killed in
    // the middle of (an export replied to but not yet recorded), which only a restart finishes.
    const convergeEnds = Date.now() + (options.maxConvergeMs ?? 120_000);
    let convergeRounds = 0;
    do {
      if (Date.now() > convergeEnds) {
        throw new HarnessError(
          `${scenario.name} did not converge in ${convergeRounds} rounds of every job ` +
            `(guard ${options.maxConvergeMs ?? 120_000} ms): ${await live.pending()}`,
        );
      }
      convergeRounds += 1;
      for (const job of scenario.convergeOrder ?? scenario.jobs) await syncToEnd(world, job, progress);
    } while (!(await live.settled()));
    // Faults off for the final read-back: the end state is compared, not the way there.
    if (options.faults !== undefined) await world.sandbox.control.clearFaults();
    const check = await live.check();
    const idleRun: Record<string, Record<string, number>> = {};
    for (const job of scenario.jobs) idleRun[job] = await syncToEnd(world, job, progress);
    return {
      scenario: scenario.name,
      seed: options.seed,
      kills,
      killPointsPerFlow,
      killsOutsideRuns,
      sigterms,
      slowestSigtermMs,
      completedRuns,
      activity,
      killPhaseMs,
      convergeRounds,
      durationMs: Date.now() - started,
      check,
      idleRun,
    };
  } finally {
    await killAndWait(child);
    await session?.close();
    await world.close();
  }
}

/** Writes counts that a converged run must not show. */
export function idleWrites(scenario: CrashScenario, report: Pick<CrashRunReport, 'idleRun'>): string[] {
  const out: string[] = [];
  for (const [job, counts] of Object.entries(report.idleRun)) {
    for (const key of scenario.writeCounts[job] ?? []) {
      if ((counts[key] ?? 0) > 0) out.push(`${job}: ${key}=${counts[key]} after convergence`);
    }
  }
  return out;
}

/** How long a `sync <job>` may go without moving the scenario's progress counts before it counts as hung. */
const SYNC_STALL_MS = 120_000;
const PROGRESS_POLL_MS = 2_000;

/**
 * One `sync <job>` that must finish and succeed; returns the counts it printed. A run with a long backlog may take
 * as long as it needs while `progress` (the scenario's counts of work arrived) keeps moving; one that moves nothing
 * for SYNC_STALL_MS is taken as hung. Without `progress`, that is a bound on the whole run.
 */
export async function syncToEnd(
  world: CrashWorld,
  job: string,
  progress?: () => Promise<Record<string, number>>,
): Promise<Record<string, number>> {
  const child = spawnCli(['sync', job, '--config', world.configFile]);
  const exit = await exitUnlessStalled(child, progress);
  if (exit === null) {
    await killAndWait(child);
    throw failure(`sync ${job} did not finish: no progress for ${SYNC_STALL_MS} ms`, child);
  }
  if (exit.code !== 0) throw failure(`sync ${job} exited with ${String(exit.code)}`, child);
  return parseCounts(child.output(), job);
}

async function exitUnlessStalled(
  child: CliChild,
  progress: (() => Promise<Record<string, number>>) | undefined,
): Promise<ExitInfo | null> {
  if (progress === undefined) return exitWithin(child, SYNC_STALL_MS);
  let last = JSON.stringify(await progress());
  let movedAt = Date.now();
  for (;;) {
    const exit = await raceExit(child, PROGRESS_POLL_MS);
    if (exit !== null) return exit;
    const now = JSON.stringify(await progress());
    if (now !== last) {
      last = now;
      movedAt = Date.now();
    } else if (Date.now() - movedAt >= SYNC_STALL_MS) {
      return null;
    }
  }
}

/** Parses `job: outcome (a=1 b=2)`, the line `sync` prints. */
export function parseCounts(output: string, job: string): Record<string, number> {
  const line = output.split('\n').find((text) => text.startsWith(`${job}: `));
  if (line === undefined) throw new HarnessError(`sync ${job} printed no result line:\n${output}`);
  const counts: Record<string, number> = {};
  for (const match of line.matchAll(/([A-Za-z_-]+)=(\d+)/g)) {
    if (match[1] !== undefined) counts[match[1]] = Number(match[2]);
  }
  return counts;
}

/** Waits `ms`, or less if the child exits first; resolves with its exit then, null when it is still running. */
async function raceExit(child: CliChild, ms: number): Promise<ExitInfo | null> {
  let timer: NodeJS.Timeout | undefined;
  const slept = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([child.exited, slept]);
  } finally {
    clearTimeout(timer);
  }
}

async function exitWithin(child: CliChild, ms: number): Promise<ExitInfo | null> {
  return raceExit(child, ms);
}

function failure(message: string, child: CliChild): HarnessError {
  return new HarnessError(`${message} (${child.args.join(' ')}):\n${child.output().slice(-4_000)}`);
}

export type { Prng };
