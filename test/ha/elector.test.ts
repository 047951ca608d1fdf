/**
 * Leader election on a real PostgreSQL: acquire, renew, expire, release, two electors, and a leader cut from the
 * database. Lease facts are read back from PostgreSQL itself (its clock, its rows), not from the elector.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_TABLE } from '../../src/ha/index.js';
import { FAST, testElectors } from './support/electors.js';
import {
  createTempDatabase,
  postgresProbe,
  waitFor,
  withClient,
  type TempDatabase,
} from './support/postgres.js';
import { CuttableProxy } from './support/tcp-proxy.js';

const probe = await postgresProbe();

interface LeaseFacts {
  epoch: string;
  holder: string;
  holder_info: Record<string, unknown>;
  lease_ms: number;
  renewed_after_acquire: boolean;
  expired: boolean;
}

function leaseFacts(url: string): Promise<LeaseFacts | undefined> {
  return withClient(url, async (client) => {
    const result = await client.query<LeaseFacts>(
      `SELECT epoch::text AS epoch, holder, holder_info,
         (extract(epoch FROM expires_at - renewed_at) * 1000)::float8 AS lease_ms,
         renewed_at > acquired_at AS renewed_after_acquire, expires_at <= now() AS expired
       FROM ${LEASE_TABLE} WHERE id = 1`,
    );
    return result.rows[0];
  });
}

/** The lease row's expires_at, as the database's own text (no rounding through a JS Date). */
function expiresAt(url: string): Promise<string | undefined> {
  return withClient(url, async (client) => {
    const result = await client.query<{ expires_at: string }>(
      `SELECT expires_at::text AS expires_at FROM ${LEASE_TABLE} WHERE id = 1`,
    );
    return result.rows[0]?.expires_at;
  });
}

/** Milliseconds from `since` to the current term's acquired_at, by the database clock. */
function acquiredMsAfter(url: string, since: string | undefined): Promise<number> {
  return withClient(url, async (client) => {
    const result = await client.query<{ ms: number }>(
      `SELECT (extract(epoch FROM acquired_at - $1::timestamptz) * 1000)::float8 AS ms FROM ${LEASE_TABLE} WHERE id = 1`,
      [since],
    );
    return result.rows[0]?.ms ?? Number.NaN;
  });
}

/** The lease row's renewed_at, to count renewals. */
function renewedAt(url: string): Promise<string> {
  return withClient(url, async (client) => {
    const result = await client.query<{ renewed_at: string }>(
      `SELECT renewed_at::text AS renewed_at FROM ${LEASE_TABLE} WHERE id = 1`,
    );
    return result.rows[0]?.renewed_at ?? '';
  });
}

describe.skipIf(!probe.available)(
  `leader election on PostgreSQL${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let database: TempDatabase;
    const electors = testElectors();

    beforeAll(async () => {
      database = await createTempDatabase();
    });
    afterEach(async () => {
      await electors.stopAll();
      electors.events.length = 0;
      await withClient(database.url, (client) => client.query(`DROP TABLE IF EXISTS ${LEASE_TABLE}`));
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('creates the lease table, takes the lease in term 1 and renews it by the database clock', async () => {
      const a = electors.make('a', database.url);
      await a.start();
      expect(a.status()).toMatchObject({
        role: 'leader',
        instance: 'a',
        leader: { instance: 'a', epoch: 1 },
      });
      expect(a.status().lastError).toBeNull();
      const first = await leaseFacts(database.url);
      expect(first).toMatchObject({ epoch: '1', holder: 'a', lease_ms: FAST.leaseMs, expired: false });
      expect(first?.holder_info).toMatchObject({ pid: process.pid, test: true });

      await waitFor(
        'a renewal',
        async () => (await leaseFacts(database.url))?.renewed_after_acquire === true,
        5_000,
      );
      // Renewing keeps the term: same epoch, no new election.
      expect(await leaseFacts(database.url)).toMatchObject({ epoch: '1', holder: 'a', expired: false });
      expect(electors.events).toEqual([{ instance: 'a', event: 'elected', detail: '1' }]);
    });

    it('lets only one of two electors lead, and the standby names the leader', async () => {
      const a = electors.make('a', database.url);
      const b = electors.make('b', database.url);
      await Promise.all([a.start(), b.start()]);
      // Sampled until the lease has been renewed three times (the standby polls in between), counted from the lease
      // row: a busy machine makes the samples slower, not fewer renewals.
      const renewals = new Set<string>();
      const guardEnds = Date.now() + 20_000;
      for (let sample = 0; renewals.size < 4; sample += 1) {
        expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1);
        renewals.add(await renewedAt(database.url));
        if (Date.now() > guardEnds) {
          throw new Error(
            `${renewals.size - 1} lease renewals seen in ${sample + 1} samples over 20 s (guard)`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      const [leader, standby] = a.isLeader() ? [a, b] : [b, a];
      expect(standby.status()).toMatchObject({
        role: 'standby',
        leader: { instance: leader.status().instance, epoch: 1 },
        lastError: null,
      });
      expect(electors.events.filter((event) => event.event === 'elected')).toHaveLength(1);
    });

    it('hands over at once on a graceful stop: the standby is woken by the release, not by its poll', async () => {
      const a = electors.make('a', database.url);
      await a.start();
      // A poll interval far beyond the test's wait: only the release notification can make b lead in time.
      const b = electors.make('b', database.url, { pollIntervalMs: 120_000 });
      await b.start();
      expect(b.isLeader()).toBe(false);
      await a.stop();
      expect(electors.events).toContainEqual({
        instance: 'a',
        event: 'lost',
        detail: 'stopped: lease released',
      });
      await waitFor('b to lead after the release', () => b.isLeader(), 10_000);
      expect(b.status().leader).toMatchObject({ instance: 'b', epoch: 2 });
      expect(await leaseFacts(database.url)).toMatchObject({ epoch: '2', holder: 'b' });
    });

    it('hands the lease to the instance that claims it; the one that handed it over does not take it back', async () => {
      const claims = { a: true, b: false };
      const a = electors.make('a', database.url, {}, { claim: () => claims.a });
      await a.start();
      // Only the release notification can make b lead in time: its poll is far beyond the test's wait. a polls
      // every 200 ms and is woken by its own release too.
      const b = electors.make('b', database.url, { pollIntervalMs: 120_000 }, { claim: () => claims.b });
      await b.start();
      expect(b.isLeader()).toBe(false);
      claims.a = false;
      claims.b = true;
      expect(await a.handOver('assigned to b')).toBe(true);
      await waitFor('b to lead after the hand-over', () => b.isLeader(), 10_000);
      expect(await leaseFacts(database.url)).toMatchObject({ epoch: '2', holder: 'b' });
      expect(electors.events).toContainEqual({ instance: 'a', event: 'lost', detail: 'assigned to b' });
      expect(
        electors.events.filter((event) => event.event === 'elected').map((event) => event.instance),
      ).toEqual(['a', 'b']);
    });

    it('lets an instance that does not claim a free lease take it only once it has stayed free for the grace', async () => {
      const a = electors.make('a', database.url);
      await a.start();
      await a.stop();
      const releasedAt = await expiresAt(database.url);
      // Nobody claims the company (its assigned instance is gone or does not have it): b runs it all the same.
      const b = electors.make('b', database.url, {}, { claim: () => false, orphanGraceMs: 1_000 });
      await b.start();
      expect(b.isLeader()).toBe(false);
      await waitFor('b to take the lease left free', () => b.isLeader(), 10_000);
      // Judged by the database clock, as the election is: a's release stamped expires_at, b's term acquired_at.
      expect(await acquiredMsAfter(database.url, releasedAt)).toBeGreaterThanOrEqual(1_000);
      expect(await leaseFacts(database.url)).toMatchObject({ epoch: '2', holder: 'b' });
    });

    it('lets a standby take an expired lease in a new term', async () => {
      // A lease row left behind by an instance that died: expired by the database clock.
      const a = electors.make('a', database.url);
      await a.start();
      await withClient(database.url, (client) =>
        client.query(
          `UPDATE ${LEASE_TABLE} SET holder = 'dead', holder_process = 'gone', expires_at = now()`,
        ),
      );
      const b = electors.make('b', database.url);
      await b.start();
      expect(b.status()).toMatchObject({ role: 'leader', leader: { instance: 'b', epoch: 2 } });
      // a's next renewal finds the row taken and steps down.
      await waitFor('a to step down', () => !a.isLeader(), 5_000);
      expect(
        electors.events.find((event) => event.instance === 'a' && event.event === 'lost')?.detail,
      ).toMatch(/taken over or expired/);
    });

    it('makes a leader cut from the database step down on its own deadline, before a standby can lead', async () => {
      const target = new URL(database.url);
      const proxy = await CuttableProxy.start(target.hostname, Number(target.port || 5432));
      try {
        const a = electors.make('a', proxy.urlFor(database.url));
        await a.start();
        const b = electors.make('b', database.url);
        await b.start();
        expect(a.isLeader()).toBe(true);
        proxy.cut();
        await waitFor('b to lead', () => b.isLeader(), 10_000);
        const order = electors.events.map(({ instance, event }) => `${instance} ${event}`);
        // The cut leader gave up before the standby was elected: never two leaders at once.
        expect(order).toEqual(['a elected', 'a lost', 'b elected']);
        const lost = electors.events.find((event) => event.event === 'lost');
        expect(lost?.detail).toMatch(
          /^lease deadline passed without a renewal \(state\.url: cannot reach PostgreSQL/,
        );
        expect(a.status()).toMatchObject({ role: 'standby', leader: null });
        expect(a.status().lastError).toMatch(
          /^state\.url: cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/ss_ha_/,
        );
        expect(b.status()).toMatchObject({ role: 'leader', leader: { instance: 'b', epoch: 2 } });

        // Reconnected, a sees b leading and stays a standby.
        proxy.restore();
        await waitFor('a to see b lead', () => a.status().leader?.instance === 'b', 10_000);
        expect(a.isLeader()).toBe(false);
        expect(a.status().lastError).toBeNull();
      } finally {
        await electors.stopAll();
        await proxy.close();
      }
    });
  },
);
