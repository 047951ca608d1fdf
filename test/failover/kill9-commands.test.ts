/**
 * An operator's `sync orders` carried out by the leader of a daemon pair on one PostgreSQL state, with the leader
 * killed (SIGKILL) while it carries the command out: the command's run is open in the shared state when the kill
 * comes. The standby takes over, carries the command out again and records it done once; every order sent reaches
 * the ERP exactly once. The command is given through the CLI, as an operator gives it (`sync orders --no-wait`).
 *
 * COMMAND_KILL_POINTS sets how many commands are cut this way (CI size in test/support/suites.ts). The sandbox's
 * latency fault makes each API call slow while a command runs, so its run is still open when the harness sees it
 * claimed: which point of the run the kill lands on is left to the machine; that it lands inside the run is counted.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { openCrashWorld, type CrashWorld } from '../crash/harness/world.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from '../ha/support/postgres.js';
import { INSTANCE_ENV, Instance, STATE_URL_ENV, shareState, within } from './daemons.js';

const POINTS = Number(process.env['COMMAND_KILL_POINTS'] ?? '6');
const LEASE_MS = 3_000;
const POLL_MS = 500;
/** A guard on the whole test, not a speed claim: it fails with the counts it reached. */
const GUARD_MS = 60_000 + POINTS * 45_000;
const probe = await postgresProbe();

const SHIP_TO = {
  br_tlv: 'TLV01',
  br_hrz: 'HRZ02',
  br_jlm: 'JLM03',
  br_hfa: 'HFA04',
  br_bsh: 'BSH05',
  br_rnn: 'RNN06',
};

const configBody = (startFrom: string): string =>
  [
    'connectors:',
    '  erp:',
    '    type: demo-erp',
    '    data_dir: erp',
    '    journal: false',
    'jobs:',
    '  orders:',
    '    flow: orders',
    '    connector: erp',
    // Never fires in the test, and the webhooks go to a dead URL: every run is one an operator asked for.
    "    schedule: '0 3 1 1 *'",
    '    options:',
    `      start_from: '${startFrom}'`,
    '      page_size: 2',
    'mappings:',
    '  branches:',
    ...Object.entries(SHIP_TO).map(([branch, code]) => `    ${branch}: ${code}`),
    '',
  ].join('\n');

interface CommandRow {
  status: string;
  attempts: number;
  result: string | null;
}

describe.skipIf(!probe.available)(
  `a run-now command when its leader is killed${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let database: TempDatabase | undefined;
    let world: CrashWorld | undefined;
    const instances: Instance[] = [];
    afterAll(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await world?.close();
      await database?.drop();
    });

    it(
      `carries the command out once across ${POINTS} kills of the leader inside its run`,
      async () => {
        const deadline = performance.now() + GUARD_MS;
        const remaining = (): number => Math.max(0, deadline - performance.now());
        database = await createTempDatabase();
        const url = database.url;
        world = await openCrashWorld({
          side: 'supplier',
          events: ['order.created'],
          configBody: () => configBody(new Date(Date.now() - 1_000).toISOString()),
        });
        await shareState(world.configFile, { leaseMs: LEASE_MS, pollMs: POLL_MS });
        const a = new Instance('cmd-a', world.configFile, url);
        const b = new Instance('cmd-b', world.configFile, url);
        instances.push(a, b);
        await a.start(remaining());
        await b.start(remaining());
        const query = <T>(sql: string, params: unknown[] = []) =>
          withClient(url, async (client) => (await client.query(sql, params)).rows as T[]);
        const leader = async (): Promise<Instance | undefined> => {
          const [roleA, roleB] = await Promise.all([a.role(), b.role()]);
          if (roleA === 'leader' && roleB === 'standby') return a;
          if (roleB === 'leader' && roleA === 'standby') return b;
          return undefined;
        };
        const control = world.sandbox.control;
        const sent: string[] = [];
        let killedInsideRun = 0;

        for (let point = 0; point < POINTS; point += 1) {
          let current: Instance | undefined;
          expect(
            await within(async () => (current = await leader()) !== undefined, remaining(), 100),
          ).not.toBeNull();
          if (current === undefined) throw new Error('no leader');
          const orders = (await control.action('buyer_send_order', { count: 3 })) as { order_ids: string[] };
          sent.push(...orders.order_ids);
          await control.setFaults({ latency_ms: 700, latency_rate: 1 });
          const given = await runCli(['sync', 'orders', '--no-wait', '--config', world.configFile], {
            [INSTANCE_ENV]: 'operator-cli',
            [STATE_URL_ENV]: url,
          });
          expect(given.stderr).toBe('');
          const id = Number(/command #(\d+)/.exec(given.stdout)?.[1]);
          expect(id).toBeGreaterThan(0);
          // Counted, not timed: the command is claimed and its run is open in the shared state.
          const inside = await within(
            async () => {
              const [command] = await query<CommandRow>(
                'SELECT status, attempts, result FROM commands WHERE id = $1',
                [id],
              );
              const open = await query<{ n: number }>(
                "SELECT count(*)::int AS n FROM runs WHERE trigger = 'operator' AND ended_at IS NULL",
              );
              return command?.status === 'running' && (open[0]?.n ?? 0) > 0;
            },
            remaining(),
            50,
          );
          expect(inside, `command #${id} was never seen running`).not.toBeNull();
          current.signal('SIGKILL');
          killedInsideRun += 1;
          await current.killed();
          await control.setFaults({ latency_ms: 0, latency_rate: 0 });
          await current.start(remaining());
          const done = await within(
            async () => {
              const [command] = await query<CommandRow>('SELECT status FROM commands WHERE id = $1', [id]);
              return command?.status === 'done' || command?.status === 'failed';
            },
            remaining(),
            100,
          );
          expect(done, `command #${id} was not carried out after the kill`).not.toBeNull();
          const [command] = await query<CommandRow>(
            'SELECT status, attempts, result FROM commands WHERE id = $1',
            [id],
          );
          expect(command?.status).toBe('done');
          // Taken by the killed leader, then by the next one: carried out twice, recorded done once.
          expect(command?.attempts).toBeGreaterThanOrEqual(2);
          expect(JSON.parse(command?.result ?? 'null')).toMatchObject({ job: 'orders', outcome: 'ok' });
        }

        const erp = new Database(join(world.dir, 'erp', 'demo-erp.sqlite'), { readonly: true });
        const landed = erp
          .prepare(
            'SELECT API_ORDER_ID AS id, COUNT(*) AS n FROM ORDERS WHERE API_ORDER_ID IS NOT NULL GROUP BY API_ORDER_ID',
          )
          .all() as Array<{ id: string; n: number }>;
        erp.close();
        const once = new Map(landed.map((row) => [row.id, row.n]));
        expect(sent.filter((orderId) => once.get(orderId) !== 1)).toEqual([]);
        expect(landed.every((row) => row.n === 1)).toBe(true);
        const runs = await query<{ outcome: string; n: number }>(
          "SELECT outcome, count(*)::int AS n FROM runs WHERE trigger = 'operator' GROUP BY outcome ORDER BY outcome",
        );
        // Each cut run was closed as interrupted by the next leader; each command's last run ended ok.
        expect(runs.find((row) => row.outcome === 'failed')?.n).toBeGreaterThanOrEqual(killedInsideRun);
        expect(runs.find((row) => row.outcome === 'ok')?.n).toBeGreaterThanOrEqual(POINTS);
        process.stdout.write(
          `run-now commands: ${POINTS} kills of the leader inside the command's run, ${sent.length} orders\n`,
        );
      },
      GUARD_MS + 30_000,
    );
  },
);
