/** A throw-away PostgreSQL database for one benchmark, created on the server PG_URL names and dropped after. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ScratchDatabase {
  /** The connection URL of the new database. */
  readonly url: string;
  /** Runs one statement in the new database (schema set-up). */
  run(sql: string): Promise<void>;
  drop(): Promise<void>;
}

async function runOn(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates the database; throws when the server cannot be reached (the caller reports "not measured"). */
export async function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const serverUrl = process.env['PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`;
  await runOn(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    run: (sql) => runOn(url.toString(), sql),
    drop: () => runOn(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
