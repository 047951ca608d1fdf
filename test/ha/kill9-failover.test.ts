/**
 * Failover between real child processes, each an elector whose leader commits a numbered row every 300 ms in a
 * fenced transaction held open for 250 ms. At seeded points the leader is killed (SIGKILL) or frozen (SIGSTOP for
 * longer than the lease, then SIGCONT), every other freeze inside an open transaction that holds the lease row.
 * Each time the standby must take over within the configured bound, in the next epoch; a frozen leader, once woken,
 * must step down and have its next write refused by the fence. At the end PostgreSQL's own commit order (a counter
 * row every write updates under its row lock) must show no write of a term after a write of a later term. Takeover
 * times are printed as p50/p99. With 4 failovers or more, one freeze at least must land inside a transaction (that
 * is counted, from the woken leader's lines): freezes go on past the seeded points until one does.
 *
 * HA_FAILOVER_POINTS sets the number of failovers (CI size in test/support/suites.ts), HA_FAILOVER_SEED the seed,
 * HA_FAILOVER_LEASE_MS and HA_FAILOVER_POLL_MS the lease and poll interval.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failoverBoundMs } from '../../src/ha/index.js';
import { seededPrng } from '../crash/harness/prng.js';
import { ChildElector, type ChildEvent, type ChildSettings } from './support/child-electors.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from './support/postgres.js';

const POINTS = Number(process.env['HA_FAILOVER_POINTS'] ?? '30');
const SEED = Number(process.env['HA_FAILOVER_SEED'] ?? '20261125');
// Short by default to keep the run brief; HA_FAILOVER_LEASE_MS=10000 HA_FAILOVER_POLL_MS=2000 measures the defaults.
const LEASE_MS = Number(process.env['HA_FAILOVER_LEASE_MS'] ?? '3000');
const TIMING = {
  leaseMs: LEASE_MS,
  renewIntervalMs: Math.floor(LEASE_MS / 3),
  pollIntervalMs: Number(process.env['HA_FAILOVER_POLL_MS'] ?? '500'),
  writeEveryMs: 50,
  holdMs: 250,
};
const BOUND_MS = failoverBoundMs(TIMING);
/** At most this many freezes past POINTS to get one inside a transaction (see the loop). */
const EXTRA_FREEZES = 8;
// The bound runs from the leader's death to the standby's election in the database; the standby's line must then
// reach this process, and on a loaded 2-core machine either process's timers can fire late. Not a speed claim.
const DELIVERY_SLACK_MS = 1_500;

const probe = await postgresProbe();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isElected = (event: ChildEvent) => event.event === 'elected';

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function summary(label: string, values: readonly number[]): string {
  return `${label} n=${values.length} p50 ${Math.round(percentile(values, 50))} ms, p99 ${Math.round(percentile(values, 99))} ms`;
}

describe.skipIf(!probe.available)(
  `failover between elector processes${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let database: TempDatabase;
    const children: ChildElector[] = [];

    beforeAll(async () => {
      database = await createTempDatabase();
      await withClient(database.url, (client) =>
        client.query(`
          CREATE TABLE ha_commit_order (id int PRIMARY KEY, n bigint NOT NULL);
          INSERT INTO ha_commit_order VALUES (1, 0);
          CREATE TABLE ha_writes (n bigint PRIMARY KEY, epoch bigint NOT NULL, instance text NOT NULL);`),
      );
    });
    afterAll(async () => {
      await Promise.all(children.map((child) => child.end()));
      await database?.drop();
    });

    it(
      `takes over within lease + poll after ${POINTS} SIGKILLs and SIGSTOPs, and fences every woken leader`,
      async () => {
        const rng = seededPrng(SEED);
        const settings: ChildSettings = { url: database.url, ...TIMING };
        const spawnChild = async (): Promise<ChildElector> => {
          const child = new ChildElector(`node-${children.length}`, settings);
          children.push(child);
          await child.next('start', (event) => event.event === 'started', 20_000);
          return child;
        };

        let leader = await spawnChild();
        const first = await leader.next('first election', isElected, 10_000);
        let epoch = first.epoch ?? 0;
        let standby = await spawnChild();
        const takeovers: Record<'SIGKILL' | 'SIGSTOP', number[]> = { SIGKILL: [], SIGSTOP: [] };
        let fencedWrites = 0;
        let frozenInTransaction = 0;

        // With 4 failovers or more, a leader must be frozen inside a transaction at least once. The freeze is sent
        // when the transaction's line arrives, and on a busy machine the line can arrive after the commit: the
        // rounds go on, freezing right after a transaction opened, until one lands inside it.
        const wantFrozenInTransaction = POINTS >= 4;
        for (
          let round = 0;
          round < POINTS || (wantFrozenInTransaction && frozenInTransaction === 0);
          round += 1
        ) {
          if (round >= POINTS + EXTRA_FREEZES) {
            throw new Error(
              `no leader frozen inside a transaction after ${round} rounds (${POINTS} + ${EXTRA_FREEZES} more ` +
                `freezes after an open transaction); takeovers ${JSON.stringify(takeovers)}, ${fencedWrites} stale ` +
                'writes refused',
            );
          }
          const extra = round >= POINTS;
          // Anywhere in the renewal cycle, and often with a write in flight.
          await sleep(rng.int(0, TIMING.renewIntervalMs * 2));
          const mode = !extra && round % 2 === 0 ? 'SIGKILL' : 'SIGSTOP';
          const standbyMark = standby.events.length;
          let leaderMark = leader.events.length;
          // Every other freeze right after a transaction opened: the leader then sleeps holding the lease row.
          if (round % 4 === 3 || extra) {
            await leader.next('an open transaction', (event) => event.event === 'open', 10_000, leaderMark);
            leaderMark = leader.events.length;
          }
          const at = performance.now();
          leader.signal(mode);

          const elected = await standby.next('takeover', isElected, BOUND_MS + 15_000, standbyMark);
          const takeover = elected.receivedAt - at;
          takeovers[mode].push(takeover);
          expect(takeover, `round ${round} (${mode})`).toBeLessThanOrEqual(BOUND_MS + DELIVERY_SLACK_MS);
          expect(elected.epoch).toBe(epoch + 1);
          epoch = elected.epoch ?? epoch;

          if (mode === 'SIGKILL') {
            await leader.exited();
            leader = standby;
            standby = await spawnChild();
            continue;
          }
          // Frozen for longer than the lease, then woken: it must step down and its stale write must be refused.
          await sleep(Math.max(0, TIMING.leaseMs + 200 - (performance.now() - at)));
          leader.signal('SIGCONT');
          await leader.next('step-down', (event) => event.event === 'lost', 10_000, leaderMark);
          const fenced = await leader.next(
            'fenced write',
            (event) => event.event === 'fenced',
            10_000,
            leaderMark,
          );
          expect(fenced).toMatchObject({ code: 'lease_taken', epoch: epoch - 1 });
          fencedWrites += 1;
          // Frozen inside a transaction that passed the fence: the server ended it (fencedSessionSettings' idle
          // timeout), or the standby could not have taken over.
          if (leader.events.slice(leaderMark).some((event) => event.event === 'write-error'))
            frozenInTransaction += 1;
          expect(leader.events.slice(leaderMark).some(isElected)).toBe(false);
          [leader, standby] = [standby, leader];
        }

        const facts = await withClient(database.url, async (client) => {
          const result = await client.query<{
            writes: number;
            last: number;
            terms: number;
            out_of_order: number;
            shared_terms: number;
          }>(`
            SELECT count(*)::int AS writes, coalesce(max(n), 0)::int AS last, count(DISTINCT epoch)::int AS terms,
              (SELECT count(*)::int FROM (SELECT epoch < lag(epoch) OVER (ORDER BY n) AS back FROM ha_writes) o
                WHERE back) AS out_of_order,
              (SELECT count(*)::int FROM (SELECT epoch FROM ha_writes GROUP BY epoch
                HAVING count(DISTINCT instance) > 1) s) AS shared_terms
            FROM ha_writes`);
          return result.rows[0];
        });
        // Every counter increment committed with its row, no term wrote after a later one, one writer per term.
        expect(facts).toMatchObject({ out_of_order: 0, shared_terms: 0 });
        expect(facts?.writes).toBe(facts?.last);
        expect(facts?.writes).toBeGreaterThan(1);
        expect(facts?.terms).toBeGreaterThan(1);
        expect(fencedWrites).toBe(takeovers.SIGSTOP.length);
        if (wantFrozenInTransaction) expect(frozenInTransaction).toBeGreaterThan(0);

        const all = [...takeovers.SIGKILL, ...takeovers.SIGSTOP];
        console.log(
          `HA failover, seed ${SEED}, lease ${TIMING.leaseMs} ms, poll ${TIMING.pollIntervalMs} ms, bound ${BOUND_MS} ms: ` +
            `${summary('all', all)}; ${summary('SIGKILL', takeovers.SIGKILL)}; ${summary('SIGSTOP', takeovers.SIGSTOP)}; ` +
            `${facts?.writes} fenced commits in ${facts?.terms} terms, ${fencedWrites} stale writes refused, ` +
            `${frozenInTransaction} leaders frozen inside a transaction`,
        );
      },
      (POINTS + EXTRA_FREEZES) * (BOUND_MS + 8_000) + 60_000,
    );
  },
);
