/**
 * A leader frozen (SIGSTOP) with an ERP write really in flight: two writer processes (erp-writer-child.ts: the
 * elector, the fenced PostgreSQL state and the write gate of the daemon) write what the "API" lists into tables
 * without a UNIQUE guard, each in a transaction that looks the item up first, through the sql connector as the
 * daemon opens it (`openConnectors`, which wires the connector's commit gate to the write gate; the child wires
 * nothing itself): orders through its order sink, journal batches through its accounting writer. The ERP database
 * is slow to write: a trigger sleeps after the first row of each write (an order's header, a batch's first line).
 * At each point a new item appears; once the leader's write is in that sleep (PostgreSQL shows the session waiting
 * in pg_sleep, its transaction open and its first row written), it is frozen: between the write and its commit.
 * The standby takes over, finds nothing committed, and writes the item itself. Woken, the old leader's connector
 * reaches its commit gate after its term ended: the daemon's gate refuses and the transaction rolls back. At the
 * end each order and each journal line is there exactly once, and every frozen write was refused (none committed
 * late).
 *
 * HA_INFLIGHT_POINTS sets the number of freezes of each kind (CI size in test/support/suites.ts).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { openPgStateStore } from '../../src/state/index.js';
import { ChildElector, ERP_WRITER_CHILD, type ChildEvent } from './support/child-electors.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from './support/postgres.js';

const POINTS = Number(process.env['HA_INFLIGHT_POINTS'] ?? '30');
const LEASE_MS = 3_000;
/** How long the ERP database sleeps after the first row of a write: the window a freeze lands in. */
const HOLD_MS = 400;
/** Lines of each journal batch. */
const LINES = 4;
/** Generous on a busy machine; a wait that passes it fails with the child's lines. */
const STEP_GUARD_MS = 30_000;

const probe = await postgresProbe();

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

interface Written {
  readonly ref: string;
  readonly copies: number;
}

describe.skipIf(!probe.available)(
  `a leader frozen with an ERP transaction open${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let state: TempDatabase;
    let erp: TempDatabase;
    /** One session that watches the ERP's sessions, so that a poll costs no connection. */
    let watcher: pg.Client | undefined;
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
          CREATE TABLE books_lines (batch_key text NOT NULL, line_no int NOT NULL, account text, amount numeric);
          CREATE FUNCTION slow_write() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_sleep(${HOLD_MS / 1000}); RETURN NEW; END $$;
          CREATE TRIGGER slow_order AFTER INSERT ON erp_orders FOR EACH ROW EXECUTE FUNCTION slow_write();
          CREATE TRIGGER slow_batch AFTER INSERT ON books_lines FOR EACH ROW WHEN (NEW.line_no = 1)
            EXECUTE FUNCTION slow_write();`),
      );
    });
    afterAll(async () => {
      await Promise.all(children.map((child) => child.end()));
      await watcher?.end();
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

    /** Sessions of the ERP database (other than the asking one) in a transaction, and those sleeping in a write. */
    const sessions = async () =>
      (
        await (watcher ??= await connected(erp.url)).query<{ open: number; writing: number }>(
          `SELECT count(*) FILTER (WHERE xact_start IS NOT NULL)::int AS open,
             count(*) FILTER (WHERE wait_event = 'PgSleep')::int AS writing
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        )
      ).rows[0] ?? { open: 0, writing: 0 };
    /** Waits until a session sleeps inside a write: its first row written, its transaction not committed. */
    const writeInFlight = async (what: string): Promise<void> => {
      const guard = performance.now() + STEP_GUARD_MS;
      while ((await sessions()).writing === 0) {
        if (performance.now() > guard) throw new Error(`${what}: no write seen in flight`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };

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
          const open = await leader.next(`${ref} writing`, isRef('erp-writing'), STEP_GUARD_MS, leaderFrom);
          await writeInFlight(`${leader.instance} writing ${ref}`);
          leader.signal('SIGSTOP');
          // The write is in flight: the frozen leader's transaction holds its uncommitted rows.
          if ((await sessions()).open > 0) inFlight += 1;

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
