/**
 * An operator's `sync orders` carried out by the leader of a daemon pair on one PostgreSQL state, with the leader
 * killed (SIGKILL) in the command's dangerous window: after the run wrote one of the command's orders into the ERP
 * and before the command is recorded done. The standby takes over, carries the command out again and records it
 * done once; every order sent reaches the ERP exactly once. The command is given through the CLI, as an operator
 * gives it (`sync orders --no-wait`).
 *
 * COMMAND_KILL_POINTS sets how many kills must land in that window (CI size in test/support/suites.ts). The
 * sandbox's latency fault makes each API call slow while a command runs, so the acknowledgements after an ERP write
 * keep the command open; the kill is aimed at the moment the ERP holds one of the command's orders while the
 * command still runs, and counted only when, after it, the command is still not done. The test fails unless that
 * many kills landed there.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { openCrashWorld, type CrashWorld } from '../crash/harness/world.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from '../ha/support/postgres.js';
import { INSTANCE_ENV, Instance, STATE_URL_ENV, shareState, within } from './daemons.js';

const POINTS = Number(process.env['COMMAND_KILL_POINTS'] ?? '6');
/** Kills allowed in all: one that finds the command already done is not made, one that misses is not counted. */
const MAX_KILLS = 2 * POINTS + 2;
const LEASE_MS = 3_000;
const POLL_MS = 500;
/** A guard on the whole test, not a speed claim: it fails with the counts it reached. */
const GUARD_MS = 60_000 + MAX_KILLS * 45_000;
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

/** Rows of the ERP's ORDERS table for these API orders, read from the demo ERP's file. */
function erpCopies(file: string, orderIds: readonly string[]): number {
  if (!existsSync(file)) return 0;
  const erp = new Database(file, { readonly: true });
  try {
    const marks = orderIds.map(() => '?').join(', ');
    const row = erp
      .prepare(`SELECT COUNT(*) AS n FROM ORDERS WHERE API_ORDER_ID IN (${marks})`)
      .get(...orderIds) as { n: number };
    return row.n;
  } finally {
    erp.close();
  }
}

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
        const erpFile = join(world.dir, 'erp', 'demo-erp.sqlite');
        const sent: string[] = [];
        let inWindow = 0;
        let kills = 0;

        // Kills go on until POINTS of them landed in the dangerous window; a kill that missed it is not counted.
        while (inWindow < POINTS && kills < MAX_KILLS) {
          let current: Instance | undefined;
          expect(
            await within(async () => (current = await leader()) !== undefined, remaining(), 100),
          ).not.toBeNull();
          if (current === undefined) throw new Error('no leader');
          const orders = (await control.action('buyer_send_order', { count: 3 })) as { order_ids: string[] };
          sent.push(...orders.order_ids);
          const given = await runCli(['sync', 'orders', '--no-wait', '--config', world.configFile], {
            [INSTANCE_ENV]: 'operator-cli',
            [STATE_URL_ENV]: url,
          });
          // Slowed once given (the CLI itself is not): the run's acknowledgements after its ERP writes take a while.
          await control.setFaults({ latency_ms: 700, latency_rate: 1 });
          expect(given.stderr).toBe('');
          const id = Number(/command #(\d+)/.exec(given.stdout)?.[1]);
          expect(id, `sync --no-wait exited ${given.code}: ${given.stdout}${given.stderr}`).toBeGreaterThan(
            0,
          );
          const status = async (): Promise<string | undefined> =>
            (await query<CommandRow>('SELECT status FROM commands WHERE id = $1', [id]))[0]?.status;
          // Aimed, not timed: the kill comes once one of the command's orders is in the ERP while the command is
          // still running (its run's acknowledgements are slowed by the latency fault), or not at all if it ended.
          let aimed = false;
          const settled = await within(
            async () => {
              const now = await status();
              aimed = now === 'running' && erpCopies(erpFile, orders.order_ids) > 0;
              return aimed || now === 'done' || now === 'failed';
            },
            remaining(),
            20,
          );
          expect(settled, `command #${id} neither reached the ERP nor ended`).not.toBeNull();
          if (aimed) {
            current.signal('SIGKILL');
            kills += 1;
            await current.killed();
            // Landed in the window: an order written to the ERP before the kill, the command not recorded done.
            if ((await status()) === 'running') inWindow += 1;
            await control.setFaults({ latency_ms: 0, latency_rate: 0 });
            await current.start(remaining());
          } else {
            await control.setFaults({ latency_ms: 0, latency_rate: 0 });
          }
          const done = await within(
            async () => ['done', 'failed'].includes((await status()) ?? ''),
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
          if (aimed) expect(command?.attempts).toBeGreaterThanOrEqual(2);
          expect(JSON.parse(command?.result ?? 'null')).toMatchObject({ job: 'orders', outcome: 'ok' });
        }
        expect(
          inWindow,
          `${inWindow} of ${kills} kills landed between the ERP write and the command done`,
        ).toBe(POINTS);

        const erp = new Database(erpFile, { readonly: true });
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
        expect(runs.find((row) => row.outcome === 'failed')?.n).toBeGreaterThanOrEqual(inWindow);
        expect(runs.find((row) => row.outcome === 'ok')?.n).toBeGreaterThanOrEqual(POINTS);
        process.stdout.write(
          `run-now commands: ${inWindow} of ${kills} kills of the leader between the ERP write and the command ` +
            `recorded done, ${sent.length} orders\n`,
        );
      },
      GUARD_MS + 30_000,
    );
  },
);
