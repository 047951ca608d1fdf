/**
 * CLI commands that write to the API take the leadership fence on a PostgreSQL state (the CLI in a child process,
 * the sandbox over HTTP, a real database): while an instance holds a live lease, `catalog remove` and
 * `webhooks register` are refused, naming the leader, and nothing reaches the API; once the lease has run out they
 * take it for their writes (a new term in the lease row) and release it at the end.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/client/index.js';
import { CREATE_LEASE_TABLE_SQL } from '../../src/ha/index.js';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openPgStateStore } from '../../src/state/index.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from '../ha/support/postgres.js';
import { runCli } from './run-cli.js';

const probe = await postgresProbe();
type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

describe.skipIf(!probe.available)(
  `CLI API writes under the leadership fence${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let sandbox: Sandbox;
    let database: TempDatabase;
    let api: ApiClient;
    const dir = mkdtempSync(join(tmpdir(), 'supply-sync-cli-fence-'));
    const configFile = join(dir, 'supply-sync.yaml');
    const skusFile = join(dir, 'skus.txt');

    const lease = () =>
      withClient(database.url, async (client) => {
        const { rows } = await client.query<{ epoch: string; holder: string; live: boolean }>(
          'SELECT epoch::text AS epoch, holder, expires_at > now() AS live FROM supply_sync_leader WHERE id = 1',
        );
        return rows[0];
      });

    beforeAll(async () => {
      sandbox = await startSandbox({ createDomain });
      database = await createTempDatabase();
      api = createApiClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.supplier });
      await api.catalog.upsertProducts([{ sku: 'OLD-1', name: 'Old 1', unit: 'unit' }]);
      openPgStateStore({ url: database.url, clock: systemClock }).close(); // the schema, as a daemon leaves it
      await withClient(database.url, async (client) => {
        for (const sql of CREATE_LEASE_TABLE_SQL) await client.query(sql);
        await client.query(
          `INSERT INTO supply_sync_leader VALUES (1, 7, 'sync-a', 'p', '{}', now(), now(), now() + interval '1 hour')`,
        );
      });
      writeFileSync(
        configFile,
        [
          'api:',
          `  base_url: ${sandbox.baseUrl}`,
          `  api_key: ${sandbox.keys.supplier}`,
          'state:',
          `  url: ${database.url}`,
          'ha:',
          '  instance: cli-fence',
          '',
        ].join('\n'),
      );
      writeFileSync(skusFile, 'OLD-1\n');
    }, 60_000);

    afterAll(async () => {
      await api?.close();
      await sandbox?.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const deletedAt = async (sku: string) =>
      ((await sandbox.control.state())['products'] as Record<string, { deleted_at: string | null }>)[sku]
        ?.deleted_at;
    const webhookCount = async () => (await api.webhooks.list()).items.length;
    const register = () =>
      runCli([
        'webhooks',
        'register',
        '--url',
        'https://sync.example.com/webhooks',
        '--events',
        'order.created',
        '--config',
        configFile,
      ]);

    it('refuses while an instance leads, and sends nothing', { timeout: 90_000 }, async () => {
      const removed = await runCli(['catalog', 'remove', '--skus-file', skusFile, '--config', configFile]);
      expect(removed.code).not.toBe(0);
      expect(removed.stderr).toContain('catalog remove: refused: instance "sync-a" leads');
      expect(await deletedAt('OLD-1')).toBeNull();

      const registered = await register();
      expect(registered.code).not.toBe(0);
      expect(registered.stderr).toContain('webhooks register: refused: instance "sync-a" leads');
      expect(await webhookCount()).toBe(0);
      expect(await lease()).toMatchObject({ epoch: '7', holder: 'sync-a', live: true });
    });

    it('takes the lease for its writes once it ran out, and releases it', { timeout: 90_000 }, async () => {
      await withClient(database.url, (client) =>
        client.query('UPDATE supply_sync_leader SET expires_at = now()'),
      );
      const removed = await runCli(['catalog', 'remove', '--skus-file', skusFile, '--config', configFile]);
      expect(removed.stderr).toBe('');
      expect(removed.code).toBe(0);
      expect(await deletedAt('OLD-1')).not.toBeNull();
      expect(await lease()).toMatchObject({ epoch: '8', holder: 'cli-fence', live: false });

      const registered = await register();
      expect(registered.code).toBe(0);
      expect(await webhookCount()).toBe(1);
      expect(await lease()).toMatchObject({ epoch: '9', holder: 'cli-fence', live: false });
    });
  },
);
