/** A table locked by another program must fail our statement in bounded time, as a retryable error. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../../src/connector-contract/index.js';
import { PgDriver } from '../../src/kit/sql/pg-driver.js';
import { requireServices, serviceProbe } from './services.js';

const url = process.env['PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ss_lock_${process.pid}_${randomBytes(4).toString('hex')}`;

const probe = await serviceProbe('PostgreSQL', url, async () => {
  const admin = new PgDriver({ url, poolSize: 1 });
  try {
    await admin.query('SELECT 1 AS ok');
  } finally {
    await admin.close();
  }
});
requireServices(probe);

describe.skipIf(!probe.available)(
  `PostgreSQL lock timeout${probe.available ? '' : ` (${probe.reason})`}`,
  () => {
    it('gives up on a locked table with a retryable error instead of waiting for ever', async () => {
      const admin = new PgDriver({ url, poolSize: 2 });
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.query(`CREATE TABLE ${schema}.journal (id integer PRIMARY KEY)`);
      const ours = new PgDriver({ url, schema, lockTimeoutMs: 300 });
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      try {
        const holder = admin.transaction(async (tx) => {
          await tx.query(`LOCK TABLE ${schema}.journal IN ACCESS EXCLUSIVE MODE`);
          await released;
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        const error: unknown = await ours.query('INSERT INTO journal (id) VALUES (:id)', { id: 1 }).then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(ConnectorError);
        expect((error as ConnectorError).retryable).toBe(true);
        release();
        await holder;
      } finally {
        release();
        await ours.close();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.close();
      }
    });
  },
);
