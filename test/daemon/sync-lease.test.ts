/**
 * `sync <job>` on a PostgreSQL state takes part in the leader election: refused (one line, naming the leader) while
 * a real daemon leads; when none leads it takes the lease, runs the job with fenced writes and releases the lease.
 * PostgreSQL itself is the oracle for the lease row.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withStateChange } from '../../src/cli/state-access.js';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runJobOnce } from '../../src/daemon/index.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from '../ha/support/postgres.js';
import { openHealthWorld, type HealthWorld } from './health-support.js';

const probe = await postgresProbe();

const JOBS = {
  connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
  jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '*/5 * * * *', freshness: '15m' } },
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

describe.skipIf(!probe.available)(
  `sync <job> and the leadership lease${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let world: HealthWorld;
    const databases: TempDatabase[] = [];

    beforeAll(async () => {
      world = await openHealthWorld();
    });
    afterAll(async () => {
      await world?.close();
      for (const database of databases) await database.drop();
    });

    async function syncConfig(url: string, name: string, api?: Record<string, unknown>): Promise<string> {
      const file = join(world.dir, `${name}.yaml`);
      const config = {
        api: api ?? { base_url: world.sandbox.baseUrl, api_key: world.sandbox.keys.supplier },
        state: { path: `${name}/daemon.db`, url },
        // A lease long enough that a loaded machine's late renewals neither cost the daemon its lead nor fence the
        // CLI's own run; nothing here waits for a lease to run out.
        ha: { instance: name, lease: '10s', poll_interval: '200ms' },
        log: { level: 'fatal' },
        ...JOBS,
      };
      await writeFile(file, JSON.stringify(config, null, 2));
      return file;
    }

    it('refuses while a daemon leads, naming the leader, and writes nothing', async () => {
      const database = await createTempDatabase();
      databases.push(database);
      await world.start({
        state: { url: database.url },
        ha: { instance: 'daemon-a', lease: '10s', poll_interval: '200ms' },
        ...JOBS,
      });
      // The daemon leads once its lease row says so: the CLI is given the command only then.
      for (let polls = 0; ; polls += 1) {
        const holders = await withClient(
          database.url,
          async (client) =>
            (
              await client.query<{ holder: string }>(
                'SELECT holder FROM supply_sync_leader WHERE expires_at > now()',
              )
            ).rows,
        ).catch(() => []);
        if (holders.some((row) => row.holder === 'daemon-a')) break;
        if (polls > 600) throw new Error('daemon-a never took the lease');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const registry = buildPluginRegistry();
      const file = await syncConfig(database.url, 'cli-refused');
      const refused = runJobOnce({
        loaded: loadConfig(file, { registry }),
        registry,
        job: 'orders',
      });
      await expect(refused).rejects.toMatchObject({
        code: 'leader_elsewhere',
        message: expect.stringMatching(
          /^sync orders: refused: instance "daemon-a" leads .*stop the daemons first[^\n]*$/,
        ),
      });
      const lease = await withClient(
        database.url,
        async (client) =>
          (
            await client.query<{ holder: string; live: boolean }>(
              'SELECT holder, expires_at > now() AS live FROM supply_sync_leader',
            )
          ).rows,
      );
      expect(lease).toEqual([{ holder: 'daemon-a', live: true }]);
      const runs = await withClient(
        database.url,
        async (client) =>
          (
            await client.query<{ count: string }>(
              "SELECT count(*)::text AS count FROM runs WHERE trigger = 'cli'",
            )
          ).rows,
      );
      expect(runs).toEqual([{ count: '0' }]);

      // Refused before it opens anything else: beside a leader frozen inside a write to a file the two share (the
      // embedded sandbox's), opening it first failed the command with "database is locked" instead of queueing it.
      const embedded = await syncConfig(database.url, 'cli-embedded', { sandbox: 'embedded' });
      const refusedFirst = runJobOnce({
        loaded: loadConfig(embedded, { registry }),
        registry,
        job: 'orders',
      });
      await expect(refusedFirst).rejects.toMatchObject({ code: 'leader_elsewhere' });
      expect(existsSync(join(world.dir, 'cli-embedded/sandbox.db'))).toBe(false);

      // A writing CLI command (cursor reset) is refused the same way, before it touches the state.
      let touched = false;
      const reset = withStateChange(loadConfig(file, { registry }).config, 'cursor reset', () => {
        touched = true;
      });
      await expect(reset).rejects.toMatchObject({
        code: 'leader_elsewhere',
        message: expect.stringMatching(/^cursor reset: refused: instance "daemon-a" leads/),
      });
      expect(touched).toBe(false);
    });

    it('takes the lease when none leads, runs the job and releases the lease at the end', async () => {
      const database = await createTempDatabase();
      databases.push(database);
      const registry = buildPluginRegistry();
      const file = await syncConfig(database.url, 'cli-alone');
      const result = await runJobOnce({
        loaded: loadConfig(file, { registry }),
        registry,
        job: 'orders',
      });
      expect(result.outcome).toBe('ok');
      const lease = await withClient(
        database.url,
        async (client) =>
          (
            await client.query<{ holder: string; live: boolean; command: string }>(
              "SELECT holder, expires_at > now() AS live, holder_info->>'command' AS command FROM supply_sync_leader",
            )
          ).rows,
      );
      expect(lease).toEqual([{ holder: 'cli-alone', live: false, command: 'sync orders' }]);

      // With the embedded sandbox, kept beside state.path, whose folder only a state file would have created.
      const embedded = await syncConfig(database.url, 'cli-embedded-alone', { sandbox: 'embedded' });
      const demo = await runJobOnce({ loaded: loadConfig(embedded, { registry }), registry, job: 'orders' });
      expect(demo.outcome).toBe('ok');
      expect(existsSync(join(world.dir, 'cli-embedded-alone/sandbox.db'))).toBe(true);
    });
  },
);
