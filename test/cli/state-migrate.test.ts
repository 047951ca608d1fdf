/**
 * `supply-sync state migrate --to postgres://...` end to end: the CLI as a user runs it, a real SQLite state file,
 * a real PostgreSQL database. What arrives is read back through the PostgreSQL state store.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgStateStore, openStateStore } from '../../src/state/index.js';
import { PgScratchDatabases, probePostgres } from '../state/backends.js';
import { FakeClock } from '../state/support.js';
import { runCli, STACK_LINE } from './run-cli.js';

const PASSWORD = 'migrate-pw-5b1e0c77';
const skipReason = await probePostgres();
const title = 'supply-sync state migrate';

/** The server trusts local connections, so the password is accepted unchecked; it must still never be printed. */
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

describe.skipIf(skipReason !== null)(
  skipReason === null ? title : `${title} (skipped: ${skipReason})`,
  () => {
    const scratch = new PgScratchDatabases();
    const dir = mkdtempSync(join(tmpdir(), 'supply-sync-state-migrate-'));
    const configFile = join(dir, 'supply-sync.yaml');
    const stateFile = join(dir, 'state.db');
    const clock = new FakeClock();
    let ids: { outbox: number; deadLetter: number; run: number };

    beforeAll(() => {
      writeFileSync(configFile, ['api:', '  sandbox: embedded', 'state:', '  path: state.db', ''].join('\n'));
      const state = openStateStore({ file: stateFile, clock });
      try {
        state.inbox.insertMany([
          { eventId: 'evt_1', type: 'order.created', payload: Uint8Array.from([0, 1, 254, 255]) },
        ]);
        const outbox = state.outbox.enqueue({
          stream: 'documents',
          idempotencyKey: 'documents:INV-1',
          method: 'POST',
          path: '/supplier/documents',
          body: new TextEncoder().encode('{"n":1}'),
        });
        state.ledger.recordCurrent({ flow: 'prices', connector: 'erp', recordKey: 'SKU-1', version: 'A' });
        state.ledger.recordCurrent({ flow: 'prices', connector: 'erp', recordKey: 'SKU-1', version: 'B' });
        state.ledger.recordCurrent({ flow: 'prices', connector: 'erp', recordKey: 'SKU-1', version: 'A' });
        state.deadLetters.add('orders', 'ord_x', { id: 'ord_x' }, 'no customer');
        const deadLetter = state.deadLetters.add('orders', 'ord_1', { id: 'ord_1' }, 'no customer');
        state.hashes.setMany(
          'catalog',
          Array.from({ length: 1200 }, (_, i) => [`SKU-${i}`, `h${i}`] as const),
        );
        state.kv.set('webhooks', 'secrets', ['whsec_kept']);
        state.cursors.save({
          stream: 'orders',
          watermarkMs: 1_780_000_000_000,
          passCursor: null,
          passSince: null,
          passMaxMs: null,
        });
        state.seen.add('orders', 'ord_1', '2026-06-01T08:00:00Z', 1_780_000_000_000);
        const run = state.runs.start('orders', 'schedule');
        state.runs.finish(run, 'ok', { fetched: 1 }, null);
        ids = { outbox: outbox.id, deadLetter: deadLetter.id, run };
      } finally {
        state.close();
      }
    });
    afterAll(async () => {
      await scratch.dropAll();
      rmSync(dir, { recursive: true, force: true });
    });

    const cli = (...args: string[]) => runCli([...args, '--config', configFile]);

    it(
      'copies every table, reports the counts, and the daemon state reads the same from PostgreSQL',
      { timeout: 90_000 },
      async () => {
        const url = await scratch.create('ss_migrate');
        const result = await cli('state', 'migrate', '--to', withPassword(url));
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        for (const line of [
          /inbox\s+1 rows/,
          /outbox\s+1 rows/,
          /ledger\s+2 rows/,
          /hashes\s+1200 rows/,
          /dead_letters\s+2 rows/,
          /runs\s+1 rows/,
          /inbox_pending\s+1 rows/,
          /pull_seen\s+1 rows/,
          /cursors\s+1 rows/,
          /kv\s+1 rows/,
        ])
          expect(result.stdout).toMatch(line);
        expect(result.stdout + result.stderr).not.toContain(PASSWORD);

        // The CLI's own reports read the migrated state once the config names it.
        const pgConfig = join(dir, 'postgres.yaml');
        writeFileSync(
          pgConfig,
          ['api:', '  sandbox: embedded', 'state:', '  url: ${STATE_URL}', ''].join('\n'),
        );
        const cursors = await runCli(['cursor', 'list', '--config', pgConfig], {
          STATE_URL: withPassword(url),
        });
        expect(cursors.stderr).toBe('');
        expect(cursors.stdout).toMatch(/^orders\s+up to 2026-05-28T20:26:40\.000Z/m);

        const pg = openPgStateStore({ url, clock });
        try {
          expect([...(pg.inbox.get('evt_1')?.payload ?? [])]).toEqual([0, 1, 254, 255]);
          // Still waiting for dispatch after the move, as it was in the file.
          expect(pg.inbox.get('evt_1')?.status).toBe('pending');
          expect(pg.inbox.pendingRefs().map((ref) => ref.eventId)).toEqual(['evt_1']);
          expect(new TextDecoder().decode(pg.outbox.get(ids.outbox)?.body ?? new Uint8Array())).toBe(
            '{"n":1}',
          );
          expect(pg.ledger.latest('prices', 'erp', 'SKU-1')?.version).toBe('A');
          expect(pg.deadLetters.get('orders', 'ord_1')?.id).toBe(ids.deadLetter);
          expect(pg.hashes.all('catalog').get('SKU-1199')).toBe('h1199');
          expect(pg.kv.get('webhooks', 'secrets')).toEqual(['whsec_kept']);
          expect(pg.cursors.get('orders')?.watermarkMs).toBe(1_780_000_000_000);
          expect(pg.runs.get(ids.run)?.counts).toEqual({ fetched: 1 });
          // New rows are numbered after the copied ones.
          expect(pg.runs.start('orders', 'cli')).toBeGreaterThan(ids.run);
          const next = pg.outbox.enqueue({
            stream: 's',
            idempotencyKey: 'new',
            method: 'POST',
            path: '/x',
            body: null,
          });
          expect(next.id).toBeGreaterThan(ids.outbox);
        } finally {
          pg.close();
        }
      },
    );

    it(
      'refuses a database that already holds state, and changes nothing there',
      { timeout: 90_000 },
      async () => {
        const url = await scratch.create('ss_migrate_full');
        const pg = openPgStateStore({ url, clock });
        pg.kv.set('other', 'daemon', 1);
        pg.close();
        const result = await cli('state', 'migrate', '--to', withPassword(url));
        expect(result.code).not.toBe(0);
        expect(result.stderr).toMatch(
          /--to: postgres:\/\/.*already holds state \(kv: 1 rows\); migrate into an empty database/,
        );
        expect(result.stderr).not.toMatch(STACK_LINE);
        expect(result.stdout + result.stderr).not.toContain(PASSWORD);
        const after = openPgStateStore({ url, clock });
        try {
          expect(after.hashes.count('catalog')).toBe(0);
        } finally {
          after.close();
        }
      },
    );

    it('refuses while the daemon holds the state file', { timeout: 90_000 }, async () => {
      const url = await scratch.create('ss_migrate_locked');
      const daemon = openStateStore({ file: stateFile, clock });
      try {
        const result = await cli('state', 'migrate', '--to', withPassword(url));
        expect(result.code).not.toBe(0);
        expect(result.stderr).toMatch(
          /in use by another supply-sync daemon.*stop the daemon before migrating/,
        );
        expect(result.stderr).not.toMatch(STACK_LINE);
      } finally {
        daemon.close();
      }
    });

    it(
      'names --to and the address, never the password, when PostgreSQL cannot be reached',
      { timeout: 90_000 },
      async () => {
        const result = await cli(
          'state',
          'migrate',
          '--to',
          `postgres://supply:${PASSWORD}@127.0.0.1:1/state`,
        );
        expect(result.code).not.toBe(0);
        expect(result.stderr).toMatch(
          /^error: --to: cannot use the PostgreSQL state database postgres:\/\/supply@127\.0\.0\.1:1\/state: .*ECONNREFUSED/,
        );
        expect(result.stderr).not.toMatch(STACK_LINE);
        expect(result.stdout + result.stderr).not.toContain(PASSWORD);
      },
    );
  },
);
