/**
 * The failover loop shared by the failover suites: a crash scenario (test/crash/harness) run by two `supply-sync run`
 * processes on one PostgreSQL state instead of one process on a state file. At seeded points the leader is, in turn,
 * killed (SIGKILL, then restarted as the new standby), frozen past its lease (SIGSTOP, then SIGCONT: it must wake up
 * as a standby) or cut from the database (its relay resets every connection; restored, it must stand by). Each time
 * the standby must lead within lease + poll (plus delivery slack); the webhook endpoint points at the standby, whose
 * intake stores events in the shared inbox for the leader. Then the work must converge and the scenario's own
 * exactly-once checks hold.
 *
 * Every other failover is aimed at a run: an operator's run-now command (`sync <job> --no-wait`, the sandbox's API
 * calls slowed meanwhile) makes the leader open a run, and the fault strikes as soon as the shared state shows it
 * open; the others strike after a seeded pause, anywhere in the leader's work. A run still open right after the
 * fault was cut by it, and the suites check that every aimed fault was.
 *
 * What the run needs is counted, not timed: before each failover the leader has started a run in its term (read
 * from the runs table of the shared state) and the standby has stored a webhook event for the next leader (the
 * inbox), and before the convergence the scenario's minimumActivity is reached (an ERP confirmation, lines exported,
 * a mirrored line...). One time guard covers the whole run; a run that hits it fails with the counts it reached.
 */
import { failoverBoundMs, LEASE_TABLE } from '../../src/ha/index.js';
import { seededPrng } from '../crash/harness/prng.js';
import type { CrashScenario, ScenarioCheck, ScenarioSession } from '../crash/harness/scenario.js';
import { openCrashWorld, type CrashWorld } from '../crash/harness/world.js';
import { shortOfGoal } from '../crash/harness/run-scenario.js';
import { createTempDatabase, withClient, type TempDatabase } from '../ha/support/postgres.js';
import { runCli } from '../cli/run-cli.js';
import { INSTANCE_ENV, Instance, percentile, shareState, STATE_URL_ENV, within } from './daemons.js';
import { DatabaseRelay } from './relay.js';

/** Failovers of a daemon pair; HA_FAILOVER_POINTS, the elector-only tests' size, when it is not set. */
export const POINTS = Number(
  process.env['HA_DAEMON_FAILOVER_POINTS'] ?? process.env['HA_FAILOVER_POINTS'] ?? '30',
);
const LEASE_MS = Number(process.env['HA_FAILOVER_LEASE_MS'] ?? '3000');
const POLL_MS = Number(process.env['HA_FAILOVER_POLL_MS'] ?? '500');
const BOUND_MS = failoverBoundMs({ leaseMs: LEASE_MS, pollIntervalMs: POLL_MS });
// The standby's /status must then answer this process; on a loaded 2-core machine timers fire late. Not a speed claim.
const DELIVERY_SLACK_MS = 3_000;
// Jobs run every minute and at each election; the last ones may need two rounds (a confirmation's update).
const CONVERGE_MS = 180_000;
/** How often the shared state's tables are read while waiting on them (a new session each time). */
const DATABASE_POLL_MS = 100;
/** A generous share of the guard per failover point (activity, the leader's run, the takeover, a restart). */
const POINT_BUDGET_MS = 20_000;
/** The guard of a whole run: past it, the run fails with the counts it reached. */
// The minute's margin is for the aimed failovers' run-now commands and a convergence that starts late on a busy
// machine (a run at 3 failovers once reached its guard, converging, at load average 30).
export const FAILOVER_GUARD_MS = POINTS * POINT_BUDGET_MS + CONVERGE_MS + 60_000;

/** What happens to the leader at a failover point, in turn. */
type Fault = 'SIGKILL' | 'SIGSTOP' | 'cut';
const FAULTS: readonly Fault[] = ['SIGKILL', 'SIGSTOP', 'cut'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Gives `sync <job> --no-wait` through the CLI, as an operator does. Returns the command. */
async function queueRun(world: CrashWorld, stateUrl: string, job: string): Promise<number> {
  const given = await runCli(['sync', job, '--no-wait', '--config', world.configFile], {
    [INSTANCE_ENV]: 'operator-cli',
    [STATE_URL_ENV]: stateUrl,
  });
  const id = Number(/command #(\d+)/.exec(given.stdout)?.[1]);
  if (!(id > 0)) {
    throw new FailoverError(
      `sync ${job} --no-wait was not queued (exit ${given.code}): ${given.stdout}${given.stderr}`,
    );
  }
  return id;
}

/**
 * Queues a run of `job`, then slows the sandbox's API calls so the run the leader opens for it stays open a while;
 * the caller lifts the latency once it has struck. Returns the command.
 */
async function runNow(world: CrashWorld, stateUrl: string, job: string): Promise<number> {
  const id = await queueRun(world, stateUrl, job);
  await world.sandbox.control.setFaults({ latency_ms: 700, latency_rate: 1 });
  return id;
}

async function commandEnded(stateUrl: string, id: number): Promise<boolean> {
  return withClient(stateUrl, async (client) => {
    const { rows } = await client.query<{ status: string }>('SELECT status FROM commands WHERE id = $1', [
      id,
    ]);
    return rows[0]?.status === 'done' || rows[0]?.status === 'failed';
  });
}

/** The lease row as the database sees it now, and the sessions waiting on a lock, for a failure message. */
async function leaseFacts(stateUrl: string): Promise<string> {
  return withClient(stateUrl, async (client) => {
    const lease = await client.query(
      `SELECT epoch::text, holder, expires_at, renewed_at, clock_timestamp() AS now FROM ${LEASE_TABLE}`,
    );
    const waiting = await client.query(
      `SELECT application_name, state, wait_event_type, wait_event, left(query, 80) AS query
       FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return `lease ${JSON.stringify(lease.rows)}, waiting on locks ${JSON.stringify(waiting.rows)}`;
  }).catch((error: unknown) => `lease unread: ${String(error)}`);
}

export interface FailoverReport {
  readonly failoversMs: readonly number[];
  readonly faults: Readonly<Record<Fault, number>>;
  /** Failovers whose leader had a run open (started, not ended) when the fault struck. */
  readonly faultsInsideRuns: number;
  /** Failovers aimed at a run: every other one strikes once an operator's run-now command has opened its run. */
  readonly aimedAtRuns: number;
  /** The scenario's progress counts before the convergence (its goal: `minimumActivity`). */
  readonly activity: Readonly<Record<string, number>>;
  readonly check: ScenarioCheck;
  /** One line for the test output: counts, settings, p50/p99. */
  readonly line: string;
}

export class FailoverError extends Error {}

/** Everything the run opened, closed by close() whatever happened. */
export class FailoverRun {
  database: TempDatabase | undefined;
  world: CrashWorld | undefined;
  session: ScenarioSession | undefined;
  readonly instances: Instance[] = [];
  readonly relays: DatabaseRelay[] = [];

  async close(): Promise<void> {
    await Promise.all(this.instances.map((instance) => instance.stop()));
    await Promise.all(this.relays.map((relay) => relay.close()));
    await this.session?.close();
    await this.world?.close();
    await this.database?.drop();
  }

  async run(scenario: CrashScenario, seed: number): Promise<FailoverReport> {
    const started = performance.now();
    const deadline = started + FAILOVER_GUARD_MS;
    const remaining = (): number => Math.max(0, deadline - performance.now());
    this.database = await createTempDatabase();
    const database = this.database;
    const prng = seededPrng(seed);
    const startFrom = new Date(Date.now() - 1_000).toISOString();
    const world = await openCrashWorld({
      side: scenario.side,
      events: scenario.events,
      configBody: (dir) => scenario.configBody(dir, startFrom),
    });
    await shareState(world.configFile, { leaseMs: LEASE_MS, pollMs: POLL_MS });
    this.world = world;
    const session = await scenario.open(world);
    this.session = session;
    await session.activity(prng, 'before-start');

    const failovers: number[] = [];
    const faults: Record<Fault, number> = { SIGKILL: 0, SIGSTOP: 0, cut: 0 };
    let faultsInsideRuns = 0;
    let aimedAtRuns = 0;
    let runsStarted = 0;
    let handedOver = 0;
    let activity: Record<string, number> = {};
    /** A failure that says how far the run got. */
    const stuck = async (what: string): Promise<FailoverError> => {
      activity = await session.progress().catch(() => activity);
      return new FailoverError(
        `${what} (${Math.round(performance.now() - started)} ms into the run, guard ${FAILOVER_GUARD_MS} ms). ` +
          `Reached: ${failovers.length} of ${POINTS} failovers ${JSON.stringify(faults)}, ` +
          `${faultsInsideRuns} with a run open, ${runsStarted} runs started by the leaders, ${handedOver} with ` +
          `webhook events waiting for the next leader, activity ` +
          `${JSON.stringify(activity)} (goal ${JSON.stringify(scenario.minimumActivity)})`,
      );
    };
    const expectFound = async (value: number | null, message: string): Promise<number> => {
      if (value === null) throw await stuck(message);
      return value;
    };

    const relays = new Map<Instance, DatabaseRelay>();
    const instance = async (name: string): Promise<Instance> => {
      const relay = await DatabaseRelay.start(database.url);
      this.relays.push(relay);
      const made = new Instance(name, world.configFile, relay.urlFor(database.url));
      relays.set(made, relay);
      return made;
    };
    const a = await instance('sync-a');
    const b = await instance('sync-b');
    this.instances.push(a, b);
    await a.start(remaining());
    await b.start(remaining());
    const leaderOf = async (): Promise<[Instance, Instance] | undefined> => {
      const [roleA, roleB] = await Promise.all([a.role(), b.role()]);
      if (roleA === 'leader' && roleB === 'standby') return [a, b];
      if (roleB === 'leader' && roleA === 'standby') return [b, a];
      return undefined;
    };
    let pair: [Instance, Instance] | undefined;
    if ((await within(async () => (pair = await leaderOf()) !== undefined, remaining())) === null) {
      throw await stuck(
        `no leader and standby pair: ${a.name} says ${String(await a.role())}, ${b.name} ${String(await b.role())}`,
      );
    }

    // Runs of the current leader: only the leader writes the shared state, so every run with an id past the mark
    // taken when its predecessor was stopped is one of its own.
    let mark = 0;
    const runsSince = (since: number) =>
      withClient(database.url, async (client) => {
        const { rows } = await client.query<{ started: number; open: number; last: number }>(
          `SELECT count(*)::int AS started, (count(*) FILTER (WHERE ended_at IS NULL))::int AS open,
             coalesce(max(id), $1)::int AS last FROM runs WHERE id > $1`,
          [since],
        );
        return rows[0] ?? { started: 0, open: 0, last: since };
      });
    // Webhook events in the shared inbox that no leader has dispatched yet: those the standby's intake stored. A
    // leader dispatches the pending events when it is elected, so they are the next leader's first work.
    const pendingEvents = () =>
      withClient(database.url, async (client) => {
        const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM inbox_pending');
        return rows[0]?.n ?? 0;
      });
    /** Makes webhook work until `reached` holds; each round's events get a moment to be delivered and stored. */
    const webhookWorkUntil = async (reached: () => Promise<boolean>, what: string): Promise<void> => {
      for (;;) {
        await session.activity(prng, 'daemon-ready');
        if ((await within(reached, Math.min(2_000, remaining()), DATABASE_POLL_MS)) !== null) return;
        if (remaining() === 0) throw await stuck(what);
      }
    };

    // The first leader has had no election with events waiting: it gets the webhooks itself until it runs a job.
    if (pair === undefined) throw new Error('no leader and standby pair');
    await world.followDaemon(pair[0].opsUrl);
    await webhookWorkUntil(
      async () => (await runsSince(mark)).started > 0,
      `${pair[0].name}, the first leader, started no run`,
    );

    for (let point = 0; point < POINTS; point += 1) {
      if (pair === undefined) throw new Error('no leader and standby pair');
      const [leader, standby]: [Instance, Instance] = pair;
      await world.followDaemon(standby.opsUrl);
      // The other system's users' work (the ERP's, the accountant's), then webhook work until the standby has
      // stored an event for the next leader.
      await session.activity(prng, 'before-start');
      await webhookWorkUntil(
        async () => (await pendingEvents()) > 0,
        `failover ${point}: ${standby.name} stored no webhook event for the next leader`,
      );
      handedOver += 1;
      // A leader that has done nothing in its term proves nothing when it fails: its first run (the events it found
      // pending at its election, or its schedule) must have started.
      await expectFound(
        await within(async () => (await runsSince(mark)).started > 0, remaining(), DATABASE_POLL_MS),
        `failover ${point}: ${leader.name} started no run in its term`,
      );
      const aimed = point % 2 === 1;
      if (aimed) {
        // Aimed: an operator's run-now command, its API calls slowed, and the fault as soon as its run is open.
        aimedAtRuns += 1;
        const job = scenario.jobs[0] ?? 'orders';
        let open = false;
        // A command whose run ended before it was seen open is given again.
        for (let given = 0; !open; given += 1) {
          if (given === 3)
            throw await stuck(`failover ${point}: no run of ${job} was seen open, ${given} commands`);
          const id = await runNow(world, database.url, job);
          const seen = await within(
            async () => (open = (await runsSince(mark)).open > 0) || (await commandEnded(database.url, id)),
            remaining(),
            20,
          );
          await expectFound(seen, `failover ${point}: ${leader.name} did not carry out command #${id}`);
        }
      } else {
        // Seeded: the fault lands anywhere in the leader's work (catch-up runs at election, webhook runs).
        await sleep(prng.int(300, 2_500));
      }
      const fault = FAULTS[point % FAULTS.length] ?? 'SIGKILL';
      faults[fault] += 1;
      const relay = relays.get(leader);
      if (fault === 'cut') relay?.cut();
      else leader.signal(fault);
      if (aimed) await world.sandbox.control.setFaults({ latency_ms: 0, latency_rate: 0 });
      // The leader's term ended here: its runs are counted, and the next leader's are those past the new mark. A
      // run still open now was cut by the fault (the struck leader cannot end it, its successor leads only later).
      const term = await runsSince(mark);
      runsStarted += term.started;
      if (term.open > 0) faultsInsideRuns += 1;
      mark = term.last;
      const tookMs = await within(
        async () => (await standby.role()) === 'leader',
        BOUND_MS + DELIVERY_SLACK_MS,
      );
      if (tookMs === null) {
        throw await stuck(
          `failover ${point} (${fault}): ${standby.name} did not lead in time; ${await leaseFacts(database.url)}; ` +
            (await standby.diagnosis()),
        );
      }
      failovers.push(tookMs);
      if (fault === 'SIGKILL') {
        await leader.killed();
        await leader.start(remaining());
      } else {
        await sleep(500);
        if (fault === 'cut') relay?.restore();
        else leader.signal('SIGCONT');
        // Woken (or reconnected) after its lease ran out, the old leader must stand by: its writes are fenced.
        const stoodBy = await within(
          async () => (await leader.role()) === 'standby',
          BOUND_MS + DELIVERY_SLACK_MS,
        );
        await expectFound(stoodBy, `failover ${point} (${fault}): ${leader.name} does not stand by`);
      }
      pair = [standby, leader];
    }

    const failoverPhaseMs = performance.now() - started;
    const [last] = pair ?? [];
    if (last !== undefined) await world.followDaemon(last.opsUrl);
    // The checks need something to check (the scenario's minimumActivity: an ERP confirmation, a mirrored line...):
    // until the counts show it, more work for the last leader, which gets the webhooks itself now.
    const goalReached = async (): Promise<boolean> => {
      activity = await session.progress();
      return shortOfGoal(0, {}, scenario.minimumActivity, activity).length === 0;
    };
    let extraRounds = 0;
    while (!(await goalReached())) {
      if (remaining() === 0) {
        throw await stuck(
          `short of ${shortOfGoal(0, {}, scenario.minimumActivity, activity).join(', ')} after ${extraRounds} ` +
            'rounds of work past the last failover',
        );
      }
      await session.activity(prng, 'before-start');
      await session.activity(prng, 'daemon-ready');
      // A job that only its schedule starts (the expenses folder's, every minute) runs now, as an operator asks.
      for (const job of scenario.jobs) await queueRun(world, database.url, job);
      extraRounds += 1;
      await within(goalReached, Math.min(10_000, remaining()), 1_000);
    }
    // The last leader finishes the work; a job its schedule starts only once a minute is asked for a run, as an
    // operator would, each time 10 s pass without the work settled.
    const convergeStarted = performance.now();
    const convergeGuard = Math.min(CONVERGE_MS, remaining());
    let converged: number | null = null;
    for (;;) {
      const left = convergeGuard - (performance.now() - convergeStarted);
      if ((await within(() => session.settled(), Math.max(0, Math.min(10_000, left)), 250)) !== null) {
        converged = performance.now() - convergeStarted;
        break;
      }
      if (left <= 10_000) break;
      for (const job of scenario.jobs) await queueRun(world, database.url, job);
    }
    if (converged === null) throw await stuck(`not converged: ${await session.pending()}`);
    const check = await session.check();
    const line =
      `${failovers.length} failovers (${JSON.stringify(faults)}, ${faultsInsideRuns} with a run open, ` +
      `${aimedAtRuns} aimed at a run, each with ` +
      `webhook events waiting for the next leader; ${runsStarted} runs started by the leaders), ` +
      `lease ${LEASE_MS} ms, poll ${POLL_MS} ms, bound ${BOUND_MS} ms; signal to the new leader p50 ` +
      `${Math.round(percentile(failovers, 50))} ms, p99 ${Math.round(percentile(failovers, 99))} ms, ` +
      `max ${Math.round(Math.max(...failovers))} ms; activity ${JSON.stringify(activity)} (${extraRounds} rounds ` +
      `of work past the last failover); ` +
      `failovers took ${Math.round(failoverPhaseMs)} ms, convergence ${Math.round(converged)} ms`;
    return { failoversMs: failovers, faults, faultsInsideRuns, aimedAtRuns, activity, check, line };
  }
}
