/**
 * Every operator command given to a running daemon, on a state file and on a PostgreSQL state with two instances:
 * the CLI (a child process, as a user runs it) queues it, the daemon that holds the state carries it out and the CLI
 * prints the same lines and exits with the same code as without a daemon. Orders keep arriving in the sandbox and
 * reach the ERP once each while the commands are given, through the daemon's own webhook runs as well as the
 * operator's; the daemon is never stopped. OPERATOR_COMMANDS_BACKENDS picks the backends (both by default);
 * `npm run test:long` alone runs this file (test/support/suites.ts).
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { createApiClient } from '../../src/client/index.js';
import { sandboxControl } from '../../src/sandbox/harness/client.js';
import type { StateStore } from '../../src/state/index.js';
import { runCli } from '../cli/run-cli.js';
import { createTempDatabase, postgresProbe, type TempDatabase } from '../ha/support/postgres.js';
import { eventually, openHealthWorld, sample, type HealthWorld } from './health-support.js';
import { stateBackends, type StateBackendName } from '../support/state-backends.js';

const JOBS = {
  connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
  // The schedule never fires during the test: the runs are the operator's and those the sandbox's webhooks start.
  jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
  mappings: {
    branches: {
      br_tlv: 'TLV01',
      br_hrz: 'HRZ02',
      br_jlm: 'JLM03',
      br_hfa: 'HFA04',
      br_bsh: 'BSH05',
      br_rnn: 'RNN06',
    },
  },
};

const probe = await postgresProbe();

interface Backend {
  readonly key: StateBackendName;
  readonly name: string;
  readonly skip: string | null;
  /** The daemons' extra config; the first daemon's config file is the one the CLI is given. */
  configs(): Promise<Array<Record<string, unknown>>>;
  dispose(): Promise<void>;
}

const sqlite: Backend = {
  key: 'file',
  name: 'a state file',
  skip: null,
  configs: () => Promise.resolve([{}]),
  dispose: () => Promise.resolve(),
};

let database: TempDatabase | undefined;
const postgres: Backend = {
  key: 'postgres',
  name: 'a PostgreSQL state with two instances',
  skip: probe.available ? null : probe.reason,
  async configs() {
    database = await createTempDatabase();
    const ha = (instance: string) => ({ instance, lease: '2s', poll_interval: '200ms' });
    return [
      { state: { path: 'a/daemon.db', url: database.url }, ha: ha('daemon-a') },
      { state: { path: 'b/daemon.db', url: database.url }, ha: ha('daemon-b') },
    ];
  },
  dispose: async () => database?.drop(),
};

// OPERATOR_COMMANDS_BACKENDS (test/support/state-backends.ts): both backends unless it names one.
const BACKENDS = stateBackends('OPERATOR_COMMANDS_BACKENDS');
for (const backend of [sqlite, postgres].filter((b) => BACKENDS.includes(b.key))) {
  describe.skipIf(backend.skip !== null)(
    `operator commands to a running daemon on ${backend.name}${backend.skip === null ? '' : ` (skipped: ${backend.skip})`}`,
    () => {
      let world: HealthWorld;
      let daemons: Daemon[];
      let configFile: string;

      beforeAll(async () => {
        world = await openHealthWorld({ allowHttpWebhooks: true });
        daemons = [];
        for (const extra of await backend.configs()) daemons.push(await world.start({ ...JOBS, ...extra }));
        configFile = join(world.dir, 'supply-sync-0.yaml');
      });
      afterAll(async () => {
        await world?.close();
        await backend.dispose();
      });

      /** The state as the first daemon sees it (on PostgreSQL both see the same database). */
      const state = (): StateStore => {
        const daemon = daemons[0];
        if (daemon === undefined) throw new Error('no daemon');
        return daemon.env.state;
      };
      const cli = (...args: string[]) => runCli([...args, '--config', configFile]);
      const erpOrders = (): Array<{ id: string; n: number }> => {
        const db = new Database(join(world.dir, 'erp', 'demo-erp.sqlite'), { readonly: true });
        try {
          return db
            .prepare(
              'SELECT API_ORDER_ID AS id, COUNT(*) AS n FROM ORDERS WHERE API_ORDER_ID IS NOT NULL GROUP BY API_ORDER_ID',
            )
            .all() as Array<{ id: string; n: number }>;
        } finally {
          db.close();
        }
      };
      const lastCommand = (kind: string) => {
        const row = state()
          .db.prepare('SELECT id FROM commands WHERE kind = ? ORDER BY id DESC')
          .get(kind) as { id: number } | undefined;
        return row === undefined ? null : state().commands.get(row.id);
      };
      const sendOrders = async (count: number): Promise<string[]> => {
        const control = sandboxControl(world.sandbox.controlUrl);
        return ((await control.action('buyer_send_order', { count })) as { order_ids: string[] }).order_ids;
      };

      it(
        'carries out pause, resume, run now, dead-letter and cursor commands while orders keep arriving',
        { timeout: 120_000 },
        async () => {
          const daemon = daemons[0];
          if (daemon === undefined) throw new Error('no daemon');
          // From here on each order sent starts webhook runs: the daemon keeps syncing on its own.
          const registered = await cli(
            'webhooks',
            'register',
            '--url',
            daemon.webhookUrl,
            '--events',
            'order.created,order.updated',
          );
          expect(registered.stderr).toBe('');
          expect(registered.stdout).toMatch(/^created webhook endpoint \S+ for http:\/\/.+ \(active\)$/m);
          expect(registered.stdout + registered.stderr).not.toContain('whsec_');

          const sent = await sendOrders(3);
          const paused = await cli('jobs', 'pause', 'orders', '--reason', 'ERP upgrade');
          expect(paused.stderr).toBe('');
          expect(paused).toMatchObject({ code: 0, stdout: 'orders paused: ERP upgrade\n' });
          expect(state().pausedJobs.get('orders')).toMatchObject({
            reason: 'ERP upgrade',
            pausedBy: expect.stringMatching(/^cli:.+@.+$/),
          });
          // The text status says who paused the job, since when and why, as the status page does.
          const status = await cli('status');
          expect(status.stdout).toMatch(
            /^orders +\S+ +readiness paused \(paused since \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+ by cli:.+@.+: ERP upgrade\); /m,
          );

          const refusedRun = await cli('sync', 'orders');
          expect(refusedRun.code).toBe(1);
          expect(refusedRun.stderr).toMatch(
            /^error: job "orders" is paused \(since .* by cli:.*: ERP upgrade\); resume it first with `supply-sync jobs resume orders` \(job_paused\)$/m,
          );

          const unknown = await cli('jobs', 'pause', 'ordres');
          expect(unknown.code).toBe(1);
          expect(unknown.stderr).toContain('no job "ordres" in ');
          expect(unknown.stderr).toContain('(jobs: orders) (unknown_job)');
          expect(
            state()
              .pausedJobs.list()
              .map((job) => job.job),
          ).toEqual(['orders']);

          expect(await cli('jobs', 'resume', 'orders')).toMatchObject({
            code: 0,
            stdout: 'orders resumed\n',
          });
          expect(state().pausedJobs.get('orders')).toBeNull();
          const notPaused = await cli('jobs', 'resume', 'orders');
          expect(notPaused.code).toBe(1);
          expect(notPaused.stderr).toContain('job "orders" is not paused (job_not_paused)');

          const run = await cli('sync', 'orders');
          expect(run.code).toBe(0);
          expect(run.stdout).toMatch(/^orders: ok \(.*\)$/m);
          // The sandbox starts with orders of its own: the ones sent here are among those landed, each once.
          expect(erpOrders().map((row) => row.id)).toEqual(expect.arrayContaining(sent));

          const first = state().deadLetters.add(
            'orders',
            'ord_x1',
            { id: 'ord_x1' },
            'no ERP item for SKU X-1',
          );
          state().deadLetters.add(
            'orders',
            'ord_x2',
            { id: 'ord_x2', missing: { kind: 'SKU', table: 'skus', key: 'X-2', pickup: 'retry' } },
            'no ERP item for SKU X-2',
          );
          const more = await sendOrders(2);
          // The notification's fix, given to the running daemon: only the letter held back for that mapping.
          const byMapping = await cli('dead-letters', 'retry', '--flow', 'orders', '--missing', 'skus:X-2');
          expect(byMapping).toMatchObject({ code: 0, stdout: '1 dead letter queued for retry\n' });
          // (The daemon's runs may already have replayed it: the count is what the command did.)
          expect(state().deadLetters.byId(first.id)?.status).toBe('open');
          const retried = await cli('dead-letters', 'retry', String(first.id));
          expect(retried).toMatchObject({ code: 0, stdout: '1 dead letter queued for retry\n' });
          expect(state().deadLetters.byId(first.id)?.status).toBe('retrying');
          const missing = await cli('dead-letters', 'retry', '999999');
          expect(missing.code).toBe(1);
          expect(missing.stderr).toContain('no dead letter #999999 (dead_letter_not_found)');
          const discarded = await cli('dead-letters', 'discard', '--flow', 'orders');
          expect(discarded).toMatchObject({ code: 0, stdout: '2 dead letters discarded\n' });
          const again = await cli('dead-letters', 'discard', String(first.id));
          expect(again.code).toBe(1);
          expect(again.stderr).toContain(
            `dead letter #${first.id} is discarded: it cannot be discarded any more`,
          );
          // No operator run since these orders were sent: the daemon's webhook runs bring them in while the
          // commands are given.
          await eventually(() => {
            const ids = new Set(erpOrders().map((row) => row.id));
            return more.every((id) => ids.has(id)) ? true : undefined;
          }, 60_000);

          state().cursors.save({
            stream: 'probe',
            watermarkMs: 1,
            passCursor: null,
            passSince: null,
            passMaxMs: null,
          });
          const wrongStream = await cli('cursor', 'reset', 'nope');
          expect(wrongStream.code).toBe(1);
          expect(wrongStream.stderr).toContain('no cursor named "nope"');
          expect(state().cursors.get('probe')).not.toBeNull();
          expect(await cli('cursor', 'reset', 'probe')).toMatchObject({
            code: 0,
            stdout: 'cursor probe reset\n',
          });
          expect(state().cursors.get('probe')).toBeNull();

          const queued = await cli('sync', 'orders', '--no-wait');
          expect(queued.code).toBe(0);
          const id = Number(/command #(\d+)/.exec(queued.stdout)?.[1]);
          const done = await eventually(() => {
            const command = state().commands.get(id);
            return command?.status === 'done' ? command : undefined;
          }, 60_000);
          expect(done).toMatchObject({ kind: 'sync', attempts: 1, result: { job: 'orders', outcome: 'ok' } });
          const landed = erpOrders();
          expect(landed.map((row) => row.id)).toEqual(expect.arrayContaining([...sent, ...more]));
          expect(landed.every((row) => row.n === 1)).toBe(true);

          // The run history, read beside the running daemon.
          const history = await cli('runs', '--job', 'orders', '--since', '1h', '--json');
          expect(history.code).toBe(0);
          const runs = JSON.parse(history.stdout) as Array<{
            trigger: string;
            requestedBy: string;
            outcome: string;
            deadLetters: number | null;
          }>;
          // An operator's run asked for while a webhook run waits to follow the one in progress joins that run, so
          // at least one of the two shows as the operator's.
          const operatorRun = runs.find((run) => run.trigger === 'operator' && run.outcome === 'ok');
          // The run carries the caller of the command that asked for it.
          expect(operatorRun?.requestedBy).toMatch(/^cli:\S+@\S+$/);
          const lines = await cli('runs', '--job', 'orders');
          expect(lines.stdout).toMatch(
            /^#\d+ orders \d{4}-\d\d-\d\d \d\d:\d\d:\d\d operator by cli:\S+@\S+ ok \(\d+\.\d s; /m,
          );
          expect(lines.stdout).toMatch(
            /^#\d+ orders \d{4}-\d\d-\d\d \d\d:\d\d:\d\d webhook ok \(\d+\.\d s; /m,
          );
          expect((await cli('runs', '--failed')).stdout).toBe('no runs\n');
          const badSince = await cli('runs', '--since', 'yesterday');
          expect(badSince.code).toBe(2);
          expect(badSince.stderr).toContain('--since: expected a duration like "24h"');
          const badJob = await cli('runs', '--job', 'ordres');
          expect(badJob.code).toBe(1);
          expect(badJob.stderr).toContain('no job "ordres"');

          // Every command was carried out once: none is left, none was taken twice.
          const commands = state().db.prepare('SELECT status, attempts FROM commands').all() as Array<{
            status: string;
            attempts: number;
          }>;
          expect(commands.length).toBeGreaterThanOrEqual(13);
          expect(
            commands.every((c) => (c.status === 'done' || c.status === 'failed') && c.attempts <= 1),
          ).toBe(true);

          // The daemon kept syncing on its own between the commands: runs it started for the sandbox's webhooks,
          // after the first command was given and before the last.
          const given = state()
            .db.prepare('SELECT MIN(requested_at) AS first, MAX(requested_at) AS last FROM commands')
            .get() as {
            first: number;
            last: number;
          };
          const own = state()
            .runs.recent('orders', 1000)
            .filter(
              (r) =>
                r.trigger === 'webhook' &&
                r.outcome === 'ok' &&
                r.startedAt > given.first &&
                r.endedAt !== null &&
                r.endedAt < given.last,
            );
          expect(own.length).toBeGreaterThanOrEqual(1);
          expect(own.reduce((sum, r) => sum + (r.counts['delivered'] ?? 0), 0)).toBeGreaterThanOrEqual(
            more.length,
          );
        },
      );

      it(
        "holds a paused job's webhook runs and runs them after the resume; readiness stays ready and says paused",
        { timeout: 120_000 },
        async () => {
          const daemon = daemons[0];
          if (daemon === undefined) throw new Error('no daemon');
          // The webhook endpoint was registered by the first test.
          // The ping needs the daemon that answers it: the daemon asks the API for it.
          const pinged = await cli('webhooks', 'test');
          expect(pinged.stderr).toBe('');
          expect(pinged.code).toBe(0);
          expect(pinged.stdout).toMatch(/^ping succeeded: endpoint answered 2\d\d$/m);
          expect(lastCommand('webhooks.test')).toMatchObject({ status: 'done', attempts: 1 });

          const retired = await cli('webhooks', 'retire-secrets');
          expect(retired).toMatchObject({ code: 0, stdout: 'retired 0 older signing secrets\n' });
          const recovered = await cli('webhooks', 'recover', '--dry-run');
          expect(recovered.stderr).toBe('');
          expect(recovered.stdout).toMatch(
            /^\d+ failed deliveries; would redeliver \d+; \d+ already stored$/m,
          );

          expect((await cli('jobs', 'pause', 'orders', '--reason', 'stock count')).code).toBe(0);
          const pausedAt = state().pausedJobs.get('orders')?.pausedAt ?? 0;
          // A webhook run in progress at the pause ends normally; none starts after it.
          await eventually(() => (state().runs.last('orders')?.endedAt === null ? undefined : true), 60_000);
          const sent = await sendOrders(2);
          // The webhooks are stored and their run is held, not started.
          await eventually(
            () => (state().kv.get('held-webhook-runs', 'orders') === undefined ? undefined : true),
            30_000,
          );
          expect(
            state()
              .runs.recent('orders', 100)
              .filter((run) => run.startedAt >= pausedAt),
          ).toEqual([]);
          const landedIds = new Set(erpOrders().map((row) => row.id));
          expect(sent.some((id) => landedIds.has(id))).toBe(false);

          const readyz = await world.readyz(daemon);
          const check = readyz.body.reasons.find((reason) => reason.name === 'orders');
          expect(check).toBeUndefined();
          const checks = (
            readyz.body as unknown as {
              checks: Array<{ name?: string; state: string; ok: boolean; detail?: string }>;
            }
          ).checks;
          expect(checks.find((c) => c.name === 'orders')).toMatchObject({
            ok: true,
            state: 'paused',
            detail: expect.stringMatching(
              /^paused since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ by cli:\S+: stock count$/,
            ),
          });
          const metrics = await world.metrics(daemon);
          expect(sample(metrics, 'supply_sync_job_paused{sync_job="orders"}')).toBe(1);
          expect(sample(metrics, 'supply_sync_job_paused_since_timestamp_seconds{sync_job="orders"}')).toBe(
            pausedAt / 1000,
          );
          const status = (await (
            await fetch(`${daemon.opsUrl}/status`, { headers: { accept: 'application/json' } })
          ).json()) as {
            jobs: Array<{ name: string; paused: { by: string; reason: string | null } | null }>;
          };
          expect(status.jobs.find((job) => job.name === 'orders')?.paused).toMatchObject({
            reason: 'stock count',
          });

          expect((await cli('jobs', 'resume', 'orders')).code).toBe(0);
          await eventually(() => {
            const ids = new Set(erpOrders().map((row) => row.id));
            return sent.every((id) => ids.has(id)) ? true : undefined;
          }, 60_000);
          expect(
            state()
              .runs.recent('orders', 100)
              .filter((run) => run.startedAt >= pausedAt)[0]?.trigger,
          ).toBe('webhook');
          expect(sample(await world.metrics(daemon), 'supply_sync_job_paused{sync_job="orders"}')).toBe(0);
        },
      );

      it(
        'removes listed products through the daemon, which checks its own state',
        { timeout: 60_000 },
        async () => {
          const api = createApiClient({
            baseUrl: world.sandbox.baseUrl,
            apiKey: world.sandbox.keys.supplier,
          });
          try {
            const product = (sku: string) => ({ sku, name: `Old ${sku}`, unit: 'unit' });
            await api.catalog.upsertProducts(['OLD-Q1', 'SYNCED-Q2'].map(product));
          } finally {
            await api.close();
          }
          state().hashes.setMany('catalog:products', [['SYNCED-Q2', 'h1']]);
          const skusFile = join(world.dir, `skus-${backend.name.length}.txt`);
          await writeFile(skusFile, 'OLD-Q1\nGONE-Q9\nSYNCED-Q2\n');
          const removed = await cli('catalog', 'remove', '--skus-file', skusFile);
          expect(removed.stderr).toBe('');
          expect(removed).toMatchObject({
            code: 0,
            stdout:
              'deleted       OLD-Q1\n' +
              'already gone  GONE-Q9 (404: no live product with this SKU)\n' +
              'skipped       SYNCED-Q2 (job catalog synced it: the daemon deletes it when the ERP drops it)\n' +
              'deleted 1, already gone 1, skipped 1, failed 0\n',
          });
          expect(lastCommand('catalog.remove')).toMatchObject({ status: 'done', attempts: 1 });
          const products = (await world.sandbox.control.state())['products'] as Record<
            string,
            { deleted_at: string | null }
          >;
          expect(products['OLD-Q1']?.deleted_at).not.toBeNull();
          expect(products['SYNCED-Q2']?.deleted_at).toBeNull();
        },
      );

      it(
        'gives a removal without the state check to the daemon as well, which then deletes synced SKUs too',
        { timeout: 60_000 },
        async () => {
          const api = createApiClient({
            baseUrl: world.sandbox.baseUrl,
            apiKey: world.sandbox.keys.supplier,
          });
          try {
            await api.catalog.upsertProducts([{ sku: 'SYNCED-Q3', name: 'Old SYNCED-Q3', unit: 'unit' }]);
          } finally {
            await api.close();
          }
          // On PostgreSQL the first daemon's state takes the write once that daemon leads.
          await eventually(() => {
            try {
              state().hashes.setMany('catalog:products', [['SYNCED-Q3', 'h3']]);
              return true;
            } catch (error) {
              if (error instanceof Error && error.name === 'LeadershipLostError') return undefined;
              throw error;
            }
          }, 30_000);
          const before = lastCommand('catalog.remove')?.id ?? 0;
          const skusFile = join(world.dir, 'skus-unchecked.txt');
          await writeFile(skusFile, 'SYNCED-Q3\n');
          const removed = await cli('catalog', 'remove', '--skus-file', skusFile, '--no-state-check');
          expect(removed.stderr).toBe('');
          expect(removed.code).toBe(0);
          expect(removed.stdout.split('\n')).toEqual([
            expect.stringMatching(/^state check off \(--no-state-check\): SKUs the daemon synced/),
            'deleted       SYNCED-Q3',
            'deleted 1, already gone 0, skipped 0, failed 0',
            '',
          ]);
          // Queued for the daemon that holds the state, not sent around it.
          const command = lastCommand('catalog.remove');
          expect(command?.id).toBeGreaterThan(before);
          expect(command).toMatchObject({
            status: 'done',
            attempts: 1,
            args: { skus: ['SYNCED-Q3'], stateCheck: false },
          });
          const products = (await world.sandbox.control.state())['products'] as Record<
            string,
            { deleted_at: string | null }
          >;
          expect(products['SYNCED-Q3']?.deleted_at).not.toBeNull();
        },
      );

      it(
        'refuses a command given with another config, and changes nothing',
        { timeout: 60_000 },
        async () => {
          const other = join(world.dir, 'other-site.yaml');
          await copyFile(configFile, other);
          const config = JSON.parse(await readFile(other, 'utf8')) as { jobs: Record<string, unknown> };
          config.jobs['invoices'] = { ...JOBS.jobs.orders };
          await writeFile(other, JSON.stringify(config));
          const refused = await runCli(['jobs', 'pause', 'orders', '--config', other]);
          expect(refused.code).toBe(1);
          expect(refused.stderr).toMatch(
            /was given with another config \(fingerprint \w+\) .*\(config_mismatch\)/,
          );
          expect(state().pausedJobs.get('orders')).toBeNull();
        },
      );
    },
  );
}
