/**
 * A leader frozen (SIGSTOP) with an ERP write really in flight: two order-writer processes (erp-writer-child.ts:
 * the elector, the fenced PostgreSQL state, the write gate and the commit-gated driver of the daemon) write the
 * orders the "API" lists into an ERP table without a UNIQUE guard, each in a transaction that looks the order up
 * first. At each point a new order appears; once the leader has inserted it and its transaction is open (its line
 * says so and PostgreSQL shows the ERP session idle in that transaction), it is frozen. The standby takes over,
 * finds no committed row, and inserts the order itself. Woken, the old leader reaches its commit gate after its
 * term ended: the gate refuses, the transaction rolls back. At the end each order is in the ERP exactly once, and
 * every frozen write was refused (none was committed late).
 *
 * HA_INFLIGHT_POINTS sets the number of freezes (CI size in test/support/suites.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { openPgStateStore } from '../../src/state/index.js';
import { ChildElector, ERP_WRITER_CHILD, type ChildEvent } from './support/child-electors.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from './support/postgres.js';

const POINTS = Number(process.env['HA_INFLIGHT_POINTS'] ?? '30');
const LEASE_MS = 3_000;
/** Generous on a busy machine; a wait that passes it fails with the child's lines. */
const STEP_GUARD_MS = 30_000;

const probe = await postgresProbe();

describe.skipIf(!probe.available)(
  `a leader frozen with an ERP transaction open${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let state: TempDatabase;
    let erp: TempDatabase;
    const children: ChildElector[] = [];

    beforeAll(async () => {
      state = await createTempDatabase();
      erp = await createTempDatabase();
      openPgStateStore({ url: state.url, clock: systemClock }).close();
      await withClient(erp.url, (client) =>
        client.query(`
          CREATE TABLE api_orders (order_ref text PRIMARY KEY);
          CREATE TABLE erp_orders (order_ref text NOT NULL, instance text NOT NULL, epoch bigint NOT NULL);`),
      );
    });
    afterAll(async () => {
      await Promise.all(children.map((child) => child.end()));
      await state?.drop();
      await erp?.drop();
    });

    const openErpTransactions = () =>
      withClient(erp.url, async (client) => {
        const { rows } = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND state = 'idle in transaction'`,
        );
        return rows[0]?.n ?? 0;
      });

    it(
      `writes each order once across ${POINTS} freezes inside an open ERP transaction`,
      async () => {
        const start = (name: string) => {
          const child = new ChildElector(
            name,
            {
              url: state.url,
              erpUrl: erp.url,
              leaseMs: LEASE_MS,
              renewIntervalMs: LEASE_MS / 3,
              pollIntervalMs: 500,
              holdMs: 400,
            },
            ERP_WRITER_CHILD,
          );
          children.push(child);
          return child;
        };
        const a = start('writer-a');
        await a.next('elected', (event) => event.event === 'elected', STEP_GUARD_MS);
        const b = start('writer-b');
        await b.next('started', (event) => event.event === 'started', STEP_GUARD_MS);
        let [leader, standby] = [a, b];
        let refused = 0;
        let inFlight = 0;

        for (let point = 0; point < POINTS; point += 1) {
          const ref = `PO-${String(point).padStart(3, '0')}`;
          const isRef = (kind: ChildEvent['event']) => (event: ChildEvent) =>
            event.event === kind && event.ref === ref;
          const leaderFrom = leader.events.length;
          const standbyFrom = standby.events.length;
          await withClient(erp.url, (client) => client.query('INSERT INTO api_orders VALUES ($1)', [ref]));
          const open = await leader.next(`${ref} open`, isRef('erp-open'), STEP_GUARD_MS, leaderFrom);
          leader.signal('SIGSTOP');
          // The write is in flight: the frozen leader's ERP transaction holds its uncommitted row.
          if ((await openErpTransactions()) > 0) inFlight += 1;

          const elected = await standby.next(
            'elected',
            (event) => event.event === 'elected',
            STEP_GUARD_MS,
            standbyFrom,
          );
          expect(elected.epoch).toBeGreaterThan(open.epoch ?? 0);
          await standby.next(`${ref} committed`, isRef('erp-committed'), STEP_GUARD_MS, standbyFrom);
          leader.signal('SIGCONT');
          const refusal = await leader.next(
            'refusal',
            (event) => event.event === 'refused' || event.event === 'erp-committed',
            STEP_GUARD_MS,
            leaderFrom,
          );
          expect(refusal, `${leader.instance} committed ${ref} after its term ended`).toMatchObject({
            event: 'refused',
            epoch: open.epoch,
          });
          refused += 1;
          [leader, standby] = [standby, leader];
        }

        const rows = await withClient(erp.url, async (client) => {
          const { rows: found } = await client.query<{ order_ref: string; n: number }>(
            'SELECT order_ref, count(*)::int AS n FROM erp_orders GROUP BY order_ref ORDER BY order_ref',
          );
          return found;
        });
        process.stdout.write(
          `in-flight ERP freezes: ${POINTS} points, ${inFlight} with the ERP transaction seen open, ${refused} refused\n`,
        );
        expect(rows).toHaveLength(POINTS);
        expect(rows.filter((row) => row.n !== 1)).toEqual([]);
        expect(refused).toBe(POINTS);
        expect(inFlight).toBe(POINTS);
      },
      POINTS * 20_000 + 30_000,
    );
  },
);
