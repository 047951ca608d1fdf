/**
 * The failover loop shared by the failover suites: a crash scenario (test/crash/harness) run by two `supply-sync run`
 * processes on one PostgreSQL state instead of one process on a state file. At seeded points the leader is, in turn,
 * killed (SIGKILL, then restarted as the new standby), frozen past its lease (SIGSTOP, then SIGCONT: it must wake up
 * as a standby) or cut from the database (its relay resets every connection; restored, it must stand by). Each time the standby must lead within lease + poll (plus delivery slack); the webhook endpoint points at
 * the standby, whose intake stores events in the shared inbox for the leader. Then the work must converge and the
 * scenario's own exactly-once checks hold.
 */
import { failoverBoundMs } from '../../src/ha/index.js';
import { seededPrng } from '../crash/harness/prng.js';
import type { CrashScenario, ScenarioCheck, ScenarioSession } from '../crash/harness/scenario.js';
import { openCrashWorld, type CrashWorld } from '../crash/harness/world.js';
import { createTempDatabase, type TempDatabase } from '../ha/support/postgres.js';
import { Instance, percentile, shareState, within } from './daemons.js';
import { DatabaseRelay } from './relay.js';

export const POINTS = Number(process.env['HA_FAILOVER_POINTS'] ?? '30');
const LEASE_MS = Number(process.env['HA_FAILOVER_LEASE_MS'] ?? '3000');
const POLL_MS = Number(process.env['HA_FAILOVER_POLL_MS'] ?? '500');
const BOUND_MS = failoverBoundMs({ leaseMs: LEASE_MS, pollIntervalMs: POLL_MS });
// The standby's /status must then answer this process; on a loaded 2-core machine timers fire late. Not a speed claim.
const DELIVERY_SLACK_MS = 3_000;
// Jobs run every minute and at each election; the last ones may need two rounds (a confirmation's update).
export const CONVERGE_MS = 180_000;
/** A generous bound on one failover point (activity, the wait, the takeover, a restart). */
export const POINT_BUDGET_MS = 20_000;

/** What happens to the leader at a failover point, in turn. */
type Fault = 'SIGKILL' | 'SIGSTOP' | 'cut';
const FAULTS: readonly Fault[] = ['SIGKILL', 'SIGSTOP', 'cut'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface FailoverReport {
  readonly failoversMs: readonly number[];
  readonly faults: Readonly<Record<Fault, number>>;
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
    const expectFound = (value: number | null, message: string): number => {
      if (value === null) throw new FailoverError(message);
      return value;
    };
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
    await a.start();
    await b.start();
    const leaderOf = async (): Promise<[Instance, Instance] | undefined> => {
      const [roleA, roleB] = await Promise.all([a.role(), b.role()]);
      if (roleA === 'leader' && roleB === 'standby') return [a, b];
      if (roleB === 'leader' && roleA === 'standby') return [b, a];
      return undefined;
    };
    let pair: [Instance, Instance] | undefined;
    expectFound(
      await within(async () => (pair = await leaderOf()) !== undefined, BOUND_MS * 2),
      'no leader elected',
    );

    const failovers: number[] = [];
    const faults: Record<Fault, number> = { SIGKILL: 0, SIGSTOP: 0, cut: 0 };
    for (let point = 0; point < POINTS; point += 1) {
      if (pair === undefined) throw new Error('no leader and standby pair');
      const [leader, standby] = pair;
      await world.followDaemon(standby.opsUrl);
      await session.activity(prng, 'daemon-ready');
      // Seeded: let the leader's jobs get under way (catch-up runs at election, webhook runs) before the signal.
      await sleep(prng.int(300, 2_500));
      const fault = FAULTS[point % FAULTS.length] ?? 'SIGKILL';
      faults[fault] += 1;
      const relay = relays.get(leader);
      if (fault === 'cut') relay?.cut();
      else leader.signal(fault);
      const tookMs = await within(
        async () => (await standby.role()) === 'leader',
        BOUND_MS + DELIVERY_SLACK_MS,
      );
      failovers.push(
        expectFound(tookMs, `failover ${point} (${fault}): ${standby.name} did not lead in time`),
      );
      if (fault === 'SIGKILL') {
        await leader.killed();
        await leader.start();
      } else {
        await sleep(500);
        if (fault === 'cut') relay?.restore();
        else leader.signal('SIGCONT');
        // Woken (or reconnected) after its lease ran out, the old leader must stand by: its writes are fenced.
        const stoodBy = await within(
          async () => (await leader.role()) === 'standby',
          BOUND_MS + DELIVERY_SLACK_MS,
        );
        expectFound(stoodBy, `failover ${point} (${fault}): ${leader.name} does not stand by`);
      }
      pair = [standby, leader];
    }

    const [last] = pair ?? [];
    if (last !== undefined) await world.followDaemon(last.opsUrl);
    const converged = await within(() => session.settled(), CONVERGE_MS);
    if (converged === null) throw new FailoverError(`not converged: ${await session.pending()}`);
    const check = await session.check();
    const line =
      `${failovers.length} failovers (${JSON.stringify(faults)}), lease ${LEASE_MS} ms, poll ${POLL_MS} ms, ` +
      `bound ${BOUND_MS} ms; signal to the new leader p50 ${Math.round(percentile(failovers, 50))} ms, ` +
      `p99 ${Math.round(percentile(failovers, 99))} ms, max ${Math.round(Math.max(...failovers))} ms`;
    return { failoversMs: failovers, faults, check, line };
  }
}
