/**
 * One PostgreSQL session for a piece of work, opened and closed around it: for tests and for benchmarks, so it
 * imports nothing of the test runner.
 */
import pg from 'pg';

/** Runs `work` on a fresh session of `url` and closes it. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
