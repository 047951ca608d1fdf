/**
 * PostgreSQL for the leader election tests: the server of test/support/postgres.ts (PG_URL, with its default),
 * probed once per file, and a throw-away database per test file so that lease rows never meet.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withClient } from '../../support/pg-client.js';
import { PG_URL } from '../../support/postgres.js';

export { PG_URL, postgresProbe } from '../../support/postgres.js';
export { withClient };

export interface TempDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** A new, empty database on the PG_URL server; drop() removes it even with sessions still open. */
export async function createTempDatabase(): Promise<TempDatabase> {
  const name = `ss_ha_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  return withClient(PG_URL, work);
}

/** Resolves when `condition` holds, polling every 25 ms; rejects after `timeoutMs` with `what`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
