/**
 * Bad state.url for the election: each failure is one line naming state.url, where it points and the fix, and the
 * password appears nowhere (errors, status, logs). An unreachable server leaves a standby that says why; a refused
 * login or a missing database stops start(), since waiting cannot fix them.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LEASE_TABLE, LeaseDatabaseError, leaseDatabaseError } from '../../src/ha/index.js';
import { testElectors } from './support/electors.js';
import { createTempDatabase, PG_URL, postgresProbe, withClient } from './support/postgres.js';
import { freePort } from '../support/free-port.js';

const PASSWORD = 'Pw-0f/the:test@secret';
/** As it stands in a URL. */
const ENCODED = encodeURIComponent(PASSWORD);
const probe = await postgresProbe();
const electors = testElectors();

afterEach(async () => {
  await electors.stopAll();
});

/** Listens on `port`; `connected` resolves at the first connection, which is closed at once. */
async function connectionTo(port: number): Promise<{ connected: Promise<void>; close(): Promise<void> }> {
  let connected!: () => void;
  const first = new Promise<void>((resolve) => (connected = resolve));
  const server = net.createServer((socket) => {
    socket.destroy();
    connected();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    connected: first,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function expectNoPassword(...texts: (string | null | undefined)[]): void {
  for (const text of texts) {
    expect(text ?? '').not.toContain(PASSWORD);
    expect(text ?? '').not.toContain(ENCODED);
  }
}

async function startFailure(url: string): Promise<LeaseDatabaseError> {
  const elector = electors.make('bad', url);
  const failure: unknown = await elector.start().then(
    () => new Error('start() resolved'),
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(LeaseDatabaseError);
  expect(elector.isLeader()).toBe(false);
  return failure as LeaseDatabaseError;
}

describe('leader election with a bad state.url', () => {
  it('stays a standby while PostgreSQL is unreachable, and status says why in one line', async () => {
    const port = await freePort();
    const elector = electors.make('lonely', `postgres://supply:${ENCODED}@127.0.0.1:${port}/state`);
    await elector.start();
    const status = elector.status();
    expect(status).toMatchObject({ role: 'standby', instance: 'lonely', leader: null });
    expect(status.lastError).toBe(
      `state.url: cannot reach PostgreSQL at 127.0.0.1:${port}/state (connect ECONNREFUSED 127.0.0.1:${port}); no instance leads until it is back`,
    );
    // Still trying: once something listens on the port, the next poll reaches it (seen by the listener, not
    // assumed after a pause); a server that hangs up is no PostgreSQL, so the elector stays a standby.
    const reached = await connectionTo(port);
    await reached.connected;
    await reached.close();
    expect(elector.status().role).toBe('standby');
    expectNoPassword(status.lastError, elector.status().lastError, ...electors.warnings);
    expect(electors.warnings.join('\n')).toContain('state.url: cannot reach PostgreSQL');
  });

  it('removes the password even when a driver or server message echoes it', () => {
    const url = `postgres://supply:${ENCODED}@db.example.com:6432/state`;
    const echoed = Object.assign(new Error(`bad login for ${url} with ${PASSWORD} / ${ENCODED}`), {
      code: '28P01',
    });
    const failure = leaseDatabaseError(url, echoed);
    expect(failure.message).toBe(
      'state.url: PostgreSQL at db.example.com:6432/state refused the login of user "supply" (bad login for (state.url) with [redacted] / [redacted]); check the user and password in state.url (or its _file) and pg_hba.conf',
    );
  });

  describe.skipIf(!probe.available)(
    `against PostgreSQL${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
    () => {
      const server = new URL(PG_URL);
      const where = `${server.hostname}:${server.port || '5432'}`;

      it('stops start() on a refused login, naming state.url, the user and the fix', async () => {
        const failure = await startFailure(`postgres://no_such_user_ha:${ENCODED}@${where}/test`);
        expect(failure.code).toBe('state_login_refused');
        expect(failure.message).toMatch(
          new RegExp(
            `^state\\.url: PostgreSQL at ${where.replaceAll('.', '\\.')}/test refused the login of user "no_such_user_ha" \\(.+\\); check the user and password in state\\.url`,
          ),
        );
        expect(failure.message).not.toContain('\n');
        expectNoPassword(failure.message, failure.stack, ...electors.warnings);
      });

      it('names the missing permission, and runs with rights on the lease table alone once it exists', async () => {
        const database = await createTempDatabase();
        const role = `ha_limited_${process.pid}`;
        const admin = (sql: string) => withClient(database.url, (client) => client.query(sql));
        await admin(`CREATE ROLE ${role} LOGIN`);
        try {
          const limited = new URL(database.url);
          limited.username = role;
          limited.password = ENCODED;
          // PostgreSQL 15 and later give PUBLIC no CREATE on schema public.
          await admin(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
          const failure = await startFailure(limited.toString());
          expect(failure.code).toBe('state_permission_denied');
          expect(failure.message).toMatch(
            new RegExp(
              `^state\\.url: user "${role}" may not create or update the leader lease table at .+/ss_ha_\\w+ \\(permission denied for schema public\\); grant it`,
            ),
          );
          expectNoPassword(failure.message, ...electors.warnings);

          // An administrator creates the table (here: an instance running as the owner) and grants the rows.
          const owner = electors.make('owner', database.url);
          await owner.start();
          await owner.stop();
          await admin(`GRANT SELECT, INSERT, UPDATE ON ${LEASE_TABLE} TO ${role}`);
          const elector = electors.make('limited', limited.toString());
          await elector.start();
          expect(elector.status()).toMatchObject({
            role: 'leader',
            leader: { instance: 'limited', epoch: 2 },
          });
          await elector.stop();
        } finally {
          await electors.stopAll();
          await database.drop();
          await withClient(PG_URL, (client) => client.query(`DROP ROLE IF EXISTS ${role}`));
        }
      });

      it('stops start() on a missing database', async () => {
        const user = decodeURIComponent(server.username) || 'postgres';
        const failure = await startFailure(`postgres://${user}:${ENCODED}@${where}/no_such_database_ha`);
        expect(failure.code).toBe('state_database_missing');
        expect(failure.message).toMatch(
          /^state\.url: the database at .+\/no_such_database_ha does not exist/,
        );
        expectNoPassword(failure.message, ...electors.warnings);
      });
    },
  );
});
