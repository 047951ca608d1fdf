/**
 * A leader frozen (SIGSTOP) with an ERP write really in flight: two writer processes (erp-writer-child.ts: the
 * elector, the fenced PostgreSQL state and the write gate of the daemon) write what the "API" lists into tables
 * without a UNIQUE guard, each in a transaction that looks the item up first: orders through the sql connector's
 * order sink, built from the connector definition with its commit gate wired to the write gate as the daemon wires
 * it, and journal batches through the sql connector's journal writer over a commit-gated driver. At each point
 * a new item appears; once the leader has begun writing it and its transaction is open (its line says so and
 * PostgreSQL shows the session idle in that transaction), it is frozen. The standby takes over, finds nothing
 * committed, and writes the item itself. Woken, the old leader reaches its commit gate after its term ended: the
 * gate refuses and the transaction rolls back. Two kinds of item: orders (a header and a line each, frozen right
 * before their COMMIT), and journal batches, frozen half written (after their first line). At the end each
 * order and each journal line is there exactly once, and every frozen write was refused (none committed late).
 *
 * HA_INFLIGHT_POINTS sets the number of freezes of each kind (CI size in test/support/suites.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { openPgStateStore } from '../../src/state/index.js';
import { ChildElector, ERP_WRITER_CHILD, type ChildEvent } from './support/child-electors.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from './support/postgres.js';

const POINTS = Number(process.env['HA_INFLIGHT_POINTS'] ?? '30');
const LEASE_MS = 3_000;
/** Lines of each journal batch. */
const LINES = 4;
/** Generous on a busy machine; a wait that passes it fails with the child's lines. */
const STEP_GUARD_MS = 30_000;

const probe = await postgresProbe();

interface Written {
  readonly ref: string;
  readonly copies: number;
}

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
          CREATE TABLE erp_orders (
            erp_number bigserial, order_ref text NOT NULL, customer text, written_by text NOT NULL);
          CREATE TABLE erp_order_lines (erp_number bigint NOT NULL, line_no int, item text, quantity numeric);
          CREATE TABLE api_batches (batch_key text PRIMARY KEY, lines int NOT NULL);
          CREATE TABLE books_lines (batch_key text NOT NULL, line_no int NOT NULL, account text, amount numeric);`),
      );
    });
    afterAll(async () => {
      await Promise.all(children.map((child) => child.end()));
      await state?.drop();
      await erp?.drop();
    });

    const query = <Row extends object>(sql: string, params: unknown[] = []) =>
      withClient(
        erp.url,
        async (client) => (await client.query<Row & Record<string, unknown>>(sql, params)).rows,
      );

    const modes = {
      orders: {
        prefix: 'PO',
        add: (ref: string) => query('INSERT INTO api_orders VALUES ($1)', [ref]),
        // Each order as the order sink writes it: a header and its line.
        written: async () => {
          const rows = await query<Written & { lines: number }>(
            `SELECT o.order_ref AS ref, count(DISTINCT o.erp_number)::int AS copies, count(l.line_no)::int AS lines
             FROM erp_orders o LEFT JOIN erp_order_lines l ON l.erp_number = o.erp_number GROUP BY o.order_ref`,
          );
          expect(rows.filter((row) => row.lines !== row.copies)).toEqual([]);
          return rows;
        },
      },
      journal: {
        prefix: 'JB',
        add: (ref: string) => query('INSERT INTO api_batches VALUES ($1, $2)', [ref, LINES]),
        // A batch written twice shows its line numbers twice; one cut short would have fewer lines.
        written: async () => {
          const rows = await query<Written & { lines: number }>(
            `SELECT batch_key AS ref, max(copies)::int AS copies, count(*)::int AS lines FROM (
               SELECT batch_key, line_no, count(*) AS copies FROM books_lines GROUP BY batch_key, line_no
             ) per_line GROUP BY batch_key`,
          );
          expect(rows.filter((row) => row.lines !== LINES)).toEqual([]);
          return rows;
        },
      },
    } as const;

    const openTransactions = async () =>
      (
        await query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND state = 'idle in transaction'`,
        )
      )[0]?.n ?? 0;

    it.each(['orders', 'journal'] as const)(
      `writes each of the %s once across ${POINTS} freezes inside an open transaction`,
      async (mode) => {
        const { prefix, add, written } = modes[mode];
        const start = (name: string) => {
          const settings = {
            url: state.url,
            erpUrl: erp.url,
            leaseMs: LEASE_MS,
            renewIntervalMs: LEASE_MS / 3,
            pollIntervalMs: 500,
            holdMs: 400,
            mode,
          };
          const child = new ChildElector(name, settings, ERP_WRITER_CHILD);
          children.push(child);
          return child;
        };
        const a = start(`${mode}-a`);
        await a.next('elected', (event) => event.event === 'elected', STEP_GUARD_MS);
        const b = start(`${mode}-b`);
        await b.next('started', (event) => event.event === 'started', STEP_GUARD_MS);
        let [leader, standby] = [a, b];
        let refused = 0;
        let inFlight = 0;

        for (let point = 0; point < POINTS; point += 1) {
          const ref = `${prefix}-${String(point).padStart(3, '0')}`;
          const isRef = (kind: ChildEvent['event']) => (event: ChildEvent) =>
            event.event === kind && event.ref === ref;
          const leaderFrom = leader.events.length;
          const standbyFrom = standby.events.length;
          await add(ref);
          const open = await leader.next(`${ref} open`, isRef('erp-open'), STEP_GUARD_MS, leaderFrom);
          leader.signal('SIGSTOP');
          // The write is in flight: the frozen leader's transaction holds its uncommitted rows.
          if ((await openTransactions()) > 0) inFlight += 1;

          const elected = await standby.next(
            'elected',
            (event) => event.event === 'elected',
            STEP_GUARD_MS,
            standbyFrom,
          );
          expect(elected.epoch).toBeGreaterThan(open.epoch ?? 0);
          await standby.next(`${ref} committed`, isRef('erp-committed'), STEP_GUARD_MS, standbyFrom);
          leader.signal('SIGCONT');
          const outcome = await leader.next(
            'refusal',
            (event) => event.event === 'refused' || event.event === 'erp-committed',
            STEP_GUARD_MS,
            leaderFrom,
          );
          expect(outcome, `${leader.instance} committed ${ref} after its term ended`).toMatchObject({
            event: 'refused',
            epoch: open.epoch,
          });
          refused += 1;
          [leader, standby] = [standby, leader];
        }

        const rows = await written();
        process.stdout.write(
          `in-flight ${mode} freezes: ${POINTS} points, ${inFlight} with the transaction seen open, ${refused} refused\n`,
        );
        expect(rows).toHaveLength(POINTS);
        expect(rows.filter((row) => row.copies !== 1)).toEqual([]);
        expect(refused).toBe(POINTS);
        expect(inFlight).toBe(POINTS);
        await Promise.all([a.end(), b.end()]);
      },
      POINTS * 20_000 + 30_000,
    );
  },
);
