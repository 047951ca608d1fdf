/**
 * A config reload without a stop: an order dead-lettered for a SKU without a mapping reaches the ERP once the
 * mapping is added to the file, reloaded (`supply-sync config reload`, the control API, SIGHUP) and the dead letter
 * retried, with the daemon running throughout. A retry given before the reload is refused: it would run with the
 * old mappings. A reload of a file with another change (a connection) is refused naming the key, one of an invalid
 * file with the file, key and what was expected; neither changes anything. Each reload is kept in the commands
 * table with who asked for it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { sandboxControl } from '../../src/sandbox/harness/client.js';
import { openStateStore } from '../../src/state/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { killAndWait, spawnCli } from '../crash/harness/child.js';
import { runCli } from '../cli/run-cli.js';
import { createTempDatabase, postgresProbe } from '../ha/support/postgres.js';
import { eventually, openHealthWorld, type HealthWorld } from './health-support.js';

const TOKEN = 'ops-token-for-the-config-reload-test';
const BRANCHES = {
  br_tlv: 'TLV01',
  br_hrz: 'HRZ02',
  br_jlm: 'JLM03',
  br_hfa: 'HFA04',
  br_bsh: 'BSH05',
  br_rnn: 'RNN06',
};
const CONFIG = {
  server: { port: 0, auth: { token: TOKEN, role: 'operator' } },
  connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
  // The schedule never fires during the test: every run is one the test asks for.
  jobs: {
    orders: {
      flow: 'orders',
      connector: 'erp',
      schedule: '0 3 1 1 *',
      options: { unmapped_item: 'dead_letter' },
    },
  },
  mappings: { branches: BRANCHES },
};

type ConfigFile = typeof CONFIG & Record<string, unknown>;

describe('config reload on a running daemon', () => {
  let world: HealthWorld;
  let daemon: Daemon;
  let configFile: string;

  beforeAll(async () => {
    world = await openHealthWorld({ allowHttpWebhooks: true });
    daemon = await world.start(CONFIG);
    configFile = join(world.dir, 'supply-sync-0.yaml');
  }, 60_000);
  afterAll(async () => world?.close());

  const cli = (...args: string[]) => runCli([...args, '--config', configFile]);
  const readConfig = async (): Promise<ConfigFile> =>
    JSON.parse(await readFile(configFile, 'utf8')) as ConfigFile;
  const writeConfig = (config: unknown) => writeFile(configFile, JSON.stringify(config, null, 2));
  const erpOrderIds = (): string[] => {
    const db = new Database(join(world.dir, 'erp', 'demo-erp.sqlite'), { readonly: true });
    try {
      const rows = db
        .prepare('SELECT DISTINCT API_ORDER_ID AS id FROM ORDERS WHERE API_ORDER_ID IS NOT NULL')
        .all() as Array<{ id: string }>;
      return rows.map((row) => row.id);
    } finally {
      db.close();
    }
  };
  const reloads = () =>
    (
      daemon.env.state.db
        .prepare("SELECT id FROM commands WHERE kind = 'config.reload' ORDER BY id")
        .all() as Array<{ id: number }>
    ).map((row) => daemon.env.state.commands.get(row.id));

  it(
    'replays an order dead-lettered for a missing SKU mapping once the mapping is reloaded, without a stop',
    { timeout: 120_000 },
    async () => {
      const control = sandboxControl(world.sandbox.controlUrl);
      const [orderId] = ((await control.action('buyer_send_order', { count: 1 })) as { order_ids: string[] })
        .order_ids;
      if (orderId === undefined) throw new Error('the sandbox sent no order');
      // No SKU is mapped yet: every order of the run goes to a dead letter.
      expect((await cli('sync', 'orders')).stderr).toMatch(
        /orders failed: delivered nothing: all \d+ orders held back/,
      );
      const letter = daemon.env.state.deadLetters
        .list({ flow: 'orders' })
        .find((entry) => entry.recordKey.includes(orderId));
      if (letter === undefined) throw new Error(`order ${orderId} was not dead-lettered`);
      const skus = [...letter.reason.matchAll(/no ERP item for SKU (\S+) /g)].map((match) => match[1] ?? '');
      expect(skus.length).toBeGreaterThan(0);
      expect(erpOrderIds()).not.toContain(orderId);

      // The supplier's IT person adds the mappings to the file; the daemon still runs with the old ones.
      const config = await readConfig();
      await writeConfig({
        ...config,
        mappings: { ...config.mappings, skus: Object.fromEntries(skus.map((sku) => [sku, sku])) },
      });
      const early = await cli('dead-letters', 'retry', String(letter.id));
      expect(early.code).toBe(1);
      expect(early.stderr).toContain(
        `the running daemon's mappings differ from ${configFile}: run ` +
          `\`supply-sync --config ${configFile} config reload\` first, then this command again (nothing was done); ` +
          'if the reload is refused for a change that only a restart takes, restart the daemon or undo that change',
      );
      expect(early.stderr).toContain('(mappings_differ)');
      expect(daemon.env.state.deadLetters.byId(letter.id)?.status).toBe('open');

      const reloaded = await cli('config', 'reload');
      expect(reloaded.stderr).toBe('');
      expect(reloaded).toMatchObject({
        code: 0,
        stdout: `config reloaded from ${configFile}: mappings skus changed; the jobs use them from their next run\n`,
      });
      expect(daemon.env.mappings.current()['skus']).toEqual(Object.fromEntries(skus.map((s) => [s, s])));

      expect(await cli('dead-letters', 'retry', String(letter.id))).toMatchObject({
        code: 0,
        stdout: '1 dead letter queued for retry\n',
      });
      const run = await cli('sync', 'orders');
      expect(run.stdout).toMatch(/^orders: /m);
      expect(erpOrderIds()).toContain(orderId);
      expect(daemon.env.state.deadLetters.byId(letter.id)?.status).not.toBe('open');
      expect(daemon.env.state.deadLetters.byId(letter.id)?.status).not.toBe('retrying');

      // A second reload of the same file changes nothing and says so.
      const again = await cli('config', 'reload', '--json');
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ file: configFile, changed: [] });
      const recorded = reloads();
      expect(recorded.map((command) => command?.status)).toEqual(['done', 'done']);
      expect(recorded[0]).toMatchObject({
        requestedBy: expect.stringMatching(/^cli:.+@.+$/),
        result: { changed: ['skus'] },
      });
      expect(
        world.logs.some(
          (line) => line.msg.startsWith('config reloaded: mappings skus changed') && line['by'] !== undefined,
        ),
      ).toBe(true);
    },
  );

  it(
    'carries out commands whose outcome does not depend on the mappings before the edit is reloaded',
    { timeout: 60_000 },
    async () => {
      const original = await readConfig();
      await writeConfig({ ...original, mappings: { ...original.mappings, extra: { A: 'B' } } });
      try {
        const paused = await cli('jobs', 'pause', 'orders', '--reason', 'edit under way');
        expect(paused.stderr).toBe('');
        expect(paused.code).toBe(0);
        expect(daemon.env.state.pausedJobs.get('orders')).not.toBeNull();
        expect((await cli('jobs', 'resume', 'orders')).code).toBe(0);
        expect(daemon.env.state.pausedJobs.get('orders')).toBeNull();
        // A run now would run with the daemon's older mappings: refused until the reload.
        const run = await cli('sync', 'orders');
        expect(run.code).toBe(1);
        expect(run.stderr).toContain('(mappings_differ)');
      } finally {
        await writeConfig(original);
      }
    },
  );

  it('refuses a reload with a changed API key, naming the key and never its old or new value', async () => {
    const before = daemon.env.mappings.current();
    const original = await readConfig();
    const rotated = 'svc_test_rotated-key-that-must-never-be-printed-7f3a';
    const api = (original as unknown as { api: Record<string, unknown> }).api;
    await writeConfig({ ...original, api: { ...api, api_key: rotated } });
    try {
      const refused = await cli('config', 'reload');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('api.api_key changed');
      expect(refused.stderr).toContain('(restart_needed)');
      const viaApi = await fetch(`${daemon.opsUrl}/config/reload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(viaApi.status).toBe(409);
      const answer = await viaApi.text();
      for (const printed of [refused.stdout, refused.stderr, answer, JSON.stringify(reloads())]) {
        expect(printed).not.toContain(rotated);
        expect(printed).not.toContain(String(api['api_key']));
      }
      expect(daemon.env.mappings.current()).toBe(before);
    } finally {
      await writeConfig(original);
    }
  }, 60_000);

  it(
    'refuses a reload with a changed connection, naming the key, and changes nothing',
    { timeout: 60_000 },
    async () => {
      const before = daemon.env.mappings.current();
      const original = await readConfig();
      await writeConfig({
        ...original,
        connectors: { erp: { ...original.connectors.erp, data_dir: 'erp-elsewhere' } },
        mappings: { ...original.mappings, skus: { ...original.mappings['skus' as 'branches'], NEW: 'N-1' } },
      });
      try {
        const refused = await cli('config', 'reload');
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('connectors.erp.data_dir changed, which a reload cannot apply');
        expect(refused.stderr).toContain('restart the daemon');
        expect(refused.stderr).toContain('(restart_needed)');
        expect(refused.stderr).not.toContain('erp-elsewhere');
        expect(daemon.env.mappings.current()).toBe(before);

        const viaApi = await fetch(`${daemon.opsUrl}/config/reload`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: '{}',
        });
        expect(viaApi.status).toBe(409);
        expect(await viaApi.json()).toMatchObject({
          error: 'restart_needed',
          detail: expect.stringContaining('connectors.erp.data_dir'),
        });
        expect(daemon.env.mappings.current()).toBe(before);
        expect(reloads().at(-1)).toMatchObject({
          status: 'failed',
          errorCode: 'restart_needed',
          requestedBy: expect.stringMatching(/^api:/),
        });
      } finally {
        await writeConfig(original);
      }
    },
  );

  it('refuses an invalid file with its file, key and what was expected, and keeps the config', async () => {
    const before = daemon.env.mappings.current();
    const original = await readConfig();
    await writeConfig({ ...original, mappings: { ...original.mappings, skus: ['not', 'a', 'table'] } });
    try {
      const refused = await cli('config', 'reload');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${configFile}`);
      expect(refused.stderr).toContain('mappings.skus');
      expect(refused.stderr).toContain('config is invalid (config_invalid)');

      // The daemon's own check, as SIGHUP and the control API reach it.
      const outcome = daemon.reloadConfig('signal:SIGHUP');
      expect(outcome.ok).toBe(false);
      if (outcome.ok) return;
      expect(outcome.error.code).toBe('config_invalid');
      expect(outcome.error.message).toContain(configFile);
      expect(outcome.error.message).toContain('mappings.skus');
      expect(outcome.error.message).toContain('the daemon keeps running with the config it has');
      expect(daemon.env.mappings.current()).toBe(before);
      expect(reloads().at(-1)).toMatchObject({
        status: 'failed',
        errorCode: 'config_invalid',
        requestedBy: 'signal:SIGHUP',
      });
      const viaApi = await fetch(`${daemon.opsUrl}/config/reload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(viaApi.status).toBe(422);
      expect(daemon.env.mappings.current()).toBe(before);
    } finally {
      await writeConfig(original);
    }
  });

  it('says there is nothing to reload when no daemon runs', async () => {
    const config = { ...(await readConfig()), state: { path: 'no-daemon/daemon.db' } };
    const file = join(world.dir, 'no-daemon.yaml');
    await writeFile(file, JSON.stringify(config));
    expect(await runCli(['config', 'reload', '--config', file])).toMatchObject({
      code: 0,
      stdout: `no daemon is running: ${file} is valid, and the daemon reads it when it starts\n`,
    });
  });

  it('reloads on SIGHUP to the daemon process, which keeps running', { timeout: 90_000 }, async () => {
    const config = {
      ...(await readConfig()),
      server: { port: 0 },
      state: { path: 'sighup/daemon.db' },
      log: { level: 'warn' },
    };
    const file = join(world.dir, 'sighup.yaml');
    await writeFile(file, JSON.stringify(config));
    const child = spawnCli(['run', '--no-catch-up', '--config', file]);
    try {
      expect(await child.ready).not.toBeNull();
      await writeFile(
        file,
        JSON.stringify({ ...config, mappings: { ...config.mappings, skus: { 'SKU-HUP': 'ITEM-HUP' } } }),
      );
      child.kill('SIGHUP');
      const state = openStateStore({
        file: join(world.dir, 'sighup', 'daemon.db'),
        clock: systemClock,
        readOnly: true,
      });
      try {
        const recorded = await eventually(() => {
          const row = state.db.prepare("SELECT id FROM commands WHERE kind = 'config.reload'").get() as
            { id: number } | undefined;
          return row === undefined ? undefined : state.commands.get(row.id);
        }, 30_000);
        expect(recorded).toMatchObject({
          status: 'done',
          requestedBy: 'signal:SIGHUP',
          result: { changed: ['skus'] },
        });
      } finally {
        state.close();
      }
      expect(child.isRunning()).toBe(true);
    } finally {
      await killAndWait(child);
    }
  });
});

describe('a reload checked against the jobs as a start checks them', () => {
  let world: HealthWorld;
  let daemon: Daemon;
  let configFile: string;
  const BOOKS = {
    server: { port: 0, auth: { token: TOKEN, role: 'operator' } },
    connectors: { books: { type: 'csv', output_dir: 'books' } },
    jobs: {
      ledger: {
        flow: 'journal-export',
        connector: 'books',
        schedule: '0 3 1 1 *',
        options: { mappings: { accounts: 'gl' } },
      },
    },
    mappings: { gl: { '5120': '1000' } },
  };

  beforeAll(async () => {
    world = await openHealthWorld();
    await mkdir(join(world.dir, 'books'), { recursive: true });
    daemon = await world.start(BOOKS);
    configFile = join(world.dir, 'supply-sync-0.yaml');
  }, 60_000);
  afterAll(async () => world?.close());

  const cli = (...args: string[]) => runCli([...args, '--config', configFile]);
  const rewrite = async (mappings: Record<string, Record<string, string>>) => {
    const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    await writeFile(configFile, JSON.stringify({ ...config, mappings }, null, 2));
  };

  it(
    'refuses a reload that removes a table a job names, naming the job and the table',
    { timeout: 60_000 },
    async () => {
      const before = daemon.env.mappings.current();
      await rewrite({ ledger_accounts: { '5120': '1000' } });
      const refused = await cli('config', 'reload');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        'job "ledger" (flow journal-export): options.mappings.accounts names the mapping table "gl", which is ' +
          'not under mappings:',
      );
      expect(refused.stderr).toContain('nothing was reloaded');
      expect(daemon.env.mappings.current()).toBe(before);

      const signalled = daemon.reloadConfig('signal:SIGHUP');
      expect(signalled.ok).toBe(false);
      if (!signalled.ok) expect(signalled.error.message).toContain('"gl"');
      expect(daemon.env.mappings.current()).toBe(before);

      // A change that keeps the table goes through.
      await rewrite({ gl: { '5120': '1000', '5130': '1010' } });
      const reloaded = await cli('config', 'reload');
      expect(reloaded.stderr).toBe('');
      expect(reloaded.code).toBe(0);
      expect(daemon.env.mappings.current()['gl']).toEqual({ '5120': '1000', '5130': '1010' });
    },
  );
});

const probe = await postgresProbe();

describe.skipIf(!probe.available)(
  `a failover on a PostgreSQL state with two instances${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    it(
      'the instance that takes over reads its file again: a reload given to the old leader is not lost',
      { timeout: 120_000 },
      async () => {
        const database = await createTempDatabase();
        const world = await openHealthWorld();
        try {
          const ha = (instance: string) => ({ instance, lease: '2s', poll_interval: '200ms' });
          const daemons = [
            await world.start({ ...CONFIG, state: { path: 'a/daemon.db', url: database.url }, ha: ha('a') }),
            await world.start({ ...CONFIG, state: { path: 'b/daemon.db', url: database.url }, ha: ha('b') }),
          ];
          const files = [0, 1].map((n) => join(world.dir, `supply-sync-${n}.yaml`));
          // The operator adds a mapping table to the file on both hosts and reloads: the leader applies it.
          for (const file of files) {
            const config = JSON.parse(await readFile(file, 'utf8')) as ConfigFile;
            const mappings = { ...config.mappings, skus: { 'SKU-F': 'ITEM-F' } };
            await writeFile(file, JSON.stringify({ ...config, mappings }, null, 2));
          }
          const reloaded = await runCli(['config', 'reload', '--config', files[0] ?? '']);
          expect(reloaded.stderr).toBe('');
          expect(reloaded.code).toBe(0);
          const leader = daemons.find((d) => d.env.mappings.current()['skus'] !== undefined);
          const standby = daemons.find((d) => d !== leader);
          if (leader === undefined || standby === undefined) throw new Error('no leader applied the reload');
          expect(standby.env.mappings.current()['skus']).toBeUndefined();

          await leader.stop(10_000);
          // The standby wins the next term and reads its file before its jobs start.
          await eventually(() => standby.env.mappings.current()['skus'], 30_000);
          expect(standby.env.mappings.current()['skus']).toEqual({ 'SKU-F': 'ITEM-F' });
          const rows = standby.env.state.db
            .prepare("SELECT id FROM commands WHERE kind = 'config.reload' ORDER BY id")
            .all() as Array<{ id: number }>;
          const recorded = rows.map((row) => standby.env.state.commands.get(row.id));
          expect(recorded.at(-1)).toMatchObject({
            status: 'done',
            requestedBy: 'leadership',
            result: { changed: ['skus'] },
          });
          expect(
            world.logs.some((line) => line.msg.startsWith('config reloaded: mappings skus changed')),
          ).toBe(true);
        } finally {
          await world.close();
          await database.drop();
        }
      },
    );
  },
);
