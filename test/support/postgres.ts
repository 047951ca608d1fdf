/**
 * The PostgreSQL server of the tests: PG_URL, or postgres://postgres@127.0.0.1:5432/test when it is not set (the
 * server .ci/run starts, and the one a developer's machine usually has). A test that needs it probes it once and
 * skips with the probe's reason ("PostgreSQL not reachable at 127.0.0.1:5432/test: ...") when no server answers;
 * under SUPPLY_SYNC_REQUIRE_SERVICES=1 (CI) that is a failing test instead of a skip.
 */
import pg from 'pg';
import { requireServices, serviceProbe, type ServiceProbe } from '../connectors/services.js';

export type { ServiceProbe };

export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The server the PostgreSQL tests use; an empty PG_URL counts as not set. */
export const PG_URL: string = process.env['PG_URL'] || DEFAULT_PG_URL;

/** Connects to PG_URL once; registers a failing test under SUPPLY_SYNC_REQUIRE_SERVICES=1 when it cannot. */
export async function postgresProbe(): Promise<ServiceProbe> {
  const probe = await serviceProbe('PostgreSQL', PG_URL, async () => {
    const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5_000 });
    await client.connect();
    await client.end();
  });
  requireServices(probe);
  return probe;
}
