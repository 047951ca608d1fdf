/**
 * CLI commands that write to the API take the leadership fence on a PostgreSQL state (the CLI in a child process,
 * the sandbox over HTTP, a real database): while an instance holds a live lease, `catalog remove` and `webhooks
 * register` are queued in the shared state for the leader to carry out; nothing reaches the API from the CLI. Once the lease has run out they take it for their writes (a new term in the lease row) and
 * release it at the end.
 */
import { spawn } from 'node:child_process';
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
import { compiledEntry } from '../support/compiled-entry.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from '../ha/support/postgres.js';
import { runCli, type CliResult } from './run-cli.js';

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

    const queuedCommands = () =>
      withClient(database.url, async (client) => {
        const { rows } = await client.query<{ kind: string; status: string }>(
          'SELECT kind, status FROM commands ORDER BY id',
        );
        return rows;
      });

    /** A command while sync-a leads: waits for the leader; interrupted (Ctrl-C) once its row is queued. */
    const untilQueued = (args: readonly string[]) =>
      new Promise<{ queued: Array<{ kind: string; status: string }>; result: CliResult }>(
        (resolve, reject) => {
          const child = spawn(
            process.execPath,
            [
              compiledEntry(join(import.meta.dirname, '../../src/cli/main.ts')),
              ...args,
              '--config',
              configFile,
            ],
            {
              env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
              stdio: ['ignore', 'pipe', 'pipe'],
            },
          );
          let stdout = '';
          let stderr = '';
          let queued: Array<{ kind: string; status: string }> = [];
          child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.on('error', reject);
          child.on('close', (code) => resolve({ queued, result: { code, stdout, stderr } }));
          const watch = async (): Promise<void> => {
            for (let round = 0; round < 600 && child.exitCode === null; round++) {
              queued = await queuedCommands();
              if (queued.length > 0) {
                child.kill('SIGINT');
                return;
              }
              await new Promise((next) => setTimeout(next, 50));
            }
            child.kill('SIGKILL');
          };
          watch().catch(reject);
        },
      );

    it('queues for the leader while an instance leads, and sends nothing', { timeout: 90_000 }, async () => {
      const removed = await untilQueued(['catalog', 'remove', '--skus-file', skusFile]);
      expect(removed.queued).toEqual([{ kind: 'catalog.remove', status: 'pending' }]);
      expect(removed.result.code).not.toBe(0);
      expect(removed.result.stderr).toMatch(/stopped waiting: command #\d+ stays queued/);
      expect(await deletedAt('OLD-1')).toBeNull();
      await withClient(database.url, (client) => client.query('DELETE FROM commands'));

      const registered = await untilQueued([
        'webhooks',
        'register',
        '--url',
        'https://sync.example.com/webhooks',
        '--events',
        'order.created',
      ]);
      expect(registered.queued).toEqual([{ kind: 'webhooks.register', status: 'pending' }]);
      expect(registered.result.code).not.toBe(0);
      expect(registered.result.stderr).toMatch(/stopped waiting: command #\d+ stays queued/);
      expect(await webhookCount()).toBe(0);
      expect(await lease()).toMatchObject({ epoch: '7', holder: 'sync-a', live: true });
      await withClient(database.url, (client) => client.query('DELETE FROM commands'));
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
