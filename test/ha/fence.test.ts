/**
 * The write fence in real PostgreSQL transactions: a leader that a new term replaced cannot commit, through the
 * synchronous port the state store uses or through a plain pg client; and a write that passed the fence before the
 * lease ran out commits before the new term can begin (the fence's FOR KEY SHARE makes the new leader's FOR UPDATE
 * wait for it); and a live leader keeps renewing while its own fenced transaction stays open.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_TABLE, LeadershipLostError, termFence, type Term } from '../../src/ha/index.js';
import { RENEW_SQL } from '../../src/ha/lease-sql.js';
import { FAST, testElectors } from './support/electors.js';
import {
  createTempDatabase,
  postgresProbe,
  waitFor,
  withClient,
  type TempDatabase,
} from './support/postgres.js';
import { SyncPgPort } from './support/sync-pg-port.js';
import { CuttableProxy } from './support/tcp-proxy.js';

const probe = await postgresProbe();

/** True while a session of `url`'s database that matches `which` (SQL over pg_stat_activity) waits on a lock. */
async function waitsOnLock(url: string, which: string): Promise<boolean> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ waiting: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND ${which}) AS waiting`,
    );
    return rows[0]?.waiting === true;
  });
}

/** The elector b's takeover, by its session's name. */
const B_SESSION = "application_name = 'supply-sync ha b'";

/** True when the last fenced write committed before the lease's current term began, by the database's clock. */
async function lastWriteBeforeTerm(url: string): Promise<boolean> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ before: boolean }>(
      `SELECT (SELECT max(at) FROM fenced_writes) < (SELECT acquired_at FROM ${LEASE_TABLE}) AS before`,
    );
    return rows[0]?.before === true;
  });
}

/** The error `work` throws, so its fields can be checked. */
function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the fence to refuse');
}

describe.skipIf(!probe.available)(
  `write fence on PostgreSQL${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let database: TempDatabase;
    let port: SyncPgPort;
    const electors = testElectors();

    const rows = () =>
      withClient(database.url, async (client) =>
        (await client.query<{ note: string }>('SELECT note FROM fenced_writes ORDER BY id')).rows.map(
          (row) => row.note,
        ),
      );

    beforeAll(async () => {
      database = await createTempDatabase();
      await withClient(database.url, (client) =>
        client.query(
          'CREATE TABLE fenced_writes (id bigserial PRIMARY KEY, note text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())',
        ),
      );
      port = new SyncPgPort(database.url);
    });
    afterEach(async () => {
      await electors.stopAll();
      electors.events.length = 0;
      port.run('ROLLBACK');
      await withClient(database.url, (client) =>
        client.query(`DROP TABLE IF EXISTS ${LEASE_TABLE}; TRUNCATE fenced_writes`),
      );
    });
    afterAll(async () => {
      await port?.close();
      await database?.drop();
    });

    it('refuses a replaced term in a synchronous transaction, and commits nothing of it', async () => {
      const a = electors.make('a', database.url);
      await a.start();
      const paused = a.term() as Term;
      expect(paused).toEqual({ epoch: 1, holder: 'a' });

      // a's job holds term 1 while a is "paused"; here its lease is simply ended and b takes over.
      await withClient(database.url, (client) =>
        client.query(`UPDATE ${LEASE_TABLE} SET expires_at = now()`),
      );
      const b = electors.make('b', database.url);
      await b.start();
      expect(b.term()).toEqual({ epoch: 2, holder: 'b' });

      port.run('BEGIN');
      port.run("INSERT INTO fenced_writes (note) VALUES ('before the fence')");
      const refused = thrownBy(() => termFence(paused).check(port));
      port.run('ROLLBACK');
      expect(refused).toBeInstanceOf(LeadershipLostError);
      expect(refused).toMatchObject({ code: 'lease_taken', epoch: 1 });
      expect((refused as Error).message).toBe('leadership lost: term 1 of a ended, b leads in term 2');

      // The new leader's fence passes in the same kind of transaction.
      port.run('BEGIN');
      b.fence.check(port);
      port.run("INSERT INTO fenced_writes (note) VALUES ('term 2')");
      port.run('COMMIT');
      expect(await rows()).toEqual(['term 2']);

      // a's live fence knows locally, once a has stepped down, without asking the database.
      await waitFor('a to step down', () => !a.isLeader(), 5_000);
      expect(thrownBy(() => a.fence.check(port))).toMatchObject({ code: 'not_leader', epoch: null });
    });

    it('refuses a replaced term through a plain pg client (the async variant)', async () => {
      const a = electors.make('a', database.url);
      await a.start();
      const paused = a.term() as Term;
      await withClient(database.url, (client) =>
        client.query(`UPDATE ${LEASE_TABLE} SET expires_at = now()`),
      );
      const b = electors.make('b', database.url);
      await b.start();

      await withClient(database.url, async (client: pg.Client) => {
        await client.query('BEGIN');
        await expect(termFence(paused).checkAsync(client)).rejects.toMatchObject({ code: 'lease_taken' });
        await client.query('ROLLBACK');
        await client.query('BEGIN');
        await b.fence.checkAsync(client);
        await client.query("INSERT INTO fenced_writes (note) VALUES ('async term 2')");
        await client.query('COMMIT');
      });
      expect(await rows()).toEqual(['async term 2']);
    });

    it('refuses an expired term nobody has taken yet', async () => {
      const a = electors.make('a', database.url);
      await a.start();
      const paused = a.term() as Term;
      await withClient(database.url, (client) =>
        client.query(`UPDATE ${LEASE_TABLE} SET expires_at = now()`),
      );
      port.run('BEGIN');
      const refused = thrownBy(() => termFence(paused).check(port));
      port.run('ROLLBACK');
      expect(refused).toMatchObject({ code: 'lease_expired', epoch: 1 });
    });

    it('never revives a lease that ran out while a renewal of it waited for the row', async () => {
      const a = electors.make('a', database.url);
      await a.start();
      const term = a.term() as Term;
      await a.stop();
      await withClient(database.url, (client) =>
        client.query(
          `UPDATE ${LEASE_TABLE} SET epoch = $1, holder = $2, expires_at = now() + interval '1 hour'`,
          [term.epoch, term.holder],
        ),
      );
      await withClient(database.url, async (renewer) =>
        withClient(database.url, async (expirer) => {
          // The renewal's transaction begins while the lease is live; the lease then runs out under it.
          await renewer.query('BEGIN');
          await renewer.query('SELECT now()');
          await expirer.query('BEGIN');
          await expirer.query(`UPDATE ${LEASE_TABLE} SET expires_at = clock_timestamp()`);
          const renewal = renewer.query(RENEW_SQL, [term.epoch, term.holder, FAST.leaseMs]);
          await waitFor(
            'the renewal to wait on the row',
            () => waitsOnLock(database.url, "query LIKE '%renewed_at = now()%'"),
            10_000,
          );
          await expirer.query('COMMIT');
          expect((await renewal).rows).toEqual([]);
          await renewer.query('COMMIT');
        }),
      );
      const [lease] = await withClient(
        database.url,
        async (client) =>
          (await client.query<{ live: boolean }>(`SELECT expires_at > now() AS live FROM ${LEASE_TABLE}`))
            .rows,
      );
      expect(lease?.live).toBe(false);
    });

    it(
      'keeps a live leader renewing while its own fenced transaction stays open past a whole lease',
      { timeout: 60_000 },
      async () => {
        electors.warnings.length = 0;
        const a = electors.make('a', database.url);
        await a.start();
        const term = a.term() as Term;
        const b = electors.make('b', database.url);
        await b.start();

        const [fencedAt] = await withClient(database.url, async (client) =>
          (await client.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows.map((row) => row.now),
        );
        port.run('BEGIN');
        a.fence.check(port);
        port.run("INSERT INTO fenced_writes (note) VALUES ('term 1, a long transaction')");
        const renewedPastALease = () =>
          withClient(database.url, async (client) => {
            const { rows: facts } = await client.query<{ renewed: boolean }>(
              `SELECT renewed_at > $1::timestamptz + $2::bigint * interval '1 millisecond' AS renewed
             FROM ${LEASE_TABLE}`,
              [fencedAt, FAST.leaseMs],
            );
            return facts[0]?.renewed === true;
          });
        // The lease is renewed more than a whole lease after the transaction passed the fence, while it is still open.
        await waitFor(
          'a renewal a lease after the fence, the transaction still open',
          renewedPastALease,
          10_000,
        );
        expect(a.isLeader()).toBe(true);
        expect(a.term()).toEqual(term);
        expect(b.isLeader()).toBe(false);
        expect(electors.events).toEqual([{ instance: 'a', event: 'elected', detail: String(term.epoch) }]);
        expect(electors.warnings).toEqual([]);

        // The renewals made new versions of the row; the transaction's lock still holds off a takeover once the lease
        // ends (here a steps down and releases it, an update of expires_at that waits for nothing). a is stopped, not
        // merely expired: a lapsed elector may take its own lease back, and on a busy machine it did, after the
        // commit, before b's next try, so that b never led.
        await a.stop();
        await waitFor(
          "b's takeover to wait on the open transaction",
          () => waitsOnLock(database.url, B_SESSION),
          10_000,
        );
        expect(b.isLeader()).toBe(false);
        port.run('COMMIT');
        // b acquires once the commit lets its waiting statement go.
        await waitFor('b to lead', () => b.isLeader(), 30_000);
        expect(b.term()?.epoch).toBe(term.epoch + 1);
        expect(await lastWriteBeforeTerm(database.url)).toBe(true);
        expect(await rows()).toEqual(['term 1, a long transaction']);
      },
    );

    it('orders a write that passed the fence before the new term: the acquisition waits for its commit', async () => {
      const target = new URL(database.url);
      const proxy = await CuttableProxy.start(target.hostname, Number(target.port || 5432));
      try {
        const a = electors.make('a', proxy.urlFor(database.url));
        await a.start();
        const term = a.term() as Term;

        // a's job passes the fence and is still writing when a is cut off and its lease runs out.
        port.run('BEGIN');
        a.fence.check(port);
        port.run("INSERT INTO fenced_writes (note) VALUES ('term 1, in flight')");
        proxy.cut();
        const b = electors.make('b', database.url);
        await b.start();

        await waitFor(
          "the lease to expire and b's acquisition to wait on the fenced row",
          async () =>
            (await withClient(database.url, async (client) => {
              const { rows: facts } = await client.query<{ expired: boolean }>(
                `SELECT expires_at <= clock_timestamp() AS expired FROM ${LEASE_TABLE}`,
              );
              return facts[0]?.expired === true;
            })) && (await waitsOnLock(database.url, B_SESSION)),
          10_000,
        );
        // Expired by the clock, yet b cannot lead while term 1's write is open, and its status says so.
        expect(b.isLeader()).toBe(false);
        await waitFor(
          "b's status to name the held row",
          () =>
            /^state\.url: the leader lease row at .+ is held by an open transaction/.test(
              b.status().lastError ?? '',
            ),
          5_000,
        );
        port.run('COMMIT');

        await waitFor('b to lead', () => b.isLeader(), 10_000);
        expect(b.term()?.epoch).toBe(2);
        // term 1's write landed before term 2 began, by the database's own clock.
        expect(await lastWriteBeforeTerm(database.url)).toBe(true);
        expect(await rows()).toEqual(['term 1, in flight']);

        // And term 1's next transaction is refused.
        port.run('BEGIN');
        const refused = thrownBy(() => termFence(term).check(port));
        port.run('ROLLBACK');
        expect(refused).toMatchObject({ code: 'lease_taken' });
      } finally {
        await electors.stopAll();
        await proxy.close();
      }
    });
  },
);
