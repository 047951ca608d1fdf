/** The election's own PostgreSQL session: statements given while a transaction is open wait for it to end. */
import { describe, expect, it } from 'vitest';
import { LeaseConnection } from '../../src/ha/lease-connection.js';
import { createTempDatabase, postgresProbe, withClient } from './support/postgres.js';

const probe = await postgresProbe();

describe.skipIf(!probe.available)(
  `the lease connection${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    it('never runs a statement inside another caller’s transaction, which rolls back without it', async () => {
      const db = await createTempDatabase();
      const connection = new LeaseConnection({
        url: db.url,
        timeoutMs: 5_000,
        applicationName: 'supply-sync-test',
        onRelease: () => undefined,
      });
      try {
        await withClient(db.url, (client) => client.query('CREATE TABLE marks (x int)'));
        const failing = connection
          .transaction(['INSERT INTO marks VALUES (1)', 'SELECT pg_sleep(0.1)', 'SELECT 1/0'])
          .then(
            () => 'committed',
            () => 'rolled back',
          );
        // A heartbeat given while the transaction is under way.
        const heartbeat = connection.query('INSERT INTO marks VALUES (2)');
        expect(await failing).toBe('rolled back');
        await heartbeat;
        const { rows } = await withClient(db.url, (client) =>
          client.query<{ x: number }>('SELECT x FROM marks'),
        );
        expect(rows.map((row) => row.x)).toEqual([2]);
      } finally {
        await connection.close();
        await db.drop();
      }
    });
  },
);
